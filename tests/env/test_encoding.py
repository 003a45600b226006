"""The observation encoder against a plain cell-by-cell reference built from the documented layout."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kdenv.actions import discard_action, num_actions
from kdenv.encoding import (
    CASTLE_PLANE,
    CROWN_PLANE,
    DOMINO_WIDTH,
    EMPTY_PLANE,
    PLANES_PER_KINGDOM,
    WINDOW_PLANE,
    ObservationEncoder,
    action_mask,
    feature_layout,
)
from kdenv.game import Game
from kdenv.rules import Rules
from kdenv.tiles import domino
from kdenv.view import PublicView
from tests.strategies import SET_UP_IDS, SET_UPS


def reference_domino(number: int) -> list[float]:
    out = [0.0] * DOMINO_WIDTH
    if number:
        d = domino(number)
        out[d.a.terrain] = 1.0
        out[6] = d.a.crowns / 3
        out[7 + d.b.terrain] = 1.0
        out[13] = d.b.crowns / 3
        out[14] = number / 48
    return out


def reference_encode(game: Game, player: int) -> dict[str, np.ndarray]:  # noqa: C901 (read against the docs)
    """The observation written straight from the module docstring, one cell and one slot at a time."""
    n, size = game.num_players, game.rules.kingdom_size
    width, centre = 2 * size - 1, size - 1
    board = np.zeros((PLANES_PER_KINGDOM * n + 4, width, width), np.float32)
    for rel in range(n):
        kingdom = game.kingdoms[(player + rel) % n]
        planes = board[PLANES_PER_KINGDOM * rel :]
        for fr in range(width):
            for fc in range(width):
                content = kingdom.cell_at(fr - centre, fc - centre)
                bit = 1 << (fr * width + fc)
                if content is None:
                    planes[EMPTY_PLANE, fr, fc] = 1
                elif content[0] < 0:
                    planes[CASTLE_PLANE, fr, fc] = 1
                else:
                    planes[content[0], fr, fc] = 1
                    planes[CROWN_PLANE, fr, fc] = content[1] / 3
                planes[WINDOW_PLANE, fr, fc] = bool(kingdom.window & bit)
    legal = set(game.legal_actions()) if game.phase == "place" else set()
    for action in legal - {discard_action(size)}:
        cell, d = divmod(action, 4)
        board[PLANES_PER_KINGDOM * n + d, cell // width, cell % width] = 1

    layout = feature_layout(n)
    features: list[float] = []
    for i in range(4):
        slot = [0.0] * (DOMINO_WIDTH + n + 2)
        if i < len(game.queue):
            slot[:DOMINO_WIDTH] = reference_domino(game.held[i])
            slot[DOMINO_WIDTH + (game.queue[i] - player) % n] = 1
            slot[DOMINO_WIDTH + n] = float(game.phase == "over" or i < game.king)
            slot[DOMINO_WIDTH + n + 1] = float(game.phase != "over" and i == game.king)
        features += slot
    for i in range(4):
        slot = [0.0] * (DOMINO_WIDTH + n)
        if i < len(game.line):
            slot[:DOMINO_WIDTH] = reference_domino(game.line[i])
            if game.claims[i] >= 0:
                slot[DOMINO_WIDTH + (game.claims[i] - player) % n] = 1
        features += slot
    features += reference_domino(game.held_domino)
    features += [float(game.phase == "pick"), float(game.phase == "place")]
    kings_each, in_play = game.rules.setup(n)
    features.append(game.round / (in_play // (kings_each * n)))
    features += [game.score((player + rel) % n) / 100 for rel in range(n)]
    unseen = set(game.unseen())
    features += [float(number in unseen) for number in range(1, 49)]
    assert len(features) == layout["unseen"].stop
    return {"board": board, "features": np.array(features, np.float32)}


@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_encoder_matches_reference_and_mask_matches_engine(num_players: int, rules: Rules) -> None:
    encoder = ObservationEncoder(num_players, rules.kingdom_size)
    rng = random.Random(num_players)
    for seed in range(2):
        game = Game(num_players, rules, seed)
        while True:
            # Observers in a random order, so that the per-seat caches are reused, grown and rebuilt.
            for player in rng.sample(range(num_players), num_players):
                got = encoder.encode(PublicView(game), player)
                want = reference_encode(game, player)
                np.testing.assert_allclose(got["board"], want["board"], atol=1e-6)
                np.testing.assert_allclose(got["features"], want["features"], atol=1e-6)
                assert encoder.space.contains(got)
            mask = action_mask(game)
            assert mask.dtype == np.int8 and mask.shape == (num_actions(rules.kingdom_size),)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(game.legal_actions())
            if game.is_over:
                break
            actions = game.legal_actions()
            game.step(actions[rng.randrange(len(actions))])


def test_mask_allows_discard_only_when_required_or_voluntary() -> None:
    for rules in (Rules(), Rules(voluntary_discard=True)):
        game = Game(4, rules, seed=5)
        rng = random.Random(5)
        while not game.is_over:
            mask = action_mask(game)
            if game.phase == "place":
                assert mask[discard_action()] == (rules.voluntary_discard or game.must_discard())
            actions = game.legal_actions()
            game.step(actions[rng.randrange(len(actions))])


def test_encoder_rejects_a_game_of_another_table() -> None:
    with pytest.raises(ValueError, match="encoder for 4 players"):
        ObservationEncoder(4).encode(Game(3, seed=1), 0)


def test_observation_ignores_the_order_of_the_undrawn_deck() -> None:
    """Deals that share the lines drawn so far and differ only in the order of the rest look the same."""
    rules = Rules()
    drawn, rest = list(range(40, 28, -1)), [n for n in range(1, 49) if not 29 <= n <= 40]
    game_a = Game.from_deck(4, rules, drawn + rest, [2, 0, 3, 1])
    game_b = Game.from_deck(4, rules, drawn + rest[::-1], [2, 0, 3, 1])
    encoder_a, encoder_b = ObservationEncoder(4), ObservationEncoder(4)
    rng = random.Random(0)
    steps = 0
    while game_a.round < 2:  # lines 1-3 (the first 12 dominoes) are out; the next draw would differ
        for player in range(4):
            a, b = encoder_a.encode(game_a, player), encoder_b.encode(game_b, player)
            np.testing.assert_array_equal(a["board"], b["board"])
            np.testing.assert_array_equal(a["features"], b["features"])
        action = rng.choice(game_a.legal_actions())
        game_a.step(action)
        game_b.step(action)
        steps += 1
    assert steps == 4 + 8  # the set-up picks and the whole first round were compared
    assert game_a.line != game_b.line or game_a.deck != game_b.deck


def test_observation_is_the_same_on_a_determinized_copy() -> None:
    """Reshuffling every unseen domino (what search players do) changes no observation, all game long."""
    game = Game(3, seed=11)
    encoder, other = ObservationEncoder(3), ObservationEncoder(3)
    rng = random.Random(11)
    while not game.is_over:
        copy = PublicView(game).determinize(rng)
        assert copy.deck != game.deck or len(copy.deck) < 2
        for player in range(3):
            a, b = encoder.encode(game, player), other.encode(copy, player)
            np.testing.assert_array_equal(a["board"], b["board"])
            np.testing.assert_array_equal(a["features"], b["features"])
        game.step(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("gains", [False, True])
@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_incremental_observations_equal_fresh_ones_whatever_is_observed_when(
    num_players: int, rules: Rules, gains: bool
) -> None:
    """One encoder observing two games played side by side, their views and copies, at random moments (often
    several placements apart), sees exactly what a new encoder sees: no cache goes stale."""
    encoder = ObservationEncoder(num_players, rules.kingdom_size, gains)
    rng = random.Random(7 * num_players + rules.kingdom_size)
    games = [Game(num_players, rules, seed) for seed in (1, 2)]
    observed = 0
    while not all(game.is_over for game in games):
        game = rng.choice([game for game in games if not game.is_over])
        actions = game.legal_actions()
        game.step(actions[rng.randrange(len(actions))])
        if rng.random() < 0.3:
            game = rng.choice(games)
            state = rng.choice([game, PublicView(game), game.clone(), PublicView(game).determinize(rng)])
            player = rng.randrange(num_players)
            got = encoder.encode(state, player)
            want = ObservationEncoder(num_players, rules.kingdom_size, gains).encode(state, player)
            np.testing.assert_array_equal(got["board"], want["board"])
            np.testing.assert_array_equal(got["features"], want["features"])
            assert [encoder.score(state, p) for p in range(num_players)] == game.scores()
            observed += 1
    assert observed > 20


def test_observations_are_independent_copies() -> None:
    """Changing a returned observation or mask changes no later one (the encoder's caches are never handed out)."""
    game = Game(4, seed=3)
    encoder = ObservationEncoder(4)
    while game.phase != "place":
        game.step(game.legal_actions()[0])
    first, mask = encoder.encode(game, 0), action_mask(game)
    want = {key: value.copy() for key, value in first.items()}
    first["board"][:] = 7.0
    first["features"][:] = 7.0
    mask[:] = 1
    again = encoder.encode(game, 0)
    np.testing.assert_array_equal(again["board"], want["board"])
    np.testing.assert_array_equal(again["features"], want["features"])
    assert sorted(np.flatnonzero(action_mask(game)).tolist()) == sorted(game.legal_actions())


@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_gains_are_each_placements_and_each_next_line_dominos_added_score(num_players: int, rules: Rules) -> None:
    """With gains, the observation is the plain one plus, at each legal placement, ``Kingdom.gain`` / 10, and
    per next-line slot and kingdom (observer first), ``Kingdom.best_gain`` / 10."""
    plain, encoder = (
        ObservationEncoder(num_players, rules.kingdom_size),
        ObservationEncoder(num_players, rules.kingdom_size, True),
    )
    game, rng = Game(num_players, rules, seed=5), random.Random(5)
    cells, first = encoder.width**2, plain.num_planes
    while not game.is_over:
        player = rng.randrange(num_players)
        got, base = encoder.encode(game, player), plain.encode(game, player)
        np.testing.assert_array_equal(got["board"][:first], base["board"])
        np.testing.assert_array_equal(got["features"][: plain.num_features], base["features"])
        planes = np.zeros((4, cells), np.float32)
        if game.phase == "place":
            kingdom, number = game.kingdoms[game.current_player], game.held_domino
            for action in kingdom.legal_placements(number):
                planes[action % 4, action // 4] = np.float32(kingdom.gain(number, action) / 10)
        np.testing.assert_array_equal(got["board"][first:].reshape(4, cells), planes)
        line_gains = np.zeros((4, num_players), np.float32)
        for slot, number in enumerate(game.line):
            for k in range(num_players):
                line_gains[slot, k] = game.kingdoms[(player + k) % num_players].best_gain(number) / 10
        np.testing.assert_array_equal(got["features"][encoder.layout["gains"]].reshape(4, num_players), line_gains)
        assert encoder.space.contains(got)
        game.step(rng.choice(game.legal_actions()))
