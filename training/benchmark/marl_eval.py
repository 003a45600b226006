"""A grid's evaluations in marl-eval's layout (``DIR/marl_eval.json``), so that marl-eval's tools, and BenchMARL's
plots through them, read a kdenv grid: environment (``kingdomino``) -> task (the protocol) -> algorithm -> run
(``run_SEED``) -> step (``step_I``, in step order), each step its ``step_count`` and, per evaluation game, the
agent's ``win_rate`` (its win share), ``margin`` and ``normalized`` score; ``absolute_metrics`` repeats the run's
last step, as marl-eval reads a run's final figures there."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from training.arena.evaluation import FILE, read
from training.arena.paired import seat_results
from training.arena.protocols import get_protocol

ENVIRONMENT = "kingdomino"
GAMES = "games.jsonl"  # a point's games, whose every game the layout lists


def marl_eval(folder: Path, points: Iterable[tuple[str, str, int, int]]) -> dict:
    """The evaluations under ``folder`` at ``points`` (algorithm, task, seed, step) in marl-eval's layout, every
    game of each."""
    steps: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for algorithm, task, seed, step in points:
        steps[task, algorithm, seed].append(step)
    tasks: dict = {}
    for (task, algorithm, seed), reached in sorted(steps.items()):
        run = {
            f"step_{i}": {"step_count": step, **_games(folder / algorithm / task / f"seed-{seed}" / f"step-{step}")}
            for i, step in enumerate(sorted(reached))
        }
        run["absolute_metrics"] = {k: v for k, v in run[f"step_{len(reached) - 1}"].items() if k != "step_count"}
        tasks.setdefault(task, {}).setdefault(algorithm, {})[f"run_{seed}"] = run
    return {ENVIRONMENT: tasks}


def _games(point: Path) -> dict[str, list[float]]:
    """The metrics of each evaluation game of the point folder ``point``, in its games.jsonl's order."""
    evaluation = read(point / FILE)
    anchors = get_protocol(evaluation.protocol).anchors
    results = list(seat_results(point / GAMES, evaluation.spec))
    return {
        "win_rate": [win for _, win, _, _ in results],
        "margin": [float(margin) for _, _, margin, _ in results],
        "normalized": [anchors.normalize(margin) for _, _, margin, _ in results],
    }
