"""The PettingZoo AEC env: PettingZoo's own API, seed and render tests, rewards, illegal moves, records."""

from __future__ import annotations

import random

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import OrderEnforcingWrapper

import kdenv
from kdenv.errors import IllegalMoveError, IllegalMoveWarning, KingdominoError
from kdenv.game import Game
from kdenv.kingdomino_v0 import env, raw_env
from kdenv.replay import replay_record
from kdenv.rules import Rules
from tests.strategies import SET_UP_IDS, SET_UPS

TABLES = [{"num_players": players, "rules": rules} for players, rules in SET_UPS]  # as env() takes them


def play_out(aec, rng: random.Random) -> None:
    """Play random legal moves through the AEC loop until every agent is done."""
    for _ in aec.agent_iter():
        obs, _, termination, truncation, _ = aec.last()
        action = None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        aec.step(action)


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice to use a Box, not a Dict
@pytest.mark.parametrize("kwargs", TABLES, ids=SET_UP_IDS)
def test_pettingzoo_api_seed_and_render_tests(kwargs: dict) -> None:
    api_test(env(**kwargs), num_cycles=300)
    seed_test(lambda: env(**kwargs), num_cycles=100)
    render_test(lambda render_mode=None: env(render_mode=render_mode, **kwargs))


def test_spaces_and_metadata_follow_the_classic_games() -> None:
    aec = raw_env(num_players=4)
    assert aec.metadata["name"] == "kingdomino_v0"
    assert set(aec.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert aec.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = aec.observation_space("player_1")
    assert space["observation"]["board"].shape == (44, 9, 9)
    assert space["observation"]["features"].shape == (230,)
    assert space["action_mask"].shape == (329,)
    assert aec.action_space("player_0").n == 329
    assert raw_env(num_players=2, mighty_duel=True).action_space("player_0").n == 681


def test_agent_selection_follows_the_draft_and_the_mask_is_the_engine_s() -> None:
    aec = raw_env(num_players=2)
    aec.reset(seed=4)
    twin = Game(2, Rules(), seed=4)  # reset(seed=s) deals Game(n, rules, s)
    rng = random.Random(4)
    while not twin.is_over:
        assert aec.agent_selection == f"player_{twin.current_player}"
        for agent in aec.agents:
            mask = aec.observe(agent)["action_mask"]
            if agent == aec.agent_selection:
                assert sorted(np.flatnonzero(mask).tolist()) == sorted(twin.legal_actions())
            else:
                assert not mask.any()
        action = rng.choice(twin.legal_actions())
        aec.step(action)
        twin.step(action)
    assert all(aec.terminations.values())
    assert aec.game.moves == twin.moves


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rank_rewards_are_zero_sum_and_follow_the_placings(num_players: int) -> None:
    for seed in range(3):
        aec = raw_env(num_players=num_players)
        aec.reset(seed=seed)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        for agent in aec.agent_iter():
            obs, reward, termination, truncation, _ = aec.last()
            totals[agent] += reward
            action = None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0])
            aec.step(action)
        places = aec.game.placings()
        assert sum(totals.values()) == pytest.approx(0.0)
        for p, agent in enumerate(aec.possible_agents):
            assert totals[agent] == pytest.approx(1 - 2 * places[p] / (num_players - 1))


def test_margin_and_score_rewards() -> None:
    rules = {"middle_kingdom": True, "harmony": True}
    for reward in ("margin", "score"):
        aec = raw_env(num_players=3, reward=reward, **rules)
        aec.reset(seed=9)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        dense = 0
        for agent in aec.agent_iter():
            obs, r, termination, truncation, _ = aec.last()
            totals[agent] += r
            dense += r != 0 and not termination
            aec.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[-1]))
        scores = aec.game.scores()
        for p, agent in enumerate(aec.possible_agents):
            if reward == "margin":
                want = (scores[p] - max(s for q, s in enumerate(scores) if q != p)) / 100
            else:
                want = scores[p] / 100
            assert totals[agent] == pytest.approx(want)
        assert (dense > 0) == (reward == "score")


def test_raw_env_raises_clear_errors_and_leaves_the_game_unchanged() -> None:
    aec = raw_env(num_players=4)
    aec.reset(seed=1)
    with pytest.raises(IllegalMoveError, match="outside the action space"):
        aec.step(329)
    with pytest.raises(IllegalMoveError, match="outside the action space"):
        aec.step("pick")
    with pytest.raises(IllegalMoveError, match="time to pick"):
        aec.step(0)  # a placement during the set-up picks
    aec.step(325)  # claim slot 0
    with pytest.raises(IllegalMoveError, match="already claimed"):
        aec.step(325)
    assert aec.game.moves == [(aec.game.moves[0][0], 325, aec.game.line[0])]  # only the legal move counted
    with pytest.raises(KingdominoError, match="unknown reward"):
        raw_env(reward="wins")
    with pytest.raises(KingdominoError, match="2 players only"):
        raw_env(num_players=4, mighty_duel=True)


NOT_ACTIONS = [5.0, np.float32(325), True, np.True_, np.array([325, 326]), np.array([[325]]), np.array([325.0]),
               329, -1, np.int64(329), np.uint64(2**64 - 1), "325", None]  # fmt: skip


@pytest.mark.parametrize("make", [raw_env, env], ids=["raw_env", "env"])
def test_numpy_integers_are_actions_and_anything_else_is_refused_leaving_the_game_unchanged(make) -> None:
    aec = make(num_players=4)
    aec.reset(seed=1)
    game = aec.unwrapped.game
    for action in NOT_ACTIONS:
        with pytest.raises(IllegalMoveError, match=r"is outside the action space Discrete\(329\): give one integer"):
            aec.step(action)
        assert not game.moves and not any(aec.terminations.values())  # refused even where illegal moves end the game
    for action in (np.int64(325), np.array([326]), np.array(327), np.uint16(328)):  # the four set-up picks
        aec.step(action)
    assert [action for _, action, _ in game.moves] == [325, 326, 327, 328]


def test_misuse_of_the_api_is_a_kingdomino_error_naming_the_problem() -> None:
    aec = raw_env(num_players=2)
    aec.reset(seed=5)
    with pytest.raises(KingdominoError, match="no agent 'nosuch' at this table; the agents are player_0, player_1"):
        aec.observe("nosuch")
    while not aec.game.is_over:
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    assert aec.last()[2]  # last() still tells the agent its game is over
    agent = aec.agent_selection
    with pytest.raises(KingdominoError, match=f"action 0 by {agent}: the game is over; step\\(None\\) for {agent}"):
        aec.step(0)
    while aec.agents:
        aec.step(None)  # the done agents step out, as PettingZoo's loop does
    with pytest.raises(KingdominoError, match="the game is over; every agent has stepped out, or reset"):
        aec.step(0)
    for players in ("4", 4.0, True):
        with pytest.raises(KingdominoError, match=f"num_players must be an integer 2, 3 or 4, not {players!r}"):
            raw_env(num_players=players)


@pytest.mark.parametrize("make", [env, raw_env])
def test_last_after_every_agent_has_stepped_out_answers_for_the_last_of_them(make) -> None:
    """The loop over; ``last()`` (a KeyError in PettingZoo's classic games) gives the last agent's final observation,
    no reward (its last was paid before it stepped out), terminated, not truncated, no info; nothing changes."""
    aec = make(num_players=3)
    aec.reset(seed=3)
    play_out(aec, random.Random(3))
    agent, scores = aec.agent_selection, aec.unwrapped.game.scores()
    observation, reward, termination, truncation, info = aec.last()
    seat = aec.possible_agents.index(agent)
    assert np.array_equal(observation["observation"]["board"], aec.unwrapped.observation_of(seat)["board"])
    assert not observation["action_mask"].any()
    assert (reward, termination, truncation, info) == (0.0, True, False, {})
    assert aec.last(observe=False) == (None, 0.0, True, False, {})
    assert (aec.agents, aec.agent_selection, aec.unwrapped.game.scores()) == ([], agent, scores)


def test_env_ends_the_game_on_an_illegal_move_like_the_classic_games() -> None:
    aec = env(num_players=3)
    aec.reset(seed=2)
    offender = aec.agent_selection
    said = f"{offender}'s action 0 was an illegal move place .* time to pick .*; the game ends with -1 for {offender}"
    with pytest.warns(IllegalMoveWarning, match=said) as warned:
        aec.step(0)  # placing during the set-up picks
    assert len(warned) == 1  # once, not again at every later step
    assert all(aec.terminations.values())
    assert aec.rewards[offender] == -1 and sum(aec.rewards.values()) == -1
    assert "time to pick" in aec.infos[offender]["illegal_move"]
    play_out(aec, random.Random(0))  # the dead agents step out as usual
    assert not aec.agents


def test_record_replays_to_the_same_game() -> None:
    aec = raw_env(num_players=4, middle_kingdom=True)
    aec.reset(seed=6)
    aec.agent_names = ["a", "b", "c", "d"]
    play_out(aec, random.Random(6))
    record = aec.unwrapped.record()
    assert record["agents"] == ["a", "b", "c", "d"] and record["seed"] == 6
    game = replay_record(record)
    assert game.scores() == aec.game.scores() == record["final"]["scores"]


def test_render_modes_show_the_game() -> None:
    aec = raw_env(num_players=4, render_mode="ansi")
    aec.reset(seed=3)
    text = aec.render()
    assert "current line" in text and "next line" in text and "picks" in text
    aec = raw_env(num_players=2, mighty_duel=True, render_mode="rgb_array")
    aec.reset(seed=3)
    image = aec.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 8  # colours, not a blank canvas


def test_make_and_package_attributes() -> None:
    made = pettingzoo.make("aec", "kdenv/kingdomino-v0", num_players=2)
    made.reset(seed=0)
    assert made.unwrapped.metadata["name"] == "kingdomino_v0"
    assert kdenv.raw_env is raw_env
    wrapped = kdenv.env(num_players=3)  # the package attribute is callable like env()
    wrapped.reset(seed=0)
    assert wrapped.unwrapped.num_players == 3


def test_env_enforces_the_order_of_calls_like_pettingzoo_s_wrapper() -> None:
    aec = env(num_players=4)
    assert isinstance(aec, OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        _ = aec.agent_selection
    with pytest.raises(AttributeError, match="before reset"):
        aec.last()
    with pytest.raises(AssertionError, match="reset"):
        aec.step(325)
    aec.reset(seed=1)
    raw = aec.unwrapped
    assert aec.agent_selection == raw.agent_selection and aec.agents == raw.agents
    assert aec.terminations is raw.terminations and aec.rewards is raw.rewards and aec.infos is raw.infos
    assert aec.last()[1:] == raw.last(observe=False)[1:]
    assert str(aec) == str(OrderEnforcingWrapper(raw)) == "kingdomino_v0"


def test_deepcopy_and_pickle_mid_game_keep_the_game_and_play_on_independently():
    import copy
    import pickle

    import numpy as np

    from kdenv.kingdomino_v0 import env as make_env

    original = make_env(num_players=3, reward="score")
    original.reset(seed=4)
    for _ in range(15):
        original.step(int(np.flatnonzero(original.observe(original.agent_selection)["action_mask"])[0]))
    for clone in (copy.deepcopy(original), pickle.loads(pickle.dumps(original))):
        assert clone.agent_selection == original.agent_selection
        assert clone.unwrapped.game.moves == original.unwrapped.game.moves
        assert clone.rewards == original.rewards
        agent = clone.agent_selection
        assert np.array_equal(
            clone.observe(agent)["observation"]["board"], original.observe(agent)["observation"]["board"]
        )
        clone.step(int(np.flatnonzero(clone.observe(agent)["action_mask"])[-1]))
        assert len(clone.unwrapped.game.moves) == len(original.unwrapped.game.moves) + 1
