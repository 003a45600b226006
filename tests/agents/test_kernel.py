"""The compiled random-playout kernel against the engine, move for move, in every set-up."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import compiled
from agents.greedy import FullGreedy, GreedyPlacement
from agents.kernel import Snapshot
from agents.playout import seat_policies
from kdenv.game import PLACE, Game
from kdenv.view import PublicView
from tests.helpers.games import game_after
from tests.strategies import SET_UPS, seeds, set_ups

decisions = st.integers(0, 120)


def engine_copy_drawing_sorted(game: Game) -> Game:
    """A copy of ``game`` whose unseen dominoes are drawn in number order, as the kernel's ``shuffle=False``."""
    copy = game.clone()
    pool = game.unseen()
    copy.deck, copy.removed = pool[: len(game.deck)], pool[len(game.deck) :]
    return copy


@settings(max_examples=40, deadline=None)
@given(set_ups, seeds, decisions)
def test_kernel_moves_are_legal_in_the_engine_and_end_in_its_standings(set_up, seed, decisions):
    game = game_after(*set_up, seed, decisions)
    standings, moves = Snapshot(PublicView(game)).play(seed, shuffle=False)
    engine = engine_copy_drawing_sorted(game)
    for player, action, domino in moves.tolist():
        expected = engine.held_domino if engine.phase == PLACE else engine.line[action - engine._discard - 1]
        assert domino == expected
        engine.step(action, player)  # raises IllegalMoveError on any move the rules forbid
    assert engine.is_over
    assert standings.tolist() == [list(engine.standing(p)) for p in range(engine.num_players)]


@settings(max_examples=30, deadline=None)
@given(set_ups, seeds, decisions)
def test_kernel_placements_equal_the_engines_for_every_domino(set_up, seed, decisions):
    game = game_after(*set_up, seed, decisions)
    snapshot = Snapshot(game)
    for player, kingdom in enumerate(game.kingdoms):
        for number in range(1, 49):
            assert snapshot.placements(player, number) == sorted(kingdom.legal_placements(number))


def test_first_actions_are_played_before_the_random_ones():
    game = game_after(4, SET_UPS[4][1], 3, 9)
    while game.phase != PLACE:
        game.step(game.legal_actions()[0])
    first = game.legal_actions()[-1]
    _, moves = Snapshot(game).play(7, first=(first,))
    assert moves[0].tolist() == [game.current_player, first, game.held_domino]


def test_a_playout_depends_on_the_seed_only_and_not_on_the_hidden_order():
    game = game_after(4, SET_UPS[4][1], 11, 20)
    shuffled = game.determinize(random.Random(1))
    assert shuffled.deck != game.deck
    a, b = Snapshot(PublicView(game)), Snapshot(PublicView(shuffled))
    assert a.play(99)[1].tolist() == b.play(99)[1].tolist()
    assert a.playout(random.Random(5)).tolist() == b.playout(random.Random(5)).tolist()
    assert a.play(99)[1].tolist() != a.play(100)[1].tolist()


def test_kernel_picks_are_uniform_over_free_slots():
    game = Game(4, SET_UPS[4][1], 2)  # the set-up: every slot free
    snapshot = Snapshot(game)
    counts = [0] * 4
    for seed in range(4000):
        counts[snapshot.play(seed)[1][0, 1] - game._discard - 1] += 1
    assert all(900 < c < 1100 for c in counts), counts


# ----- Full Greedy ---------------------------------------------------------------------------------------
def python_greedy_choices(game: Game) -> set[tuple[int, int]]:
    """agents.greedy.FullGreedy's best choices now, as the kernel reports them."""
    fg = FullGreedy()
    if game.phase == PLACE:
        if not any(game.placement_masks()):
            return {(game._discard, -1)}
        return set(fg.best_turns(game))
    options = fg.pick_options(game)
    top = max(options)[0]
    return {(-1, slot) for value, slot in options if value == top}


@settings(max_examples=60, deadline=None)
@given(set_ups, seeds, decisions)
def test_kernel_full_greedy_has_the_same_best_choices(set_up, seed, decisions):
    game = game_after(*set_up, seed, decisions)
    if not game.is_over:
        assert Snapshot(game).greedy_choices() == python_greedy_choices(game)


@pytest.mark.parametrize("policy", ["fg", "eg", "pg"])
@pytest.mark.parametrize("set_up", SET_UPS)
def test_greedy_playouts_are_legal_and_greedy_moves_are_full_greedys(policy, set_up):
    game = game_after(*set_up, 5, 6)
    standings, moves = Snapshot(game).play(3, *seat_policies(policy, game.num_players, 1), shuffle=False)
    engine = engine_copy_drawing_sorted(game)
    greedy_moves = 0
    for i, (player, action, _) in enumerate(moves.tolist()):
        if engine.phase == PLACE:
            best = python_greedy_choices(engine)
            pick = moves[i + 1, 1] - engine._discard - 1 if engine.line and best != {(engine._discard, -1)} else -1
            greedy_moves += (action, pick) in best
            if policy == "fg" or (policy == "pg" and player == 1):
                assert (action, pick) in best
        engine.step(action, player)
    assert engine.is_over
    assert standings.tolist() == [list(engine.standing(p)) for p in range(engine.num_players)]
    assert greedy_moves > 0


@settings(max_examples=60, deadline=None)
@given(set_ups, seeds, decisions)
def test_kernel_gprd_has_the_same_best_placements(set_up, seed, decisions):
    game = game_after(*set_up, seed, decisions)
    while not game.is_over and game.phase != PLACE:
        game.step(random.Random(seed).choice(game.legal_actions()))
    if game.is_over:
        return
    snapshot = Snapshot(game)
    work = compiled.workspace(snapshot.tables.cells)
    found = compiled.gprd_placements(snapshot.games, 0, snapshot.tables, work)
    assert sorted(work.best[:found, 0].tolist()) == sorted(GreedyPlacement().best_placements(game))
