"""The compiled observations' caches (``kdenv.batched.observe.Seen``: planes, scores, properties, next-line gains)
against the Python encoder, from every seat at every decision of whole games whose rows are copied into one
another and restored from snapshots, as a search does."""

import numpy as np
import pytest
from hypothesis import given, settings

from kdenv.batched.batch import RANK, observe_all, play_rows
from kdenv.batched.machine import FINISHED, PHASE, Games, copy_game, games, start
from kdenv.batched.observe import Seen, copy_seen, redraw_rows, seen
from kdenv.batched.tables import Tables, tables
from kdenv.encoding import ObservationEncoder
from kdenv.game import Game
from kdenv.rules import Rules
from tests.helpers.games import random_actions
from tests.strategies import SET_UPS, seeds

ROWS = 3


def copy_row(t: Tables, src: tuple[Games, Seen], i: int, dst: tuple[Games, Seen], j: int, redraw: bool) -> None:
    """Copy game row ``i`` into row ``j`` as a search would, its seen row copied along or drawn afresh."""
    copy_game(src[0], i, dst[0], j)
    if redraw:
        redraw_rows(dst[1], dst[0], np.array([j]), t)
    else:
        copy_seen(src[1], i, dst[1], j)


@pytest.mark.parametrize(("players", "rules"), SET_UPS)
@settings(max_examples=3, deadline=None)
@given(seed=seeds)
def test_gains_equal_the_encoders_from_every_seat_through_copies_and_snapshots(players: int, rules: Rules, seed: int):
    t = tables(players, rules, gains=True)
    rows, snapshot = (games(ROWS, t), seen(ROWS, t)), (games(1, t), seen(1, t))
    rng = np.random.default_rng(seed)
    engines: list[Game] = []
    for i in range(ROWS):
        deck = rng.permutation(np.arange(1, 49, dtype=np.int64))
        order = rng.permutation(np.repeat(np.arange(players, dtype=np.int64), t.kings // players))
        start(rows[0], i, t, deck, order)
        engines.append(Game.from_deck(players, rules, deck[: t.in_play].tolist(), order.tolist()))
    redraw_rows(rows[1], rows[0], np.arange(ROWS), t)
    saved = None
    encoder = ObservationEncoder(players, rules.kingdom_size, gains=True)
    board = np.zeros((ROWS, t.num_planes, t.cells), np.float32)
    features = np.zeros((ROWS, t.num_features), np.float32)
    mask = np.zeros((ROWS, t.num_actions), np.int8)
    work = np.zeros(4 * t.cells, np.int64)
    rewards, paid = np.zeros((ROWS, players)), np.zeros((ROWS, players), np.int64)
    decisions = 0
    while any(not engine.is_over for engine in engines):
        live = np.array([i for i in range(ROWS) if not engines[i].is_over])
        for seat in range(players):
            observe_all(rows[1], rows[0], t, live, np.full(ROWS, seat), board, features, mask, work)
            for i in live.tolist():
                want = encoder.encode(engines[i], seat)
                assert np.array_equal(board[i], want["board"].reshape(t.num_planes, t.cells)), (i, seat)
                assert np.array_equal(features[i], want["features"]), (i, seat)
        actions = np.zeros(ROWS, np.int64)
        actions[live] = random_actions(mask[live], rng)
        assert play_rows(rows[1], rows[0], t, actions, live, RANK, paid, rewards, np.zeros(ROWS, np.bool_), mask) < 0
        for i in live.tolist():
            engines[i].step(int(actions[i]))
            assert (rows[0].counters[i, PHASE] == FINISHED) == engines[i].is_over
        decisions += live.size
        if rng.random() < 0.2:  # a row jumps to another row's game, or to a snapshot of some row
            a, b, redraw = rng.integers(ROWS), rng.integers(ROWS), bool(rng.integers(2))
            if saved is not None and rng.random() < 0.5:
                copy_row(t, snapshot, 0, rows, b, redraw)
                engines[b] = saved.clone()
            else:
                copy_row(t, rows, a, rows, b, redraw)
                engines[b] = engines[a].clone()
        if rng.random() < 0.1:
            a = rng.integers(ROWS)
            copy_row(t, rows, a, snapshot, 0, redraw=False)
            saved = engines[a].clone()
    assert decisions > 50
