"""Work for the backends' tests, importable by worker processes."""

from __future__ import annotations

import os


def square_plus(item: int, extra: int) -> int:
    return item * item + extra


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
