"""Set-up, the order of the kings, rounds, and the errors of acting wrongly."""

import hashlib
import random

import pytest

from kdenv.actions import discard_action, pick_action
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.game import Game, random_game
from kdenv.replay import to_record
from kdenv.rules import STUDY_RULES, Rules


@pytest.mark.parametrize(
    "players, rules, in_play, line, decisions",
    [
        (2, Rules(), 24, 4, 4 + 5 * 8 + 4),  # 6 rounds
        (3, Rules(), 36, 3, 3 + 11 * 6 + 3),  # 12 rounds
        (4, Rules(), 48, 4, 4 + 11 * 8 + 4),
        (2, Rules(kingdom_size=7), 48, 4, 4 + 11 * 8 + 4),  # Mighty Duel
    ],
)
def test_each_set_up_deals_and_plays_the_right_number_of_dominoes(players, rules, in_play, line, decisions):
    game = Game(players, rules, seed=3)
    assert len(game.drawn) + len(game.deck) == in_play and len(game.removed) == 48 - in_play
    assert len(game.line) == line and game.line == sorted(game.line)
    assert len(game.king_order) == line and sorted(set(game.king_order)) == list(range(players))
    game.playout(random.Random(3))
    assert len(game.moves) == decisions and game.is_over
    dealt = [
        sum(1 for p, a, _ in game.moves if p == player and a <= discard_action(rules.kingdom_size))
        for player in range(players)
    ]
    assert dealt == [in_play // players] * players


def test_the_set_up_picks_follow_the_drawn_king_order_then_kings_act_in_line_order():
    game = Game(2, seed=11)
    order = game.king_order
    first_line = list(game.line)
    for king, owner in enumerate(order):
        assert game.current_player == owner and game.phase == "pick"
        game.step(pick_action(len(order) - 1 - king))  # take the highest free domino
    assert game.round == 1 and game.phase == "place"
    # Kings now act from the lowest domino of the first line: the last king drawn holds it.
    assert game.held == first_line and game.queue == list(reversed(order))
    for king in range(len(order)):
        assert game.current_player == game.queue[king] and game.held_domino == first_line[king]
        game.step(game.legal_actions()[0])
        assert game.phase == "pick" and game.current_player == game.queue[king]
        game.step(game.legal_actions()[0])
    assert game.round == 2


def test_the_last_round_is_placement_only():
    game = Game(4, seed=2)
    rng = random.Random(2)
    while game.deck:
        game.step(rng.choice(game.legal_actions()))
    while game.line:  # the round that picks from the last line drawn
        game.step(rng.choice(game.legal_actions()))
    assert game.phase == "place"
    while not game.is_over:
        assert game.phase == "place"
        game.step(rng.choice(game.legal_actions()))
    assert game.legal_actions() == []


def test_the_same_seed_deals_and_plays_the_same_game():
    a, b = Game(3, seed=42), Game(3, seed=42)
    assert to_record(a.playout(random.Random(1))) == to_record(b.playout(random.Random(1)))
    assert Game(3, seed=43).drawn != Game(3, seed=42).drawn


def expect_illegal(game: Game, action, match: str, player=None) -> None:
    before = to_record(game)
    with pytest.raises(IllegalMoveError, match=match):
        game.step(action, player)
    assert to_record(game) == before


def test_acting_wrongly_is_refused_with_the_reason_and_changes_nothing():
    game = Game(4, seed=5)
    first = game.current_player
    expect_illegal(game, pick_action(0), f"by player {(first + 1) % 4}: it is player {first}'s turn", (first + 1) % 4)
    expect_illegal(game, 0, "it is time to pick")
    expect_illegal(game, discard_action(), "it is time to pick")
    expect_illegal(game, 400, "outside the action space")
    expect_illegal(game, "pick", "not an integer")
    game.step(pick_action(2))
    expect_illegal(game, pick_action(2), r"pick slot 2 by player \d: domino #\d+ is already claimed by player")
    while game.phase == "pick":
        game.step(game.legal_actions()[0])
    expect_illegal(game, pick_action(0), "it is time to place domino")
    game.playout(random.Random(0))
    expect_illegal(game, pick_action(0), "the game is over")


def test_numpy_integers_are_accepted_as_actions():
    np = pytest.importorskip("numpy")
    game = Game(2, seed=1)
    game.step(np.int64(game.legal_actions()[0]))
    assert len(game.moves) == 1


@pytest.mark.parametrize("players, rules", [(5, Rules()), (1, Rules()), (3, Rules(kingdom_size=7))])
def test_impossible_tables_are_refused(players, rules):
    with pytest.raises(KingdominoError, match="players"):
        Game(players, rules)


def test_unknown_rule_names_are_refused_with_the_known_ones():
    with pytest.raises(KingdominoError, match="unknown rule 'harmoni'; choose from middle_kingdom"):
        Rules.from_names("middle_kingdom,harmoni")
    assert Rules.from_names("mighty_duel,harmony") == Rules(kingdom_size=7, harmony=True)


def test_clone_is_independent():
    game = Game(4, seed=9)
    copy = game.clone()
    copy.playout(random.Random(0))
    assert game.moves == [] and copy.is_over and game.kingdoms[0].placed == 0


def test_determinize_reshuffles_only_what_is_unseen():
    game = Game(3, seed=4)
    rng = random.Random(0)
    for _ in range(20):
        game.step(rng.choice(game.legal_actions()))
    copy = game.determinize(random.Random(1))
    assert copy.unseen() == game.unseen() and copy.deck != game.deck
    assert (copy.line, copy.claims, copy.queue, copy.held, copy.moves) == (
        game.line, game.claims, game.queue, game.held, game.moves
    )  # fmt: skip


def test_a_seed_gives_the_random_games_it_always_gave():
    """random_game and Game.playout draw as they always have (pinned on the code before issue 24 made playout plain):
    recorded games and search seeds stay reproducible."""
    games = [random_game(4, STUDY_RULES, s).moves for s in range(5)] + [random_game(2, Rules(kingdom_size=7), 3).moves]
    game = Game(3, Rules(voluntary_discard=True), 5)
    for _ in range(7):  # a playout from the middle of a round
        game.step(game.legal_actions()[-1])
    games.append(game.playout(random.Random(9)).moves)
    assert hashlib.sha256(repr(games).encode()).hexdigest()[:16] == "6833830350e04ca6"
