"""The ``az`` player: its budget is exact, its search is seeded, its chance is the player's own, its output is
the improved policy, and it plays legal games at every table (strength is measured by tournaments, not here)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_player
from agents.az_search import Leaf, Node, Search, completed_q, improved_policy
from agents.checkpoint import CheckpointError
from agents.greedy import FullGreedy
from agents.playout import Snapshot
from agents.ppo_player import DEFAULT_CHECKPOINTS
from agents.registry import PlayerSpecError
from agents.search_settings import Settings
from agents.tie_break import TieBrokenFullGreedy
from kdenv.actions import discard_action, pick_action
from kdenv.batched.machine import MADE
from kdenv.batched.tables import tables
from kdenv.game import Game
from kdenv.rules import STUDY_RULES, Rules
from kdenv.view import PublicView
from tests.helpers.games import game_after
from training.cli import main

TABLES = [(4, STUDY_RULES), (3, Rules()), (2, Rules()), (2, Rules(kingdom_size=7))]


def busy_view(seed: int = 2) -> PublicView:
    """A mid-game position of the study's table with several legal placements."""
    game = game_after(4, STUDY_RULES, seed, 30)
    while len(game.legal_actions()) < 4:
        game.step(game.legal_actions()[0])
    return PublicView(game)


def round_end(phase: str, choices: int = 1) -> Game:
    """The study's table at the last king's ``phase`` of a round after the first, with at least ``choices`` legal
    moves: its pick draws the next line."""
    game = Game(4, STUDY_RULES, seed=11)
    while not (game.phase == phase and game.king == len(game.queue) - 1 and game.round >= 1
               and len(game.legal_actions()) >= choices):  # fmt: skip
        game.step(game.legal_actions()[0])
    return game


def round_end_view() -> PublicView:
    """The last pick of a round after the first: every move there draws the next line."""
    return PublicView(round_end("pick"))


@pytest.mark.parametrize("root", ["gumbel", "puct"])
@pytest.mark.parametrize("simulations", [1, 7, 40])
def test_simulations_n_does_exactly_n(root, simulations):
    player = make_player(f"az:default,simulations={simulations},root={root},batch=8", 4, STUDY_RULES)
    player.reset(0, seed=1)
    result = player.search(busy_view())
    assert result.simulations == simulations
    assert result.root.visits.sum() == simulations


def test_the_result_counts_the_new_leaves_which_simulations_meeting_in_a_batch_share():
    """One at a time, every simulation from mid-game makes a leaf; 32 at once over 3 root actions, simulations
    that meet at a leaf still waiting for its value share its evaluation, so there are fewer leaves."""
    alone = make_player("az:default,simulations=32,batch=1", 4, STUDY_RULES).search(busy_view())
    assert alone.leaves == alone.simulations == 32
    together = make_player("az:default,simulations=32,batch=32,considered=3", 4, STUDY_RULES).search(busy_view())
    assert together.simulations == 32 and 3 <= together.leaves < 32


def test_a_budget_of_simulations_is_shared_out_as_mctx_s_sequential_halving():
    """64 simulations over 8 considered root moves: 2 each, then 5 each for the best 4, then 10 and the rest
    (4) each for the best 2 (mctx's ``get_sequence_of_considered_visits``), so every considered move is tried."""
    view = busy_view()
    assert len(view.legal_actions()) >= 8
    player = make_player("az:default,simulations=64,considered=8,batch=8", 4, STUDY_RULES)
    player.reset(view.current_player, seed=1)
    visits = sorted(player.search(view).root.visits.tolist(), reverse=True)
    assert visits[:9] == [21, 21, 7, 7, 2, 2, 2, 2, 0]


def test_same_seed_same_moves():
    def moves(seed: int) -> list[int]:
        player = make_player("az:default,simulations=12,sample=true,seed=4", 4, STUDY_RULES)
        game = Game(4, STUDY_RULES, seed=9)
        played = []
        for _ in range(24):
            player.reset(game.current_player, seed=seed)
            action = player.act(PublicView(game))
            played.append(action)
            game.step(action)
        return played

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)  # the seed reaches the Gumbel noise and the deals of the search


@pytest.mark.parametrize("rollout", ["none", "fg"])
def test_chance_children_are_keyed_by_lines_the_player_could_see_drawn(rollout):
    """A move that ends a round leads to one child per next line drawn, each from the player's unseen dominoes
    (with rollouts too, which play the leaves' rows on to the end after they are read)."""
    view = round_end_view()
    player = make_player(f"az:default,simulations=48,root=puct,rollout={rollout}", 4, STUDY_RULES)
    player.reset(view.current_player, seed=0)
    root = player.search(view).root
    assert root.chance
    unseen = set(view.unseen())
    lines = [key for child in root.children if child is not None for key in child]
    assert len(lines) >= 2 and len(set(lines)) == len(lines)
    for line in lines:
        assert list(line) == sorted(line) and len(line) == 4 and set(line) <= unseen


def test_a_chance_node_keeps_at_most_lines_lines_and_the_tree_grows_below_it():
    """With ``lines=2`` every chance node holds at most two lines (the player's unseen dominoes), later
    simulations revisit them, and the tree goes on below a round's end."""
    view = round_end_view()
    player = make_player("az:default,simulations=64,root=puct,lines=2", 4, STUDY_RULES)
    player.reset(view.current_player, seed=0)
    root = player.search(view).root
    unseen = set(view.unseen())
    for k, lines in enumerate(root.children):
        if lines is None:
            continue
        assert 1 <= len(lines) <= 2 and all(set(line) <= unseen for line in lines)
        below = [node for node in lines.values() if isinstance(node, Node)]
        assert sum(node.visits.sum() for node in below) <= root.visits[k] - len(lines)
    assert max(node.visits.sum() for lines in root.children if lines for node in lines.values()) >= 2


def test_every_root_move_s_nth_simulation_draws_the_same_line():
    """Common random numbers: the n-th simulation through each root move deals the same deck. At the last
    placement of a round, each move's (forced) pick draws the next line; the lines each holds, in the order
    first drawn, are prefixes of one sequence."""
    game = round_end("place", choices=4)
    player = make_player("az:default,simulations=96,considered=4", 4, STUDY_RULES)  # 12 and more each
    player.reset(game.current_player, seed=0)
    root = player.search(PublicView(game)).root
    drawn = [list(child.children[0]) for child in root.children if isinstance(child, Node) and child.children[0]]
    longest = max(drawn, key=len)
    assert len(drawn) == 4 and len(longest) >= 12
    for lines in drawn:
        assert lines == longest[: len(lines)]


def test_the_output_is_the_prior_improved_by_the_completed_q_values():
    """On a fixed root: softmax(logits + sigma(q)), q the visited means and the mixed value elsewhere (mctx's
    ``qtransform_completed_by_mix_value``: (50 + max visits) * 0.1 * min-max rescaled q)."""
    value = np.array([0.2, -0.1, 0.0, -0.1])
    node = Node(0, np.array([3, 5, 8]), np.log(np.array([0.5, 0.3, 0.2])), value, False, 0)
    node.visits[:] = [2, 1, 0]
    node.totals[0, 0], node.totals[1, 0] = 1.0, -0.4
    mixed = (0.2 + 3 * (0.5 * 0.5 + 0.3 * -0.4) / 0.8) / 4
    q = np.array([0.5, -0.4, mixed])
    assert completed_q(node) == pytest.approx(q)
    logits = np.log([0.5, 0.3, 0.2]) + 52 * 0.1 * (q - q.min()) / (q.max() - q.min())
    expected = np.exp(logits) / np.exp(logits).sum()
    assert improved_policy(node, Settings(c_scale=0.1)) == pytest.approx(expected)


@pytest.mark.parametrize(("players", "rules"), TABLES)
def test_az_plays_legal_games_at_every_table(players, rules):
    player = make_player("az:default,simulations=6,batch=4", players, rules)
    game = Game(players, rules, seed=players)
    seats = {}
    while not game.is_over:
        seat = game.current_player
        if seat not in seats:
            seats[seat] = True
            player.reset(seat, seed=seat)
        game.step(player.act(PublicView(game)))  # the engine raises on an illegal move
    assert len(game.scores()) == players


def engine_values(game: Game, evaluation: str) -> list[float]:
    """Every seat's value of a finished game, worked out from the engine: the AEC env's rank reward, or the study's
    R, own score / (own + the best other's), rescaled to [-1, 1]."""
    if evaluation == "rank":
        return [1 - 2 * place / (game.num_players - 1) for place in game.placings()]
    scores = game.scores()
    best = [max(s for q, s in enumerate(scores) if q != p) for p in range(len(scores))]
    return [2 * own / (own + other) - 1 for own, other in zip(scores, best, strict=True)]


@pytest.mark.parametrize("evaluation", ["rank", "r"])
def test_finished_games_in_the_tree_hold_every_seat_value(evaluation):
    """At the last placement of the game every move ends it: each child is a finished game valued for every seat
    as ``eval`` says (rank: the AEC env's rank reward, +1 first ... -1 last; r: the score's share), re-played by
    the engine."""
    game = Game(4, STUDY_RULES, seed=6)
    while not (game.phase == "place" and not game.line and game.king == len(game.queue) - 1):
        game.step(game.legal_actions()[-1])
    player = make_player(f"az:default,simulations=24,root=puct,eval={evaluation}", 4, STUDY_RULES)
    player.reset(game.current_player, seed=0)
    root = player.search(PublicView(game)).root
    visited = [k for k in range(root.actions.size) if root.visits[k]]
    assert visited
    for k in visited:
        leaf = root.children[k]
        assert isinstance(leaf, Leaf)
        after = game.clone()
        after.step(int(root.actions[k]))
        assert after.is_over
        assert leaf.value.tolist() == pytest.approx(engine_values(after, evaluation))
        assert root.totals[k] == pytest.approx(root.visits[k] * leaf.value)  # the virtual loss is taken back


def rolled_out_nodes(evaluation: str) -> list[Node]:
    """The root and the expanded children of a search whose leaves are valued by one Full-Greedy rollout alone."""
    player = make_player(f"az:default,simulations=16,root=puct,rollout=fg,mix=1,eval={evaluation}", 4, STUDY_RULES)
    player.reset(0, seed=3)
    root = player.search(busy_view()).root
    nodes = [root, *(child for child in root.children if isinstance(child, Node))]
    assert len(nodes) > 1
    return nodes


@pytest.mark.parametrize(
    ("options", "evaluation"),
    [("", "r"), (",rollout=none", "rank"), (",mix=0.5", "rank"), (",rollout=none,eval=r", "r"), (",eval=rank", "rank")],
)
def test_eval_is_r_where_rollouts_alone_value_the_leaves_else_rank(options, evaluation):
    """The network's values were trained on rank rewards, so a search that mixes them in values finished games on
    that scale unless told otherwise."""
    assert make_player(f"az:default{options}", 4, STUDY_RULES).settings.outcome == evaluation


def test_with_eval_r_a_rollout_values_a_leaf_by_the_score_s_share():
    """rollout=fg, mix=1, eval=r: a leaf's value is the study's R of its Full-Greedy playout, so the seats' values
    are not ranks (thirds) and the best seat's alone is positive, unless its score is shared."""
    nodes = rolled_out_nodes("r")
    for node in nodes:
        assert np.all(np.abs(node.value) < 1) and (node.value > 0).sum() <= 1
    assert any(not np.allclose(node.value * 3, np.round(node.value * 3)) for node in nodes)


def test_a_checkpoint_for_another_table_is_refused_before_any_game(tmp_path, capsys):
    with pytest.raises(CheckpointError, match="trained for 2 players"):
        make_player(f"az:{DEFAULT_CHECKPOINTS[2, 5]}", 4, STUDY_RULES)
    out = tmp_path / "t"
    argv = ["--protocol", "study", "--agent", f"az:{DEFAULT_CHECKPOINTS[2, 5]},simulations=2", "--games", "4"]
    assert main(["tournament", *argv, "--out", str(out), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was trained for 2 players" in err and "give a checkpoint trained for" in err
    assert not out.exists()  # not a game played, not a file written


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("az:default,simulations=0", "simulations=0"),
        ("az:default,simulations=4,seconds=1", "not both"),
        ("az:default,root=minimax", "root='minimax'"),
        ("az:default,values=seats", "values=seats needs a checkpoint"),
        ("az:default,sample=maybe", "sample must be true or false"),
        ("az:default,batch=0", "batch=0"),
        ("az:default,eval=wdl", "eval='wdl' is not one of rank, r"),
        ("az:default,others=mce", "others='mce' is not one of search, random, gprd, fg"),
        ("az:nosuch.zip", "not found"),
    ],
)
def test_bad_options_are_one_line_errors(spec, message):
    with pytest.raises((PlayerSpecError, CheckpointError), match=message) as error:
        make_player(spec, 4, STUDY_RULES)
    assert "\n" not in str(error.value)


def test_one_simulation_plays_the_network_s_most_probable_move():
    """Gumbel without noise considers the prior's best action first: with one simulation it is the ``ppo`` move."""
    az = make_player("az:default,simulations=1", 4, STUDY_RULES)
    ppo = make_player("ppo:default", 4, STUDY_RULES)
    for seed in range(6):
        game = game_after(4, STUDY_RULES, seed, 7 * seed)
        az.reset(game.current_player, seed=0)
        ppo.reset(game.current_player, seed=0)
        assert az.act(PublicView(game)) == ppo.act(PublicView(game))


def test_with_mix_1_a_leaf_is_valued_by_its_rollout_alone():
    """rollout=fg, mix=1, eval=rank: every node's value is the rank reward of one Full-Greedy playout of its game
    (sums to 0, each a third of a whole at 4 players), where the network's values are not."""
    nodes = rolled_out_nodes("rank")
    for node in nodes:
        assert abs(node.value.sum()) < 1e-9
        assert np.allclose(node.value * 3, np.round(node.value * 3)) and np.all(np.abs(node.value) <= 1)
    network = make_player("az:default,simulations=1,rollout=none", 4, STUDY_RULES).search(busy_view()).root.value
    assert not np.allclose(network * 3, np.round(network * 3))


def round_start(seed: int) -> Game:
    """The study's table at the first placement of a round after the first: a whole round of decisions, by every
    seat, comes before its end draws the next line."""
    game = Game(4, STUDY_RULES, seed=seed)
    while not (game.phase == "place" and game.king == 0 and game.round >= 2):
        game.step(game.legal_actions()[0])
    return game


def full_greedy_check(game: Game, action: int, turns: list | None, fg: FullGreedy | None = None) -> list | None:
    """Check that ``action`` is one Full Greedy (the engine's player, or ``fg``, one that breaks its ties otherwise)
    may make at ``game``: a placement among its best turns (a discard where none is legal), or a pick of a slot its
    placement planned (``turns``: those turns left by the placement it made, or None: its best pick). The turns the
    next pick must follow."""
    fg = fg or FullGreedy()
    if game.phase == "place":
        if not any(game.placement_masks()):
            assert action == discard_action(game.rules.kingdom_size)
            return None
        turns = [(placement, slot) for placement, slot in fg.choices(game) if placement == action]
        assert turns
        return turns
    if turns is None:
        turns = fg.choices(game)
    assert any(action == pick_action(slot, game.rules.kingdom_size) for _, slot in turns)
    return None


@pytest.mark.parametrize(("seed", "others"), [(3, "fg"), (8, "fg"), (3, "fgt")])
def test_with_others_fg_the_other_seats_make_full_greedy_s_moves_in_the_tree(seed, others):
    """others=fg: every node of another seat is searched along one action only: a placement among Full Greedy's
    best turns (the engine's player, agents.greedy; with others=fgt, those its tie-break keeps), and then the pick
    of the slot that turn planned. The searcher's own nodes are searched as before. Checked on the round's nodes,
    replayed by the engine."""
    game = round_start(seed)
    me = game.current_player
    player = make_player(f"az:default,simulations=96,root=puct,others={others}", 4, STUDY_RULES)
    fg = TieBrokenFullGreedy() if others == "fgt" else FullGreedy()
    player.reset(me, seed=0)
    root = player.search(PublicView(game)).root
    checked = {"place": 0, "pick": 0, "own": 0}

    def walk(node: Node, game: Game, turns: list | None) -> None:
        visited = np.flatnonzero(node.visits)
        if node.mover == me:
            checked["own"] += len(visited) > 1
            assert node.forced == -1
        else:
            assert set(visited.tolist()) <= {node.forced}
            action = int(node.actions[node.forced])
            checked[game.phase] += 1
            turns = full_greedy_check(game, action, turns, fg)
        for k in visited.tolist():
            child = node.children[k]
            if isinstance(child, Node) and not node.chance:
                after = game.clone()
                after.step(int(node.actions[k]))
                walk(child, after, turns if node.mover != me else None)

    walk(root, game, None)
    assert checked["place"] >= 3 and checked["pick"] >= 3 and checked["own"] >= 1


def test_with_rollout_network_the_searcher_plays_the_network_s_moves_and_the_others_full_greedy_s():
    """rollout=network: a leaf is played out with the searcher's moves the network's favourites (the ``ppo`` move)
    and the other seats' Full Greedy's. One simulation's rollout, re-played by the engine on the deck it dealt."""
    game = round_start(5)
    me = game.current_player
    player = make_player("az:default,rollout=network", 4, STUDY_RULES)
    ppo = make_player("ppo:default", 4, STUDY_RULES)
    ppo.reset(me, seed=0)
    gains = player.network.settings.gains
    search = Search(tables(4, STUDY_RULES, gains), player.evaluator.views, player.settings)
    search.run(player.evaluator, Snapshot(PublicView(game), gains).games, np.random.default_rng(0), 1)
    row = search.g
    drawn = 48 - len(game.deck)
    after = game.clone()
    after.deck = row.deck[0, drawn:].tolist()  # the simulation's deal
    moves = row.moves[0, : row.counters[0, MADE]].tolist()
    checked = {"own": 0, "place": 0, "pick": 0}
    turns: list | None = None
    for k, (p, action, _) in enumerate(moves):
        if k > 0:  # the first is the root's move; the rest are the rollout's
            if p == me:
                assert action == ppo.act(PublicView(after))
                checked["own"] += 1
            else:
                checked[after.phase] += 1
                turns = full_greedy_check(after, action, turns)
        after.step(action, p)
    assert after.is_over
    assert min(checked.values()) >= 3


def test_with_rollout_fgt_the_searcher_breaks_full_greedy_s_ties_and_the_others_do_not():
    """rollout=fgt: a leaf is played out with the searcher's moves those of fgt (Full Greedy, its ties broken by
    agents.tie_break) and the other seats' Full Greedy's. One simulation's rollout, re-played by the engine on the
    deck it dealt; fg alone in the searcher's seat fails it (its ties at random)."""
    game = round_start(5)
    me = game.current_player
    player = make_player("az:default,rollout=fgt", 4, STUDY_RULES)
    gains = player.network.settings.gains
    search = Search(tables(4, STUDY_RULES, gains), player.evaluator.views, player.settings)
    search.run(player.evaluator, Snapshot(PublicView(game), gains).games, np.random.default_rng(0), 1)
    row = search.g
    after = game.clone()
    after.deck = row.deck[0, 48 - len(game.deck) :].tolist()  # the simulation's deal
    turns, narrowed, unbroken = None, 0, 0
    for k, (p, action, _) in enumerate(row.moves[0, : row.counters[0, MADE]].tolist()):
        if k > 0:  # the first is the root's move; the rest are the rollout's
            if after.phase == "place" and any(after.placement_masks()):
                best, broken = FullGreedy().choices(after), TieBrokenFullGreedy().choices(after)
                narrowed += p == me and len(broken) < len(best)
                unbroken += p != me and action not in {placement for placement, _ in broken}
            turns = full_greedy_check(after, action, turns, TieBrokenFullGreedy() if p == me else None)
        after.step(action, p)
    assert after.is_over
    assert narrowed >= 3  # the searcher's moves were among fewer than Full Greedy's
    assert unbroken >= 1  # and the others' were Full Greedy's own, fgt would not have made them all


def test_with_rollout_network_an_evaluator_favouring_an_illegal_move_is_an_error_not_a_hang():
    """The rollout plays the evaluator's favourite move; one that is illegal stops the search with an error (the
    compiled step plays no row of a batch holding an illegal move, so the rollout would otherwise never end)."""
    player = make_player("az:default,rollout=network", 4, STUDY_RULES)

    class Illegal:
        views = player.evaluator.views

        def __call__(self, board, features, mask, movers):
            values = player.evaluator(board, features, mask, movers)[1]
            return np.where(mask[:: self.views] == 0, 1.0, 0.0), values

    gains = player.network.settings.gains
    search = Search(tables(4, STUDY_RULES, gains), player.evaluator.views, player.settings)
    with pytest.raises(ValueError, match="an illegal move in a rollout"):
        search.run(Illegal(), Snapshot(busy_view(), gains).games, np.random.default_rng(0), 1)
