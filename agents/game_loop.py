"""Play games between players: the loop and the seating shared by tournaments, benchmarks, evaluation and the
terminal and web games (where a person plays a seat)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agents.base import Player
from agents.referee import Referee
from kdenv.game import OVER, Game
from kdenv.view import PublicView

SEAT_STRIDE = 7919  # a prime: seat s of the game seeded g plays with seed g * SEAT_STRIDE + s


def seat_seed(seed: int, seat: int) -> int:
    """The seed of the player in ``seat`` of the game played with ``seed``: every seat its own, repeatable."""
    return seed * SEAT_STRIDE + seat


def seat_players(players: Sequence[Player | None], seed: int | None = None) -> None:
    """Reset ``players[p]`` for seat p with the seat's seed (:func:`seat_seed`); None is a seat that no Player
    plays (a person's)."""
    for seat, player in enumerate(players):
        if player is not None:
            player.reset(seat, None if seed is None else seat_seed(seed, seat))


def play_moves(
    players: Sequence[Player | None],
    game: Game,
    traces: list[dict | None] | None = None,
    on_move: Callable[[], None] | None = None,
    referee: Referee | None = None,
) -> Game:
    """Let ``players[p]`` move for seat p until the game is over or it is the turn of a seat without a player
    (a person's, who moves by other means); returns the game.

    With a ``traces`` list, what each player thought at each of its moves (:meth:`Player.trace`) is appended to
    it, one entry per move. ``on_move`` is called after each move (the last one is ``game.moves[-1]``). With a
    ``referee`` a player that breaks the game forfeits it (:mod:`agents.referee`); without, its error is raised.
    """
    view = PublicView(game)
    while game.phase != OVER:
        player = players[game.current_player]
        if player is None:
            break
        if referee is not None:
            referee.play(player, game, view, traces)
        else:
            action = player.act(view)
            if traces is not None:
                traces.append(player.trace())
            game.step(action, game.current_player)
        if on_move is not None:
            on_move()
    return game


def play_game(
    players: Sequence[Player],
    game: Game,
    seed: int | None = None,
    traces: list[dict | None] | None = None,
    referee: Referee | None = None,
) -> Game:
    """Let ``players[p]`` play seat p of ``game`` until it is over; returns the game.

    Each player is reset for its seat with a seed derived from ``seed`` (:func:`seat_players`), so a game with
    the same deal, players and seed is played the same way again. With a ``traces`` list, what each
    player thought at each of its moves (:meth:`Player.trace`) is appended to it, one entry per move. With a
    ``referee`` a player that breaks the game forfeits it, and the game is played to its end.
    """
    if len(players) != game.num_players:
        raise ValueError(f"{len(players)} players for a {game.num_players}-player game")
    if referee is None:
        seat_players(players, seed)
    else:
        referee.seat(players, [None if seed is None else seat_seed(seed, s) for s in range(len(players))])
    return play_moves(players, game, traces, referee=referee)
