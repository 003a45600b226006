"""Env speed against a fixed yardstick, in one run on one core: the one-game envs outside code steps, each as a
multiple of PettingZoo's ``connect_four_v3`` stepped by the same loop.

Every loop takes a uniformly random legal action from the mask at each decision (``random.choice`` over
``np.flatnonzero``), the clock over everything (observations, masks, resets). Figures, each the median of
``--repeats`` runs that alternate with connect_four's, its multiple the median of each run's ratio to the
connect_four run beside it:

* the AEC env, ``kingdomino_v0.env()``, at 2 players 7x7 (Mighty Duel) and at 4 players with the study's rules
  (Middle Kingdom and Harmony): ``last()`` and ``step()`` every decision, decisions/s;
* the Gymnasium view, ``gymnasium.make("kdenv/Kingdomino-v0")``, at 2 players 7x7 against random opponents:
  ``action_masks()`` and ``step()``, learner decisions/s;
* PettingZoo's own ``pettingzoo.test.performance_benchmark`` (5 s each, its turns/s) on the AEC env at 4 players
  with the study's rules and on connect_four.

The load average is printed before and after: on a shared machine the figures mean little above one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from kdenv.errors import KingdominoError

NAMES = ("aec-2p-7x7", "aec-4p-study", "view-2p-7x7", "pb-4p-study")  # the measures, in the order they run
TARGETS = {"aec-2p-7x7": 4.4, "view-2p-7x7": 3.0, "pb-4p-study": 5.0}  # multiples of connect_four to reach


def aec_rate(make: Callable[[], Any], seconds: float) -> float:
    """Decisions/s of the AEC env ``make()`` under random legal actions, whole games until ``seconds`` have passed."""
    env = make()
    env.reset(seed=0)
    decisions, start = 0, time.perf_counter()
    while True:
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = random.choice(np.flatnonzero(observation["action_mask"]).tolist())
                decisions += 1
            env.step(action)
        if time.perf_counter() - start > seconds:
            return decisions / (time.perf_counter() - start)
        env.reset()


def view_rate(make: Callable[[], Any], seconds: float) -> float:
    """Learner decisions/s of the Gymnasium view ``make()`` under random legal actions, as :func:`aec_rate`."""
    env = make()
    env.reset(seed=0)
    masks = env.unwrapped.action_masks
    decisions, start = 0, time.perf_counter()
    while True:
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(random.choice(np.flatnonzero(masks()).tolist()))
            decisions += 1
            done = terminated or truncated
        if time.perf_counter() - start > seconds:
            return decisions / (time.perf_counter() - start)
        env.reset()


def benchmark_rate(make: Callable[[], Any], seconds: float) -> float:
    """The turns/s that ``pettingzoo.test.performance_benchmark`` reports for ``make()`` (it runs 5 s, whatever
    ``seconds`` says)."""
    from pettingzoo.test import performance_benchmark

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(make())
    return float(next(line for line in out.getvalue().splitlines() if line.endswith("turns per second")).split()[0])


def measures() -> dict[str, tuple[str, Callable, Callable, Callable]]:
    """Each measure: (what it is, how it is timed, the env it times, how connect_four is timed beside it: the AEC
    loop, but for PettingZoo's benchmark)."""
    import gymnasium

    import kdenv  # noqa: F401  (registers kdenv/Kingdomino-v0)
    from kdenv.kingdomino_v0 import env

    return {
        "aec-2p-7x7": ("AEC env() 2 players 7x7", aec_rate, lambda: env(num_players=2, kingdom_size=7), aec_rate),
        "aec-4p-study": ("AEC env() 4 players middle_kingdom,harmony", aec_rate,
                         lambda: env(num_players=4, middle_kingdom=True, harmony=True), aec_rate),
        "view-2p-7x7": ("Gymnasium view 2 players 7x7 vs random (learner decisions)", view_rate,
                        lambda: gymnasium.make("kdenv/Kingdomino-v0", num_players=2, kingdom_size=7), aec_rate),
        "pb-4p-study": ("performance_benchmark 4 players middle_kingdom,harmony (turns)", benchmark_rate,
                        lambda: env(num_players=4, middle_kingdom=True, harmony=True), benchmark_rate),
    }  # fmt: skip


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(args: argparse.Namespace) -> None:
    """Run the chosen measures beside connect_four and print their figures."""
    from pettingzoo.classic import connect_four_v3

    print(f"load average {load()} (before)")
    chosen = {k: v for k, v in measures().items() if args.only is None or k in args.only}
    random.seed(0)
    for name, (what, timed, ours, timed_base) in chosen.items():
        if timed is not benchmark_rate:
            timed(ours, min(args.seconds, 0.2))  # compile or load the core, warm the caches
        figures, ratios, bases = [], [], []
        for r in range(args.repeats):
            pair = [(timed, ours), (timed_base, connect_four_v3.env)]
            done = [t(m, args.seconds) for t, m in (pair if r % 2 == 0 else pair[::-1])]
            figure, base = done if r % 2 == 0 else done[::-1]
            figures.append(figure)
            bases.append(base)
            ratios.append(figure / base)
        target = f" (target >= {TARGETS[name]}x)" if name in TARGETS else ""
        print(f"connect_four_v3 {'performance_benchmark' if timed_base is benchmark_rate else 'same loop'} beside "
              f"{name}: {statistics.median(bases):9,.0f}/s")  # fmt: skip
        print(f"{what}: {statistics.median(figures):9,.0f}/s = {statistics.median(ratios):.2f}x connect_four_v3"
              f" (runs {', '.join(f'{x:.2f}' for x in ratios)}){target}")  # fmt: skip
    print(f"load average {load()} (after)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench env", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds a loop runs (default 3)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of each measure, beside connect_four's (default 3)"
    )
    parser.add_argument("--cpu", type=int, default=None, help="the core to run on (default: the first allowed)")
    parser.add_argument("--only", nargs="+", choices=NAMES, default=None, help="measures to run (default all)")
    args = parser.parse_args(argv)
    try:
        import pygame  # noqa: F401  (connect_four_v3 imports it)
    except ImportError:
        raise KingdominoError("connect_four_v3 needs pygame: pip install -e '.[bench]'") from None
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
    if allowed is not None:
        cpu = args.cpu if args.cpu is not None else min(allowed)
        os.sched_setaffinity(0, {cpu})
        print(f"on core {cpu}")
    try:
        run(args)
    finally:
        if allowed is not None:
            os.sched_setaffinity(0, allowed)  # as it was (a test runs this in its own process)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
