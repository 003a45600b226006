"""Worker processes for games, one helper for tournaments and evaluation: a pool whose workers leave Ctrl-C to
the parent (no ``KeyboardInterrupt`` tracebacks from them), end as soon as the parent is gone, even killed
with ``kill -9``, so that no orphan lingers, and can be stopped at once (:meth:`WorkerPool.terminate`)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import wait
from typing import Any

from training.main_guard import check_main_guarded

GRACE = 20.0  # seconds a stopped worker has to end by itself (its command's processes too) before it is killed


class WorkerPool(ProcessPoolExecutor):
    """A process pool (forkserver where there is one: nothing inherited from this process, torch threads
    included) that keeps its worker processes, to stop them without waiting for the games they play."""

    def __init__(self, workers: int) -> None:
        check_main_guarded()
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self.launcher = _Launcher(multiprocessing.get_context(method))  # a context in all but its class:
        super().__init__(max(workers, 1), self.launcher, initializer=_start_worker)  # type: ignore[call-overload]

    def terminate(self) -> None:
        """Stop the workers now (an interrupt should not wait for a slow search player), then shut the pool down.
        SIGTERM first, so that a worker ends what it started (a command's processes); one still alive after
        :data:`GRACE` seconds is killed: a trainer in it takes SIGTERM as "checkpoint and stop", and a worker that
        finished its task meanwhile would wait forever to hand back a result that no one reads any more."""
        processes, manager = self.launcher.processes, getattr(self, "_executor_manager_thread", None)
        for process in processes:
            process.terminate()
        self.shutdown(wait=False, cancel_futures=True)  # a worker whose task ended on the signal is told to exit
        ending = {process.sentinel: process for process in processes if process.pid is not None}
        deadline = time.monotonic() + GRACE
        while ending and time.monotonic() < deadline:  # their sentinels, not join: the pool's thread reaps them
            for sentinel in wait(list(ending), max(0.0, deadline - time.monotonic())):
                ending.pop(sentinel)  # type: ignore[arg-type]
        for process in ending.values():
            process.kill()
        if manager is not None:
            manager.join()  # the pool's thread, which ends once its workers have


class _Launcher:
    """A multiprocessing context that keeps the processes it makes: the pool makes its workers with its context's
    ``Process``, and ProcessPoolExecutor has no public way to stop them (before Python 3.14)."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.processes: list[multiprocessing.Process] = []

    def Process(self, *args: Any, **kwargs: Any) -> multiprocessing.Process:  # named as a context names it
        process = self.context.Process(*args, **kwargs)
        self.processes.append(process)
        return process

    def __getattr__(self, name: str) -> Any:
        return getattr(self.context, name)


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_after, args=(parent,), daemon=True).start()


def _exit_after(parent: multiprocessing.process.BaseProcess) -> None:
    """End this worker at once when its parent has ended."""
    parent.join()
    os._exit(1)
