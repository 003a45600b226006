"""``mce``: flat Monte Carlo evaluation of whole turns (placement + pick), as in the study.

Each playout plays a candidate turn and finishes the game with the playout policy in the compiled
kernel (``agents.playout.Playouts``), the unseen dominoes reshuffled each time as by ``determinize``;
the turn with the best mean evaluation wins. Candidates are Full Greedy's
(placement, pick) options ranked by its value, the best ``width`` of them (``width=0``: all).
Playouts are shared out by successive halving (``select=halving``, the default: rounds of equal
playouts per surviving candidate, the worse half dropped after each) or evenly (``select=even``).

Spec: ``mce:policy=fg,eval=r,seconds=1`` (options: policy random|fg|eg|pg, eval wdl|p|r,
seconds=S or playouts=N per decision, clock wall|cpu, select halving|even, width=K, prune 0|1).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from agents.monte_carlo import SearchOptions, SearchPlayer
from agents.options import Bound
from agents.playout import Playouts
from agents.trace import move_text, top
from kdenv.actions import discard_action, pick_action
from kdenv.view import PublicView

DEFAULT_WIDTH = 10


@dataclass(frozen=True)
class MCEOptions(SearchOptions):
    """``mce``'s options: those of every search player, how playouts are shared out and how many candidates."""

    select: Literal["halving", "even"] = "halving"
    width: Annotated[int, Bound(least=True, high=1024)] = DEFAULT_WIDTH


class MonteCarloPlayer(SearchPlayer):
    """Flat Monte Carlo evaluation over candidate turns (see the module docstring)."""

    Options = MCEOptions

    def __init__(self, options: MCEOptions = MCEOptions()) -> None:
        super().__init__(options)
        self.select = options.select
        self.width = options.width
        self.tally: tuple[list[float], list[int]] = [], []  # (summed values, playouts) per candidate, last decision

    # ----- candidates ----------------------------------------------------------------------------
    def choose_turn(self, view: PublicView) -> tuple[int, int]:
        masks = self.candidate_masks(view)
        if masks is None:
            discard = discard_action(view.rules.kingdom_size)
            ranked = [(value, discard, slot) for value, slot in self.fg.pick_options(view)] if view.line else []
            ranked = ranked or [(0, discard, -1)]
        else:
            ranked = self.fg.place_options(view, masks)
        turns = [(action, slot) for _, action, slot in self._shortlist(ranked)]
        return self._best(view, turns)

    def choose_pick(self, view: PublicView) -> int:
        slots = [slot for _, slot in self._shortlist(self.fg.pick_options(view))]
        return self._best(view, [(-1, slot) for slot in slots])[1]

    def _shortlist(self, ranked: list[tuple]) -> list[tuple]:
        """The best ``width`` options by Full Greedy's value (ties in random order)."""
        self.rng.shuffle(ranked)
        ranked.sort(key=lambda option: -option[0])
        return ranked[: self.width] if self.width else ranked

    # ----- playouts --------------------------------------------------------------------------------
    def _best(self, view: PublicView, turns: list[tuple[int, int]]) -> tuple[int, int]:
        """The turn (placement or -1, slot or -1) with the best mean playout value."""
        size = view.rules.kingdom_size
        if len(turns) == 1:
            self._trace = functools.partial(self._turns_trace, view, turns, 0, ([0.0], [0]))
            return turns[0]
        playouts = Playouts(view, self.policy, self.seat, self.evaluation)

        def playout(turn: tuple[int, int]) -> float:
            action, slot = turn
            first = ((action,) if action >= 0 else ()) + ((pick_action(slot, size),) if slot >= 0 else ())
            return playouts.values(self.rng, first)[self.seat]

        best = self._share_out(len(turns), lambda i: playout(turns[i]))
        self._trace = functools.partial(self._turns_trace, view, turns, best, self.tally)
        return turns[best]

    def _turns_trace(
        self, view: PublicView, turns: list[tuple[int, int]], best: int, tally: tuple[list[float], list[int]]
    ) -> dict:
        """The trace of a decision: the candidate turns with their mean values and playouts (``tally``)."""
        size = view.rules.kingdom_size
        totals, counts = tally
        candidates = []
        for i, (action, slot) in enumerate(turns):
            first = action if action >= 0 else pick_action(slot, size)
            candidate = {
                "action": first,
                "move": move_text(view, first, slot if action >= 0 else -1),
                "value": totals[i] / counts[i] if counts[i] else None,
                "visits": counts[i],
            }
            candidates.append({**candidate, "chosen": True} if i == best else candidate)
        return {"kind": "search", "candidates": top(candidates, "visits", "value")}

    def _share_out(self, n: int, playout: Callable[[int], float]) -> int:
        """Run playouts of candidates 0..n-1 within the budget; the index of the best mean. The summed values
        and playouts of each candidate are left in ``tally`` for the trace."""
        totals, counts = [0.0] * n, [0] * n
        self.tally = totals, counts
        alive = list(range(n))
        rounds = max(1, math.ceil(math.log2(n))) if self.select == "halving" else 1
        budget = self.budget
        start = budget.now()
        for r in range(rounds):
            if budget.count:
                sweeps = max(1, budget.count // (rounds * len(alive)))
                for _ in range(sweeps):
                    for i in alive:
                        totals[i] += playout(i)
                        counts[i] += 1
            else:
                until = start + budget.seconds * (r + 1) / rounds
                done = False
                while not done:
                    for i in alive:
                        totals[i] += playout(i)
                        counts[i] += 1
                        if budget.now() >= until and all(counts[j] for j in alive):
                            done = True
                            break
            if r < rounds - 1 and len(alive) > 1:
                alive.sort(key=lambda i: -totals[i] / counts[i])
                alive = alive[: (len(alive) + 1) // 2]
        top = max(totals[i] / counts[i] for i in alive)
        best = [i for i in alive if totals[i] / counts[i] == top]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]
