"""Playout speed (`kdenv bench playouts`): random and Full-Greedy playouts from the first round.

As in the study: 4 players, Middle Kingdom and Harmony, one core. Each playout starts from a new
game whose set-up picks are made (random), plays it to the end, all players random or all Full
Greedy, and scores it. ``random`` and ``fg`` are what the search players run: the compiled kernel,
timed from taking its snapshot of the game (each playout shuffles the unseen dominoes). The
``engine`` rows are the pure-Python reference (``agents.playout.play_out`` on a ``determinize``
copy). The study's Java figures beside ours: benchmarks/RESULTS.md, section "Playout speed".
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import cast

from agents.greedy import FullGreedy
from agents.playout import PlayoutPolicy, Snapshot, play_out, seat_policies
from kdenv.game import PICK, Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView

STUDY_FIGURES = {"random": 5148, "fg": 29}


def first_round(seed: int) -> PublicView:
    """A 4-player study game right after the set-up picks (made at random)."""
    game = Game(4, STUDY_RULES, seed)
    rng = random.Random(seed)
    while game.round == 0 and game.phase == PICK:
        actions = game.legal_actions()
        game.step(actions[rng.randrange(len(actions))])
    return PublicView(game)


def _playout(policy: str, fg: FullGreedy) -> Callable[[PublicView, random.Random], object]:
    """One scored playout of ``policy`` from a view (see the module docstring)."""
    text, _, engine = policy.partition(" ")
    name = cast(PlayoutPolicy, text)  # one of the benchmark's own names
    if engine:
        return lambda view, rng: play_out(view.determinize(rng), name, 0, rng, fg).scores()
    policies, epsilon = seat_policies(name, 4, 0)
    return lambda view, rng: Snapshot(view).playout(rng, policies, epsilon)


def playouts_per_second(policy: str, seconds: float, seed: int = 0) -> tuple[int, float, float]:
    """(playouts, wall seconds, CPU seconds) of ``policy`` playouts from first-round states for about
    ``seconds`` (CPU time tells the speed of one core when the machine is shared)."""
    rng = random.Random(seed)
    playout = _playout(policy, FullGreedy())
    playout(first_round(seed), rng)  # compiles the kernel (or loads it from numba's cache) before timing
    count, wall, cpu = 0, 0.0, 0.0
    while wall < seconds:
        view = first_round(seed + count)  # a new deal each time: no decision is met twice
        w, c = time.perf_counter(), time.process_time()
        playout(view, rng)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        count += 1
    return count, wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench playouts", description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per policy (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the starting games and playouts")
    args = parser.parse_args(argv)
    for policy in ("random", "fg", "random (engine)", "fg (engine)"):
        count, wall, cpu = playouts_per_second(policy, args.seconds, args.seed)
        study = STUDY_FIGURES[policy.split()[0]]
        print(
            f"{policy:>15} playouts/s from the first round: {count / cpu:8.1f} per CPU second, "
            f"{count / wall:8.1f} per wall second ({count} playouts; study's Java: {study:,})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
