"""A grid's unit of work (:mod:`training.benchmark.run`): one run trained up to its next evaluation point and
evaluated there, wherever a backend runs it (this process, a worker process, a node of a Ray cluster).

The task is given the run's training folder packed by the driver (:mod:`training.benchmark.packing`) and works in a
folder of its own on its machine; it gives back the trained folder, packed, and the point's evaluation files, and
writes nothing in the grid's folder: a node needs no file system shared with the driver, and a task lost with its
node runs again from the driver's copy. Its player plays from its own copy under the name of the grid's
(``made_from``), so the evaluation's files name the player where the grid keeps it, as a run in place would.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kdenv.errors import KingdominoError
from kdenv.files import FolderLock, FolderLockedError
from training.arena.evaluation import evaluate
from training.arena.protocols import get_protocol
from training.backends.choose import choose_backend
from training.benchmark.aggregate import BenchmarkError
from training.benchmark.commands import run_command
from training.benchmark.config import COMMAND_FIELDS, Entry, budget, fill, training_overrides
from training.benchmark.packing import pack, unpack
from training.runs.signals import Interrupted
from training.runs.threads import share
from training.trainers import train, trainer_of


@dataclass(frozen=True)
class Point:
    """A run's next evaluation point, as its task is given it."""

    entry: Entry
    config: Any  # the entry's training config as the driver read it (None for a command's entry)
    task: str  # the protocol
    seed: int
    step: int  # the learner steps it is trained to
    games: int  # evaluation games
    workers: int  # evaluation processes, at most (and at most the run's CPUs)
    work: str  # the run's training folder in the grid's folder: where its player spec points
    packed: bytes | None  # that folder, packed (None: a new run)

    def __str__(self) -> str:
        return f"{self.entry.name} on {get_protocol(self.task).title}, seed {self.seed}, step {self.step:,}"


@dataclass(frozen=True)
class Evaluated:
    """What a task gives back: the run's training folder after training, packed, and the point's evaluation files
    (evaluation.json, games.jsonl, results.*...) by name."""

    training: bytes
    files: dict[str, bytes]


def advance(point: Point, cpus: int) -> Evaluated:
    """Train ``point``'s run up to its step and evaluate it there with ``cpus`` CPUs (its threads and evaluation
    processes), in a folder of this machine's that is removed after; an error of the run names it, in one line."""
    try:
        with share(cpus), _stopped_by_sigterm(), _private(point.work) as (lock, here):
            work, out = here / "work", here / "point"
            if point.packed is None:
                work.mkdir()
            else:
                unpack(point.packed, work)
            run = _train_to(point, lock, work)
            grid = Path(point.work)
            spec = _spec(point.entry, grid, None if run is None else grid / run.relative_to(work))
            made_from = _spec(point.entry, work, run)
            backend = choose_backend("local", min(point.workers, cpus))  # within the run's share of the CPUs
            evaluate(spec, point.task, point.games, 0, out, backend, made_from=made_from)
            files = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file() and path.name[0] != "."}
            return Evaluated(pack(work), files)
    except Interrupted:  # stopped by a signal: told by kdenv benchmark as such
        raise
    except KingdominoError as err:
        raise BenchmarkError(f"{point}: {err}") from None


def _spec(entry: Entry, work: Path, run: Path | None) -> str:
    """The entry's player spec for the run trained in ``work`` (in kdenv train's run folder ``run``)."""
    return fill(entry.player, {"work": work} if run is None else {"run": run, "work": work})


def _train_to(point: Point, lock: FolderLock, work: Path) -> Path | None:
    """Train ``point``'s run in ``work`` up to its step, going on from its last checkpoint there; kdenv train's run
    folder, or None for an entry's own command (whose processes hold ``lock`` with this one)."""
    entry, protocol = point.entry, get_protocol(point.task)
    if entry.command is not None:
        values = (point.step, point.seed, protocol.players, protocol.rule_names, work)
        command = fill(entry.command, {k: shlex.quote(str(v)) for k, v in zip(COMMAND_FIELDS, values, strict=True)})
        returncode = run_command(command, lock)
        if returncode:
            raise BenchmarkError(f"the command of {entry.name} failed (exit {returncode}): {command}")
        return None
    runs = sorted(work.glob("run-*"))
    if runs:
        return train(trainer_of(None, str(runs[-1])), None, [budget(entry, protocol, point.step)], str(runs[-1]))
    where = [f"seed={point.seed}", f"runs_dir={work}", "name=run"]
    overrides = [*training_overrides(entry, protocol, point.step), *where]
    return train(trainer_of(point.config, None), point.config, overrides, None)


def workplace(work: str) -> Path:
    """This machine's folder for the tasks of the run whose grid copy is ``work`` (in the temporary folder, named
    after that copy: a command that a killed grid left running there is found by its lock)."""
    name = hashlib.sha256(os.path.abspath(work).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "kdenv-benchmark" / name


@contextlib.contextmanager
def _private(work: str) -> Iterator[tuple[FolderLock, Path]]:
    """The run's :func:`workplace`, locked and emptied, then removed."""
    here = workplace(work)
    here.mkdir(parents=True, exist_ok=True)
    try:
        lock = FolderLock(here, "training folder")
    except FolderLockedError as err:
        raise BenchmarkError(
            f"training folder {str(here)!r} (of {work}) is in use by process {err.holder}, a command that a killed "
            f"kdenv benchmark left running: wait for it to end, or end it (kill -- -{err.holder}), then resume"
        ) from None
    try:
        for left in ("work", "point"):  # by a task that was killed
            shutil.rmtree(here / left, ignore_errors=True)
        yield lock, here
    finally:
        lock.release()
        shutil.rmtree(here, ignore_errors=True)


@contextlib.contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt in the block where nothing else handles it (a pool's worker process, which
    the pool stops by SIGTERM), so that the way out ends a command's processes instead of leaving them running."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
