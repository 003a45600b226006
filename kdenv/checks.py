"""The checks of the values that the envs and the engine take from their callers: flags, integers, finite numbers
and seeds, each bad value a one-line :class:`~kdenv.errors.KingdominoError` naming the keyword and what it takes.

Numpy's scalars pass as the Python values they hold (``np.True_``, ``np.int64(5)``), and come back as those; a string
is never a flag (``harmony="no"`` would be true), nor a bool a number (``True`` would be 1).
"""

from __future__ import annotations

import math
import numbers
from typing import TypeGuard

import numpy as np

from kdenv.errors import KingdominoError


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """Whether ``value`` is an integer: an int or a numpy integer, never a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def flag(name: str, value: object) -> bool:
    """``value`` as a bool (a numpy bool is one; a string, a number or None is not)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise KingdominoError(f"{name} must be True or False, not {value!r}")


def integer(name: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` as an int from ``low`` to ``high`` (no bound above when None)."""
    if is_int(value) and low <= value and (high is None or value <= high):
        return int(value)
    wanted = f"{low} or more" if high is None else f"{low}..{high}"
    raise KingdominoError(f"{name} must be an integer {wanted}, not {value!r}")


def finite(name: str, value: object) -> float:
    """``value`` as a float: a real number (an int, a float, a numpy number; not a bool), neither infinite nor NaN."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise KingdominoError(f"{name} must be a finite number, not {value!r}")


def seed_value(value: object) -> int | None:
    """A seed as an int (None stays None). Negative seeds are refused, as Gymnasium's ``np_random`` refuses them:
    Python's ``random.Random(-s)`` is ``random.Random(s)``, so they would deal the games of the positive ones."""
    if value is None:
        return None
    if is_int(value) and value >= 0:
        return int(value)
    raise KingdominoError(f"seed must be an integer 0 or more, not {value!r}")
