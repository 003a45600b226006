from collections import Counter

import pytest

from kdenv.tiles import DOMINOES, TERRAIN_LETTERS, domino, parse_half


def test_there_are_48_dominoes_numbered_in_order():
    assert len(DOMINOES) == 48
    assert [d.number for d in DOMINOES] == list(range(1, 49))


def test_totals_per_terrain_match_the_rules():
    squares, crowns = Counter(), Counter()
    for d in DOMINOES:
        for half in (d.a, d.b):
            squares[TERRAIN_LETTERS[half.terrain]] += 1
            crowns[TERRAIN_LETTERS[half.terrain]] += half.crowns
    assert squares == {"W": 26, "F": 22, "L": 18, "G": 14, "S": 10, "M": 6}
    assert crowns == {"W": 5, "F": 6, "L": 6, "G": 6, "S": 6, "M": 10}
    assert sum(crowns.values()) == 39


@pytest.mark.parametrize(
    "number, text", [(1, "#1 W|W"), (19, "#19 W1|F"), (37, "#37 L|G1"), (43, "#43 W|S2"), (48, "#48 W|M3")]
)
def test_some_dominoes_read_as_in_the_table(number, text):
    assert str(domino(number)) == text


def test_bad_numbers_and_halves_are_refused():
    with pytest.raises(ValueError, match="numbered 1..48"):
        domino(49)
    with pytest.raises(ValueError, match="bad half"):
        parse_half("X1")
    with pytest.raises(ValueError, match="bad half"):
        parse_half("W4")
