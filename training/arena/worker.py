"""One scheduled game, played wherever a backend runs it: in this process, a pool's worker or a Ray worker.

A process keeps its players (:class:`Seats`) from game to game; :func:`play_in_worker` is what a worker process
runs, with the players of the process that started the tournament.
"""

from __future__ import annotations

import traceback
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agents.base import Player
from agents.game_loop import play_game
from agents.referee import MOVE_LIMIT, Forfeit, Referee
from agents.registry import PLAYERS, make_player
from kdenv.game import Game
from kdenv.replay import to_record
from kdenv.rules import Rules
from training.arena.schedule import ScheduledGame


@dataclass(frozen=True)
class Outcome:
    """What playing one scheduled game gave: its record (its forfeits in it, with their tracebacks in
    ``forfeits``), or the error that kept it from being played (a player that could not be made)."""

    game: ScheduledGame
    record: dict | None = None
    error: str | None = None
    trace: str | None = None
    forfeits: tuple[Forfeit, ...] = ()


class Seats:
    """The players of one process, made once per (spec, copy, table) and reused from game to game; past
    ``keep`` of them the least recently seated are closed (a Ray worker outlives its tournaments). The Player
    ``objects`` given by name are seated as they are, and left to their owner to close."""

    def __init__(self, keep: int = 32, objects: Mapping[str, Player] | None = None) -> None:
        self.players: OrderedDict[tuple, Player] = OrderedDict()
        self.keep = keep
        self.objects = dict(objects or {})

    def table(self, agents: Sequence[str], rules: Rules) -> list[Player]:
        """The player of each seat of a game of ``agents`` (specs, or the names of objects) under ``rules``."""
        made = iter(self._made([spec for spec in agents if spec not in self.objects], len(agents), rules))
        return [self.objects[spec] if spec in self.objects else next(made) for spec in agents]

    def _made(self, specs: Sequence[str], players: int, rules: Rules) -> list[Player]:
        """The players that ``specs`` make at a table of ``players``, in order."""
        keys = [(spec, specs[:i].count(spec), players, rules) for i, spec in enumerate(specs)]
        for key in keys:
            if key not in self.players:
                self.players[key] = make_player(key[0], players, rules)
            self.players.move_to_end(key)
        while len(self.players) > max(self.keep, len(keys)):
            self.players.popitem(last=False)[1].close()
        return [self.players[key] for key in keys]

    def drop(self, agents: Sequence[str]) -> None:
        """Forget the players of a table whose game failed (they may be left in a bad state)."""
        for key in [k for k in self.players if k[0] in agents]:
            self.players.pop(key).close()

    def close(self) -> None:
        for player in self.players.values():
            player.close()
        self.players.clear()


def play_scheduled(
    game: ScheduledGame,
    rules: Rules,
    seats: Seats,
    trace: bool = False,
    move_limit: float | None = MOVE_LIMIT,
    made_from: Mapping[str, str] | None = None,
) -> Outcome:
    """Play one scheduled game under a :class:`~agents.referee.Referee` with ``move_limit``: a player that breaks it
    forfeits, and the game is played to its end and counted. With ``trace`` each move of the record keeps what its
    player thought (:meth:`agents.base.Player.trace`). The agents named in ``made_from`` are made from the spec it
    gives them (a copy, here, of the files that their name points to); the record names them as scheduled."""
    traces: list[dict | None] | None = [] if trace else None
    specs = [(made_from or {}).get(agent, agent) for agent in game.agents]
    try:
        table = seats.table(specs, rules)
    except Exception as err:  # checked before the first game: a player that its worker cannot make (a module)
        return Outcome(game, error=f"{type(err).__name__}: {err}", trace=traceback.format_exc())
    referee = Referee(move_limit)
    played = play_game(table, Game(len(game.agents), rules, game.deal_seed), game.play_seed, traces, referee)
    record = to_record(played, agents=list(game.agents), traces=traces)
    if referee.forfeits:
        seats.drop(specs)  # a player that broke may be left in a bad state
        record["forfeits"] = [f.to_dict() for f in referee.forfeits]
    record["tournament"] = {
        "game_id": game.game_id,
        "deal": game.deal,
        "table": game.table,
        "seating": game.seating,
        "play_seed": game.play_seed,
        "placings": played.placings(referee.forfeited),
    }
    return Outcome(game, record=record, forfeits=tuple(referee.forfeits))


_worker_seats: Seats | None = None  # the players of a worker process (of the pool, or of Ray)


def play_in_worker(
    game: ScheduledGame,
    rules: Rules,
    players: dict[str, str],
    trace: bool = False,
    move_limit: float | None = MOVE_LIMIT,
    made_from: Mapping[str, str] | None = None,
) -> Outcome:
    """One game in a worker process, with the parent's player registry ``players`` (players registered at
    run time too: a Ray worker outlives the run that started it); the worker's players are made at their first
    game and kept for the next."""
    global _worker_seats
    PLAYERS.update(players)
    if _worker_seats is None:
        _worker_seats = Seats()
    return play_scheduled(game, rules, _worker_seats, trace, move_limit, made_from)
