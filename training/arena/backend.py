"""Where a tournament's games run, behind one small interface (as SB3's vector envs share ``VecEnv``): a
:class:`Backend` plays the games it is given and hands back their Outcomes as they finish.

The backends are :class:`~training.arena.local.InProcess` (this process, one game after the other),
:class:`~training.arena.local.ProcessPool` (worker processes here) and :class:`~training.arena.ray_backend.RayTasks`
(Ray tasks, on a local Ray or a cluster). Every game's deal and play seeds come from the schedule, so every backend
plays the same games. :func:`windowed` is the submit loop of the two that run games elsewhere.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Sequence
from typing import TypeVar

from kdenv.rules import Rules
from training.arena.schedule import ScheduledGame
from training.arena.worker import Outcome

G = TypeVar("G")  # a game
H = TypeVar("H")  # the handle of a game started elsewhere (a Future, a Ray ObjectRef)


class Backend(ABC):
    """Plays scheduled games somewhere: in this process, in worker processes, on Ray."""

    @abstractmethod
    def play(self, games: Sequence[ScheduledGame], rules: Rules, trace: bool = False) -> Generator[Outcome, None, None]:
        """The Outcomes of ``games`` as they finish, in any order, their records traced with ``trace``; closing
        the iterator early stops the games in flight."""


def windowed(
    games: Iterable[G],
    start: Callable[[G], H],
    wait: Callable[[list[H]], Iterable[H]],
    size: int,
    stop: Callable[[H], None] | None = None,
) -> Generator[tuple[G, H], None, None]:
    """(game, handle) of each finished game, with ``size`` games started at a time, not the whole schedule:
    ``start`` starts a game and returns its handle, ``wait`` waits until some of the handles in flight are done
    and returns those; the next games start as they finish. Closed early, it ``stop``s the games still in flight."""
    pending = iter(games)
    waiting: dict[H, G] = {}

    def top_up(count: int) -> None:
        for game in itertools.islice(pending, count):
            waiting[start(game)] = game

    try:
        top_up(size)
        while waiting:
            done = [(waiting.pop(handle), handle) for handle in wait(list(waiting))]
            top_up(len(done))
            yield from done
    finally:
        if stop is not None:
            for handle in waiting:
                stop(handle)
