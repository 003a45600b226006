"""Work for the backends' tests, importable by worker processes."""

from __future__ import annotations

import os
from collections import deque


def square_plus(item: int, extra: int) -> int:
    return item * item + extra


class Refilled:
    """Items that the caller adds as it reads the results (a grid's run's next point after its last): it runs dry
    while the tasks that give the next ones are in flight, then yields again."""

    def __init__(self, *items: int) -> None:
        self.items = deque(items)

    def __iter__(self) -> Refilled:
        return self

    def __next__(self) -> int:
        if not self.items:
            raise StopIteration
        return self.items.popleft()


class Tally:
    """A crew's object with state: it counts its calls and adds what it is given."""

    def __init__(self, start: int) -> None:
        self.total = start
        self.calls = 0

    def add(self, amount: int, scale: int = 1) -> tuple[int, int, int]:
        self.calls += 1
        self.total += amount * scale
        return self.total, self.calls, os.getpid()

    def fail(self) -> None:
        raise ValueError("no such line")

    def die(self) -> None:
        os._exit(3)
