"""Training speed (`kdenv bench train`): MaskablePPO learner steps/s on the vector env, and where the time goes.

One MaskablePPO run on :class:`training.ppo.vec_env.SB3VecEnv` (4 players, study rules), the learner
against three copies of ``--opponents``, for ``--seconds`` of learning. It prints learner steps/s and the
share of the time spent in the env (stepping the games, observing), in the opponents (compiled or batched
moves), in the policy's forward pass while collecting rollouts, and in the PPO update. Network and PPO
sizes, and the learner's torch device, are options, so that choices can be compared in one run each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from agents.policy_network import KingdomPolicy, policy_kwargs
from kdenv.rules import STUDY_RULES
from training.ppo.vec_env import SB3VecEnv
from training.runs.config import check_device


class _Clock:
    """Seconds spent in each named part, by wrapping the methods that do it."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, name: str, part: str) -> None:
        method: Callable = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - start

        setattr(owner, name, timed)


class _Deadline(BaseCallback):
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def _on_training_start(self) -> None:
        self.end = time.monotonic() + self.seconds

    def _on_step(self) -> bool:
        return time.monotonic() < self.end


def measure(
    opponents: str, seconds: float, channels: int, blocks: int, hidden: int, n_envs: int, n_steps: int,
    batch_size: int, epochs: int, threads: int, gains: bool = False, device: str = "cpu",
) -> dict[str, float]:  # fmt: skip
    """Learner steps/s and the seconds spent in each part of one timed run."""
    torch.set_num_threads(threads)
    env = SB3VecEnv(n_envs, num_players=4, opponents=[opponents] * 3, rules=STUDY_RULES, gains=gains)
    env.seed(0)
    model = MaskablePPO(
        KingdomPolicy, env, n_steps=n_steps, batch_size=batch_size, n_epochs=epochs, seed=0, verbose=0,
        policy_kwargs=policy_kwargs(channels, blocks, hidden), device=device,
    )  # fmt: skip
    clock = _Clock()
    clock.wrap(env, "step_wait", "env")
    clock.wrap(env.venv, "_run_opponents", "opponents")
    clock.wrap(model.policy, "forward", "forward")
    clock.wrap(model, "train", "update")
    model.learn(n_envs * n_steps, callback=_Deadline(1e9))  # compile and warm up, untimed
    clock.seconds.clear()
    start, steps = time.perf_counter(), model.num_timesteps
    model.learn(10**9, callback=_Deadline(seconds), reset_num_timesteps=False)
    wall = time.perf_counter() - start
    parts = dict(clock.seconds)
    parts["env"] -= parts.get("opponents", 0.0)
    parameters = sum(p.numel() for p in model.policy.parameters())
    return {"steps/s": (model.num_timesteps - steps) / wall, "wall": wall, "parameters": parameters, **parts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench train", description=__doc__)
    parser.add_argument("--opponents", default="fg", help="the three opponents' spec (default fg)")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of timed learning (default 60)")
    parser.add_argument("--channels", type=int, default=16, help="network: convolution channels (default 16)")
    parser.add_argument("--blocks", type=int, default=2, help="network: residual blocks (default 2)")
    parser.add_argument("--hidden", type=int, default=128, help="network: vector trunk width (default 128)")
    parser.add_argument("--n-envs", type=int, default=128, help="games in the vector env (default 128)")
    parser.add_argument("--n-steps", type=int, default=32, help="steps per game per rollout (default 32)")
    parser.add_argument("--batch-size", type=int, default=1024, help="PPO minibatch (default 1024)")
    parser.add_argument("--epochs", type=int, default=2, help="PPO epochs per rollout (default 2)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1, as kdenv train's)")
    parser.add_argument("--gains", action="store_true", help="observations with gains (as configs/selfplay.yaml)")
    parser.add_argument("--device", default="cpu", help="the learner's torch device (default cpu; cuda where one is)")
    parser.add_argument(
        "--beside",
        type=int,
        default=0,
        metavar="K",
        help="also run K copies side by side, after one alone: each one's share of the lone speed",
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a copy's figures, for --beside
    args = parser.parse_args(argv)
    check_device(args.device, "--device", "option")  # one line, before any work
    if args.beside:
        return side_by_side([a for a in (argv if argv is not None else sys.argv[1:]) if a != "--json"], args.beside)
    result = measure(
        args.opponents, args.seconds, args.channels, args.blocks, args.hidden, args.n_envs, args.n_steps,
        args.batch_size, args.epochs, args.threads, args.gains, args.device,
    )  # fmt: skip
    if args.json:
        print(json.dumps(result))
        return 0
    wall = result["wall"]
    shares = ", ".join(
        f"{part} {result.get(part, 0.0) / wall:.0%}" for part in ("env", "opponents", "forward", "update")
    )
    other = 1 - sum(result.get(part, 0.0) for part in ("env", "opponents", "forward", "update")) / wall
    print(
        f"network {args.channels} channels x {args.blocks} blocks, hidden {args.hidden} ({result['parameters']:,} "
        f"parameters); {args.n_envs} games x {args.n_steps} steps, batch {args.batch_size}, {args.epochs} epochs, "
        f"{args.threads} threads{', gains' if args.gains else ''}, learner on {args.device}"
    )
    print(f"learner steps/s vs 3 {args.opponents}: {result['steps/s']:,.0f} ({shares}, other {other:.0%})")
    return 0


def side_by_side(argv: list[str], beside: int) -> int:
    """One run alone, then ``beside`` + 1 started together, each a process of its own with the same options (and its
    default threads): each one's learner steps/s as a share of the lone run's, measured in this invocation."""
    command = [sys.executable, "-m", "benchmarks.train", *_without_beside(argv), "--json"]

    def rates(copies: int) -> list[float]:
        runs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(copies)]
        outs = [run.communicate()[0] for run in runs]
        if any(run.returncode for run in runs):
            raise SystemExit(f"kdenv bench train: a copy failed (exit {[run.returncode for run in runs]})")
        return [json.loads(out.strip().splitlines()[-1])["steps/s"] for out in outs]

    (alone,) = rates(1)
    together = rates(beside + 1)
    shares = ", ".join(f"{rate:,.0f} ({rate / alone:.2f}x)" for rate in together)
    print(f"learner steps/s alone: {alone:,.0f}; {beside + 1} side by side: {shares}; "
          f"together {sum(together) / alone:.2f}x the lone run ({os.cpu_count()} cores)")  # fmt: skip
    return 0


def _without_beside(argv: list[str]) -> list[str]:
    """``argv`` less its ``--beside K`` (or ``--beside=K``)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--beside":
            skip = True
        elif not arg.startswith("--beside="):
            out.append(arg)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
