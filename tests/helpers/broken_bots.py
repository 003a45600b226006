"""Players that break the games they play, as outside code may: each one's game must count as its forfeit
(agents/referee.py). Importable by name in worker processes (``tests.helpers.broken_bots:SoreLoser``)."""

import os
import sys
import time

from agents.greedy import GreedyPlacementPlayer
from agents.random_player import RandomPlayer

LATE = 30  # moves into the game after which a sore loser that is behind gives up


class SoreLoser(GreedyPlacementPlayer):
    """Plays as ``gprd``, but raises when it is behind late in the game."""

    def act(self, view):
        scores = view.scores()
        behind = scores[self.seat] < max(s for p, s in enumerate(scores) if p != self.seat)
        if len(view.moves) > LATE and behind:
            raise RuntimeError("I was losing anyway")
        return super().act(view)


class Exits(RandomPlayer):
    """Calls sys.exit(3) at its third move."""

    def act(self, view):
        self.moves = getattr(self, "moves", 0) + 1
        if self.moves == 3:
            sys.exit(3)
        return super().act(view)


class HardExits(RandomPlayer):
    """Calls os._exit(4) at its third move: the end of the process, were it let."""

    def act(self, view):
        self.moves = getattr(self, "moves", 0) + 1
        if self.moves == 3:
            os._exit(4)
        return super().act(view)


class Sleeps(RandomPlayer):
    """Never returns from its second move (an hour asleep)."""

    def act(self, view):
        self.moves = getattr(self, "moves", 0) + 1
        if self.moves == 2:
            time.sleep(3600)
        return super().act(view)


class SlowOnce(RandomPlayer):
    """Takes half a second over its first move of each game, then plays at once."""

    def reset(self, seat, seed=None):
        super().reset(seat, seed)
        self.slow = True

    def act(self, view):
        if self.slow:
            self.slow = False
            time.sleep(0.5)
        return super().act(view)


class Illegal(RandomPlayer):
    """Returns an action that is in range but illegal now (a pick while placing, or the reverse)."""

    def act(self, view):
        legal = set(view.legal_actions())
        return next(a for a in range(329) if a not in legal)
