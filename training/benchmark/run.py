"""``kdenv benchmark CONFIG``'s runs: every (algorithm x task x seed) of a grid (:mod:`training.benchmark.config`)
trained in segments up to each evaluation point, each point evaluated on its task's protocol at fixed deals into
``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json``, then summarized (:mod:`training.benchmark.aggregate`).

A point whose evaluation is there is not played again, and a run goes on from its last checkpoint, so an
interrupted grid resumes where it stopped. The trainers' runs live in ``DIR/training/``.

An entry's ``command`` runs in a process group of its own, ended (SIGTERM, then SIGKILL) whenever the grid stops:
a signal, an error or its end. It holds its ``{work}`` folder's lock (:class:`kdenv.files.FolderLock`) while it runs,
so a command that outlives a ``kill -9`` of the grid is told by the resume, in one line, not joined by another.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from kdenv.files import FolderLock, FolderLockedError, make_folder, read_json, write_atomically
from training.arena.evaluation import FILE, evaluate
from training.arena.protocols import Protocol, get_protocol
from training.benchmark.aggregate import METRICS, BenchmarkError, write_summary
from training.benchmark.config import COMMAND_FIELDS, TRAINING, Entry, Grid, budget, fill, training_overrides
from training.progress import ProgressBar
from training.runs.config import read_yaml
from training.trainers import backend_of, train

GRACE = 10.0  # seconds a command's processes have to end on SIGTERM before SIGKILL


def run_grid(grid: Grid, entries: list[Entry], out: Path, progress: bool = True, metric: str = METRICS[0]) -> dict:
    """Train and evaluate every point of the grid not evaluated yet in ``out``, then write the summary by
    ``metric``."""
    make_folder(out)
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
                spec = _train_to(entry, protocol, seed, step, out / TRAINING / entry.name / task / f"seed-{seed}")
                evaluate(spec, task, grid.games, 0, _point(out, entry, task, seed, step), grid.workers)
                bar.advance()
        return write_summary(out, metric=metric)
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
        values = (step, seed, protocol.players, protocol.rule_names, work)
        command = fill(entry.command, {k: shlex.quote(str(v)) for k, v in zip(COMMAND_FIELDS, values, strict=True)})
        returncode = run_command(command, work)
        if returncode:
            raise BenchmarkError(f"the command of {entry.name} failed (exit {returncode}): {command}")
        return fill(entry.player, {"work": work})
    runs = sorted(work.glob("run-*"))
    if runs:
        run = train(backend_of(None, str(runs[-1])), None, [budget(entry, protocol, step)], str(runs[-1]))
    else:
        assert entry.config is not None  # an entry has a config or a command (load_entry)
        data = read_yaml(entry.config)
        where = [f"seed={seed}", f"runs_dir={work}", "name=run"]
        run = train(backend_of(data, None), data, [*training_overrides(entry, protocol, step), *where], None)
    return fill(entry.player, {"run": run, "work": work})


def run_command(command: str, work: Path) -> int:
    """Run the shell ``command`` in a process group of its own, holding ``work``'s lock, and wait for it; its exit
    status. However the wait ends (its end, a signal, an error), what is left of the group is ended."""
    try:
        lock = FolderLock(work, "training folder")
    except FolderLockedError as err:
        raise BenchmarkError(
            f"training folder {str(work)!r} is in use by process {err.holder}, a command that a killed kdenv "
            f"benchmark left running: wait for it to end, or end it (kill -- -{err.holder}), then resume"
        ) from None
    with lock:
        process = subprocess.Popen(command, shell=True, start_new_session=True, pass_fds=(lock.fileno(),))
        try:
            lock.name_holder(process.pid)  # the group's leader: what a resume that finds it held is told to stop
            return process.wait()
        finally:
            end_group(process)


def end_group(process: subprocess.Popen, grace: float = GRACE) -> None:
    """End the process group that ``process`` leads: SIGTERM, then SIGKILL to what is left after ``grace``
    seconds (SIGINT and SIGTERM to this process wait meanwhile, so that a second Ctrl-C leaves no orphan)."""
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while process.poll() is None or _group_runs(process.pid):
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                break
            time.sleep(0.05)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)


def _group_runs(group: int) -> bool:
    """Whether a process of the process group ``group`` runs: not a zombie, which an orphan becomes when its new
    parent does not reap it (init in a container need not), where ``/proc`` tells; elsewhere, any process."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    if not Path("/proc/self").is_dir():
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):  # a process that ended meanwhile
            state, _, pgrp = stat.read_text().rpartition(")")[2].split()[:3]
            if int(pgrp) == group and state not in ("Z", "X"):
                return True
    return False
