"""How much memory many games take, checked before their arrays are made: a vector env (or a trainer's
rollout) too large for the machine is a one-line :class:`MemoryNeedError` saying what it would need, not
numpy's ``MemoryError`` or a process killed once the pages are touched."""

from __future__ import annotations

import os

from kdenv.batched.machine import games
from kdenv.batched.observe import seen
from kdenv.batched.tables import Tables
from kdenv.errors import KingdominoError


class MemoryNeedError(KingdominoError):
    """More games (or rollout) than this machine has the memory for."""


def game_bytes(t: Tables, observations: bool = True) -> int:
    """Bytes one game takes in :class:`kdenv.vector.VectorEnv`: its state and what its observations are drawn
    from, its observation and mask buffers with their rows of the batched spaces (a Box keeps low, high and
    two flags per value), its rewards and scores."""
    # what seen() keeps per game (planes, scores, the gains' caches), without its shared scratch arrays
    drawn = _nbytes(seen(2, t, observations)) - _nbytes(seen(1, t, observations))
    state = _nbytes(games(1, t)) + drawn
    values = t.num_planes * t.width**2 + t.num_features if observations else 0
    return state + (4 + 4 + 4 + 2) * values + (1 + 1 + 1 + 2) * t.num_actions + 8 * (5 * t.num_players + 3)


def _nbytes(arrays) -> int:
    """Bytes of an array, or of the arrays of a NamedTuple of them (nested ones included)."""
    return arrays.nbytes if hasattr(arrays, "nbytes") else sum(_nbytes(part) for part in arrays)


def free_bytes() -> int | None:
    """Memory a process can take now: Linux's MemAvailable, else the machine's physical memory (None: unknown)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def size_text(count: float) -> str:
    """``123456789`` -> ``123 MB``."""
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if count < 1000 or unit == "TB":
            return f"{count:.0f} {unit}" if unit == "bytes" or count >= 10 else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError  # not reached


def check_fits(what: str, count: int, each: int, parts: str) -> None:
    """Refuse ``count`` things of ``each`` bytes (``parts``: what one holds) when they exceed the free memory."""
    free = free_bytes()
    if free is not None and count * each > free:
        raise MemoryNeedError(
            f"{what}={count} needs about {size_text(count * each)} of memory ({size_text(each)} each: {parts}), "
            f"more than the {size_text(free)} free here; give at most {max(free // each, 1)}"
        )
