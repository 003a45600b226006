"""Scoring, bonuses and tie-breaks, with the kingdoms drawn as ASCII."""

from kdenv.actions import place_action
from kdenv.game import Game
from kdenv.kingdom import Kingdom
from kdenv.rules import Rules

RULES_EXAMPLE = """
F  F1 F  L  L
F  F2 F  L  L
F  W1 C  L  L
W  W  W  L  L
G2 G  G  L  S
"""


def game_with(*pictures: str, rules: Rules | None = None, discards: tuple[int, ...] = ()) -> Game:
    rules = rules or Rules()
    game = Game(len(pictures), rules, seed=0)
    game.kingdoms = [Kingdom.from_ascii(p, rules.kingdom_size) for p in pictures]
    for player in discards:
        game.kingdoms[player].discards += 1
    return game


def test_the_example_of_the_rules_scores_31():
    kingdom = Kingdom.from_ascii(RULES_EXAMPLE)
    by_terrain = {(p.terrain, p.squares, p.crowns) for p in kingdom.properties()}
    assert by_terrain == {(1, 7, 3), (2, 9, 0), (0, 4, 1), (3, 3, 2), (4, 1, 0)}
    assert kingdom.property_score() == 21 + 0 + 4 + 6 == 31


def test_properties_are_connected_orthogonally_not_diagonally():
    kingdom = Kingdom.from_ascii(
        """
        W1 .  .
        .  W  C
        """
    )
    assert sorted((p.squares, p.crowns) for p in kingdom.properties()) == [(1, 0), (1, 1)]
    assert kingdom.property_score() == 1


def test_the_castle_joins_no_property():
    kingdom = Kingdom.from_ascii("W1 C  W1")
    assert kingdom.property_score() == 2  # two wheat properties of 1 square, 1 crown each


def test_middle_kingdom_and_harmony_bonuses():
    rules = Rules(middle_kingdom=True, harmony=True)
    game = game_with(RULES_EXAMPLE, RULES_EXAMPLE, rules=rules, discards=(1,))
    assert game.breakdown(0).middle_kingdom == 10 and game.breakdown(0).harmony == 5
    assert game.scores() == [31 + 10 + 5, 31 + 10]  # a discard loses Harmony
    assert game_with(RULES_EXAMPLE, RULES_EXAMPLE).scores() == [31, 31]  # bonuses off by default


def test_middle_kingdom_on_an_incomplete_kingdom():
    rules = Rules(middle_kingdom=True)
    centred = """
    .  W1 W
    .  C  .
    F  F  .
    """
    off_centre = "C  W1 W  W  W"
    game = game_with(centred, off_centre, rules=rules)
    assert game.breakdown(0).middle_kingdom == 10 and game.score(0) == 12
    assert game.breakdown(1).middle_kingdom == 0 and game.score(1) == 4


def test_harmony_needs_a_complete_kingdom():
    almost = RULES_EXAMPLE.replace("S\n", ".\n")
    game = game_with(almost, RULES_EXAMPLE, rules=Rules(harmony=True))
    assert game.breakdown(0).harmony == 0 and game.breakdown(1).harmony == 5


def test_mighty_duel_bonuses_are_for_7x7():
    full = "\n".join(" ".join("C" if (r, c) == (3, 3) else "W" for c in range(7)) for r in range(7))
    rules = Rules(kingdom_size=7, middle_kingdom=True, harmony=True)
    game = Game(2, rules, seed=0)
    game.kingdoms = [Kingdom.from_ascii(full, 7), Kingdom.from_ascii("C  W1 W  W  W", 7)]
    assert game.kingdoms[0].is_complete() and game.scores() == [10 + 5, 4]  # 4 columns out is past 3
    game.kingdoms[1] = Kingdom.from_ascii("C  W1 W  W", 7)
    assert game.score(1) == 3 + 10


def test_tie_breaks_step_by_step():
    # 1. Same score 4; largest property 4 against 2: the larger wins.
    game = game_with("C  W1 W  W  W", "C  G2 G")
    assert game.scores() == [4, 4] and game.winners() == [0]
    # 2. Same score 4, same largest property 4; crowns 1 against 2: more crowns wins.
    game = game_with(
        "C  W1 W  W  W",
        """
        W  W  W  W
        .  .  C  G2 G
        """,
    )
    assert game.scores() == [4, 4] and [game.standing(p)[1] for p in (0, 1)] == [4, 4]
    assert game.winners() == [1] and game.placings() == [1.0, 0.0]
    # 3. Everything equal: a shared victory, and the places are shared too.
    game = game_with("C  W1 W  W  W\nF", "C  W1 W  W  W\nL", "C  G2 G")
    assert game.winners() == [0, 1]
    assert game.placings() == [0.5, 0.5, 2.0]


GAIN_EXAMPLE = """
W1 W  C
.  .  .
"""


def test_a_placement_gains_the_property_score_it_adds():
    kingdom = Kingdom.from_ascii(GAIN_EXAMPLE)  # wheat: 2 squares, 1 crown = 2 points
    below_crown, below_wheat = (1, -2), (1, -1)
    plain_wheat, crowned_wheat, swamps = 13, 19, 12  # W|F, W1|F, S|S
    assert kingdom.gain(plain_wheat, place_action(below_crown, (2, -2))) == 3 * 1 - 2
    assert kingdom.gain(crowned_wheat, place_action(below_wheat, (1, 0))) == 3 * 2 - 2
    assert kingdom.gain(crowned_wheat, place_action((1, 0), below_wheat)) == 1  # a wheat of its own: 1 x 1
    assert kingdom.best_gain(crowned_wheat) == 4
    assert kingdom.best_gain(swamps) == 0
    assert kingdom.property_score() == 2  # asking changes nothing
