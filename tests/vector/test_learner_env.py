"""The learner's vector view: its observations and rewards are the AEC env's, its opponents play by the rules."""

import numpy as np
import pytest

from agents.playout import Snapshot
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.game import Game
from kdenv.kingdomino_v0 import raw_env
from kdenv.replay import replay_record
from kdenv.rules import Rules
from kdenv.table import REWARDS
from tests.helpers.games import random_actions
from tests.strategies import SET_UP_IDS, SET_UPS
from training.envs.one_learner import OneLearnerVectorEnv

COMPILED = ["fg", "gprd", "random", "fgt"]
TABLES = [  # every set-up, with compiled opponents and rewards taken in turn
    (players, rules, [COMPILED[(k + j) % len(COMPILED)] for j in range(players - 1)], REWARDS[k % 3])
    for k, (players, rules) in enumerate(SET_UPS)
]


def learner_view_in_aec(record: dict, seat: int, reward: str) -> tuple[list, float, dict]:
    """The learner's observations at its decisions, its total reward and its observation of the finished
    game, re-played in the AEC env."""
    env = raw_env(record["num_players"], reward=reward, rules=Rules.from_dict(record["rules"]))
    env.reset(options={"deck": record["deck"], "king_order": record["king_order"]})
    game = replay_record(record)  # the moves as actions, checked by the engine
    seen, total = [], 0.0
    for player, action, _ in game.moves:
        if player == seat:
            seen.append(env.observe(env.agent_selection))
        env.step(action)
        total += env.rewards[env.possible_agents[seat]]
    return seen, total, env.observe(env.possible_agents[seat])["observation"]


@pytest.mark.parametrize("players, rules, opponents, reward", TABLES, ids=SET_UP_IDS)
def test_learner_observations_and_rewards_are_the_aec_envs_and_opponents_play_legal_games(
    players, rules, opponents, reward
):
    venv = OneLearnerVectorEnv(2, players, opponents=opponents, rules=rules, reward=reward)
    obs, info = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    history = [[], []]  # per row: (observation, mask, reward) of the learner in the current game
    checked = 0
    while checked < 4:
        masks = venv.action_masks()
        for i in range(2):
            history[i].append((obs["board"][i], obs["features"][i], masks[i]))
        obs, rewards, terminated, _, info = venv.step(random_actions(masks, rng))
        for i in range(2):
            history[i][-1] += (rewards[i],)
        if terminated.any():
            records = venv.records()
            for i, record in zip(np.flatnonzero(terminated), records, strict=True):
                seat = info["final_info"]["seat"][i]
                assert record["agents"][seat] == "learner"
                assert sorted(record["agents"]) == sorted(["learner", *opponents])
                seen, total, final = learner_view_in_aec(record, seat, reward)
                assert len(seen) == len(history[i])
                for expected, (board, features, mask, _) in zip(seen, history[i], strict=True):
                    assert np.array_equal(board, expected["observation"]["board"])
                    assert np.array_equal(features, expected["observation"]["features"])
                    assert np.array_equal(mask, expected["action_mask"].astype(bool))
                assert sum(step[3] for step in history[i]) == pytest.approx(total)
                assert np.array_equal(info["final_obs"]["board"][i], final["board"])
                assert np.array_equal(info["final_obs"]["features"][i], final["features"])
                history[i] = []
                checked += 1


def test_a_batched_opponent_is_called_once_per_decision_across_the_waiting_games():
    calls = []

    def first_legal(obs, mask):
        calls.append(mask.shape[0])
        assert obs["board"].shape[0] == mask.shape[0]
        return mask.argmax(axis=1)

    venv = OneLearnerVectorEnv(8, 4, opponents=[first_legal, "fg", first_legal], seat=0)
    venv.reset(seed=0)
    for _ in range(30):
        venv.step(random_actions(venv.action_masks(), np.random.default_rng(0)))
    assert max(calls) == 8  # the seat-0 learner's games keep in step: all eight wait together
    assert len(calls) < 30 * 2 * 2 * 8 / 4


def test_an_illegal_opponent_move_names_the_opponent_and_a_bad_opponent_is_refused():
    venv = OneLearnerVectorEnv(2, 2, opponents=[lambda obs, mask: np.full(mask.shape[0], 3)])
    with pytest.raises(IllegalMoveError, match="opponent '<lambda>' in env"):
        venv.reset(seed=0)
        for _ in range(20):
            venv.step(random_actions(venv.action_masks(), np.random.default_rng(0)))
    with pytest.raises(KingdominoError, match="cannot play in the vector env"):
        OneLearnerVectorEnv(2, 2, opponents=["mce"])
    with pytest.raises(KingdominoError, match="give a list of 3 opponents"):
        OneLearnerVectorEnv(2, 4, opponents=["fg"])


def test_the_same_seed_gives_the_same_games_against_compiled_opponents():
    def play(seed):
        venv = OneLearnerVectorEnv(3, 4, opponents=["fg", "gprd", "random"])
        venv.reset(seed=seed)
        rng = np.random.default_rng(0)
        for _ in range(60):
            venv.step(random_actions(venv.action_masks(), rng))
        return [r["moves"] for r in venv.records()]

    assert play(4) == play(4) and play(4) != play(5)


@pytest.mark.parametrize("make", ["learner", "sb3"])
@pytest.mark.parametrize("keywords", [{"num_envs": 0}, {"num_envs": 2, "seat": 5}])
def test_an_env_its_checks_refuse_is_one_error_and_nothing_more_when_collected(make, keywords, monkeypatch):
    """Gymnasium's ``__del__`` closed the half-made env: 'OneLearnerVectorEnv' object has no attribute '_batched'."""
    import gc
    import sys

    from training.ppo.vec_env import SB3VecEnv

    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with pytest.raises(KingdominoError):
        (OneLearnerVectorEnv if make == "learner" else SB3VecEnv)(**keywords)
    gc.collect()
    assert unraisable == []


def test_envs_stepped_in_turn_and_searches_between_them_leave_each_env_its_own_games():
    """Each env's compiled opponents draw from its own generators: two envs of one seed, stepped in turn with a
    third of another seed and a search playout between their steps, play the games each plays alone."""

    def env(seed):
        venv = OneLearnerVectorEnv(3, 4, opponents=["fg", "gprd", "random"])
        venv.reset(seed=seed)
        return venv, np.random.default_rng(seed)

    def step(venv, rng):
        venv.step(random_actions(venv.action_masks(), rng))

    def moves(venv):
        return [r["moves"] for r in venv.records()] + [venv.env.game(i).moves for i in range(venv.num_envs)]

    alone = env(4)
    for _ in range(40):
        step(*alone)
    first, second, other = env(4), env(4), env(5)
    snapshot = Snapshot(Game(4, Rules(), seed=1))
    for k in range(40):
        step(*first)
        snapshot.play(k)
        step(*other)
        step(*second)
    assert moves(first[0]) == moves(second[0]) == moves(alone[0]) != moves(other[0])
