"""A run's share of the machine: while it runs, torch, numba and the BLAS libraries use ``cpus`` threads, not one
per core each, so that runs side by side (``kdenv benchmark --workers``) do not fight over the cores."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

# what OpenMP, OpenBLAS, MKL and numba read when a process starts: the share of the processes started in the block
VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


@contextlib.contextmanager
def share(cpus: int) -> Iterator[None]:
    """Hold this process's torch and numba threads to ``cpus``, and every thread pool of the processes started in
    the block (:data:`VARIABLES`), then put them back as they were (a run in the caller's own process)."""
    import numba

    saved = {name: os.environ.get(name) for name in VARIABLES}
    os.environ.update(dict.fromkeys(VARIABLES, str(cpus)))
    torch = _torch()
    torch_threads = torch.get_num_threads() if torch is not None else 0
    numba_threads = _set_numba_threads(numba, cpus)
    if torch is not None:
        torch.set_num_threads(cpus)
    try:
        yield
    finally:
        if torch is not None:
            torch.set_num_threads(torch_threads)
        if numba_threads:
            _set_numba_threads(numba, numba_threads)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _torch() -> Any:
    """torch, or None where the train extra (torch) is not installed: there are no torch threads to hold then."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def _set_numba_threads(numba: Any, threads: int) -> int:
    """Set numba's threads (at most those it started with); the number it had, or 0 where no threading layer of
    numba loads here (then numba runs nothing in parallel, and there is nothing to hold)."""
    try:
        before = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    except ValueError:
        return 0
    return int(before)
