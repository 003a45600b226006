"""``kdenv benchmark CONFIG``'s runs: every (algorithm x task x seed) of a grid (:mod:`training.benchmark.config`)
trained in segments up to each evaluation point, each point evaluated on its task's protocol at fixed deals into
``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json``, then summarized (:mod:`training.benchmark.aggregate`).

A point whose evaluation is there is not played again, and a run goes on from its last checkpoint, so an
interrupted grid resumes where it stopped. The trainers' runs live in ``DIR/training/``.
"""

from __future__ import annotations

import itertools
import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

from kdenv.files import FolderLock, read_json, write_atomically
from training.arena.evaluation import FILE, evaluate
from training.arena.protocols import Protocol, get_protocol
from training.benchmark.aggregate import BenchmarkError, write_summary
from training.benchmark.config import Entry, Grid, budget, training_overrides
from training.progress import ProgressBar
from training.runs.config import read_yaml
from training.trainers import backend_of, train


def run_grid(grid: Grid, entries: list[Entry], out: Path, progress: bool = True) -> dict:
    """Train and evaluate every point of the grid not evaluated yet in ``out``, then write the summary."""
    out.mkdir(parents=True, exist_ok=True)
    lock = FolderLock(out, "benchmark folder")
    try:
        _check_same(out, grid, entries)
        points = len(entries) * len(grid.tasks) * len(grid.seeds) * grid.points
        done = sum(_evaluated(out, *point) for point in _points(grid, entries))
        with ProgressBar("benchmark (evaluations)", points, done, enabled=progress, stderr=True) as bar:
            for entry, task, seed, step in _points(grid, entries):
                if _evaluated(out, entry, task, seed, step):
                    continue
                protocol = get_protocol(task)
                bar.print(f"{entry.name} on {protocol.title}, seed {seed}: training to step {step:,}")
                spec = _train_to(entry, protocol, seed, step, out / "training" / entry.name / task / f"seed-{seed}")
                evaluate(spec, task, grid.games, 0, _point(out, entry, task, seed, step), grid.workers)
                bar.advance()
        return write_summary(out)
    finally:
        lock.release()


def _points(grid: Grid, entries: list[Entry]) -> Iterator[tuple[Entry, str, int, int]]:
    """(entry, task, seed, step) of every evaluation point of the grid, in the order they are trained, one at a
    time."""
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


def _train_to(entry: Entry, protocol: Protocol, seed: int, step: int, work: Path) -> str:
    """Train ``entry``'s run on ``protocol``'s table with ``seed`` up to ``step`` learner steps (going on from
    its last checkpoint); the player spec of the result."""
    work.mkdir(parents=True, exist_ok=True)
    if entry.command is not None:
        command = entry.command.format(steps=step, seed=seed, players=protocol.players, rules=protocol.rule_names,
                                       work=shlex.quote(str(work)))  # fmt: skip
        done = subprocess.run(command, shell=True)
        if done.returncode:
            raise BenchmarkError(f"the command of {entry.name} failed (exit {done.returncode}): {command}")
        return entry.player.format(work=work)
    runs = sorted(work.glob("run-*"))
    if runs:
        run = train(backend_of(None, str(runs[-1])), None, [budget(entry, protocol, step)], str(runs[-1]))
    else:
        assert entry.config is not None  # an entry has a config or a command (load_entry)
        data = read_yaml(entry.config)
        where = [f"seed={seed}", f"runs_dir={work}", "name=run"]
        run = train(backend_of(data, None), data, [*training_overrides(entry, protocol, step), *where], None)
    return entry.player.format(run=run, work=work)
