"""gprd and fg: incremental scoring against the engine, Full Greedy against a slow reference, and
hand-drawn boards where the best move is plain."""

from __future__ import annotations

import random

import pytest

from agents.gains import centred_masks, joined_squares, placement_gain
from agents.greedy import FullGreedy, GreedyPlacement, _after, _tables, bonus
from kdenv.actions import num_actions
from kdenv.game import OVER, PICK, PLACE, Game
from kdenv.kingdom import Kingdom
from kdenv.rules import STUDY_RULES, Rules
from tests.strategies import SET_UP_IDS, SET_UPS


def kingdom_score(game: Game, kingdom: Kingdom, discards: int) -> int:
    """The score of ``kingdom`` under the game's rules, straight from the engine's Kingdom."""
    rules = game.rules
    score = kingdom.property_score()
    if rules.middle_kingdom and kingdom.is_centred():
        score += 10
    if rules.harmony and kingdom.is_complete() and not discards:
        score += 5
    return score


def random_states(num_players: int, rules: Rules, games: int, seed: int = 0):
    """Placement decisions met in random games (the game is paused at each one)."""
    rng = random.Random(seed)
    for g in range(games):
        game = Game(num_players, rules, seed=seed * 1000 + g)
        while game.phase != OVER:
            if game.phase == PLACE:
                yield game
            actions = game.legal_actions()
            game.step(actions[rng.randrange(len(actions))])


def placed(kingdom: Kingdom, number: int, action: int) -> Kingdom:
    after = kingdom.copy()
    after.place(number, action)
    return after


# ----- incremental scoring ---------------------------------------------------------------------------
@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_placement_gain_and_tables_match_the_engine(num_players, rules):
    cache: dict = {}
    for game in random_states(num_players, rules, games=2):
        p = game.current_player
        kingdom, number = game.kingdoms[p], game.held_domino
        tables = _tables(kingdom, cache)
        steps = kingdom.frame.steps
        for action in kingdom.legal_placements(number):
            a, b = action >> 2, (action >> 2) + steps[action & 3]
            after = placed(kingdom, number, action)
            got = placement_gain(tables, number, a, b) + bonus(game, after.occupied, kingdom.discards)
            assert got == kingdom_score(game, after, kingdom.discards) - kingdom.property_score(), action
            joined = max(p.squares for p in after.properties() if p.cells >> a & 1 or p.cells >> b & 1)
            assert joined_squares(tables, number, a, b) == joined, action
            fresh, updated = _tables(after, {}), _after(tables, kingdom, number, a, b)
            for t in range(6):
                empty = [x for x in range(kingdom.frame.cells) if not after.occupied >> x & 1]
                assert [(updated[t].base[x], updated[t].mult[x]) for x in empty] == [
                    (fresh[t].base[x], fresh[t].mult[x]) for x in empty
                ]


# ----- Full Greedy against a slow reference -----------------------------------------------------------
def reference_filter(kingdom: Kingdom, number: int) -> list[int]:
    """FG's placement filters done the slow way: whole kingdoms and cell-by-cell hole counts."""
    f = kingdom.frame
    window, _ = centred_masks(f.size)
    legal = kingdom.legal_placements(number)
    centred = kingdom.is_centred()
    if centred:
        inside = [a for a in legal if placed(kingdom, number, a).is_centred()]
        legal = inside or legal
    region = window & ~kingdom.occupied if centred else kingdom.window

    def holes(empty: int) -> set[int]:
        return {z for z in range(f.cells) if empty >> z & 1 and not f.neighbours(1 << z) & empty & ~(1 << z)}

    old = holes(region)
    kept = [a for a in legal if not holes(region & ~placed(kingdom, number, a).occupied) - old]
    return kept or legal


def reference_options(game: Game) -> set[tuple[int, int, int]]:
    """Every (value, placement, slot) triple FG weighs, scored on whole kingdoms (value: the score of the
    resulting kingdom less the property score now)."""
    p = game.current_player
    kingdom, number = game.kingdoms[p], game.held_domino
    base = kingdom.property_score()
    free = [i for i, owner in enumerate(game.claims) if owner < 0]
    options = set()
    for action in reference_filter(kingdom, number):
        after = placed(kingdom, number, action)
        if not free:
            options.add((kingdom_score(game, after, kingdom.discards) - base, action, -1))
        for slot in free:
            picked = game.line[slot]
            seconds = reference_filter(after, picked)
            value = max(
                (kingdom_score(game, placed(after, picked, a2), kingdom.discards) for a2 in seconds),
                default=kingdom_score(game, after, kingdom.discards + 1),
            )
            options.add((value - base, action, slot))
    return options


@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_full_greedy_weighs_the_same_options_as_the_reference(num_players, rules):
    fg = FullGreedy()
    checked = 0
    for k, game in enumerate(random_states(num_players, rules, games=1, seed=7)):
        if game.must_discard() or k % 3:
            continue
        assert set(fg.place_options(game)) == reference_options(game)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_bounded_search_finds_exactly_the_best_options(num_players, rules):
    """FG's branch and bound keeps every best triple of the exhaustive list, and only those."""
    fg = FullGreedy()
    rng = random.Random(3)
    for seed in range(3):
        game = Game(num_players, rules, seed=seed)
        while game.phase != OVER:
            if game.phase == PLACE and not game.must_discard():
                options = fg.place_options(game)
                top = max(options)[0]
                assert sorted(fg.best_turns(game)) == sorted((a, s) for v, a, s in options if v == top)
            game.step(fg.act(game, rng))


# ----- hand-drawn boards -----------------------------------------------------------------------------
def decision(board: str, held: int, line: list[int], rules: Rules = STUDY_RULES) -> Game:
    """A 4-player game at player 0's placement of ``held``, player 0's kingdom drawn as ``board``,
    the next line ``line`` (all free; [] for the last round)."""
    game = Game.from_deck(4, rules, list(range(1, 49)), [0, 1, 2, 3])
    while game.phase == PICK and game.round == 0:
        game.step(game.legal_actions()[0])
    game.kingdoms[0] = Kingdom.from_ascii(board)
    game.held[game.king] = held
    game.line, game.claims = list(line), [-1] * len(line)
    assert game.current_player == 0 and game.phase == PLACE
    return game


def cells_of(game: Game, action: int) -> tuple[int, int]:
    a = action >> 2
    return a, a + game.kingdoms[0].frame.steps[action & 3]


def test_fg_puts_the_crowned_mine_next_to_the_mine():
    board = """
    C M1
    """
    fg = FullGreedy()
    for seed in range(5):
        game = decision(board, 46, [])  # 46 = S | M2
        action = fg.act(game, random.Random(seed))
        _, mine = cells_of(game, action)
        f = game.kingdoms[0].frame
        assert mine in {f.cell(1, 1), f.cell(-1, 1), f.cell(0, 2)}


def test_fg_picks_the_domino_that_scores_next_turn():
    board = """
    W1 W  W
    .  C  .
    """
    fg = FullGreedy()
    first_pick = num_actions(5) - 4
    for seed in range(5):
        game = decision(board, 7, [3, 10, 12, 48])  # FF GG SS W|M3: only #48 can score
        rng = random.Random(seed)
        game.step(fg.act(game, rng))
        assert fg.act(game, rng) == first_pick + 3


def test_fg_keeps_the_castle_in_the_centre_even_for_equal_scores():
    board = """
    C F1 F
    """
    fg = FullGreedy()
    window, _ = centred_masks(5)
    for seed in range(10):
        game = decision(board, 3, [], Rules())  # FF, no Middle Kingdom bonus to tell placements apart
        a, b = cells_of(game, fg.act(game, random.Random(seed)))
        assert (1 << a | 1 << b) & window == 1 << a | 1 << b


def test_fg_leaves_no_single_square_hole_when_it_can():
    # the empty cell at (1, 1) is boxed in on three sides: a domino on (2, 1) or (1, 2) would seal it
    board = """
    W  W  W  .  .
    W  C  W  .  .
    W  .  W  .  .
    .  .  .  .  .
    .  .  .  .  .
    """
    fg = FullGreedy()
    for seed in range(10):
        game = decision(board, 1, [], Rules())  # WW: every placement touching the wheat scores 0 anyway
        kingdom = game.kingdoms[0]
        a, b = cells_of(game, fg.act(game, random.Random(seed)))
        after = kingdom.copy()
        after.place(1, 4 * a + next(d for d in range(4) if a + kingdom.frame.steps[d] == b))
        hole = kingdom.frame.cell(1, 0)
        neighbours = kingdom.frame.neighbours(1 << hole) & centred_masks(5)[0]
        assert neighbours & ~after.occupied, "FG sealed a single-square hole"


def test_setup_pick_takes_the_most_crowns_on_one_half():
    game = Game.from_deck(4, STUDY_RULES, [1, 29, 45, 48, *range(2, 29), *range(30, 45), 46, 47], [0, 1, 2, 3])
    assert game.line == [1, 29, 45, 48]
    action = FullGreedy().act(game, random.Random(0))
    assert action == num_actions(5) - 4 + 3  # 48 = W | M3


def test_gprd_places_greedily():
    board = """
    C M1
    """
    gprd = GreedyPlacement()
    game = decision(board, 46, [3, 10, 12, 48])
    _, mine = cells_of(game, gprd.act(game, random.Random(0)))
    f = game.kingdoms[0].frame
    assert mine in {f.cell(1, 1), f.cell(-1, 1), f.cell(0, 2)}


def test_gprd_breaks_score_ties_by_the_largest_property():
    board = """
    F  F
    .  C
    """
    for seed in range(10):
        game = decision(board, 3, [7, 10, 12, 48])  # 3 = F|F: no crowns anywhere, every placement scores 0
        action = GreedyPlacement().act(game, random.Random(seed))
        assert placed(game.kingdoms[0], 3, action).largest_property() == 4
