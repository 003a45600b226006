"""One game with observations, side by side on one core: the AEC env (the engine and the Python encoder) against the
vector env with one game (the compiled core), random legal moves, decisions per CPU second of this process, the two
alternating (issue 24: should the AEC env step on the core?). ``python benchmarks/aec_vs_core.py --seconds 5``."""

from __future__ import annotations

import argparse
import time

import numpy as np

from kdenv.kingdomino_v0 import raw_env
from kdenv.rules import Rules
from kdenv.vector import VectorEnv

TABLES = {"2 players 7x7": (2, Rules(kingdom_size=7)), "4 players": (4, Rules())}


def aec_rate(players: int, rules: Rules, seconds: float) -> float:
    """Decisions/s of ``raw_env``: ``last()`` (the observation and mask) and ``step()``, a new game at each end."""
    env = raw_env(players, rules=rules)
    env.reset(seed=0)
    rng, count, start = np.random.default_rng(0), 0, time.process_time()
    while time.process_time() - start < seconds:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        count += 1
    return count / (time.process_time() - start)


def vector_rate(players: int, rules: Rules, seconds: float) -> float:
    """Decisions/s of ``VectorEnv(1)``: ``step()`` (observation and mask of the next decision), autoreset."""
    venv = VectorEnv(1, players, rules=rules)
    obs, _ = venv.reset(seed=0)
    rng, count, start = np.random.default_rng(0), 0, time.process_time()
    while time.process_time() - start < seconds:
        legal = np.flatnonzero(obs["action_mask"][0])
        obs, *_ = venv.step(np.array([legal[rng.integers(legal.size)]]))
        count += 1
    return count / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per run (default 5)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, alternating (default 3)")
    args = parser.parse_args(argv)
    for players, rules in TABLES.values():
        vector_rate(players, rules, 0.5)  # the core compiles (or loads from numba's cache) first
    for r in range(args.repeats):
        for name, (players, rules) in TABLES.items():
            runs = [("aec", aec_rate), ("vector(1)", vector_rate)]
            for kind, rate in runs if r % 2 == 0 else runs[::-1]:
                print(f"run {r} {name} {kind}: {rate(players, rules, args.seconds):7.0f} decisions/s per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
