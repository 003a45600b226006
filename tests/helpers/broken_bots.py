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


class BreaksAt(RandomPlayer):
    """Plays randomly, but at its move ``AT`` of each game does ``breaks()`` first."""

    AT = 3

    def reset(self, seat, seed=None):
        super().reset(seat, seed)
        self.moves = 0

    def act(self, view):
        self.moves += 1
        if self.moves == self.AT:
            self.breaks()
        return super().act(view)


class Exits(BreaksAt):
    """Calls sys.exit(3) at its third move."""

    def breaks(self):
        sys.exit(3)


class HardExits(BreaksAt):
    """Calls os._exit(4) at its third move: the end of the process, were it let."""

    def breaks(self):
        os._exit(4)


class Sleeps(BreaksAt):
    """Never returns from its second move (an hour asleep)."""

    AT = 2

    def breaks(self):
        time.sleep(3600)


class SlowOnce(BreaksAt):
    """Takes half a second over its first move of each game, then plays at once."""

    AT = 1

    def breaks(self):
        time.sleep(0.5)


class Illegal(RandomPlayer):
    """Returns an action that is in range but illegal now (a pick while placing, or the reverse)."""

    def act(self, view):
        legal = set(view.legal_actions())
        return next(a for a in range(329) if a not in legal)
