"""``relabel``, which Full Greedy uses to score a kingdom after a placement without a new flood fill, against
``label`` of that kingdom from scratch: every placement of every domino, in kingdoms of random games."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agents.playout import Snapshot
from kdenv.batched.grid import label, place, placements, relabel
from kdenv.view import PublicView
from tests.helpers.games import game_after
from tests.strategies import decisions, seeds, set_ups


def properties(labels: np.ndarray, sizes: np.ndarray, crowns: np.ndarray) -> set:
    """A kingdom's properties as a set of (its cells, squares, crowns), whatever their indices."""
    found = {}
    for cell in np.flatnonzero(labels >= 0):
        found.setdefault(int(labels[cell]), []).append(int(cell))
    return {(tuple(cells), int(sizes[index]), int(crowns[index])) for index, cells in found.items()}


@given(set_up=set_ups, seed=seeds, data=st.data())
def test_relabel_after_a_placement_gives_the_properties_of_labelling_afresh(set_up, seed, data):
    players, rules = set_up
    game = game_after(players, rules, seed, data.draw(decisions(players, rules)))
    snapshot = Snapshot(PublicView(game))
    g, t = snapshot.games, snapshot.tables
    cells = t.cells
    stack, merged, actions = np.zeros(cells, np.int64), np.zeros(cells + 1, np.bool_), np.zeros(4 * cells, np.int64)
    labels, sizes, crowns = np.zeros(cells, np.int64), np.zeros(cells + 1, np.int64), np.zeros(cells + 1, np.int64)
    player = data.draw(st.integers(0, players - 1))
    number = data.draw(st.integers(1, 48))
    terrain, crown, reach, box = g.terrain[0, player], g.crowns[0, player], g.reach[0, player], g.box[0, player]
    count = label(terrain, crown, labels, sizes, crowns, stack, t)
    for action in actions[: placements(terrain, reach, box, t, number, actions)]:
        after = terrain.copy(), crown.copy(), reach.copy(), box.copy()
        place(*after, t, number, action)
        moved = labels.copy(), sizes.copy(), crowns.copy()
        relabel(after[0], *moved, count, t, number, action, merged)
        fresh = np.zeros_like(labels), np.zeros_like(sizes), np.zeros_like(crowns)
        label(after[0], after[1], *fresh, stack, t)
        assert properties(*moved) == properties(*fresh), f"domino {number}, placement {action}"
