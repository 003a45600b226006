"""The field's statistics over learning runs (Agarwal et al., *Deep RL at the Edge of the Statistical Precipice*,
NeurIPS 2021, through its ``rliable`` library), from a folder of ``kdenv evaluate`` files.

The folder holds one ``evaluation.json`` per algorithm, task (a protocol), seed and step, at
``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json`` (what ``kdenv benchmark`` writes, or ``kdenv evaluate --out``
by hand). A run's score on a task is its normalized score by default (its mean margin between the protocol's
``random``, 0, and ``fg``, 1: :class:`~training.arena.protocols.Anchors`), or its win rate against the protocol's
opponents (``metric``), the other beside it, and the games it forfeited. For each task that every
algorithm was evaluated on, and over those tasks, :func:`summarize` gives at the last step every algorithm has
reached:

- the interquartile mean (IQM) and the mean over runs, with 95% stratified bootstrap CIs;
- the IQM at every step (the sample-efficiency curve) with its CI band;
- the performance profile (the share of runs above each score);
- the probability that each algorithm does better than each other.

The runs that the folder lacks (an interrupted grid, algorithms evaluated on other tasks) are left out and said,
one line each (:func:`gaps`). The bootstrap is seeded, so the same folder gives the same ``summary.json``.
"""

from __future__ import annotations

import itertools
import json
import re
import warnings
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.options import shown
from kdenv.checks import integer
from kdenv.errors import KingdominoError
from training.arena.evaluation import FILE, read
from training.arena.protocols import get_protocol

PLACE = re.compile(r"^seed-(\d{1,10})/step-(\d{1,11})$")  # a grid's seeds and steps (training.benchmark.config)
REPS = 2000  # bootstrap resamples: the CI bounds move by well under a point of win rate between seeds of it
METRICS = ("normalized", "win_rate")  # what a run scores: the first by default
PROFILE_POINTS = 41  # scores of the performance profiles, from the lowest (or 0) to the highest (or 1)


class BenchmarkError(KingdominoError):
    """A folder of evaluations that cannot be summarized."""


@dataclass(frozen=True)
class Point:
    """One evaluation: an algorithm's run (seed) on a task, at a step."""

    algorithm: str
    task: str
    seed: int
    step: int
    normalized: float
    win_rate: float
    forfeits: int

    def score(self, metric: str) -> float:
        """The point's ``metric`` (one of :data:`METRICS`)."""
        return self.normalized if metric == "normalized" else self.win_rate


def collect(folder: Path) -> list[Point]:
    """Every ``evaluation.json`` under ``folder`` in its place of the layout; a one-line error for a misplaced
    one, or one whose protocol is not the task its folder names."""
    points = []
    for path in sorted(folder.rglob(FILE)):
        parts = path.relative_to(folder).parts
        place = PLACE.match("/".join(parts[2:4])) if len(parts) == 5 else None
        if place is None:
            raise BenchmarkError(
                f"{path} is not at ALGORITHM/TASK/seed-S/step-N/{FILE} under {folder} (S and N: whole numbers of at "
                "most 10 and 11 digits)"
            )
        evaluation = read(path)
        if evaluation.protocol != parts[1]:
            raise BenchmarkError(
                f"{path} evaluates protocol {shown(evaluation.protocol)}, not its folder's {parts[1]!r}"
            )
        protocol = get_protocol(evaluation.protocol)
        if evaluation.protocol_version != protocol.version:  # another version's anchors
            version = f"{protocol.name} v{evaluation.protocol_version}"
            raise BenchmarkError(f"{path} evaluates {version}, not {protocol.title}: its anchors are another's")
        normalized = protocol.anchors.normalize(evaluation.margin)
        where = (parts[0], parts[1], int(place[1]), int(place[2]))
        points.append(Point(*where, normalized, evaluation.win_rate, evaluation.forfeits.games))
    if not points:
        raise BenchmarkError(f"no {FILE} under {folder}; run kdenv benchmark, or kdenv evaluate --out into it")
    return points


class Runs:
    """A folder's evaluations by (algorithm, task), then step, then seed: the score matrices rliable takes."""

    def __init__(self, points: list[Point]) -> None:
        self.algorithms = sorted({p.algorithm for p in points})
        self.at: dict[tuple[str, str], dict[int, dict[int, Point]]] = defaultdict(dict)
        for p in points:
            self.at[p.algorithm, p.task].setdefault(p.step, {})[p.seed] = p

    def scores(self, metric: str) -> dict[tuple[str, str], dict[int, dict[int, float]]]:
        """(algorithm, task) -> step -> {seed: its ``metric``}."""
        return {key: {step: {s: p.score(metric) for s, p in runs.items()} for step, runs in by.items()}
                for key, by in self.at.items()}  # fmt: skip

    def latest(self, algorithm: str, task: str, step: int) -> dict[int, Point]:
        """Each run's latest evaluation at or before ``step``, by seed."""
        by_step = self.at[algorithm, task]
        return by_step[max(s for s in by_step if s <= step)]

    def matrix(self, algorithm: str, tasks: list[str], step: int, metric: str) -> np.ndarray:
        """(runs, tasks) ``metric`` at ``step``."""
        columns = [[p.score(metric) for _, p in sorted(self.latest(algorithm, t, step).items())] for t in tasks]
        width = min(len(c) for c in columns)
        return np.array([c[:width] for c in columns]).T

    def forfeits(self, algorithm: str, tasks: list[str], step: int) -> int:
        """Games the runs of ``algorithm`` forfeited in their evaluations at ``step``."""
        return sum(p.forfeits for t in tasks for p in self.latest(algorithm, t, step).values())


def summarize(points: list[Point], seed: int = 0, metric: str = METRICS[0]) -> dict:
    """The statistics of the module docstring for ``metric``, as JSON-ready data; ``seed`` seeds the bootstrap."""
    seed = integer("seed", seed, 0, 2**32 - 1)  # what the bootstrap's RandomState takes
    if metric not in METRICS:
        raise BenchmarkError(f"unknown metric {metric!r}; choose {' or '.join(METRICS)}")
    beside = next(m for m in METRICS if m != metric)
    runs = Runs(points)
    scores = runs.scores(metric)
    tasks, last = _compared(scores, runs.algorithms)
    finals = np.concatenate([runs.matrix(a, tasks, last, metric).ravel() for a in runs.algorithms])
    thresholds = np.linspace(min(0.0, float(finals.min())), max(1.0, float(finals.max())), PROFILE_POINTS)
    summary: dict = {"metric": metric, "beside": beside, "algorithms": runs.algorithms, "tasks": tasks, "step": last}
    summary |= {"by_task": {}, "reps": REPS, "missing": gaps(scores), "thresholds": [float(t) for t in thresholds]}
    for name, chosen in [*((task, [task]) for task in tasks), ("all tasks", tasks)]:
        summary["by_task"][name] = _statistics(runs, chosen, last, (metric, beside), thresholds, seed)
    return summary


def _statistics(runs: Runs, chosen: list[str], last: int, metrics_: tuple[str, str], thresholds, seed: int) -> dict:
    """The statistics over the tasks ``chosen`` at step ``last`` by the first of ``metrics_``, the second beside."""
    from rliable import library, metrics

    def interval(score: dict, func) -> tuple[dict, dict]:
        with warnings.catch_warnings():  # arch's note that rliable seeds it the old way (a RandomState)
            warnings.simplefilter("ignore", FutureWarning)
            return library.get_interval_estimates(score, func, reps=REPS, random_state=np.random.RandomState(seed))

    def aggregates(x: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)])

    (metric, beside), algorithms = metrics_, runs.algorithms
    final = {a: runs.matrix(a, chosen, last, metric) for a in algorithms}
    points, cis = interval(final, aggregates)
    other, other_cis = interval({a: runs.matrix(a, chosen, last, beside) for a in algorithms}, aggregates)
    curves = {}
    for a in algorithms:
        steps = set.intersection(*(set(runs.at[a, t]) for t in chosen))  # where it was evaluated on every task
        at = {str(s): runs.matrix(a, chosen, s, metric) for s in sorted(steps) if s <= last}
        iqm, band = interval(at, metrics.aggregate_iqm)
        curves[a] = {s: _estimate(iqm[s], band[s]) for s in at}
    profiles, _ = library.create_performance_profile(final, thresholds)
    pairs = {f"{x} > {y}": (final[x], final[y]) for x, y in itertools.permutations(algorithms, 2)}
    better, better_ci = interval(pairs, metrics.probability_of_improvement) if pairs else ({}, {})
    return {
        "runs": {a: int(final[a].shape[0]) for a in algorithms},
        "iqm": {a: _estimate(points[a][0], cis[a][:, 0]) for a in algorithms},
        "mean": {a: _estimate(points[a][1], cis[a][:, 1]) for a in algorithms},
        beside: {
            "iqm": {a: _estimate(other[a][0], other_cis[a][:, 0]) for a in algorithms},
            "mean": {a: _estimate(other[a][1], other_cis[a][:, 1]) for a in algorithms},
        },
        "forfeits": {a: runs.forfeits(a, chosen, last) for a in algorithms},
        "curve": curves,
        "profile": {a: [float(v) for v in profiles[a]] for a in algorithms},
        "probability_of_improvement": {k: _estimate(better[k], better_ci[k]) for k in pairs},
    }


def _compared(scores: dict[tuple[str, str], dict[int, dict[int, float]]], algorithms: list[str]) -> tuple[list, int]:
    """The tasks that every algorithm was evaluated on and the last step that every algorithm reached on each of
    them; a one-line error where there are none (``scores``: as :func:`gaps` takes them)."""
    tasks = sorted({task for _, task in scores if all((a, task) in scores for a in algorithms)})
    if not tasks:
        raise BenchmarkError(f"no task has evaluations of every algorithm; missing: {'; '.join(gaps(scores))}")
    last = min(max(scores[a, t]) for a in algorithms for t in tasks)
    for a, t in itertools.product(algorithms, tasks):
        if min(scores[a, t]) > last:
            raise BenchmarkError(f"{a} on {t} has no evaluation at or before step {last}, the last that all reached")
    return tasks, last


def gaps(scores: dict[tuple[str, str], dict[int, dict[int, float]]]) -> list[str]:
    """One line for each run that the folder's others have and that stopped early or is not there: an algorithm
    with no evaluation on a task, with no seed at the last step of the folder, or a seed of it stopped early or not
    there (``scores``: (algorithm, task) -> step -> {seed: score})."""
    algorithms, tasks = sorted({a for a, _ in scores}), sorted({t for _, t in scores})
    end = max(step for by_step in scores.values() for step in by_step)  # where the longest runs stopped
    lines = []
    for task in tasks:
        seeds = sorted({s for (_, t), steps in scores.items() if t == task for runs in steps.values() for s in runs})
        for a in algorithms:
            if (a, task) not in scores:
                lines.append(f"{a} on {task} (no evaluation)")
                continue
            reached: dict[int, int] = {}  # seed -> its last step
            for step, runs in scores[a, task].items():
                reached.update({s: max(step, reached.get(s, step)) for s in runs})
            if max(reached.values()) < end:
                lines.append(f"{a} on {task} (no seed reached step {end})")
                continue
            for s in seeds:
                if s not in reached:
                    lines.append(f"{a} on {task}, seed {s} (no evaluation)")
                elif reached[s] < end:
                    lines.append(f"{a} on {task}, seed {s} (stopped at step {reached[s]})")
    return lines


def _estimate(value: float, ci: np.ndarray) -> dict:
    low, high = np.ravel(ci)
    return {"value": float(np.ravel(value)[0]), "ci": [float(low), float(high)]}


def _folders(folder: Path, places: list[tuple[str, str, int, int]]) -> Iterator[Path]:
    """The point folders of ``places`` (algorithm, task, seed, step) under ``folder``."""
    return (folder / a / t / f"seed-{s}" / f"step-{n}" for a, t, s, n in places)


def write_summary(folder: Path, seed: int = 0, metric: str = METRICS[0]) -> dict:
    """``folder/summary.json``, ``folder/ALGORITHMS.md``, the figures and ``folder/marl_eval.json``
    (:mod:`~training.benchmark.marl_eval`; not where a point lacks its games, said in the summary's ``marl_eval``),
    from the evaluations under ``folder``, summarized by ``metric``."""
    from kdenv.files import write_atomically
    from training.benchmark.marl_eval import GAMES, marl_eval
    from training.benchmark.report import plot, to_markdown

    points = collect(folder)
    summary = summarize(points, seed, metric)
    places = [(p.algorithm, p.task, p.seed, p.step) for p in points]
    unplayed = next((f"{place}" for place in _folders(folder, places) if not (place / GAMES).is_file()), None)
    summary["marl_eval"] = None if unplayed is None else f"no marl_eval.json: {unplayed} has no {GAMES}"
    write_atomically(folder / "summary.json", json.dumps(summary, indent=1) + "\n")
    if unplayed is None:
        write_atomically(folder / "marl_eval.json", json.dumps(marl_eval(folder, places)) + "\n")
    figures = plot(summary, folder)
    write_atomically(folder / "ALGORITHMS.md", to_markdown(summary, figures))
    return summary
