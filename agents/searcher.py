"""``Searcher``: a player that thinks within a :class:`Budget` on compiled kernels (``mce``, ``uct``, ``az``).

Its first moves in a process compile those kernels (numba: a minute or more on a fresh install, longer where two
processes compile at once), which a counted game's move limit would take for a hung player and forfeit. So, seated
at a table, a searcher first plays a game of it alone, once per process for each kind of searcher and table, and is
then left as it was: its counted moves start warm. It decides the game's first turns and its last round, at one
playout or simulation a decision (each playout runs to the end, so these reach every kernel); random moves play the
rest, which would only repeat them.
"""

from __future__ import annotations

import random
import time

from agents.base import Player
from agents.options import ClockName
from kdenv.game import OVER, Game
from kdenv.rules import Rules
from kdenv.view import PublicView

_warm: set[tuple[type, int, Rules]] = set()  # the searchers' kinds and tables whose kernels this process has run


class Budget:
    """Thinking time per decision: ``seconds`` (of wall clock, or of this process's CPU time with
    ``clock=cpu``: one core's worth even on a shared machine), or a ``count`` of playouts or simulations (the
    option's ``name``; 0: the other one)."""

    def __init__(
        self, seconds: float | None, count: int | None, clock: ClockName = "wall", name: str = "playouts"
    ) -> None:
        if seconds is not None and count is not None:
            raise ValueError(f"give seconds= or {name}=, not both")
        self.count = count or 0
        self.seconds = seconds if seconds is not None else (0.0 if self.count else 1.0)
        self.now = time.process_time if clock == "cpu" else time.perf_counter


class Searcher(Player):
    """A player that searches each decision within ``budget`` on compiled kernels, warmed when seated (see the
    module docstring)."""

    budget: Budget

    def seat_at(self, num_players: int, rules: Rules) -> None:
        super().seat_at(num_players, rules)
        self.warm_up(num_players, rules)

    def warm_up(self, num_players: int, rules: Rules) -> None:
        """Play one game of the table in every seat at the smallest budget (see the module docstring), unless this
        process has played one with this kind of searcher there; every attribute is then put back as it was."""
        key = (type(self), num_players, rules)
        if key in _warm:
            return
        kept = dict(vars(self))
        self.budget = Budget(None, 1)
        try:
            game, rng = Game(num_players, rules, 0), random.Random(0)
            while game.phase != OVER:
                if len(game.moves) < 3 * num_players or not game.deck:  # the set-up, the first turns, the last round
                    self.reset(game.current_player, 0)
                    game.step(self.act(PublicView(game)))
                else:
                    game.step(rng.choice(game.legal_actions()))
        finally:
            vars(self).update(kept)
        _warm.add(key)
