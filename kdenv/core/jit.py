"""``jit``: numba's ``njit(cache=True)`` with a cache that knows which files a compiled function depends on.

Numba checks its on-disk cache against the source file of each function only, so machine code that
inlined a helper from another file outlives a change to that file. Every file that compiles through
``jit`` is registered in import order, and the cache of a function is stamped with the contents of its
own file and of every compiled file imported before it (the files it can call into). A change to any of
them recompiles what depends on it, and nothing else.
"""

from __future__ import annotations

import hashlib
import os

import numba
from numba.core.caching import CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator

_SOURCES: list[str] = []  # compiled source files, in the order they were first seen


def _stamp(py_file: str) -> str:
    """A hash of ``py_file`` and of the compiled files registered before it."""
    path = os.path.abspath(py_file)
    digest = hashlib.sha256()
    for source in _SOURCES[: _SOURCES.index(path) + 1]:
        with open(source, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


class _DependentStamp:
    """Mixin: the source stamp of a registered file is :func:`_stamp`, not its own mtime and size."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.abspath(py_file) not in _SOURCES:
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return _stamp(self._py_file)


class _UserProvided(_DependentStamp, UserProvidedCacheLocator):
    """In ``NUMBA_CACHE_DIR`` when it is set."""


class _InTree(_DependentStamp, InTreeCacheLocator):
    """In ``__pycache__`` beside the source, as numba does by default."""


class _UserWide(_DependentStamp, UserWideCacheLocator):
    """In the user's cache folder when the source folder is read-only."""


CacheImpl._locator_classes[:0] = [_UserProvided, _InTree, _UserWide]  # tried first; others' files pass on


def jit(function=None, *, inline: bool = False):
    """Compile ``function`` in nopython mode with the dependency-aware on-disk cache; ``inline=True`` inlines
    it into its compiled callers (for small functions on the hot path of a playout)."""
    if function is None:
        return lambda f: jit(f, inline=inline)
    path = os.path.abspath(function.__code__.co_filename)
    if path not in _SOURCES:
        _SOURCES.append(path)
    return numba.njit(cache=True, inline="always" if inline else "never")(function)
