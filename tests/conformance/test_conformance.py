"""Each pair of implementations checked in one place, over every set-up, as ``pgx/_src/api_test.py`` checks every game.

The engine (:mod:`kdenv.game`), the encoder and the players in plain Python are the readable references; the
compiled core and what runs on it must agree with them exactly. The pairs, and what each check compares:

* ``engine-core``: :class:`kdenv.game.Game` and the core (:mod:`kdenv.batched`, through
  :class:`agents.playout.Snapshot`): every move of a playout legal, with the same dominoes, ending in the same
  standings; every domino's legal placements in every kingdom.
* ``full-greedy``: :mod:`agents.greedy` and :mod:`agents.batched.greedy`: Full Greedy's best choices (and those
  :mod:`agents.tie_break` narrows them to), gprd's best placements, and the greedy moves of fg, eg and pg playouts.
* ``observation``: :class:`kdenv.encoding.ObservationEncoder` and the core's observations (:mod:`kdenv.batched.observe`
  in the vector env, updated move by move): every observation, with or without gains, and mask of whole games.
* ``aec-engine``: :mod:`kdenv.kingdomino_v0` (on the compiled core, :mod:`kdenv.batched.single`) and the engine with
  the encoder: for a seed, the game that ``Game(n, rules, seed)`` deals; at every decision of whole games the agent
  to move, the mask, the observation of the mover and of another seat (dict or flat, with or without gains), each
  reward (from the engine's scores and placings); every seat's observation at the end; the record.
* ``aec-vector``: :mod:`kdenv.kingdomino_v0` and :class:`kdenv.vector.VectorEnv`: at every decision of whole
  games the player to move, the mask, each reward and the end; the final scores and placings; the records.
* ``observation-copies``: the encoder and the core's observations with gains from every seat, at every decision of
  whole games whose rows are copied into one another and restored from snapshots (:mod:`kdenv.batched.observe`'s
  caches, copied along or drawn afresh), as a search does.
* ``tree-steps``: the engine and :func:`kdenv.batched.branch.branch`, which the ``az`` search steps its tree with: the
  position it reaches for a path and a deck is the engine's game with the same deck and moves (the same end and
  rank rewards, or the same mask and observations from every seat).

Each check runs on every set-up of :data:`tests.strategies.SET_UPS`, from games that hypothesis deals (the
profile's examples shared out between the set-ups).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.az_search import MAX_DEPTH
from agents.batched.greedy import gprd_placements
from agents.batched.workspace import workspace
from agents.greedy import FullGreedy, GreedyPlacement
from agents.playout import Snapshot, seat_policies
from agents.tie_break import TieBrokenFullGreedy
from kdenv.actions import discard_action
from kdenv.batched.batch import observe_all, play_rows
from kdenv.batched.branch import branch, observe_seats
from kdenv.batched.machine import FINISHED, PHASE, RANK, Games, copy_game, games, start
from kdenv.batched.observe import Seen, copy_seen, redraw_rows, seen
from kdenv.batched.step import Buffers, Step
from kdenv.batched.tables import Tables, tables
from kdenv.encoding import SCORE_SCALE, ObservationEncoder, action_mask
from kdenv.flat import flatten
from kdenv.game import PLACE, Game
from kdenv.kingdomino_v0 import raw_env
from kdenv.replay import replay_record, to_record
from kdenv.rules import Rules
from kdenv.table import REWARDS
from kdenv.vector import VectorEnv
from kdenv.view import PublicView
from tests.helpers.games import game_after, random_actions
from tests.helpers.references import terminal_rewards
from tests.strategies import SET_UP_IDS, SET_UPS, decisions, per_set_up, seeds

NUM_ENVS, GAMES = 2, 2  # the vector env's rows, and the games they finish, in each example of the env pairs
ROWS = 2  # the core's rows in an example of observation-copies
BRANCHES = 3  # the paths stepped from one root in an example of tree-steps


# ----- engine / compiled core ----------------------------------------------------------------------------
def engine_copy_drawing_sorted(game: Game) -> Game:
    """A copy of ``game`` whose unseen dominoes are drawn in number order, as the kernel's ``shuffle=False``."""
    copy = game.clone()
    pool = game.unseen()
    copy.deck, copy.removed = pool[: len(game.deck)], pool[len(game.deck) :]
    return copy


def engine_and_core(players: int, rules: Rules, data: st.DataObject) -> None:
    """A playout on the core is a legal game in the engine ending in its standings; the core places every domino
    where the engine does, in every kingdom."""
    seed = data.draw(seeds)
    game = game_after(players, rules, seed, data.draw(decisions(players, rules)))
    snapshot = Snapshot(PublicView(game))
    for player, kingdom in enumerate(game.kingdoms):
        for number in range(1, 49):
            assert snapshot.placements(player, number) == sorted(kingdom.legal_placements(number))
    standings, moves = snapshot.play(seed, shuffle=False)
    engine, first_pick = engine_copy_drawing_sorted(game), discard_action(rules.kingdom_size) + 1
    for player, action, domino in moves.tolist():
        expected = engine.held_domino if engine.phase == PLACE else engine.line[action - first_pick]
        assert domino == expected
        engine.step(action, player)  # raises IllegalMoveError on any move the rules forbid
    assert engine.is_over
    assert standings.tolist() == [list(engine.standing(p)) for p in range(engine.num_players)]


# ----- Full Greedy in Python / compiled ------------------------------------------------------------------
def python_greedy_choices(game: Game, fg: FullGreedy | None = None) -> set[tuple[int, int]]:
    """The best choices now of agents.greedy.FullGreedy (or of ``fg``, one that breaks its ties otherwise), as the
    compiled policy reports them."""
    if game.phase == PLACE and not any(game.placement_masks()):
        return {(discard_action(game.rules.kingdom_size), -1)}
    return set((fg or FullGreedy()).choices(game))


def check_greedy_playout(game: Game, policy: str, seed: int) -> None:
    """A compiled ``policy`` playout from ``game`` (searched by seat 1) is legal, ends in the engine's standings, and
    its greedy placements (every one for fg, the searching seat's for pg, some for eg) are among Full Greedy's."""
    standings, moves = Snapshot(game).play(seed, *seat_policies(policy, game.num_players, 1), shuffle=False)
    engine = engine_copy_drawing_sorted(game)
    greedy_moves = placements = 0
    for i, (player, action, _) in enumerate(moves.tolist()):
        if engine.phase == PLACE:
            best = python_greedy_choices(engine)
            discard = discard_action(engine.rules.kingdom_size)
            pick = moves[i + 1, 1] - discard - 1 if engine.line and best != {(discard, -1)} else -1
            greedy_moves += (action, pick) in best
            placements += 1
            if policy == "fg" or (policy == "pg" and player == 1):
                assert (action, pick) in best
        engine.step(action, player)
    assert engine.is_over
    assert standings.tolist() == [list(engine.standing(p)) for p in range(engine.num_players)]
    assert greedy_moves > 0 or placements < 40  # eg too moves greedily now and then (all random: 0.75^40 < 1e-5)


def full_greedy(players: int, rules: Rules, data: st.DataObject) -> None:
    """The compiled Full Greedy and gprd choose among the same best moves as the Python players, and greedy playouts
    make them."""
    seed = data.draw(seeds)
    game = game_after(players, rules, seed, data.draw(decisions(players, rules)))
    if game.is_over:
        return
    assert Snapshot(game).greedy_choices() == python_greedy_choices(game)
    assert Snapshot(game).greedy_choices(tie_break=True) == python_greedy_choices(game, TieBrokenFullGreedy())
    check_greedy_playout(game, data.draw(st.sampled_from(["fg", "eg", "pg"])), seed)
    rng = random.Random(seed)
    while not game.is_over and game.phase != PLACE:
        game.step(rng.choice(game.legal_actions()))
    if not game.is_over:
        snapshot = Snapshot(game)
        work = workspace(snapshot.tables.cells)
        found = gprd_placements(snapshot.games, 0, snapshot.tables, work)
        assert sorted(work.best[:found, 0].tolist()) == sorted(GreedyPlacement().best_placements(game))


# ----- the vector env, side by side with the Python envs -------------------------------------------------
def play_side_by_side(venv: VectorEnv, seed: int, twin: Callable[[int], object], check: Callable) -> None:
    """Random games in ``venv`` with a twin of each row (``twin(i)``, dealt row i's game), until ``GAMES`` have
    ended: ``check(i, twin, obs, info)`` before each step, ``check(i, twin, obs, info, step)`` after it, where
    ``step`` is (action, rewards, terminations); a row's twin is dealt again when its game ends."""
    obs, info = venv.reset(seed=seed)
    twins = [twin(i) for i in range(venv.num_envs)]
    rng = np.random.default_rng(seed)
    ended = 0
    while ended < GAMES:
        for i, t in enumerate(twins):
            check(i, t, obs, info)
        actions = random_actions(obs["action_mask"], rng)
        obs, rewards, terminations, truncations, info = venv.step(actions)
        assert not truncations.any()
        for i, t in enumerate(twins):
            check(i, t, obs, info, (int(actions[i]), rewards[i], terminations[i]))
            if terminations[i]:
                twins[i] = twin(i)
                ended += 1


def observation(players: int, rules: Rules, data: st.DataObject) -> None:
    """Every observation of the vector env (compiled, updated move by move) is the Python encoder's of the same
    game for the player to move, and its mask the engine's legal actions."""
    gains = data.draw(st.booleans())
    venv = VectorEnv(NUM_ENVS, players, rules=rules, gains=gains)
    encoder = ObservationEncoder(players, rules.kingdom_size, gains)

    def check(i: int, game: Game, obs: dict, info: dict, step: tuple | None = None) -> None:
        if step is not None:
            game.step(step[0])
            return
        assert info["current_player"][i] == game.current_player
        want = encoder.encode(game, game.current_player)
        assert np.array_equal(obs["board"][i], want["board"])
        assert np.array_equal(obs["features"][i], want["features"])
        assert np.array_equal(obs["action_mask"][i], action_mask(game))

    play_side_by_side(venv, data.draw(seeds), venv.game, check)


def aec_and_vector(players: int, rules: Rules, data: st.DataObject) -> None:
    """The vector env steps as the AEC env does: the same player to move, mask, rewards, ends, final scores and
    placings (masks alone: ``observations=False``); its records re-play in the engine to the same scores."""
    reward = data.draw(st.sampled_from(REWARDS))
    venv = VectorEnv(NUM_ENVS, players, rules=rules, reward=reward, observations=False)

    def aec_twin(i: int) -> raw_env:
        env = raw_env(players, reward=reward, rules=rules)
        game = venv.game(i)
        env.reset(options={"deck": game.drawn + game.deck, "king_order": game.king_order})
        return env

    finals = []

    def check(i: int, env: raw_env, obs: dict, info: dict, step: tuple | None = None) -> None:
        if step is None:
            assert info["current_player"][i] == env.game.current_player
            assert env.agent_selection == f"player_{env.game.current_player}"
            assert sorted(np.flatnonzero(obs["action_mask"][i]).tolist()) == sorted(env.game.legal_actions())
            return
        action, rewards, terminated = step
        env.step(action)
        assert rewards.tolist() == [env.rewards[a] for a in env.possible_agents]
        assert terminated == env.game.is_over
        if terminated:
            assert info["final_info"]["scores"][i].tolist() == env.game.scores()
            assert info["final_info"]["placings"][i].tolist() == env.game.placings()
            finals.append(env.game.scores())

    play_side_by_side(venv, data.draw(seeds), aec_twin, check)
    records = venv.records()
    assert sorted(r["final"]["scores"] for r in records) == sorted(finals)
    assert all(replay_record(record).scores() == record["final"]["scores"] for record in records)
    assert venv.records() == []


# ----- the AEC env on the core, side by side with the engine and the encoder --------------------------------
def engine_rewards(game: Game, paid: list[int], reward: str) -> list[float]:
    """Each player's reward from the move just played in ``game``, as the AEC env pays them, from the engine's scores
    and placings (``paid``: each player's score already paid by the "score" reward, 0 before its first placement)."""
    rewards = [0.0] * game.num_players
    mover, action, _ = game.moves[-1]
    if reward == "score" and action <= discard_action(game.rules.kingdom_size):
        rewards[mover], paid[mover] = (game.score(mover) - paid[mover]) / SCORE_SCALE, game.score(mover)
    if game.is_over:
        rewards = [r + end for r, end in zip(rewards, terminal_rewards(game, reward), strict=True)]
    return rewards


def aec_and_engine(players: int, rules: Rules, data: st.DataObject) -> None:
    """The AEC env deals the engine's game for a seed and plays it decision by decision as the engine does: the agent
    to move, its mask, its observation and another seat's (the encoder's), the rewards; every seat's at the end and
    the record."""
    seed, gains, flat = data.draw(seeds), data.draw(st.booleans()), data.draw(st.booleans())
    reward = data.draw(st.sampled_from(REWARDS))
    env = raw_env(players, rules=rules, gains=gains, reward=reward, observation="flat" if flat else "dict")
    encoder = ObservationEncoder(players, rules.kingdom_size, gains)
    rng = np.random.default_rng(seed)

    def check_observation(agent: str, game: Game) -> None:
        seat = env.possible_agents.index(agent)
        want = encoder.encode(game, seat)
        got = env.observe(agent)
        if flat:
            assert np.array_equal(got["observation"], flatten(want)), (agent, len(game.moves))
        else:
            assert np.array_equal(got["observation"]["board"], want["board"]), (agent, len(game.moves))
            assert np.array_equal(got["observation"]["features"], want["features"]), (agent, len(game.moves))
        acting = not game.is_over and seat == game.current_player
        assert np.array_equal(got["action_mask"], action_mask(game) if acting else np.zeros_like(got["action_mask"]))

    for game_seed in (seed, None):  # a seeded deal played on the core alone, then the next one with the engine's
        env.reset(seed=game_seed)  # game read from the start (so stepped along)
        game = Game(players, rules, seed if game_seed is not None else env.game.seed)
        paid = [0] * players
        while not game.is_over:
            assert env.agent_selection == f"player_{game.current_player}"
            check_observation(env.agent_selection, game)
            check_observation(env.possible_agents[int(rng.integers(players))], game)
            action = int(rng.choice(game.legal_actions()))
            game.step(action)
            env.step(action)
            assert [env.rewards[a] for a in env.possible_agents] == engine_rewards(game, paid, reward)
        assert all(env.terminations.values())
        for agent in env.possible_agents:
            check_observation(agent, game)
        assert env.record() == to_record(game)


# ----- the core's observations through copies of rows ----------------------------------------------------
def copy_row(t: Tables, src: tuple[Games, Seen], i: int, dst: tuple[Games, Seen], j: int, redraw: bool) -> None:
    """Copy game row ``i`` into row ``j`` as a search would, its seen row copied along or drawn afresh."""
    copy_game(src[0], i, dst[0], j)
    if redraw:
        redraw_rows(dst[1], dst[0], np.array([j]), t)
    else:
        copy_seen(src[1], i, dst[1], j)


def observation_through_copies(players: int, rules: Rules, data: st.DataObject) -> None:
    """The core's observations with gains (planes, scores, properties, next-line gains kept in its caches) are the
    encoder's from every seat at every decision, while rows jump to other rows' games and to snapshots."""
    t = tables(players, rules, gains=True)
    rows, snapshot = (games(ROWS, t), seen(ROWS, t)), (games(1, t), seen(1, t))
    rng = np.random.default_rng(data.draw(seeds))
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
            observe_all(rows[1], rows[0], t, live, np.full(ROWS, seat), Buffers(board, features, mask, work))
            for i in live.tolist():
                want = encoder.encode(engines[i], seat)
                assert np.array_equal(board[i], want["board"].reshape(t.num_planes, t.cells)), (i, seat)
                assert np.array_equal(features[i], want["features"]), (i, seat)
        actions = np.zeros(ROWS, np.int64)
        actions[live] = random_actions(mask[live], rng)
        step = Step(live, RANK, paid, rewards, np.zeros(ROWS, np.bool_))
        assert play_rows(rows[1], rows[0], t, actions, step, mask) < 0
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
    assert decisions > 40


# ----- the az search's tree steps --------------------------------------------------------------------------
def tree_steps(players: int, rules: Rules, data: st.DataObject) -> None:
    """From the public state of a game, ``branch`` deals each row a deck of its own (the unseen dominoes reshuffled)
    and plays a random path in it: every row is the engine's game with that deck and those moves, finished with
    the same rank rewards, or seen the same from every seat."""
    seed, gains = data.draw(seeds), data.draw(st.booleans())
    game = game_after(players, rules, seed, data.draw(decisions(players, rules)))
    if game.is_over:
        return
    root = Snapshot(PublicView(game), gains=gains)
    t, rng = root.tables, random.Random(seed)
    drawn = 48 - len(game.unseen())
    decks = np.zeros((BRANCHES, 48), np.int64)
    paths, lengths = np.zeros((BRANCHES, MAX_DEPTH), np.int64), np.zeros(BRANCHES, np.int64)
    engines = []
    for k in range(BRANCHES):
        pool = game.unseen()
        rng.shuffle(pool)
        engine = game.clone()
        engine.deck, engine.removed = pool[: len(game.deck)], pool[len(game.deck) :]
        decks[k] = root.games.deck[0, :drawn].tolist() + pool
        for _ in range(rng.randrange(MAX_DEPTH)):
            if engine.is_over:
                break
            paths[k, lengths[k]] = rng.choice(engine.legal_actions())
            engine.step(int(paths[k, lengths[k]]))
            lengths[k] += 1
        engines.append(engine)
    g, s = games(BRANCHES, t), seen(BRANCHES, t)
    over, values = np.zeros(BRANCHES, np.bool_), np.zeros((BRANCHES, players))
    branch(root.games, 0, g, t, np.arange(BRANCHES), decks, paths, lengths, over, values, RANK)
    live = np.flatnonzero(~over)
    redraw_rows(s, g, live, t)
    encoder = ObservationEncoder(players, rules.kingdom_size, gains)
    board = np.zeros((players, t.num_planes, t.cells), np.float32)
    features = np.zeros((players, t.num_features), np.float32)
    mask = np.zeros((players, t.num_actions), np.int8)
    for k, engine in enumerate(engines):
        assert over[k] == engine.is_over
        if engine.is_over:
            assert values[k].tolist() == [1.0 - 2.0 * place / (players - 1) for place in engine.placings()]
            continue
        observe_seats(s, g, t, np.full(players, k), np.arange(players), board, features, mask,
                      np.zeros(4 * t.cells, np.int64))  # fmt: skip
        for seat in range(players):
            want = encoder.encode(engine, seat)
            assert np.array_equal(board[seat], want["board"].reshape(t.num_planes, t.cells)), (k, seat)
            assert np.array_equal(features[seat], want["features"]), (k, seat)
            assert np.array_equal(mask[seat], action_mask(engine)), (k, seat)


PAIRS = {
    "engine-core": engine_and_core,
    "full-greedy": full_greedy,
    "observation": observation,
    "aec-engine": aec_and_engine,
    "aec-vector": aec_and_vector,
    "observation-copies": observation_through_copies,
    "tree-steps": tree_steps,
}


@pytest.mark.parametrize("set_up", SET_UPS, ids=SET_UP_IDS)
@pytest.mark.parametrize("pair", PAIRS)
@per_set_up()
@given(data=st.data())
def test_each_pair_of_implementations_agrees(pair, set_up, data):
    PAIRS[pair](*set_up, data)
