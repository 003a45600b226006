"""``jit``: numba's ``njit(cache=True)`` with a cache that knows which files a compiled function depends on.

Numba checks its on-disk cache against the source file of each function only, so machine code that
inlined a helper from another file, or froze one of its constants, outlives a change to that file. The cache
of a function is stamped instead with the contents of its own file and of every file of its packages that it
imports, directly or through others (:func:`depends`, read from the import statements): a change to any of
them recompiles what depends on it, and nothing else, whatever order two processes import them in.

Numba has no public hook for this: the locators go first in its private list ``CacheImpl._locator_classes``.
What that patch assumes is checked at import, and a numba that breaks it stops the import with one line
(pyproject.toml bounds numba to the versions tested).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import pickle
import sys

import numba
from numba.core.caching import (
    CacheImpl,
    IndexDataCacheFile,
    InTreeCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
)

from kdenv.errors import KingdominoError

_SOURCES: list[str] = []  # compiled source files, in the order they were first seen


def _package_root(path: str) -> str:
    """The folder of the top-level package that holds ``path`` (``.../kdenv`` for ``.../kdenv/batched/grid.py``)."""
    folder = os.path.dirname(path)
    while os.path.exists(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    return folder


def _imported_files(path: str) -> set[str]:
    """The files of the (already imported) modules that ``path``'s absolute import statements name."""
    names: list[str] = []
    with open(path, "rb") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    files = (getattr(sys.modules.get(name), "__file__", None) for name in names)
    return {os.path.abspath(f) for f in files if f}


@functools.lru_cache
def depends(py_file: str) -> tuple[str, ...]:
    """``py_file`` and the files it imports from its own packages' folders, directly or not, sorted: what its
    compiled functions may call or read a constant from."""
    roots = {_package_root(source) + os.sep for source in _SOURCES}
    seen, todo = {os.path.abspath(py_file)}, [os.path.abspath(py_file)]
    while todo:
        for found in _imported_files(todo.pop()) - seen:
            if any(found.startswith(root) for root in roots):
                seen.add(found)
                todo.append(found)
    return tuple(sorted(seen))


def _stamp(py_file: str) -> str:
    """A hash of the files that ``py_file`` depends on (:func:`depends`)."""
    digest = hashlib.sha256()
    for source in depends(os.path.abspath(py_file)):
        digest.update(source.encode() + b"\0")
        with open(source, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


class _DependentStamp:
    """Mixin: the source stamp of a registered file is :func:`_stamp`, not its own mtime and size."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.abspath(py_file) not in _SOURCES:
            return None
        locator = super().from_function(py_func, py_file)
        if locator is not None:
            locator.stamped_file = py_file
        return locator

    def get_source_stamp(self):
        return _stamp(self.stamped_file)


class _UserProvided(_DependentStamp, UserProvidedCacheLocator):
    """In ``NUMBA_CACHE_DIR`` when it is set."""


class _InTree(_DependentStamp, InTreeCacheLocator):
    """In ``__pycache__`` beside the source, as numba does by default."""


class _UserWide(_DependentStamp, UserWideCacheLocator):
    """In the user's cache folder when the source folder is read-only."""


class NumbaCacheError(KingdominoError, ImportError):
    """This numba keeps its cache locators otherwise than :mod:`kdenv.batched.jit` patches them."""


PATCHED = (UserProvidedCacheLocator, InTreeCacheLocator, UserWideCacheLocator)  # the numba locators extended above


def patchable(locators: object) -> list:
    """``locators`` (numba's ``CacheImpl._locator_classes``) if the patch holds: a list holding the locators of
    :data:`PATCHED`, each with the ``from_function`` and ``get_source_stamp`` that the subclasses above extend, and
    no ``NUMBA_CACHE_LOCATOR_CLASSES`` to replace the list; else a :class:`NumbaCacheError` of one line."""
    fix = f"numba {numba.__version__} is not one kdenv is tested on; install the numba that pyproject.toml names"
    if not isinstance(locators, list):
        raise NumbaCacheError(f"numba's CacheImpl._locator_classes is a {type(locators).__name__}, not a list: {fix}")
    for base in PATCHED:
        if base not in locators or not (callable(base.from_function) and callable(base.get_source_stamp)):
            raise NumbaCacheError(
                f"numba's cache locators no longer include {base.__name__} as kdenv extends it: {fix}"
            )
    if getattr(numba.config, "CACHE_LOCATOR_CLASSES", None):
        raise NumbaCacheError(
            "NUMBA_CACHE_LOCATOR_CLASSES would bypass the locators that see changed core files; unset it"
        )
    return locators


patchable(CacheImpl._locator_classes)[:0] = [_UserProvided, _InTree, _UserWide]  # tried first; others' files pass on

_load_index = IndexDataCacheFile._load_index


def _index_or_none(self: IndexDataCacheFile) -> dict:
    """numba's cache index of a function, or none (a stale cache: compiled again) where it cannot be read back.
    Numba unpickles an index before it compares its stamp, and an index names the types of the arguments compiled
    for: after a module of ours that defines one moved, reading it raised instead of compiling again."""
    try:
        return _load_index(self)
    except (ImportError, AttributeError, pickle.UnpicklingError, EOFError):
        return {}


IndexDataCacheFile._load_index = _index_or_none  # type: ignore[method-assign]


def jit(function=None, *, inline: bool = False):
    """Compile ``function`` in nopython mode with the dependency-aware on-disk cache; ``inline=True`` inlines
    it into its compiled callers (for small functions on the hot path of a playout). Each caller compiles its
    own copy, so larger functions that several kernels call stay out of line: ``choose`` and ``apply`` inlined
    made a cold compile much longer, for no speed that ``kdenv bench playouts`` or ``search`` could measure
    (measured: benchmarks/RESULTS.md, section "The kernels' compile time, and two cheaper rollouts")."""
    if function is None:
        return lambda f: jit(f, inline=inline)
    path = os.path.abspath(function.__code__.co_filename)
    if path not in _SOURCES:
        _SOURCES.append(path)
    return numba.njit(cache=True, inline="always" if inline else "never")(function)


def direct(kernel, *args):
    """``kernel`` compiled for the types of ``args``, as a callable that skips numba's type dispatch: on this
    core's NamedTuple arguments that dispatch costs more than one game's step itself, which a game stepped alone
    (:mod:`kdenv.batched.single`) cannot afford (measured: benchmarks/RESULTS.md, section "The one-game envs on the
    compiled core, as multiples of connect_four_v3"). The caller must pass arguments of those
    same types (its own arrays, made once) every call."""
    return kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
