"""The vector env: seeds, illegal actions, spaces and memory. Its agreement with the AEC env and the encoder, decision
by decision, is checked in ``tests/conformance``."""

import numpy as np
import pytest

from kdenv.batched.machine import MARGIN, RANK, SCORE
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.table import REWARDS
from kdenv.vector import VectorEnv
from tests.helpers.games import random_actions


def play_seeded(seed: int, steps: int = 150) -> list:
    venv = VectorEnv(4, 4, harmony=True)
    obs, _ = venv.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, *_ = venv.step(random_actions(obs["action_mask"], rng))
    return [r["moves"] for r in venv.records()] + [venv.games.deck.tolist(), obs["features"].tolist()]


def test_the_compiled_reward_codes_are_the_table_s_rewards_in_order():
    """The vector env passes ``REWARDS.index(reward)`` to the compiled core, whose codes live in its machine."""
    assert [REWARDS[code] for code in (RANK, MARGIN, SCORE)] == ["rank", "margin", "score"]


def test_the_same_seed_deals_the_same_games_and_another_seed_others():
    assert play_seeded(11) == play_seeded(11)
    assert play_seeded(11) != play_seeded(12)


def test_an_illegal_action_names_the_env_and_the_reason_and_changes_no_game():
    venv = VectorEnv(3, 4)
    obs, info = venv.reset(seed=3)
    actions = random_actions(obs["action_mask"], np.random.default_rng(0))
    before = [a.copy() for a in venv.games]
    bad = actions.copy()
    bad[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(IllegalMoveError, match=rf"env 1: action {bad[1]}: .*by player {info['current_player'][1]}"):
        venv.step(bad)
    with pytest.raises(IllegalMoveError, match="env 2: action 9999 is outside the action space"):
        venv.step(np.where(np.arange(3) == 2, 9999, actions))
    with pytest.raises(IllegalMoveError, match="3 integers, one per env"):
        venv.step(actions[:2])
    assert all(np.array_equal(a, b) for a, b in zip(before, venv.games, strict=True))
    venv.step(actions)  # the legal actions still play


def test_a_step_before_reset_asks_for_reset_and_a_huge_unsigned_action_is_named_as_given():
    venv = VectorEnv(2, 4)
    with pytest.raises(KingdominoError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.zeros(2, np.int64))
    venv.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=f"env 1: action {2**64 - 1} is outside the action space"):
        venv.step(np.array([325, 2**64 - 1], np.uint64))


def test_spaces_describe_the_observations():
    venv = VectorEnv(2, 2, mighty_duel=True)
    obs, _ = venv.reset(seed=0)
    assert obs["board"].shape == (2, 24, 13, 13) and obs["features"].shape == (2, 212)
    assert obs["action_mask"].shape == (2, 681) and obs["board"].dtype == np.float32
    assert venv.observation_space.contains(obs)
    assert venv.single_action_space.n == 681


def test_more_games_than_the_memory_holds_is_one_line_saying_what_they_need():
    import tracemalloc

    from kdenv.memory import MemoryNeedError, game_bytes

    with pytest.raises(MemoryNeedError, match=r"num_envs=1000000000 needs about 86 TB of memory \(86 kB each") as err:
        VectorEnv(num_envs=10**9)  # numpy's MemoryError before
    assert "\n" not in str(err.value)
    tracemalloc.start()
    venv = VectorEnv(1000)
    allocated = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert 0.9 < allocated / (1000 * game_bytes(venv.tables)) < 1.1  # the figure is what a game takes
