"""``az``: a network-guided search (Gumbel AlphaZero at the root, PUCT below, max^n values), on the compiled core.

``az:default`` searches with the table's shipped network (the ``ppo:default`` checkpoints); ``az:PATH`` with any
``ppo`` checkpoint, or one written by expert iteration. The search is :mod:`agents.az_search`; the network's
priors and per-seat values come from :mod:`agents.evaluator`. A decision with one legal action is not searched.

Spec: ``az:default,simulations=64`` (options: ``simulations=N`` or ``seconds=S`` per decision, default ``seconds=1``;
``clock`` wall|cpu; ``root`` gumbel|puct; ``considered=16`` Gumbel's root actions; ``c=1.25`` PUCT's exploration;
``c_visit=50``, ``c_scale=1`` sigma's constants; ``values`` views|mover|seats (default: seats where the checkpoint has
a value per seat, else views; unread where the rollouts alone value a leaf); ``batch=16`` leaves per forward pass;
``rollout`` none|random|gprd|fg|fgt|network (default fg) and ``mix=1``: each leaf is played out by that compiled
policy (fgt: the searcher's seat by fgt, the others by fg; network: the searcher's seat by the network's favourite
moves, the others by fg), and its value is ``mix`` times the rollout's plus the rest of the network's; ``others``
search|fg|fgt|gprd|random: the other seats' moves in the tree, searched as the searcher's own are (max^n, the default),
or that compiled policy's, as the rollouts play them (an opponent model: the tree then branches at the searcher's own
moves and the lines drawn); ``lines=K`` the lines drawn
a chance node keeps, its later simulations drawing one of them (default 0: every line drawn its own child);
``eval`` rank|r, what a finished game, in the tree or at a rollout's end, is worth to each seat: its rank reward, or
its score's share against the best other, own / (own + best), rescaled to [-1, 1] (the study's R, ``mce``'s default;
the default where rollouts alone value the leaves, else rank, the scale the network's values were trained on);
``sample`` true|false (Gumbel noise at the root; puct: play by visits); ``seed=N``).

Why rollouts by default: measured by ``kdenv bench decisions``, the moves the search chose on the networks'
values were worse than the prior's own, and those it chose on ``fg`` playouts better (``benchmarks/RESULTS.md``);
``gprd`` playouts, 2-4x as many in the time, won 14.5 points less against three ``fg``.
The network guides the search by its prior; ``rollout=none`` (or ``mix`` below 1) brings its values in.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Annotated

import numpy as np

from agents.az_search import Clock, Evaluate, Evaluation, Others, Result, Rollout, Root, Search, Settings
from agents.base import Player
from agents.evaluator import Evaluator, Values
from agents.options import CONSTANT, COUNT, SECONDS, SEED, Bound, ClockName, Key
from agents.playout import Snapshot
from agents.ppo_player import PPOOptions, PPOPlayer
from agents.search import Budget
from agents.trace import move_text, top
from kdenv.batched.tables import tables
from kdenv.rules import Rules
from kdenv.view import PublicView

SEARCH = Settings()  # the search's defaults, which the spec's options take


@dataclass(frozen=True)
class AZOptions:
    """``az``'s options (see the module docstring)."""

    path: str = "default"
    simulations: Annotated[int, COUNT] | None = None
    seconds: Annotated[float, SECONDS] | None = None
    clock: ClockName = "wall"
    root: Root = SEARCH.root  # the search's constants default to its own (Settings)
    considered: Annotated[int, Bound(1, least=True, high=1024)] = SEARCH.considered
    c: Annotated[float, CONSTANT] = SEARCH.c_puct
    c_visit: Annotated[float, CONSTANT] = SEARCH.c_visit
    c_scale: Annotated[float, Bound(high=1000)] = SEARCH.c_scale
    values: Values | None = None
    batch: Annotated[int, Bound(1, least=True, high=4096)] = SEARCH.batch
    rollout: Rollout = SEARCH.rollout
    mix: Annotated[float, Bound(least=True, high=1)] = SEARCH.mix  # the rollout's share of a leaf's value
    # the lines drawn a chance node keeps (0: all)
    lines: Annotated[int, Bound(least=True, high=COUNT.high)] = SEARCH.lines
    others: Others = SEARCH.others  # the other seats in the tree: searched (max^n), or moved by a policy
    evaluation: Annotated[Evaluation | None, Key("eval")] = None  # a finished game's worth: rank or r (None: see
    # the module docstring)
    sample: bool = SEARCH.sample
    seed: Annotated[int, SEED] | None = None


class AZPlayer(Player):
    """Searches each decision with a checkpoint's network (see the module docstring)."""

    Options = AZOptions

    def __init__(self, options: AZOptions = AZOptions()) -> None:
        super().__init__()
        self.budget = Budget(options.seconds, options.simulations, options.clock, name="simulations")
        shared = {f.name: getattr(options, f.name) for f in fields(Settings) if f.name not in ("c_puct", "evaluation")}
        settings = Settings(c_puct=options.c, **shared)
        evaluation = options.evaluation or ("r" if settings.rolled_only else "rank")  # the network's values are ranks
        self.settings = replace(settings, evaluation=evaluation)
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
        """The table's network (``default``) or a check that the checkpoint fits it, before any game."""
        network = self.network.policy
        self.network.seat_at(num_players, rules)
        if self.network.policy is not network:
            self.evaluator = self._evaluator()
            self._searches.clear()

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
