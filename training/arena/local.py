"""The backends that play on this machine: :class:`InProcess` (``--workers 1``) and :class:`ProcessPool`."""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing

from agents.base import Player
from agents.registry import PLAYERS
from kdenv.rules import Rules
from training.arena.backend import Backend, windowed
from training.arena.errors import TournamentError
from training.arena.pool import WorkerPool
from training.arena.schedule import ScheduledGame
from training.arena.worker import Outcome, Seats, play_in_worker, play_scheduled


class InProcess(Backend):
    """Every game in this process, one after the other, with one set of players: those the specs make, and the
    Player ``objects`` given by name."""

    def __init__(self, objects: Mapping[str, Player] | None = None) -> None:
        self.objects = dict(objects or {})

    def play(self, games: Sequence[ScheduledGame], rules: Rules, trace: bool = False) -> Generator[Outcome, None, None]:
        seats = Seats(objects=self.objects)
        try:
            for game in games:
                yield play_scheduled(game, rules, seats, trace)
        finally:
            seats.close()


class ProcessPool(Backend):
    """The games in ``workers`` worker processes (:class:`~training.arena.pool.WorkerPool`), two queued per
    worker; the workers are stopped at once when the iterator is closed (Ctrl-C)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def play(self, games: Sequence[ScheduledGame], rules: Rules, trace: bool = False) -> Generator[Outcome, None, None]:
        pool = WorkerPool(self.workers)
        players = dict(PLAYERS)  # the registry as it is here, players registered at run time too

        def start(game: ScheduledGame) -> Future:
            return pool.submit(play_in_worker, game, rules, players, trace)

        def first_done(futures: list[Future]) -> set[Future]:
            return wait(futures, return_when=FIRST_COMPLETED).done

        try:
            with closing(windowed(games, start, first_done, 2 * self.workers)) as finished:
                for _, future in finished:
                    yield future.result()
        except BrokenProcessPool:
            raise TournamentError(
                "a worker process died (out of memory?); the finished games are saved: run again to resume"
            ) from None
        finally:
            pool.terminate()
