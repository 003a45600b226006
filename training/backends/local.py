"""The backends of this machine: :class:`InProcess` (one worker: this process) and :class:`Processes`."""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic

from training.backends.base import RETRIES, Backend, Crew, Lost, T, WorkerDied
from training.backends.pool import WorkerPool
from training.main_guard import check_main_guarded

DIED = "a worker process died (out of memory?)"


class InProcess(Backend):
    """Every task in this process, one after the other; a crew of objects here."""

    here = True

    def tasks(
        self, task: Callable[..., Any], items: Iterable[T], common: tuple = ()
    ) -> Generator[tuple[T, Any], None, None]:
        for item in items:
            yield item, task(item, *common)

    def crew(self, kind: type, arguments: Sequence[tuple]) -> Crew:
        return _Objects([kind(*each) for each in arguments])


class _Objects(Crew):
    """A crew whose workers' objects are in this process."""

    def __init__(self, objects: list[Any]) -> None:
        self.objects = objects

    def call(self, method: str, each: Sequence[tuple], common: tuple = ()) -> list[Any]:
        return [getattr(o, method)(*mine, *common) for o, mine in zip(self.objects, each, strict=True)]

    def close(self) -> None:
        """Nothing to release: the objects go with the crew."""


class Processes(Backend):
    """Tasks in a pool of ``workers`` processes (:class:`~training.backends.pool.WorkerPool`), two queued per
    worker and stopped at once when the iterator is closed (Ctrl-C); a crew in processes of its own."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def tasks(
        self, task: Callable[..., Any], items: Iterable[T], common: tuple = ()
    ) -> Generator[tuple[T, Any], None, None]:
        """As :meth:`Backend.tasks`; when a worker dies, the pool is made anew and the tasks it broke run again,
        each at most :data:`~training.backends.base.RETRIES` times before it comes back :class:`Lost`."""
        flight = _Flight(self.workers, task, items, common)
        try:
            while True:
                broken = not flight.fill()  # the pool lost a worker: every task in flight is lost with it
                if not flight.running and not broken:
                    flight.pool.shutdown()  # all done: the workers exit as processes do, cleaning up after themselves
                    return
                if flight.running:
                    done = wait(flight.running, return_when=FIRST_COMPLETED).done
                    lost = {f for f in done if isinstance(f.exception(), BrokenProcessPool)}
                    yield from ((flight.running.pop(f), f.result()) for f in done - lost)
                    broken = broken or bool(lost)
                if broken:
                    yield from flight.restart()
        finally:
            flight.pool.terminate()

    def crew(self, kind: type, arguments: Sequence[tuple]) -> Crew:
        return _Processes(kind, arguments)


class _Flight(Generic[T]):
    """The tasks of one :meth:`Processes.tasks`: those running in the pool, those to run (again), and how often each
    was lost with a worker."""

    def __init__(self, workers: int, task: Callable[..., Any], items: Iterable[T], common: tuple) -> None:
        self.workers, self.task, self.common = workers, task, common
        self.source, self.again = iter(items), deque[T]()
        self.running: dict[Future, T] = {}
        self.tries: dict[int, int] = {}  # id(item) -> runs its worker died in
        self.pool = WorkerPool(workers)

    def fill(self) -> bool:
        """Start tasks until two a worker run (the ones to run again first); False if the pool is found broken."""
        while len(self.running) < 2 * self.workers:
            if not self.again:
                self.again.extend(itertools.islice(self.source, 1))  # the next new task, if any is left
            if not self.again:
                return True
            item = self.again.popleft()
            try:
                self.running[self.pool.submit(self.task, item, *self.common)] = item
            except BrokenProcessPool:  # broken since the last wait: this task never ran
                self.again.appendleft(item)
                return False
        return True

    def restart(self) -> Iterator[tuple[T, Lost]]:
        """A new pool, the tasks that were running in the old one to run again; one lost every time, as Lost."""
        self.pool.terminate()
        self.pool = WorkerPool(self.workers)
        for item in self.running.values():
            self.tries[id(item)] = self.tries.get(id(item), 0) + 1
            if self.tries[id(item)] > RETRIES:
                yield item, Lost(DIED, f"{DIED}, each of {RETRIES + 1} times it ran")
            else:
                self.again.append(item)
        self.running.clear()


class _Processes(Crew):
    """A crew of processes of this machine, one per worker (spawned: each its own torch and numba)."""

    def __init__(self, kind: type, arguments: Sequence[tuple]) -> None:
        check_main_guarded()
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for each in arguments:
            mine, theirs = context.Pipe()
            process = context.Process(target=_member, args=(theirs, kind, each), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def call(self, method: str, each: Sequence[tuple], common: tuple = ()) -> list[Any]:
        for connection, mine in zip(self.connections, each, strict=True):
            connection.send((method, (*mine, *common)))
        results = []
        for connection in self.connections:  # a signal lands after the call
            try:
                result = connection.recv()
            except EOFError:
                raise WorkerDied(DIED) from None
            if isinstance(result, _Raised):
                raise result.error
            results.append(result)
        return results

    def close(self) -> None:
        for connection in self.connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()


class _Raised:
    """What a crew's worker sends back when its object raised: the error, raised again in the caller."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _member(connection: Any, kind: type, arguments: tuple) -> None:
    """A crew's worker process: its object made once, then (method, arguments) in and results out, until None."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller's process decides when to stop, and tells us
    held = kind(*arguments)
    while True:
        try:
            job = connection.recv()
        except EOFError:  # the caller's process is gone (killed): so is its work
            return
        if job is None:
            return
        method, given = job
        try:
            connection.send(getattr(held, method)(*given))
        except Exception as err:  # the caller raises it: a worker's bug must not hang the caller
            connection.send(_Raised(err))
