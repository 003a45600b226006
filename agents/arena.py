"""Play one game between players: the loop shared by tournaments, benchmarks and evaluation."""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Player
from kdenv.dynasty import GAMES_IN_A_DYNASTY, Dynasty
from kdenv.game import OVER, Game
from kdenv.view import PublicView


def play_game(
    players: Sequence[Player], game: Game, seed: int | None = None, traces: list[dict | None] | None = None
) -> Game:
    """Let ``players[p]`` play seat p of ``game`` until it is over; returns the game.

    Each player is reset for its seat with a seed derived from ``seed``, so a game with
    the same deal, players and seed is played the same way again. With a ``traces`` list, what each
    player thought at each of its moves (:meth:`Player.trace`) is appended to it, one entry per move.
    """
    if len(players) != game.num_players:
        raise ValueError(f"{len(players)} players for a {game.num_players}-player game")
    for seat, player in enumerate(players):
        player.reset(seat, None if seed is None else seed * 7919 + seat)
    view = PublicView(game)
    while game.phase != OVER:
        seat = game.current_player
        action = players[seat].act(view)
        if traces is not None:
            traces.append(players[seat].trace())
        game.step(action, seat)
    return game


def play_dynasty(players: Sequence[Player], dynasty: Dynasty, seed: int | None = None) -> list[int]:
    """Play the three games of a Dynasty match; returns the players' totals."""
    for index in range(GAMES_IN_A_DYNASTY):
        play_game(players, dynasty.new_game(), None if seed is None else seed * 3 + index)
    return dynasty.totals()
