"""The learned players' one choice: the most probable legal action, or one drawn from the masked softmax."""

import random

import numpy as np
import pytest

from agents.learned import choose, choose_rows

NO = -np.inf
LOWEST = np.finfo(np.float32).min  # RLlib's masked logits


def test_the_most_probable_legal_action_of_each_row():
    logits = np.array([[NO, 1.0, 3.0, NO], [2.0, NO, 1.0, 2.5], [LOWEST, 0.0, LOWEST, LOWEST]])
    assert choose_rows(logits, random.Random(0)).tolist() == [2, 3, 1]
    assert choose(logits[1], random.Random(0)) == 3


@pytest.mark.parametrize("masked", [NO, LOWEST])
def test_a_sampled_action_follows_the_masked_softmax_and_is_never_illegal(masked):
    logits = np.array([masked, 0.0, np.log(3.0), masked, np.log(6.0), masked])
    rows = np.repeat(logits[None], 20_000, axis=0)
    drawn = choose_rows(rows, np.random.default_rng(0), sample=True)
    shares = np.bincount(drawn, minlength=len(logits)) / len(drawn)
    np.testing.assert_allclose(shares, [0, 0.1, 0.3, 0, 0.6, 0], atol=0.015)


class _Top:
    """A draw just below 1, where a cumulative sum rounded below 1 would run past the last legal action."""

    def random(self) -> float:
        return 1.0 - 2**-53


def test_a_draw_at_the_top_stays_on_the_last_legal_action():
    logits = np.array([0.1, 0.2, 0.3, NO, NO])
    assert choose(logits, _Top(), sample=True) == 2


def test_one_draw_a_row_so_a_seat_draws_the_same_alone_or_in_a_batch():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(50, 8))
    logits[rng.random(logits.shape) < 0.4] = NO
    logits[:, 0] = 0.0  # every row has a legal action
    alone, batch = random.Random(7), random.Random(7)
    assert [choose(row, alone, sample=True) for row in logits] == choose_rows(logits, batch, True).tolist()
    assert alone.random() == batch.random()
