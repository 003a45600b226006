"""A search's thinking budget in seconds, and its shares (the phases of sequential halving)."""

from __future__ import annotations

from collections.abc import Callable


class Clock:
    """A thinking budget in seconds of ``now`` (a clock function), from the moment it is made: true once spent."""

    def __init__(self, now: Callable[[], float], seconds: float) -> None:
        self.now, self.start, self.seconds = now, now(), seconds

    def __call__(self) -> bool:
        return self.now() >= self.start + self.seconds

    def share(self, fraction: float) -> Callable[[], bool]:
        """A clock that is spent once ``fraction`` of this one's seconds have passed."""
        end = self.start + self.seconds * fraction
        return lambda: self.now() >= end
