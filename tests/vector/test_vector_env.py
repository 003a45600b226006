"""The vector env against the AEC env and the engine: every decision of random games, in every set-up."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.kingdomino_v0 import REWARDS, raw_env
from kdenv.replay import replay_record
from kdenv.vector import VectorEnv
from tests.helpers.games import random_actions
from tests.strategies import SET_UPS, set_ups

NUM_ENVS = 3


def aec_twin(venv: VectorEnv, i: int, reward: str) -> raw_env:
    """An AEC env dealt the game that row ``i`` of ``venv`` is playing."""
    env = raw_env(venv.num_players, reward=reward, rules=venv.rules, gains=venv.tables.gains)
    game = venv.game(i)
    env.reset(options={"deck": game.drawn + game.deck, "king_order": game.king_order})
    return env


@settings(max_examples=12, deadline=None)
@given(set_ups, st.integers(0, 2**32 - 1), st.sampled_from(REWARDS), st.booleans())
def test_every_observation_mask_and_reward_equals_the_aec_envs(set_up, seed, reward, gains):
    players, rules = set_up
    venv = VectorEnv(NUM_ENVS, players, rules=rules, reward=reward, gains=gains)
    obs, info = venv.reset(seed=seed)
    twins = [aec_twin(venv, i, reward) for i in range(NUM_ENVS)]
    rng = np.random.default_rng(seed)
    ended = 0
    while ended < NUM_ENVS + 1:
        for i, env in enumerate(twins):
            agent = env.agent_selection
            assert info["current_player"][i] == env.game.current_player
            expected = env.observe(agent)
            assert np.array_equal(obs["board"][i], expected["observation"]["board"])
            assert np.array_equal(obs["features"][i], expected["observation"]["features"])
            assert np.array_equal(obs["action_mask"][i], expected["action_mask"])
        actions = random_actions(obs["action_mask"], rng)
        obs, rewards, terminations, truncations, info = venv.step(actions)
        assert not truncations.any()
        for i, env in enumerate(twins):
            env.step(int(actions[i]))
            assert rewards[i].tolist() == [env.rewards[a] for a in env.possible_agents]
            assert terminations[i] == env.game.is_over
            if terminations[i]:
                assert info["final_info"]["scores"][i].tolist() == env.game.scores()
                assert info["final_info"]["placings"][i].tolist() == env.game.placings()
                twins[i] = aec_twin(venv, i, reward)
                ended += 1


@pytest.mark.parametrize("players, rules", SET_UPS)
def test_records_replay_in_the_engine_and_end_as_the_games_did(players, rules):
    venv = VectorEnv(2, players, rules=rules, observations=False)
    obs, _ = venv.reset(seed=5)
    rng = np.random.default_rng(5)
    finals = []
    while len(finals) < 3:
        obs, _, terminations, _, info = venv.step(random_actions(obs["action_mask"], rng))
        finals += [info["final_info"]["scores"][i].tolist() for i in np.flatnonzero(terminations)]
    records = venv.records()
    assert [r["final"]["scores"] for r in records] == finals
    for record in records:
        game = replay_record(record)
        assert game.is_over
    assert venv.records() == []


def play_seeded(seed: int, steps: int = 150) -> list:
    venv = VectorEnv(4, 4, harmony=True)
    obs, _ = venv.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, *_ = venv.step(random_actions(obs["action_mask"], rng))
    return [r["moves"] for r in venv.records()] + [venv.games.deck.tolist(), obs["features"].tolist()]


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

    with pytest.raises(MemoryNeedError, match=r"num_envs=1000000000 needs about 78 TB of memory \(78 kB each") as err:
        VectorEnv(num_envs=10**9)  # numpy's MemoryError before
    assert "\n" not in str(err.value)
    tracemalloc.start()
    venv = VectorEnv(1000)
    allocated = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert 0.9 < allocated / (1000 * game_bytes(venv.tables)) < 1.1  # the figure is what a game takes
