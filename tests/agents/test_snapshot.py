"""The compiled playouts of the search players: the actions given first, the seed and nothing else deciding a playout,
uniform random picks, and the compiled policy of each seat in each playout policy. Their agreement with the engine
and the Python players, move for move, is checked in ``tests/conformance``."""

import random

from agents.batched.policy import Policy
from agents.playout import EPSILON, Snapshot, seat_policies
from kdenv.actions import discard_action
from kdenv.game import PLACE, Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from tests.helpers.games import game_after


def test_first_actions_are_played_before_the_random_ones():
    game = game_after(4, STUDY_RULES, 3, 9)
    while game.phase != PLACE:
        game.step(game.legal_actions()[0])
    first = game.legal_actions()[-1]
    _, moves = Snapshot(game).play(7, first=(first,))
    assert moves[0].tolist() == [game.current_player, first, game.held_domino]


def test_a_playout_depends_on_the_seed_only_and_not_on_the_hidden_order():
    game = game_after(4, STUDY_RULES, 11, 20)
    shuffled = game.determinize(random.Random(1))
    assert shuffled.deck != game.deck
    a, b = Snapshot(PublicView(game)), Snapshot(PublicView(shuffled))
    assert a.play(99)[1].tolist() == b.play(99)[1].tolist()
    assert a.playout(random.Random(5)).tolist() == b.playout(random.Random(5)).tolist()
    assert a.play(99)[1].tolist() != a.play(100)[1].tolist()


def test_kernel_picks_are_uniform_over_free_slots():
    game = Game(4, STUDY_RULES, 2)  # the set-up: every slot free
    snapshot = Snapshot(game)
    counts = [0] * 4
    for seed in range(4000):
        counts[snapshot.play(seed)[1][0, 1] - discard_action() - 1] += 1
    assert all(900 < c < 1100 for c in counts), counts


def test_each_playout_policy_is_a_compiled_policy_per_seat():
    fg, random_ = Policy.FG, Policy.RANDOM
    assert seat_policies("random", 3, 1)[0].tolist() == [random_] * 3
    assert seat_policies("fg", 3, 1)[0].tolist() == [fg] * 3
    assert seat_policies("pg", 3, 1)[0].tolist() == [random_, fg, random_]
    assert seat_policies("eg", 3, 1)[0].tolist() == [fg] * 3
    assert [seat_policies(p, 3, 1)[1] for p in ("random", "fg", "eg", "pg")] == [0.0, 0.0, EPSILON, 0.0]
