"""The kingdom's eight symmetries: a position with every kingdom turned or mirrored is the same position, and its
observation and legal moves are the images of the original's."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given

from kdenv.actions import discard_action, num_actions, pick_action
from kdenv.encoding import ObservationEncoder, action_mask
from kdenv.game import PLACE, Game
from kdenv.symmetry import random_images, symmetries
from tests.engine.helpers import game_placing
from tests.strategies import SET_UP_IDS, SET_UPS, per_set_up, seeds

QUARTER = 1  # IMAGES[1]: east becomes south, a clockwise quarter turn as the pictures are drawn

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


@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
@given(seed=seeds)
@per_set_up()
def test_a_game_played_in_images_of_its_moves_is_the_image_of_the_game(players, rules, seed):
    """The same deal played nine times, once as drawn and once in each image of its placements: every move stays
    legal, every observation (gains included) and mask is the image of the first game's, and the scores equal."""
    table = symmetries(players, rules.kingdom_size, gains=True)
    first, images = Game(players, rules, seed), [Game(players, rules, seed) for _ in table]
    encoders = [ObservationEncoder(players, rules.kingdom_size, gains=True) for _ in range(len(table) + 1)]
    rng = random.Random(seed)
    while not first.is_over:
        mover = first.current_player
        seen, mask = encoders[-1].encode(first, mover), action_mask(first)
        for symmetry, game, encoder in zip(table, images, encoders[:-1], strict=True):
            seen_image = encoder.encode(game, mover)
            np.testing.assert_array_equal(seen_image["board"], symmetry.board(seen["board"]))
            np.testing.assert_array_equal(seen_image["features"], seen["features"])
            np.testing.assert_array_equal(action_mask(game), symmetry.actions(mask))
        action = rng.choice(first.legal_actions())
        placing = first.phase == PLACE
        first.step(action)
        for symmetry, game in zip(table, images, strict=True):
            game.step(symmetry.action(action) if placing else action)
    assert all(game.is_over and game.scores() == first.scores() for game in images)


def test_the_symmetries_are_eight_distinct_permutations_that_keep_the_picks_and_the_discard():
    """Placements move, each image its own way; the discard and the picks stay; the first image is the identity."""
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
