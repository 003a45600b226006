"""The one interface every player implements, usable from the AEC loop, wrappers and tournaments."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from kdenv.rules import Rules
from kdenv.view import PublicView


class Player(ABC):
    """A Kingdomino player: told its seat at the start of each game, asked for one action per decision.

    ``act`` receives a :class:`~kdenv.view.PublicView` (never the hidden deck order) and returns
    one of ``view.legal_actions()``. Players that search call ``view.determinize(rng)``.
    """

    spec: str = "?"  # the spec string that makes this player (set by agents.registry.make_player)
    # the dataclass of the spec's options (agents.options), whose instance the player takes; None: it takes none
    Options: ClassVar[type | None] = None

    def __init__(self) -> None:
        self.rng = random.Random()
        self.seat = 0

    def seat_at(self, num_players: int, rules: Rules) -> None:
        """Prepare for games of ``num_players`` under ``rules``, before any is played; a player that cannot
        play at that table raises a one-line KingdominoError here (the default plays anywhere)."""

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Start a new game in ``seat``; ``seed`` makes the player's own choices repeatable."""
        self.seat = seat
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, view: PublicView) -> int:
        """The action to play now (the view's current player is this player)."""

    def trace(self) -> dict | None:
        """What the player thought at its last ``act`` (see :mod:`agents.trace`), stored in a record's move by
        ``--trace``; None (the default) when it has nothing to tell."""
        return None

    def close(self) -> None:
        """Release resources (worker pools, models); the default has none."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
