"""Placement rules, with the kingdoms drawn as ASCII (castle `C`, `.` empty, terrain letter + crowns)."""

import pytest

from kdenv.actions import discard_action, place_action
from kdenv.errors import IllegalMoveError
from kdenv.kingdom import Kingdom
from kdenv.replay import to_record
from kdenv.rules import Rules
from tests.engine.helpers import game_placing


def legal_cells(kingdom: Kingdom, number: int) -> set:
    """Legal placements as (cell of half A, cell of half B), castle-relative."""
    f = kingdom.frame
    found = set()
    for action in kingdom.legal_placements(number):
        a = f.coords(action // 4)
        dr, dc = ((0, 1), (1, 0), (0, -1), (-1, 0))[action % 4]
        found.add((a, (a[0] + dr, a[1] + dc)))
    return found


def test_a_first_domino_goes_anywhere_touching_the_castle():
    # 4 cells touch the castle; a domino on each has 3 free directions, with half A or half B there.
    assert len(legal_cells(Kingdom(), 1)) == 24
    assert ((0, 1), (0, 2)) in legal_cells(Kingdom(), 17)  # any terrain touches the castle


def test_a_half_connects_to_its_own_terrain():
    kingdom = Kingdom.from_ascii("C  W")
    assert ((0, 2), (0, 3)) in legal_cells(kingdom, 13)  # #13 W|F: wheat half touches the wheat
    assert ((0, 3), (0, 2)) not in legal_cells(kingdom, 13)  # forest half next to wheat: no
    assert ((0, 2), (0, 3)) not in legal_cells(kingdom, 17)  # #17 F|L touches nothing of its own


def test_half_b_alone_may_make_the_connection():
    kingdom = Kingdom.from_ascii("C  F")
    assert ((0, 3), (0, 2)) in legal_cells(kingdom, 13)  # #13 W|F: forest half B touches the forest


def test_a_domino_never_lies_on_an_occupied_square():
    kingdom = Kingdom.from_ascii("C  W")
    cells = legal_cells(kingdom, 1)
    assert all((0, 1) not in pair and (0, 0) not in pair for pair in cells)


def test_the_kingdom_stays_within_5x5_with_the_castle_off_centre():
    kingdom = Kingdom.from_ascii("W  W  W  C")
    cells = legal_cells(kingdom, 1)
    assert ((0, 1), (0, 2)) not in cells and ((-1, 2), (-1, 1)) not in cells  # a 6th column
    assert ((0, 1), (1, 1)) in cells and ((1, -3), (1, -4)) in cells  # the 5th column
    assert ((1, -4), (1, -5)) not in cells  # a 6th column on the other side
    assert ((1, -3), (2, -3)) in cells  # downwards is fine
    assert ((-1, 0), (-2, 0)) in cells
    tall = Kingdom.from_ascii(
        """
        C
        W
        W
        W
        """
    )
    assert ((4, 0), (4, 1)) in legal_cells(tall, 1)  # the 5th row
    assert ((4, 0), (5, 0)) not in legal_cells(tall, 1)  # a 6th row
    assert ((-1, 0), (-1, 1)) in legal_cells(tall, 17)  # the 5th row, above the castle
    assert ((-1, 0), (-2, 0)) not in legal_cells(tall, 17)  # a 6th row above


def test_every_cell_of_the_bound_counts_not_just_the_corner():
    kingdom = Kingdom.from_ascii(
        """
        .  .  .  W
        C  .  .  .
        W
        W
        """
    )
    cells = legal_cells(kingdom, 1)
    assert ((3, 0), (3, 1)) in cells  # rows -1..3: five rows
    assert ((3, 0), (4, 0)) not in cells  # rows -1..4: six
    assert ((2, 4), (1, 4)) not in cells  # columns 0..4 fit, but it touches no wheat
    assert ((0, 3), (0, 4)) in cells  # columns 0..4: five


def test_mighty_duel_kingdoms_are_7x7():
    kingdom = Kingdom.from_ascii("C  W  W  W  W", size=7)
    assert ((0, 5), (0, 6)) in legal_cells(kingdom, 1)
    wide = Kingdom.from_ascii("C  W  W  W  W  W  W", size=7)
    assert not any(7 in (a[1], b[1]) for a, b in legal_cells(wide, 1))
    assert not any(-1 in (a[1], b[1]) for a, b in legal_cells(wide, 1))


FULL_BUT_TWO = """
F  F  F  F  F
F  F  F  F  F
F  F  C  F  F
F  F  F  F  F
F  F  F  .  .
"""


def test_a_domino_with_no_legal_place_must_be_discarded():
    game = game_placing(7, FULL_BUT_TWO)  # #7 L|L: no lake anywhere, castle far
    assert game.must_discard()
    assert game.legal_actions() == [discard_action()]
    with pytest.raises(IllegalMoveError, match="neither half touches"):
        game.step(place_action((2, 1), (2, 2)))
    game.step(discard_action())
    assert game.kingdoms[0].discards == 1 and game.phase == "pick"


def test_a_placeable_domino_cannot_be_discarded():
    game = game_placing(5, FULL_BUT_TWO)  # #5 F|F fits the gap
    before = to_record(game)
    with pytest.raises(IllegalMoveError, match=r"discard with domino #5 by player 0: domino can be placed"):
        game.step(discard_action())
    assert to_record(game) == before and game.kingdoms[0].discards == 0
    assert game.legal_actions() == [place_action((2, 1), (2, 2)), place_action((2, 2), (2, 1))]


def test_the_voluntary_discard_house_rule_allows_it():
    game = game_placing(5, FULL_BUT_TWO, Rules(voluntary_discard=True))
    assert discard_action() in game.legal_actions()
    game.step(discard_action())
    assert game.kingdoms[0].discards == 1


@pytest.mark.parametrize(
    "cells, reason",
    [
        (((0, -1), (1, -1)), "a cell is already occupied"),
        (((0, 1), (0, 2)), "no longer fit in 5x5"),
        (((2, -1), (2, -2)), "neither half touches"),
        (((-4, 0), (-5, 0)), "off the frame"),
    ],
)
def test_illegal_placements_name_the_move_and_the_reason_and_change_nothing(cells, reason):
    game = game_placing(17, "W  W  W  C")  # #17 F|L
    before = to_record(game)
    action = place_action(*cells)
    with pytest.raises(IllegalMoveError, match=reason) as err:
        game.step(action)
    assert "place A@" in str(err.value) and "#17" in str(err.value)
    assert to_record(game) == before
