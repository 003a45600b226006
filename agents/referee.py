"""The referee of a counted game (tournaments, evaluations, benchmarks): a player that breaks the game forfeits it.

A player breaks a game when its code raises, exits (``sys.exit``, ``os._exit``), passes the move limit or returns
an illegal action. The game is not dropped from the figures: the seat forfeits (:class:`Forfeit`, kept in the
record's ``forfeits``), a stand-in (the uniformly random player, seeded from the seat's seed) plays its moves to
the end so that the other seats' results stand, and the statistics count the seat last with a score of 0.

The move limit is an alarm (``SIGALRM``) in the process that plays the game, where the game runs in its main
thread: a player sleeping or looping in Python is stopped there. A move that the alarm could not stop (native code
that ignores signals, or a game off the main thread) still forfeits once it returns past the limit.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, NoReturn

from agents.base import Player
from agents.random_player import RandomPlayer
from kdenv.errors import IllegalMoveError
from kdenv.game import Game
from kdenv.view import PublicView

MOVE_LIMIT = 60.0  # seconds a move (and a player's reset) may take by default: 60x a 1 s search, 240x az's 0.25 s


@dataclass(frozen=True)
class Forfeit:
    """How the player of ``seat`` broke the game: at ``move`` (the index of the move it was to make), for
    ``reason`` (kdenv.record_extras.FORFEIT_REASONS), with ``error`` in a line and the traceback in ``trace``."""

    seat: int
    reason: str
    move: int
    error: str
    trace: str = field(default="", compare=False)

    def to_dict(self) -> dict:
        """The entry of the record's ``forfeits`` (the traceback stays out of the record)."""
        entry = asdict(self)
        del entry["trace"]
        return entry


class _Overran(BaseException):
    """The move limit's alarm, raised in the player's code; not an Exception, so that a player's own ``except
    Exception`` does not swallow it."""


class _Exited(BaseException):
    """``os._exit`` called by a player's code while it plays (the process is not the player's to end)."""

    def __init__(self, code: Any) -> None:
        super().__init__(code)
        self.code = code


class Referee:
    """Plays the seats of one game: each player's own moves until it breaks the game, then its stand-in's.
    ``forfeits`` lists what broke, in order; a ``move_limit`` of None sets no limit."""

    def __init__(self, move_limit: float | None = MOVE_LIMIT) -> None:
        self.move_limit = move_limit
        self.forfeits: list[Forfeit] = []
        self._stand_ins: dict[int, Player] = {}
        self._seeds: dict[int, int | None] = {}

    @property
    def forfeited(self) -> list[int]:
        """The seats that forfeited."""
        return [f.seat for f in self.forfeits]

    def seat(self, players: Sequence[Player], seeds: Sequence[int | None]) -> None:
        """Reset ``players[p]`` for seat p with ``seeds[p]``; one that breaks forfeits before its first move."""
        for seat, (player, seed) in enumerate(zip(players, seeds, strict=True)):
            self._seeds[seat] = seed
            try:
                with self._turn(seat, 0):
                    player.reset(seat, seed)
            except _Broke as broke:
                self._forfeit(broke.forfeit)

    def play(self, player: Player, game: Game, view: PublicView, traces: list[dict | None] | None) -> None:
        """Make the move of the seat to play, ``player``'s (with what it thought in ``traces``) or its stand-in's."""
        seat = game.current_player
        if seat not in self._stand_ins:
            try:
                with self._turn(seat, len(game.moves)):
                    action = player.act(view)
                    trace = player.trace() if traces is not None else None
                try:
                    game.step(action, seat)
                except IllegalMoveError as err:
                    raise _Broke(Forfeit(seat, "illegal move", len(game.moves), str(err))) from None
            except _Broke as broke:
                self._forfeit(broke.forfeit)
            else:
                if traces is not None:
                    traces.append(trace)
                return
        game.step(self._stand_ins[seat].act(view), seat)
        if traces is not None:
            traces.append(None)

    def _forfeit(self, forfeit: Forfeit) -> None:
        self.forfeits.append(forfeit)
        stand_in = RandomPlayer()
        stand_in.reset(forfeit.seat, self._seeds.get(forfeit.seat))
        self._stand_ins[forfeit.seat] = stand_in

    @contextmanager
    def _turn(self, seat: int, move: int) -> Iterator[None]:
        """Run the player of ``seat`` within the move limit; whatever it breaks is raised as :class:`_Broke`."""
        limit, start = self.move_limit, time.monotonic()
        try:
            with _alarm(limit), _no_process_exit():
                yield
        except _Overran:
            raise _Broke(Forfeit(seat, "move limit", move, f"no move within the move limit of {limit:g} s")) from None
        except _Exited as err:
            raise _Broke(Forfeit(seat, "exited", move, f"os._exit({err.code!r})", traceback.format_exc())) from None
        except SystemExit as err:
            raise _Broke(Forfeit(seat, "exited", move, f"sys.exit({err.code!r})", traceback.format_exc())) from None
        except Exception as err:  # the player's bug, told in a line; KeyboardInterrupt stops the run as always
            line = f"{type(err).__name__}: {err}".splitlines()[0]
            raise _Broke(Forfeit(seat, "raised", move, line, traceback.format_exc())) from None
        took = time.monotonic() - start
        if limit is not None and took > limit:
            raise _Broke(Forfeit(seat, "move limit", move, f"took {took:.1f} s, over the move limit of {limit:g} s"))


class _Broke(Exception):
    """A seat's player broke the game (:class:`Forfeit`)."""

    def __init__(self, forfeit: Forfeit) -> None:
        super().__init__(forfeit.error)
        self.forfeit = forfeit


@contextmanager
def _alarm(limit: float | None) -> Iterator[None]:
    """Raise :class:`_Overran` in this thread once ``limit`` seconds have passed (only in the main thread, where
    signals land, and where SIGALRM exists)."""
    if limit is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def overran(signum: int, frame: Any) -> NoReturn:
        raise _Overran

    before = signal.signal(signal.SIGALRM, overran)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


@contextmanager
def _no_process_exit() -> Iterator[None]:
    """While a player plays in this thread, ``os._exit`` raises :class:`_Exited` here instead of ending the process
    (other threads, a worker's watchdog among them, still end it)."""
    real, mine = os._exit, threading.get_ident()

    def refuse(status: int) -> NoReturn:
        if threading.get_ident() != mine:
            real(status)
        raise _Exited(status)

    os._exit = refuse
    try:
        yield
    finally:
        os._exit = real
