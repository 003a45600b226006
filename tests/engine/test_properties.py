"""Properties of random games of every set-up, checked against a naive model of the rules."""

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from kdenv.actions import decode
from kdenv.game import Game
from kdenv.replay import replay_record, to_record
from kdenv.rules import Rules
from kdenv.view import PublicView
from tests.engine.reference import NaiveKingdom, replay_naively
from tests.helpers.games import game_after
from tests.strategies import seeds, set_ups


def random_api_game(players: int, rules: Rules, seed: int, check_moves: bool = False) -> Game:
    """A random game played through legal_actions()/step(); optionally compares every
    placement decision with the naive model's legal placements."""
    rng = random.Random(seed)
    game = Game(players, rules, seed)
    naive = [NaiveKingdom(rules.kingdom_size) for _ in range(players)]
    while not game.is_over:
        actions = game.legal_actions()
        if check_moves and game.phase == "place":
            expected = naive[game.current_player].legal(game.held_domino)
            got = {decode(a, rules.kingdom_size).cells for a in actions if a < 4 * (2 * rules.kingdom_size - 1) ** 2}
            assert got == expected
        action = rng.choice(actions)
        player, number = game.current_player, game.held_domino
        game.step(action)
        move = decode(action, rules.kingdom_size)
        if move.kind == "place":
            naive[player].place(number, *move.cells)
    return game


@given(set_ups, seeds)
def test_legal_placements_are_exactly_the_naive_ones(set_up, seed):
    random_api_game(*set_up, seed, check_moves=True)


@given(set_ups, seeds, st.booleans())
def test_random_games_obey_the_rules_and_score_as_recomputed(set_up, seed, api):
    players, rules = set_up
    game = random_api_game(players, rules, seed) if api else Game(players, rules, seed).playout(random.Random(seed))
    kingdoms, discards = replay_naively(game)  # every placement legal when made
    in_play = rules.setup(players)[1]
    for player, kingdom in enumerate(kingdoms):
        assert kingdom.fits([])  # no kingdom exceeds its bound
        placed = (len(kingdom.cells) - 1) // 2
        assert placed + discards[player] == in_play // players  # every domino dealt is placed or discarded
        assert placed == game.kingdoms[player].placed and discards[player] == game.kingdoms[player].discards
        expected = kingdom.score(rules.middle_kingdom, rules.harmony, discards[player])
        assert game.score(player) == expected


@given(set_ups, seeds, st.integers(0, 120))
def test_a_record_replays_to_the_same_state(set_up, seed, stop):
    players, rules = set_up
    game = game_after(players, rules, seed, stop)
    record = json.loads(json.dumps(to_record(game, ["random"] * players)))
    again = replay_record(record)
    assert to_record(again, ["random"] * players) == record
    assert [k.occupied for k in again.kingdoms] == [k.occupied for k in game.kingdoms]
    assert again.scores() == game.scores() and again.phase == game.phase and again.line == game.line


@given(set_ups, seeds)
def test_the_same_seed_gives_the_same_record(set_up, seed):
    players, rules = set_up
    first = to_record(Game(players, rules, seed).playout(random.Random(seed)))
    assert to_record(Game(players, rules, seed).playout(random.Random(seed))) == first


@given(set_ups, seeds, st.integers(0, 90), seeds)
def test_determinize_never_changes_public_information(set_up, seed, stop, shuffle_seed):
    players, rules = set_up
    game = game_after(players, rules, seed, stop)
    copy = game.determinize(random.Random(shuffle_seed))
    public = ("line", "claims", "queue", "held", "king", "phase", "round", "moves", "king_order", "drawn")
    assert all(getattr(copy, name) == getattr(game, name) for name in public)
    assert [k.occupied for k in copy.kingdoms] == [k.occupied for k in game.kingdoms]
    assert copy.unseen() == game.unseen() and len(copy.deck) == len(game.deck)
    assert copy.legal_actions() == PublicView(game).legal_actions()
    copy.playout(random.Random(0))  # the copy plays on to the end without touching the original
    assert game.moves != copy.moves or game.is_over
