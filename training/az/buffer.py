"""The replay buffer: a window of the most recent labelled decisions of self-play, sampled uniformly.

On disk each iteration's new positions are one compressed chunk, ``buffer/iter-NNNN-COUNT.npz``, written
atomically as soon as they are played (so a checkpoint writes no more than the iteration's own data). A
resumed run reloads the window from the chunks up to the iteration of its ``last.zip`` (later ones, of
iterations it will play again, are deleted): it learns from the same positions as if it had not stopped.
Chunks that have left the window are deleted. Sampled with the kingdom's symmetries (``learn.symmetries``), each
position drawn comes in a random one of its eight images (:mod:`kdenv.symmetry`).
"""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import numpy as np

from kdenv.files import write_atomically
from kdenv.symmetry import Symmetry, random_images
from training.az.selfplay import FIELDS, Positions

CHUNK = re.compile(r"iter-(\d+)-(\d+)\.npz")


class ReplayBuffer:
    """The latest ``size`` positions, a ring over preallocated arrays (filled on the first add)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.arrays: dict[str, np.ndarray] = {}
        self.count = 0  # positions held
        self.next = 0  # where the next goes

    def __len__(self) -> int:
        return self.count

    def add(self, positions: Positions) -> None:
        """Append ``positions``, the oldest leaving once the window is full."""
        n = len(positions)
        if not n:
            return
        if not self.arrays:
            self.arrays = {f: np.zeros((self.size, *getattr(positions, f).shape[1:]), getattr(positions, f).dtype)
                           for f in FIELDS}  # fmt: skip
        if n > self.size:
            positions = Positions(*(getattr(positions, f)[-self.size :] for f in FIELDS))
            n = self.size
        at = (self.next + np.arange(n)) % self.size
        for f in FIELDS:
            self.arrays[f][at] = getattr(positions, f)
        self.next = int((self.next + n) % self.size)
        self.count = min(self.size, self.count + n)

    def sample(self, rng: np.random.Generator, batch: int, images: tuple[Symmetry, ...] = ()) -> Positions:
        """``batch`` positions drawn uniformly (with replacement) from the window, each in a random one of
        ``images`` (the table's symmetries) where there are any."""
        rows = rng.integers(0, self.count, size=batch)
        drawn = Positions(*(self.arrays[f][rows] for f in FIELDS))
        if not images:
            return drawn
        board, (mask, policy) = random_images(drawn.board, [drawn.mask, drawn.policy], images, rng)
        return dataclasses.replace(drawn, board=board, mask=mask, policy=policy)


def write_chunk(folder: Path, iteration: int, positions: Positions) -> None:
    """Iteration ``iteration``'s positions as one compressed chunk of ``folder``, written atomically."""
    folder.mkdir(exist_ok=True)
    data = io.BytesIO()
    np.savez_compressed(data, **{f: getattr(positions, f) for f in FIELDS})
    write_atomically(folder / f"iter-{iteration:04d}-{len(positions)}.npz", data.getvalue())


def chunks(folder: Path) -> list[tuple[int, int, Path]]:
    """(iteration, positions, path) of each chunk of ``folder``, oldest first."""
    found = []
    for path in folder.glob("iter-*.npz") if folder.is_dir() else []:
        match = CHUNK.fullmatch(path.name)
        if match:
            found.append((int(match[1]), int(match[2]), path))
    return sorted(found)


def prune(folder: Path, upto: int, size: int) -> list[Path]:
    """Delete the chunks after iteration ``upto`` and those older than the window of ``size`` positions before
    it; the chunks left, oldest first."""
    kept: list[Path] = []
    held = 0
    for iteration, count, path in reversed(chunks(folder)):
        if iteration > upto or held >= size:
            path.unlink()
            continue
        kept.append(path)
        held += count
    return kept[::-1]


def load_window(folder: Path, size: int, upto: int) -> ReplayBuffer:
    """The buffer as it was at the end of iteration ``upto``: its window refilled from the chunks."""
    buffer = ReplayBuffer(size)
    for path in prune(folder, upto, size):
        with np.load(path) as data:
            buffer.add(Positions(*(data[f] for f in FIELDS)))
    return buffer
