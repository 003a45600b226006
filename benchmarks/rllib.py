"""RLlib against Stable-Baselines3 (`kdenv bench rllib`): learner steps/s of RLlib's PPO on the vector env and on
the PettingZoo env, and of MaskablePPO on the vector env, in one run against three ``fg`` at the study table.

The three learn with the same PPO sizes (``--batch`` decisions an update, ``--minibatch``, ``--epochs``) and the
same network (16 channels x 2 blocks, hidden 128, gains observed); a rate is decisions sampled per second of
sampling and updating together, after an untimed first update (compiling, Ray's start). RLlib plays its games in
``--runners`` env runners (Ray actors) of ``--envs`` games each, its learner in this process; SB3 plays ``--envs``
games in this process. The last line is ``rllib/sb3 = X.XX``, RLlib on the vector env over SB3.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from benchmarks.train import measure
from training.backends.ray_backend import connected
from training.rllib.config import rllib_config
from training.rllib.train import algorithm_config, iteration_metrics, validated


def rllib_rate(env: str, args: argparse.Namespace) -> float:
    """RLlib's learner decisions per second over ``args.iterations`` timed iterations on ``env``."""
    config = rllib_config(
        {
            "backend": "rllib",
            "env": {"num_players": 4, "rules": "middle_kingdom,harmony", "reward": "rank", "gains": True},
            "network": {"channels": 16, "blocks": 2, "hidden": 128},
            "rllib": {
                "env": env, "opponents": ["fg"] * 3, "env_runners": args.runners, "envs_per_runner": args.envs,
                "train_batch_size": args.batch, "minibatch_size": args.minibatch, "epochs": args.epochs,
            },
            "eval": {"games": 0},
        }
    )  # fmt: skip
    algo: Any = validated(algorithm_config(config)).build_algo()
    try:
        algo.train()  # untimed: the env runners start, the module compiles
        steps = seconds = 0.0
        for _ in range(args.iterations):
            started = time.monotonic()
            result = algo.train()
            took = time.monotonic() - started
            seconds += took
            steps += iteration_metrics(result, took)["steps_per_s"] * took
        return steps / seconds
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench rllib", description=__doc__)
    parser.add_argument("--iterations", type=int, default=3, help="timed RLlib iterations on each env (default 3)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of timed SB3 learning (default 60)")
    parser.add_argument("--runners", type=int, default=1, help="RLlib env runners (default 1)")
    parser.add_argument("--envs", type=int, default=64, help="games each env runner, and SB3, steps (default 64)")
    parser.add_argument("--batch", type=int, default=4096, help="decisions an update (default 4096)")
    parser.add_argument("--minibatch", type=int, default=1024, help="PPO minibatch (default 1024)")
    parser.add_argument("--epochs", type=int, default=2, help="PPO epochs an update (default 2)")
    args = parser.parse_args(argv)
    print(f"against 3 fg, 4 players, study rules; batch {args.batch}, minibatch {args.minibatch}, {args.epochs} "
          f"epochs; RLlib: {args.runners} env runner(s) x {args.envs} games; load {os.getloadavg()[0]:.2f}",
          flush=True)  # fmt: skip
    n_steps = max(1, args.batch // args.envs)  # SB3 first: after RLlib's learner in this process, it ran slower
    sb3 = measure("fg", args.seconds, 16, 2, 128, args.envs, n_steps, args.minibatch, args.epochs, 2, gains=True)
    print(f"SB3 MaskablePPO on the vector env: {sb3['steps/s']:,.0f} learner steps/s", flush=True)
    rates = {}
    with connected(cpus=os.cpu_count()):
        for env in ("vector", "pettingzoo"):
            rates[env] = rllib_rate(env, args)
            print(f"RLlib on the {env} env: {rates[env]:,.0f} learner steps/s", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")
    print(f"rllib(pettingzoo)/sb3 = {rates['pettingzoo'] / sb3['steps/s']:.2f}")
    print(f"rllib/sb3 = {rates['vector'] / sb3['steps/s']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
