"""Worker processes for games, one helper for tournaments and evaluation: a pool whose workers leave Ctrl-C to
the parent (no ``KeyboardInterrupt`` tracebacks from them) and end as soon as the parent is gone, even killed
with ``kill -9``, so that no orphan lingers."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool (forkserver where there is one: nothing inherited from this process, torch threads
    included)."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(
        max(workers, 1),
        multiprocessing.get_context(method),
        initializer=_start_worker,
    )


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=lambda: (parent.join(), os._exit(1)), daemon=True).start()
