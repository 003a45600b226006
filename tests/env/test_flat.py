"""``observation="flat"`` in every env: the flat vector holds the dict observation's numbers in kdenv.flat's order,
the spaces hold the observations, and PettingZoo's and Gymnasium's own checks pass on it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from gymnasium.spaces import Box
from gymnasium.utils.env_checker import check_env
from hypothesis import given
from pettingzoo.test import api_test

from kdenv.errors import KingdominoError
from kdenv.flat import flatten
from kdenv.kingdomino_v0 import env, raw_env
from kdenv.rules import Rules
from kdenv.vector import VectorEnv
from tests.helpers.games import random_actions
from tests.strategies import SET_UP_IDS, SET_UPS, per_set_up, seeds
from training.envs.one_learner import OneLearnerVectorEnv
from training.envs.single_agent import KingdominoSingleAgentEnv


def check_order(flat: np.ndarray, dict_observation: dict) -> None:
    """kdenv.flat's contract, index by index: the board in C order (plane, row, column), then the features."""
    board, features = dict_observation["board"], dict_observation["features"]
    planes, width, _ = board.shape
    assert flat.shape == (planes * width * width + features.size,) and flat.dtype == np.float32
    c, r, col = planes - 1, width // 2, width - 1
    assert flat[(c * width + r) * width + col] == board[c, r, col]
    assert np.array_equal(flat[: board.size].reshape(board.shape), board)
    assert np.array_equal(flat[board.size :], features)


@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
@per_set_up()
@given(seed=seeds)
def test_the_aec_env_s_flat_observation_is_the_dict_one_flattened(players: int, rules: Rules, seed: int) -> None:
    gains = seed % 2 == 1
    plain = raw_env(players, rules=rules, gains=gains)
    flat = raw_env(players, rules=rules, gains=gains, observation="flat")
    plain.reset(seed=seed)
    flat.reset(seed=seed)
    rng = random.Random(seed)
    space = flat.observation_space("player_0")
    while not plain.game.is_over:
        for agent in plain.agents:
            want, got = plain.observe(agent), flat.observe(agent)
            assert space.contains(got) and got["observation"].ndim == 1
            check_order(got["observation"], want["observation"])
            assert np.array_equal(got["observation"], flatten(want["observation"]))
            assert np.array_equal(got["action_mask"], want["action_mask"])
        action = rng.choice(np.flatnonzero(plain.observe(plain.agent_selection)["action_mask"]).tolist())
        plain.step(action)
        flat.step(action)


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's advice on the observation's bounds
@pytest.mark.parametrize(("players", "rules"), SET_UPS[:2] + SET_UPS[4:5], ids=SET_UP_IDS[:2] + SET_UP_IDS[4:5])
def test_pettingzoo_api_test_passes_with_the_flat_observation(players: int, rules: Rules) -> None:
    aec = env(num_players=players, rules=rules, observation="flat")
    api_test(aec, num_cycles=300)
    assert isinstance(aec.observation_space("player_0")["observation"], Box)


class Recorder:
    """An opponent policy (single games or batches) that plays the first legal action and keeps what it was shown."""

    def __init__(self) -> None:
        self.seen: list = []

    def __call__(self, observation: Any, mask: np.ndarray) -> Any:
        self.seen.append(observation)
        return np.argmax(mask, axis=-1)


def play_views(views: list[KingdominoSingleAgentEnv], seed: int) -> list[tuple]:
    """Play the same random legal learner moves in each view; each step's observations, one per view."""
    seen = [tuple(view.reset(seed=seed)[0] for view in views)]
    rng = np.random.default_rng(seed)
    while not views[0].game.is_over:
        action = int(rng.choice(np.flatnonzero(views[0].action_masks())))
        seen.append(tuple(view.step(action)[0] for view in views))
    return seen


@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
@per_set_up()
@given(seed=seeds)
def test_the_gymnasium_view_s_flat_observation_is_the_dict_one_flattened(players: int, rules: Rules, seed: int) -> None:
    plain_seen, flat_seen = Recorder(), Recorder()
    plain = KingdominoSingleAgentEnv(players, rules, [plain_seen] + ["random"] * (players - 2))
    flat = KingdominoSingleAgentEnv(players, rules, [flat_seen] + ["random"] * (players - 2), observation="flat")
    assert isinstance(flat.observation_space, Box) and len(flat.observation_space.shape) == 1
    for want, got in play_views([plain, flat], seed):
        assert flat.observation_space.contains(got)
        check_order(got, want)
    assert flat_seen.seen and all(flat.observation_space.contains(o) for o in flat_seen.seen)  # a learner's format
    assert all(np.array_equal(o, flatten(d)) for d, o in zip(plain_seen.seen, flat_seen.seen, strict=True))


@pytest.mark.filterwarnings("ignore::UserWarning")  # the checker's advice on infinite bounds and render modes
def test_gymnasium_check_env_passes_with_the_flat_observation() -> None:
    check_env(KingdominoSingleAgentEnv(3, observation="flat"))


@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_the_vector_env_s_flat_observations_are_the_dict_ones_flattened(players: int, rules: Rules) -> None:
    plain = VectorEnv(3, players, rules=rules, gains=True)
    flat = VectorEnv(3, players, rules=rules, gains=True, observation="flat", copy=False)
    assert set(flat.single_observation_space) == {"observation", "action_mask"}
    want, _ = plain.reset(seed=players)
    got, _ = flat.reset(seed=players)
    rng = np.random.default_rng(0)
    for _ in range(2 * rules.setup(players)[1] + 3):  # through a game's end and its autoreset
        assert flat.observation_space.contains(got) and got["observation"].shape[0] == 3
        assert all(flat.single_observation_space.contains({k: v[i] for k, v in got.items()}) for i in range(3))
        assert np.array_equal(got["observation"], flatten(want))
        check_order(got["observation"][2], {"board": want["board"][2], "features": want["features"][2]})
        assert np.array_equal(got["action_mask"], want["action_mask"])
        actions = random_actions(want["action_mask"], rng)
        want, *_ = plain.step(actions)
        got, *_ = flat.step(actions)


def test_the_one_learner_env_s_flat_observations_are_the_dict_ones_flattened() -> None:
    plain_seen, flat_seen = Recorder(), Recorder()
    plain = OneLearnerVectorEnv(4, 3, opponents=["fg", plain_seen])
    flat = OneLearnerVectorEnv(4, 3, opponents=["fg", flat_seen], observation="flat")
    want, _ = plain.reset(seed=9)
    got, _ = flat.reset(seed=9)
    rng = np.random.default_rng(9)
    ended = 0
    for _ in range(60):
        assert flat.observation_space.contains(got) and got.shape == (4, flat.single_observation_space.shape[0])
        assert np.array_equal(got, flatten(want))
        actions = random_actions(plain.action_masks(), rng)
        want, _, done, _, info = plain.step(actions)
        got, _, _, _, flat_info = flat.step(actions)
        if done.any():
            ended += 1
            assert np.array_equal(flat_info["final_obs"], flatten(info["final_obs"]))
    assert ended and flat_seen.seen and len(flat_seen.seen) == len(plain_seen.seen)
    for batch, flat_batch in zip(plain_seen.seen, flat_seen.seen, strict=True):  # an opponent gets a learner's format
        assert flat_batch.ndim == 2 and np.array_equal(flat_batch, flatten(batch))


def test_a_bad_observation_keyword_names_the_choices() -> None:
    for make in (raw_env, VectorEnv, KingdominoSingleAgentEnv, OneLearnerVectorEnv):
        with pytest.raises(KingdominoError, match="unknown observation 'box'; choose from dict, flat"):
            make(observation="box")
