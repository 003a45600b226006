"""Vector env speed (`kdenv bench vector`): decisions/s of many games stepped at once, on one core.

Every figure is one process stepping :class:`kdenv.vector.VectorEnv` with uniformly random legal actions
(drawn by the compiled ``agents.batched.random_moves.random_actions`` from the masks, batched, and counted in the
time): with observations and masks, with the gains as well (``gains=True``), and with masks alone
(``observations=False``), for 2, 3 and 4 players and Mighty Duel at ``num_envs`` 1, 64 and 256. Then the
learner's view (:class:`training.envs.one_learner.OneLearnerVectorEnv`, 256 games) against 3 ``random`` and 3 ``fg``, in
learner steps/s, with and without gains. In the same run, the reference: the AEC env
(``kdenv.kingdomino_v0.raw_env``) stepped the same way, one decision at a time, and the ratio of the vector env's
4-player figure to it. Rates are per CPU second of this process
(per wall second in brackets), which stays meaningful on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from agents.batched.random_moves import random_actions
from kdenv.batched.rng import draw_states
from kdenv.kingdomino_v0 import raw_env
from kdenv.rules import Rules
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv

KINDS = {"obs+masks ": {}, "obs+gains ": {"gains": True}, "masks only": {"observations": False}}
"""What each figure observes: the VectorEnv keywords of each kind."""

TABLES: dict[str, tuple[int, Rules]] = {
    "2 players": (2, Rules()),
    "3 players": (3, Rules()),
    "4 players": (4, Rules(middle_kingdom=True, harmony=True)),
    "Mighty Duel": (2, Rules(kingdom_size=7)),
}


def timed(step: Callable[[], int], seconds: float) -> tuple[float, float]:
    """(per CPU second, per wall second) rates of ``step`` (which returns the decisions it made) over ``seconds``."""
    step()  # compile, or load numba's cache, before timing
    count, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        count += step()
    return count / max(time.process_time() - cpu, 1e-9), count / (time.perf_counter() - start)


def vector_rate(num_players: int, rules: Rules, num_envs: int, kind: dict, seconds: float) -> tuple:
    """Decisions/s of the vector env observing ``kind`` (its keywords) with random legal actions."""
    venv = VectorEnv(num_envs, num_players, rules=rules, copy=False, **kind)
    venv.reset(seed=0)
    actions, draws = np.zeros(num_envs, np.int64), draw_states(np.random.default_rng(0), num_envs)

    def step() -> int:
        random_actions(venv.observation()["action_mask"], actions, draws)
        venv.step(actions)
        return num_envs

    return timed(step, seconds)


def learner_rate(opponent: str, num_envs: int, gains: bool, seconds: float) -> tuple:
    """Learner steps/s of the learner's view against three ``opponent`` at the study's table."""
    venv = OneLearnerVectorEnv(
        num_envs, 4, opponents=[opponent] * 3, middle_kingdom=True, harmony=True, gains=gains, copy=False
    )
    venv.reset(seed=0)
    actions, draws = np.zeros(num_envs, np.int64), draw_states(np.random.default_rng(0), num_envs)

    def step() -> int:
        random_actions(venv.env.observation()["action_mask"], actions, draws)
        venv.step(actions)
        return num_envs

    return timed(step, seconds)


def aec_rate(num_players: int, rules: Rules, seconds: float) -> tuple:
    """Decisions/s of the AEC env with random legal actions from its masks, one decision a call."""
    env = raw_env(num_players, rules=rules)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def step() -> int:
        for _ in range(100):
            observation, _, terminated, _, _ = env.last()
            if terminated:
                env.reset()
                observation, *_ = env.last()
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        return 100

    return timed(step, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench vector", description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per figure (default 2)")
    parser.add_argument("--short", action="store_true", help="4 players and 64 games only (a quick check)")
    args = parser.parse_args(argv)
    sizes = (64,) if args.short else (1, 64, 256)
    tables = {"4 players": TABLES["4 players"]} if args.short else TABLES
    best = 0.0
    for name, (players, rules) in tables.items():
        for kind, keywords in KINDS.items():
            for size in sizes:
                cpu, wall = vector_rate(players, rules, size, keywords, args.seconds)
                print(f"vector {name:11} {kind} num_envs={size:3}: {cpu:9,.0f} decisions/s ({wall:,.0f} wall)")
                if name == "4 players" and not keywords:
                    best = max(best, cpu)
    for opponent in ("random", "fg"):
        for gains in (False, True):
            cpu, wall = learner_rate(opponent, sizes[-1], gains, args.seconds)
            label = f"vs 3 {opponent:6}{' +gains' if gains else ''}"
            print(f"learner view {label:18} num_envs={sizes[-1]}: {cpu:9,.0f} learner steps/s ({wall:,.0f} wall)")
    players, rules = TABLES["4 players"]
    cpu, wall = aec_rate(players, rules, args.seconds)
    print(f"AEC env (raw_env) 4 players obs+masks: {cpu:9,.0f} decisions/s ({wall:,.0f} wall)")
    print(f"ratio vector (4 players, obs+masks, best num_envs) / AEC: {best / cpu:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
