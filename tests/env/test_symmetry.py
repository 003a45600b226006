"""The kingdom's eight symmetries: a position with every kingdom turned or mirrored is the same position, and its
observation and legal moves are the images of the original's."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kdenv.actions import discard_action, num_actions, pick_action
from kdenv.encoding import ObservationEncoder, action_mask
from kdenv.game import PLACE, Game
from kdenv.rules import STUDY_RULES, Rules
from kdenv.symmetry import TURNS, random_images, symmetries
from tests.engine.helpers import game_placing

QUARTER = 1  # TURNS[1]: east becomes south, a clockwise quarter turn as the pictures are drawn

KINGDOM = """
. W  W1 .
. F  C  L
. F2 .  .
"""

TURNED = """
F2 F  W
.  C  W1
.  L  .
"""


def test_a_quarter_turned_kingdom_is_observed_and_placed_in_as_the_image_of_the_original():
    """#13 (wheat|forest) placed in a kingdom and in its clockwise quarter turn (drawn by hand): the turned
    kingdom's planes, gains and legal placements are the images of the original's."""
    original, turned = game_placing(13, KINGDOM), game_placing(13, TURNED)
    assert turned.kingdoms[0].to_ascii() != original.kingdoms[0].to_ascii()
    assert turned.scores() == original.scores()
    quarter = symmetries(2, 5, gains=True)[QUARTER]
    encoder = ObservationEncoder(2, 5, gains=True)
    seen, seen_turned = encoder.encode(original, 0), ObservationEncoder(2, 5, gains=True).encode(turned, 0)
    np.testing.assert_array_equal(seen_turned["board"], quarter.board(seen["board"]))
    np.testing.assert_array_equal(seen_turned["features"], seen["features"])
    np.testing.assert_array_equal(action_mask(turned), quarter.actions(action_mask(original)))
    assert action_mask(original)[: discard_action()].sum() > 10


@pytest.mark.parametrize(("players", "rules"), [(4, STUDY_RULES), (2, Rules.from_names("mighty_duel"))])
@given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, len(TURNS) - 1))
@settings(max_examples=6, deadline=None)
def test_a_game_played_in_images_of_its_moves_is_the_image_of_the_game(players, rules, seed, which):
    """The same deal played twice, the second time each placement replaced by its image: every move stays legal,
    every observation (gains included) and mask is the image of the first game's, and the scores are equal."""
    symmetry = symmetries(players, rules.kingdom_size, gains=True)[which]
    first, second = Game(players, rules, seed), Game(players, rules, seed)
    encoders = [ObservationEncoder(players, rules.kingdom_size, gains=True) for _ in range(2)]
    rng = random.Random(seed)
    while not first.is_over:
        mover = first.current_player
        seen, seen_second = (encoders[k].encode(game, mover) for k, game in enumerate((first, second)))
        np.testing.assert_array_equal(seen_second["board"], symmetry.board(seen["board"]))
        np.testing.assert_array_equal(seen_second["features"], seen["features"])
        np.testing.assert_array_equal(action_mask(second), symmetry.actions(action_mask(first)))
        action = rng.choice(first.legal_actions())
        placing = first.phase == PLACE
        first.step(action)
        second.step(symmetry.action(action) if placing else action)
    assert second.is_over and second.scores() == first.scores()


def test_the_symmetries_are_eight_distinct_permutations_that_keep_the_picks_and_the_discard():
    table = symmetries(4, 5, gains=True)
    assert len({s.action_index.tobytes() for s in table}) == 8
    for s in table:
        assert sorted(s.action_index) == list(range(num_actions()))
        assert s.action(discard_action()) == discard_action() and s.action(pick_action(2)) == pick_action(2)
    assert np.array_equal(table[0].board_index, np.arange(table[0].board_index.size))


def test_random_images_move_each_row_by_its_own_symmetry():
    """Rows drawn apart: a batch of one board repeated comes back as several of its images, each row's mask
    and policy moved by the same symmetry as its board."""
    game = game_placing(13, KINGDOM)
    board = ObservationEncoder(2, 5, gains=True).encode(game, 0)["board"]
    mask = action_mask(game)
    table = symmetries(2, 5, gains=True)
    boards, (masks,) = random_images(np.repeat(board[None], 64, 0), [np.repeat(mask[None], 64, 0)], table,
                                     np.random.default_rng(0))  # fmt: skip
    images = {s.board(board).tobytes(): s.actions(mask) for s in table}
    assert len({row.tobytes() for row in boards}) > 4
    for row, row_mask in zip(boards, masks, strict=True):
        np.testing.assert_array_equal(row_mask, images[row.tobytes()])
