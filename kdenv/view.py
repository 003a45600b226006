"""What a player may see of a game: everything but the order of the unseen dominoes.

Players and observation encoders read a :class:`PublicView`; search players that need a
whole game ask it for :meth:`PublicView.determinize`, a copy with the unseen dominoes
reshuffled, so no decision can depend on the true deck order.
"""

from __future__ import annotations

import random

from kdenv.game import Game, ScoreBreakdown
from kdenv.kingdom import Kingdom
from kdenv.rules import Rules


class PublicView:
    """Read-only window on a :class:`Game` that hides ``deck`` and ``removed``."""

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    # Public state, under the same names as on Game so encoders accept either.
    num_players = property(lambda self: self._game.num_players)
    rules: Rules = property(lambda self: self._game.rules)  # type: ignore[assignment]
    kingdoms: list[Kingdom] = property(lambda self: self._game.kingdoms)  # type: ignore[assignment]
    king_order = property(lambda self: self._game.king_order)
    line = property(lambda self: self._game.line)
    claims = property(lambda self: self._game.claims)
    queue = property(lambda self: self._game.queue)
    held = property(lambda self: self._game.held)
    king = property(lambda self: self._game.king)
    phase = property(lambda self: self._game.phase)
    round = property(lambda self: self._game.round)
    moves = property(lambda self: self._game.moves)
    current_player = property(lambda self: self._game.current_player)
    held_domino = property(lambda self: self._game.held_domino)
    is_over = property(lambda self: self._game.is_over)
    line_size = property(lambda self: self._game.line_size)

    def legal_actions(self) -> list[int]:
        return self._game.legal_actions()

    def placement_masks(self) -> tuple[int, int, int, int]:
        return self._game.placement_masks()

    def must_discard(self) -> bool:
        return self._game.must_discard()

    def unseen(self) -> list[int]:
        return self._game.unseen()

    def score(self, player: int) -> int:
        return self._game.score(player)

    def scores(self) -> list[int]:
        return self._game.scores()

    def breakdown(self, player: int) -> ScoreBreakdown:
        return self._game.breakdown(player)

    def determinize(self, rng: random.Random) -> Game:
        """A full game copy to plan on, with the unseen dominoes reshuffled by ``rng``."""
        return self._game.determinize(rng)
