"""The tournament tests' Ctrl-C: an ``on_outcome`` callback that interrupts after a number of finished games."""

from __future__ import annotations


class InterruptAfter:
    """Raises KeyboardInterrupt once ``count`` games have finished; ``seen`` lists their game ids."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.seen: list[int] = []

    def __call__(self, outcome) -> None:
        self.seen.append(outcome.game.game_id)
        if len(self.seen) == self.count:
            raise KeyboardInterrupt
