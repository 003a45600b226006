"""``az``: a network-guided search (Gumbel AlphaZero at the root, PUCT below, max^n values), on the compiled core.

``az:default`` searches with the table's shipped network (the ``ppo:default`` checkpoints); ``az:PATH`` with any
``ppo`` checkpoint, or one written by expert iteration. The search is :mod:`agents.az_search`; the network's
priors and per-seat values come from :mod:`agents.evaluator`. A decision with one legal action is not searched.

Spec: ``az:default,simulations=64``. The player's own options: ``simulations=N`` or ``seconds=S`` per decision
(default ``seconds=1``), ``clock`` wall|cpu, ``values`` views|mover|seats (default: seats where the checkpoint has a
value per seat, else views; unread where the rollouts alone value a leaf) and ``seed=N``. The search's options, with
their meanings, ranges and defaults, are declared once in :class:`agents.search_settings.Settings` (the spec names
``c_puct`` ``c`` and ``evaluation`` ``eval``): the root (Gumbel or PUCT) and its constants, the leaves batched, the
rollout policy and its ``mix`` with the network's values, the other seats' moves in the tree (max^n or a compiled
policy's), the lines a chance node keeps, and what a finished game is worth to each seat.

Why rollouts by default: measured by ``kdenv bench decisions``, the moves the search chose on the networks'
values were worse than the prior's own, and those it chose on ``fg`` playouts better (benchmarks/RESULTS.md,
section "What the search's values are worth"). The network guides the search by its prior; ``rollout=none`` (or
``mix`` below 1) brings its values in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import numpy as np

from agents.az_search import Clock, Evaluate, Result, Search
from agents.evaluator import Evaluator, Values
from agents.options import COUNT, SECONDS, SEED, ClockName
from agents.playout import Snapshot
from agents.ppo_player import PPOOptions, PPOPlayer
from agents.search_settings import Settings, settings_of
from agents.searcher import Budget, Searcher
from agents.trace import move_text, top
from kdenv.batched.tables import tables
from kdenv.rules import Rules
from kdenv.view import PublicView


@dataclass(frozen=True)
class AZOptions(Settings):
    """``az``'s options: the search's settings (:class:`agents.search_settings.Settings`) and the player's own (see
    the module docstring)."""

    path: str = "default"
    simulations: Annotated[int, COUNT] | None = None
    seconds: Annotated[float, SECONDS] | None = None
    clock: ClockName = "wall"
    values: Values | None = None
    seed: Annotated[int, SEED] | None = None


class AZPlayer(Searcher):
    """Searches each decision with a checkpoint's network (see the module docstring)."""

    Options = AZOptions

    def __init__(self, options: AZOptions = AZOptions()) -> None:
        super().__init__()
        self.budget = Budget(options.seconds, options.simulations, options.clock, name="simulations")
        self.settings = settings_of(options)
        self.values = options.values
        self.base_seed = options.seed
        # reads the checkpoint (one-line errors), and the table's with seat_at
        self.network = PPOPlayer(PPOOptions(options.path))
        self.evaluator: Evaluate = self._evaluator()
        """The network's part of the search: any callable of the Evaluator's signature with its ``views``."""
        self._searches: dict[Rules, Search] = {}
        self._np = np.random.default_rng(self.base_seed)
        self._last: tuple[PublicView, Result, int] | None = None

    def seat_at(self, num_players: int, rules: Rules) -> None:
        """The table's network (``default``) or a check that the checkpoint fits it, then the warm-up, before any
        game."""
        network = self.network.policy
        self.network.seat_at(num_players, rules)
        if self.network.policy is not network:
            self.evaluator = self._evaluator()
            self._searches.clear()
        super().seat_at(num_players, rules)

    def _evaluator(self) -> Evaluator:
        """The network's evaluator: its prior alone where the rollouts alone value the leaves."""
        return Evaluator(self.network.settings, self.network.policy, self.values, self.settings.rolled_only)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        entropy = [x for x in (self.base_seed, seed) if x is not None]
        self._np = np.random.default_rng(entropy or None)
        self._last = None

    def act(self, view: PublicView) -> int:
        legal = view.legal_actions()
        self._last = None
        if len(legal) == 1:
            return legal[0]
        result = self.search(view)
        action = int(result.root.actions[result.chosen])
        self._last = (view, result, action)
        return action

    def search(self, view: PublicView, simulations: int | None = None) -> Result:
        """The search's result at ``view`` (its own budget, or exactly ``simulations``)."""
        search = self._searches.get(view.rules)
        if search is None:
            gains = self.network.settings.gains
            table = tables(view.num_players, view.rules, gains)
            search = self._searches[view.rules] = Search(table, self.evaluator.views, self.settings)
        root = Snapshot(view, gains=self.network.settings.gains).games
        budget = self.budget
        if simulations is None and not budget.count:
            return search.run(self.evaluator, root, self._np, 0, Clock(budget.now, budget.seconds))
        return search.run(self.evaluator, root, self._np, simulations or budget.count)

    def trace(self) -> dict | None:
        """The root's top moves: visits, prior, Q-value (the mover's, completed) and the improved policy."""
        return None if self._last is None else _trace(*self._last)


def _trace(view: PublicView, result: Result, chosen: int) -> dict:
    root = result.root
    candidates = [
        {
            "action": int(action),
            "move": move_text(view, int(action)),
            "value": float(result.q[k]),
            "visits": int(root.visits[k]),
            "prior": float(root.prior[k]),
            "policy": float(result.policy[k]),
        }
        | ({"chosen": True} if action == chosen else {})
        for k, action in enumerate(root.actions.tolist())
    ]
    return {"kind": "search", "candidates": top(candidates, "visits", "policy")}
