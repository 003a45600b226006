"""fgt: Full Greedy whose ties are broken by the leans of agents.tie_break, on hand-drawn boards."""

from __future__ import annotations

import random

from agents.greedy import FullGreedy
from agents.tie_break import TieBrokenFullGreedy, pick_lean
from kdenv.actions import num_actions
from kdenv.game import Game
from kdenv.kingdom import HALVES, Kingdom
from kdenv.rules import STUDY_RULES
from tests.agents.test_greedy import cells_of, decision


def test_fgt_lays_the_forest_pair_along_the_forest_among_equal_placements():
    board = """
    F  F  .
    .  C  .
    """
    game = decision(board, 3, [7, 10, 12, 48])  # 3 = F|F: no crowns anywhere, so no placement scores
    assert len({action for action, _ in FullGreedy().best_turns(game)}) == 30  # Full Greedy's ties
    f = game.kingdoms[0].frame
    forest = {f.cell(-1, -1), f.cell(-1, 0)}
    for seed in range(10):
        a, b = cells_of(game, TieBrokenFullGreedy().act(game, random.Random(seed)))
        assert f.neighbours(1 << a) & sum(1 << c for c in forest)
        assert f.neighbours(1 << b) & sum(1 << c for c in forest)


def test_fgt_takes_the_first_of_equal_set_up_picks_so_that_its_king_moves_first():
    game = Game.from_deck(4, STUDY_RULES, [19, 24, 25, 26, *range(1, 19), *range(20, 24), *range(27, 49)], [0, 1, 2, 3])
    assert game.line == [19, 24, 25, 26]  # one crown on one half each: Full Greedy's set-up picks tie
    assert {TieBrokenFullGreedy().act(game, random.Random(seed)) for seed in range(10)} == {num_actions(5) - 4}


def test_a_pick_leans_to_the_earlier_slot_and_to_crowns():
    """The same domino from an earlier slot (its king moves earlier next round), and of two dominoes of the same
    terrains, the one with crowns, though the plain one comes first in the line."""
    kingdom = Kingdom.from_ascii("C F")
    assert pick_lean(kingdom, 20, 0) > pick_lean(kingdom, 20, 1) > pick_lean(kingdom, 20, 2)
    plain, crowned = 13, 19  # W|F and W1|F: the crowned one's larger number leans against it
    assert HALVES[plain][::2] == HALVES[crowned][::2] and HALVES[plain][1::2] == (0, 0) != HALVES[crowned][1::2]
    assert pick_lean(kingdom, crowned, 1) > pick_lean(kingdom, plain, 1)
