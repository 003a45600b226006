"""What the Monte Carlo players share: spec options, candidate moves, the planned pick (their budget and warm-up:
:mod:`agents.searcher`).

A search player decides a whole turn (placement and pick) when it places, and remembers the pick it
chose; the following pick decision plays it if the state is still the one it planned for. Candidate
placements are those Full Greedy keeps (inside the centred window, no single-square hole, each with
its fall-back) unless ``prune=0``. Planning is done on ``view.determinize(rng)`` copies only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from agents.greedy import FullGreedy, study_masks
from agents.options import COUNT, SECONDS, ClockName, Key
from agents.playout import Evaluation, PlayoutPolicy
from agents.searcher import Budget, Searcher
from kdenv.actions import discard_action, pick_action
from kdenv.game import PICK, PLACE
from kdenv.kingdom import placement_actions
from kdenv.view import PublicView


@dataclass(frozen=True)
class SearchOptions:
    """The options of ``mce`` and ``uct``: playout policy, evaluation, budget, pruning."""

    policy: PlayoutPolicy = "fg"
    evaluation: Annotated[Evaluation, Key("eval")] = "r"
    seconds: Annotated[float, SECONDS] | None = None
    playouts: Annotated[int, COUNT] | None = None
    prune: bool = True
    clock: ClockName = "wall"


class SearchPlayer(Searcher):
    """Base of ``mce`` and ``uct``: options, budget, candidate moves and the remembered pick."""

    def __init__(self, options: SearchOptions) -> None:
        super().__init__()
        self.policy = options.policy
        self.evaluation = options.evaluation
        self.budget = Budget(options.seconds, options.playouts, options.clock)
        self.prune = options.prune
        self.fg = FullGreedy()
        self._plan: tuple | None = None
        # works out what the last act thought, when asked (set by choose_turn and choose_pick), so that
        # untraced games pay nothing for it
        self._trace: Callable[[], dict] | None = None

    # ----- the player interface ------------------------------------------------------------------
    def act(self, view: PublicView) -> int:
        size = view.rules.kingdom_size
        self._trace = None
        if view.phase == PICK:
            plan = self._plan
            self._plan = None
            if plan is not None and plan[0] == _key(view):
                return pick_action(plan[1], size)
            return pick_action(self.choose_pick(view), size)
        if view.phase != PLACE:
            raise ValueError("the game is over: no action to choose")
        action, slot = self.choose_turn(view)
        self._plan = (_key(view), slot) if slot >= 0 else None
        return action

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self._plan = None

    def trace(self) -> dict | None:
        """The top candidates of the last decision searched (None for a pick planned with the placement)."""
        return None if self._trace is None else self._trace()

    def choose_turn(self, view: PublicView) -> tuple[int, int]:
        """(placement or discard action, slot to pick or -1) for the turn starting now."""
        raise NotImplementedError

    def choose_pick(self, view: PublicView) -> int:
        """The slot to pick when no planned pick applies (the set-up, or after a discard)."""
        raise NotImplementedError

    # ----- shared helpers --------------------------------------------------------------------------
    def candidate_masks(self, game) -> tuple[int, int, int, int] | None:
        """Per direction, the half-A cells of the candidate placements now (None: nothing fits)."""
        masks = game.placement_masks()
        if not (masks[0] or masks[1] or masks[2] or masks[3]):
            return None
        return study_masks(game.kingdoms[game.current_player], masks) if self.prune else masks

    def placements(self, game) -> list[int]:
        """Candidate placement actions now (the discard alone when nothing can be placed)."""
        masks = self.candidate_masks(game)
        if masks is None:
            return [discard_action(game.rules.kingdom_size)]
        return placement_actions(masks)


def _key(game) -> tuple:
    """The turn a planned pick belongs to: the same round, king and claims of the next line."""
    return game.round, game.king, tuple(game.claims)
