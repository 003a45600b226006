"""``kdenv benchmark CONFIG``'s runs: every (algorithm x task x seed) of a grid (:mod:`training.benchmark.config`)
trained in segments up to each evaluation point, each point evaluated on its task's protocol at fixed deals into
``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json``, then summarized (:mod:`training.benchmark.aggregate`).

The unit of work is a run advanced to its next point (:mod:`training.benchmark.point`): the points of a run follow
one another, and runs go side by side on a backend, ``workers`` at once, each with its share of the CPUs
(:func:`~training.backends.choose.sharing`). This process alone writes the folder: as a run's point comes back, its
training folder ``DIR/training/ALGORITHM/TASK/seed-S/`` is put in place whole, then the point's files, its
``evaluation.json`` last, so that a point counts as done only when whole; then the run's next point is started.

A point whose evaluation is there is not played again, and a run goes on from its training folder as its last point
left it, so an interrupted grid resumes where it stopped (what its tasks in flight did is lost). A task whose worker
dies runs again; one lost every time stops the grid, in one line.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

from kdenv.files import FolderLock, make_folder, read_json, write_atomically
from training.arena.evaluation import FILE
from training.arena.protocols import get_protocol
from training.backends.base import Lost
from training.backends.choose import sharing
from training.benchmark.aggregate import METRICS, BenchmarkError, write_summary
from training.benchmark.config import TRAINING, Entry, Grid
from training.benchmark.packing import pack, replace, settle
from training.benchmark.point import Evaluated, Point, advance
from training.progress import ProgressBar
from training.runs.config import read_yaml
from training.runs.threads import share


def run_grid(
    grid: Grid,
    entries: list[Entry],
    out: Path,
    progress: bool = True,
    metric: str = METRICS[0],
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
) -> dict:
    """Train and evaluate every point of the grid not evaluated yet in ``out``, ``workers`` runs at once on
    ``backend`` (``local``, or ``ray``: a local Ray or the cluster at ``address``), then write the summary by
    ``metric``."""
    make_folder(out)
    lock = FolderLock(out, "benchmark folder")
    try:
        _check_same(out, grid, entries)
        points = len(entries) * len(grid.tasks) * len(grid.seeds) * grid.points
        done = sum(_evaluated(out, *point) for point in _points(grid, entries))
        with (
            sharing(backend, workers, address) as (chosen, cpus),
            share(cpus),  # the worker processes start with it
            ProgressBar("benchmark (evaluations)", points, done, enabled=progress, stderr=True) as bar,
        ):
            due = _Due(grid, entries, out, bar.print)
            with closing(chosen.tasks(advance, due, (cpus,))) as finished:
                for point, result in finished:
                    _write(out, point, result)
                    due.follow(point)
                    bar.advance()
        return write_summary(out, metric=metric)
    finally:
        lock.release()


class _Due:
    """The runs' next points, read by the backend as it has room: at first each run's first point not evaluated,
    then a run's next one as its last comes back (:meth:`follow`), ahead of the runs not started (one worker trains
    the runs one after the other). A point is made, its run's training folder packed, as it is read."""

    def __init__(self, grid: Grid, entries: list[Entry], out: Path, say: Callable[[str], None]) -> None:
        self.grid, self.out, self.say = grid, out, say
        self.steps = {
            (entry.name, task, seed): deque(step for step in grid.at() if not _evaluated(out, entry, task, seed, step))
            for entry, task, seed in itertools.product(entries, grid.tasks, grid.seeds)
        }
        self.entries = {entry.name: entry for entry in entries}
        self.due = deque(run for run, steps in self.steps.items() if steps)

    def __iter__(self) -> _Due:
        return self

    def __next__(self) -> Point:
        """The next point due; StopIteration while none is (the backend asks again after each result)."""
        if not self.due:
            raise StopIteration
        name, task, seed = run = self.due.popleft()
        entry, step, work = self.entries[name], self.steps[run].popleft(), _training(self.out, name, task, seed)
        settle(work)  # a copy that a kill left half replaced
        self.say(f"{name} on {get_protocol(task).title}, seed {seed}: training to step {step:,}")
        config = None if entry.config is None else read_yaml(entry.config)
        packed = pack(work) if work.is_dir() else None
        return Point(entry, config, task, seed, step, self.grid.games, self.grid.workers, str(work), packed)

    def follow(self, point: Point) -> None:
        """``point`` is done: its run's next point is due first."""
        run = (point.entry.name, point.task, point.seed)
        if self.steps[run]:
            self.due.appendleft(run)


def _write(out: Path, point: Point, result: Evaluated | Lost) -> None:
    """Put what ``point``'s task gave back in the grid's folder: its run's training folder, then the point's files,
    its evaluation.json last; a task lost every time stops the grid, in one line."""
    if isinstance(result, Lost):
        raise BenchmarkError(
            f"{point}: its worker was lost every time it ran ({result.error}); the points written are kept: run the "
            "same command to resume"
        )
    replace(Path(point.work), result.training)
    folder = _point(out, point.entry, point.task, point.seed, point.step)
    folder.mkdir(parents=True, exist_ok=True)
    for name in sorted(result.files, key=lambda name: name == FILE):
        write_atomically(folder / name, result.files[name])


def _training(out: Path, name: str, task: str, seed: int) -> Path:
    """The grid's copy of a run's training folder."""
    return out / TRAINING / name / task / f"seed-{seed}"


def _points(grid: Grid, entries: list[Entry]) -> Iterator[tuple[Entry, str, int, int]]:
    """(entry, task, seed, step) of every evaluation point of the grid, one at a time."""
    return itertools.product(entries, grid.tasks, grid.seeds, grid.at())


def _point(out: Path, entry: Entry, task: str, seed: int, step: int) -> Path:
    return out / entry.name / task / f"seed-{seed}" / f"step-{step}"


def _evaluated(out: Path, entry: Entry, task: str, seed: int, step: int) -> bool:
    return (_point(out, entry, task, seed, step) / FILE).is_file()


def _check_same(out: Path, grid: Grid, entries: list[Entry]) -> None:
    """The folder's grid is this one (another one is refused in one line); written when new."""
    settings = {"grid": dict(vars(grid)), "entries": [dict(vars(e)) for e in entries]}
    path = out / "benchmark.json"
    if path.exists():
        old = read_json(path)
        if old != json.loads(json.dumps(settings)):
            raise BenchmarkError(f"{out} holds another grid's runs; use another --out, or delete it to start again")
    write_atomically(path, json.dumps(settings, indent=1) + "\n")
