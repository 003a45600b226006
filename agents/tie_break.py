"""``fgt``: Full Greedy with its ties broken as the 4-player network breaks them, not at random.

Full Greedy often finds many moves of the same value (most of all early on, when placing). Among those the shipped
``ppo:default`` is far from random: Full Greedy with its ties broken by that network's logits wins far more often
against three ``fg`` than ``fg`` itself, nearly as often as the network alone. This player breaks them with a
few integer-weighted features instead, cheap beside Full Greedy's own values: first the placement the features
favour most, then the pick. The weights were fitted (a conditional logit) to the network's choices among Full
Greedy's ties at the study's table (measured, with the data and the fit: benchmarks/RESULTS.md, section "`fgt`: Full
Greedy with its ties broken as the network breaks them"). The ``az`` search plays the searcher's future in its
rollouts by it (``rollout=fgt``).

The compiled twin is :func:`agents.batched.tie_break.broken_ties`; ``tests/conformance`` keeps the two equal. The
weights (``LEAN_*``) are defined there, beside the kernels that freeze them, so that changing one recompiles them.
"""

from __future__ import annotations

from agents.batched.tie_break import (
    LEAN_CASTLE,
    LEAN_CROWNS,
    LEAN_DISTANCE,
    LEAN_MATCH,
    LEAN_NUMBER,
    LEAN_OTHER,
    LEAN_SAME,
    LEAN_SHRINK,
    LEAN_SLOT,
)
from agents.greedy import FullGreedy, FullGreedyPlayer, GameLike
from kdenv.actions import discard_action
from kdenv.kingdom import HALVES, Kingdom


def _square_lean(kingdom: Kingdom, cell: int, other: int, kind: int) -> int:
    """The lean of one square of terrain ``kind`` laid on ``cell`` (its domino's other square on ``other``)."""
    f = kingdom.frame
    lean = 0
    around = f.cell_neighbours[cell] & ~(1 << other)
    while around:
        low = around & -around
        around ^= low
        neighbour = low.bit_length() - 1
        if neighbour == f.castle_index:
            lean += LEAN_CASTLE
        elif kingdom.terrain[kind] >> neighbour & 1:
            lean += LEAN_SAME
        elif kingdom.occupied >> neighbour & 1:
            lean += LEAN_OTHER
    row, col = divmod(cell, f.width)
    return lean + LEAN_DISTANCE * max(abs(row - f.centre), abs(col - f.centre))


def placement_lean(kingdom: Kingdom, number: int, action: int) -> int:
    """How much the tie-break favours placing domino ``number`` by placement ``action`` in ``kingdom``."""
    f = kingdom.frame
    a = action >> 2
    b = a + f.steps[action & 3]
    ta, _, tb, _ = HALVES[number]
    (ra, ca), (rb, cb) = divmod(a, f.width), divmod(b, f.width)
    r0, r1, c0, c1 = box = kingdom.box
    after = (min(r0, ra, rb), max(r1, ra, rb), min(c0, ca, cb), max(c1, ca, cb))
    shrink = f.window(*box).bit_count() - f.window(*after).bit_count()  # the cells it may still grow into
    return _square_lean(kingdom, a, b, ta) + _square_lean(kingdom, b, a, tb) + LEAN_SHRINK * shrink


def pick_lean(kingdom: Kingdom, number: int, slot: int) -> int:
    """How much the tie-break favours picking domino ``number`` from ``slot`` of the next line for ``kingdom``."""
    ta, ca, tb, cb = HALVES[number]
    match = kingdom.terrain[ta].bit_count() + kingdom.terrain[tb].bit_count()
    return LEAN_SLOT * slot + LEAN_NUMBER * number + LEAN_CROWNS * (ca + cb) + LEAN_MATCH * match


class TieBrokenFullGreedy(FullGreedy):
    """Full Greedy's decision, its ties narrowed by :func:`placement_lean` then :func:`pick_lean`."""

    def break_ties(self, game: GameLike, rows: list[tuple[int, int]]) -> list[tuple[int, int]]:
        kingdom = game.kingdoms[game.current_player]
        discard, line = discard_action(game.rules.kingdom_size), game.line
        rows = _most(rows, lambda a, _: placement_lean(kingdom, game.held_domino, a) if 0 <= a < discard else 0)
        return _most(rows, lambda _, s: pick_lean(kingdom, line[s], s) if s >= 0 else 0)


def _most(rows: list[tuple[int, int]], lean) -> list[tuple[int, int]]:
    """The (placement, slot) rows of the largest ``lean(placement, slot)``, in their order."""
    leans = [lean(a, s) for a, s in rows]
    top = max(leans)
    return [row for row, value in zip(rows, leans, strict=True) if value == top]


class TieBrokenFullGreedyPlayer(FullGreedyPlayer):
    """``fgt``: Full Greedy, its ties broken as the 4-player network breaks them (see the module docstring)."""

    policy_type = TieBrokenFullGreedy
