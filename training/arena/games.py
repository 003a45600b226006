"""A tournament's games on a backend (:mod:`training.backends`): each game one task, played where the backend
runs it by :mod:`training.arena.worker`. Every game's deal and play seeds come from the schedule, so every backend
plays the same games."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from contextlib import closing

from agents.base import Player
from agents.referee import MOVE_LIMIT
from agents.registry import PLAYERS
from kdenv.rules import Rules
from training.arena.errors import TournamentError
from training.arena.schedule import ScheduledGame
from training.arena.worker import Outcome, Seats, play_in_worker, play_scheduled
from training.backends.base import Backend, Lost, WorkerDied


def play_games(
    backend: Backend,
    games: Iterable[ScheduledGame],
    rules: Rules,
    trace: bool = False,
    objects: Mapping[str, Player] | None = None,
    move_limit: float | None = MOVE_LIMIT,
    made_from: Mapping[str, str] | None = None,
) -> Generator[Outcome, None, None]:
    """The Outcomes of ``games`` as they finish, in any order, their records traced with ``trace`` and refereed
    with ``move_limit``, the players named in ``made_from`` made from the specs it gives; closing the iterator early
    stops the games in flight. The Player ``objects`` (by name) sit only at a backend ``here``. A game whose worker
    is lost every time it runs (the machinery, not a player) stops them with a one-line TournamentError: it is
    never scored, and never left out."""
    if backend.here:
        seats = Seats(objects=objects)  # one set of players, those the specs make and the objects
        try:
            here = (rules, seats, trace, move_limit, made_from)
            with closing(backend.tasks(play_scheduled, games, here)) as finished:
                yield from (outcome for _, outcome in finished)
        finally:
            seats.close()
        return
    registry = dict(PLAYERS)  # as it is here, players registered at run time too
    try:
        common = (rules, registry, trace, move_limit, made_from)
        with closing(backend.tasks(play_in_worker, games, common)) as finished:
            for game, outcome in finished:
                if isinstance(outcome, Lost):
                    raise WorkerDied(f"game {game.game_id}: its worker was lost every time it ran ({outcome.error})")
                yield outcome
    except WorkerDied as err:
        raise TournamentError(f"{err}; the finished games are saved: run again to resume") from None
