"""fgt: Full Greedy whose ties are broken by the leans of agents.tie_break, on hand-drawn boards."""

from __future__ import annotations

import random

from agents.greedy import FullGreedy
from agents.tie_break import TieBrokenFullGreedy
from kdenv.actions import num_actions
from kdenv.game import Game
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
