import random

import pytest

from kdenv.dynasty import Dynasty
from kdenv.errors import KingdominoError


def test_a_dynasty_is_three_games_won_on_the_totals():
    dynasty = Dynasty(3, seed=5)
    scores = []
    for _ in range(3):
        game = dynasty.new_game()
        with pytest.raises(KingdominoError, match="finish the current game"):
            dynasty.new_game()
        scores.append(game.playout(random.Random(len(scores))).scores())
    assert dynasty.is_over
    totals = [sum(s[p] for s in scores) for p in range(3)]
    assert dynasty.totals() == totals
    assert dynasty.winners() == [p for p in range(3) if totals[p] == max(totals)]
    with pytest.raises(KingdominoError, match="3 games"):
        dynasty.new_game()


def test_the_games_of_a_dynasty_are_dealt_from_its_seed():
    first = [Dynasty(2, seed=1).new_game().drawn for _ in range(2)]
    assert first[0] == first[1]
    a, b = Dynasty(2, seed=1), Dynasty(2, seed=1)
    a.new_game().playout(random.Random(0))
    b.new_game().playout(random.Random(0))
    assert a.new_game().drawn == b.new_game().drawn != a.games[0].drawn
