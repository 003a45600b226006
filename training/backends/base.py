"""The interface of a backend (:class:`Backend`, :class:`Crew`), and what a lost worker gives back."""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from kdenv.errors import KingdominoError

RETRIES = 3  # times a task runs again after its worker died under it (the machinery, not the task, is to blame)
T = TypeVar("T")  # an item of work
H = TypeVar("H")  # the handle of a task started elsewhere (a Future, a Ray ObjectRef)


class WorkerDied(KingdominoError):
    """A worker process died under a task (out of memory?), and a pool cannot tell which task killed it."""


@dataclass(frozen=True)
class Lost:
    """A task whose worker was lost every time it ran (Ray runs it again first): the error, in a line and in full."""

    error: str
    trace: str


class Crew(ABC):
    """One object per worker, made there and kept from call to call."""

    @abstractmethod
    def call(self, method: str, each: Sequence[tuple], common: tuple = ()) -> list[Any]:
        """What ``method`` of every worker's object returns, in the workers' order; worker ``k``'s is called
        with ``*each[k], *common`` (``common`` is sent once where the backend can share it)."""

    @abstractmethod
    def close(self) -> None:
        """Stop the workers (their objects are lost)."""


class Backend(ABC):
    """Runs tasks and crews somewhere: in this process, in worker processes, on Ray."""

    here: bool = False  # the work runs in this process: it may take what cannot be pickled (objects, callbacks)

    @abstractmethod
    def tasks(
        self, task: Callable[..., Any], items: Iterable[T], common: tuple = ()
    ) -> Generator[tuple[T, Any], None, None]:
        """(item, ``task(item, *common)``) for each of ``items`` as they finish, in any order; a :class:`Lost`
        in place of the result of a task whose worker was lost, or :class:`WorkerDied` raised; a task's own error
        is raised here. Closing the iterator early stops the tasks in flight.

        ``items`` is read as the backend has room, and read again after each result it hands back: an iterator
        that the caller fills as it reads the results (a run's next point after its last) may run dry meanwhile,
        ending the tasks only once none is in flight either."""

    @abstractmethod
    def crew(self, kind: type, arguments: Sequence[tuple]) -> Crew:
        """A crew of ``len(arguments)`` workers, worker ``k`` holding ``kind(*arguments[k])``."""


def windowed(
    items: Iterable[T],
    start: Callable[[T], H],
    wait: Callable[[list[H]], Iterable[H]],
    size: int,
    stop: Callable[[H], None] | None = None,
) -> Generator[tuple[T, H], None, None]:
    """(item, handle) of each finished task, with ``size`` tasks started at a time, not all of them: ``start``
    starts a task and returns its handle, ``wait`` waits until some of the handles in flight are done and returns
    those; the next tasks start as they finish, and as the caller adds items while it reads them (see
    :meth:`Backend.tasks`). Closed early, it ``stop``s the tasks still in flight."""
    pending = iter(items)
    waiting: dict[H, T] = {}

    def top_up() -> None:
        for item in itertools.islice(pending, size - len(waiting)):
            waiting[start(item)] = item

    try:
        top_up()
        while waiting:
            done = [(waiting.pop(handle), handle) for handle in wait(list(waiting))]
            top_up()
            for finished in done:
                yield finished
                top_up()
    finally:
        if stop is not None:
            for handle in waiting:
                stop(handle)
