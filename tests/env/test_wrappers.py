"""The single-agent Gymnasium view: Gymnasium's checker, the learner's own reward, masks, opponents."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.random_player import RandomPlayer
from kdenv.encoding import ObservationEncoder
from kdenv.errors import IllegalMoveError, IllegalMoveWarning, KingdominoError
from kdenv.replay import replay_record
from kdenv.rules import STUDY_RULES, Rules
from training.envs.single_agent import KingdominoSingleAgentEnv


def first_legal(observation: dict, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play_episode(env: KingdominoSingleAgentEnv, seed: int) -> tuple[float, dict, list[int]]:
    """Random legal learner moves; returns (total learner reward, last info, who moved last each step)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, done = 0.0, False
    while not done:
        assert env.observation_space.contains(obs)
        mask = env.action_masks()
        assert mask.dtype == bool and sorted(np.flatnonzero(mask)) == sorted(env.game.legal_actions())
        assert env.game.current_player == env.learner
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated
        total += reward
    return total, info, [player for player, _, _ in env.game.moves]


@pytest.mark.filterwarnings("ignore::UserWarning")  # the checker's advice on infinite bounds and render modes
@pytest.mark.parametrize("kwargs", [{"num_players": 4}, {"num_players": 2, "seat": 1, "reward": "score"}])
def test_gymnasium_check_env(kwargs: dict) -> None:
    check_env(KingdominoSingleAgentEnv(**kwargs))


def test_learner_gets_its_own_rank_reward_from_any_seat() -> None:
    """The pitfall of PettingZoo's SB3 tutorial: the reward must be the learner's, not the last mover's."""
    env = KingdominoSingleAgentEnv(4, rules=STUDY_RULES, opponents=["random", first_legal, RandomPlayer()])
    seats, last_mover_was_opponent = set(), False
    for seed in range(8):
        total, info, movers = play_episode(env, seed)
        seat = info["seat"]
        seats.add(seat)
        assert total == pytest.approx(1 - 2 * info["placings"][seat] / 3)
        last_mover_was_opponent |= movers[-1] != seat
    assert len(seats) > 1 and last_mover_was_opponent


@pytest.mark.parametrize("read_game", [False, True], ids=["core-alone", "engine-along"])
def test_compiled_opponents_play_legal_games_whose_records_replay(read_game: bool) -> None:
    """Scripted specs reply inside the compiled core: the learner sees the encoder's observation of the engine's
    game, gets its rank reward, and the record (with the opponents' moves) re-plays to the final scores; with the
    engine's game read from the start it is stepped along with every move."""
    env = KingdominoSingleAgentEnv(3, seat=1, opponents=["fg", "random"], rules=Rules(middle_kingdom=True))
    encoder = ObservationEncoder(3, 5)
    obs, info = env.reset(seed=4)
    rng, total, done = np.random.default_rng(4), 0.0, False
    while not done:
        if read_game:
            want = encoder.encode(env.game, 1)
            assert np.array_equal(obs["board"], want["board"]) and np.array_equal(obs["features"], want["features"])
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
    assert total == pytest.approx(1 - info["placings"][1])
    record = env.record()
    assert record["agents"] == ["random", "learner", "fg"]
    assert replay_record(record).scores() == info["scores"] == record["final"]["scores"]


def test_fixed_seat_margin_and_score_rewards() -> None:
    for reward in ("margin", "score"):
        env = KingdominoSingleAgentEnv(3, seat=2, reward=reward, rules=Rules(harmony=True))
        total, info, _ = play_episode(env, 5)
        assert info["seat"] == 2
        scores = info["scores"]
        want = scores[2] - (max(scores[:2]) if reward == "margin" else 0)
        assert total == pytest.approx(want / 100)


def test_reset_seed_repeats_the_episode() -> None:
    env = KingdominoSingleAgentEnv(3)
    runs = [play_episode(env, 11)[2] for _ in range(2)]
    assert runs[0] == runs[1]
    assert env.record()["agents"].count("learner") == 1


def test_callable_opponents_see_their_own_observation_and_mask() -> None:
    seen = []

    def policy(observation: dict, mask: np.ndarray) -> int:
        seen.append(observation)
        assert mask.dtype == np.int8 and mask.any()
        return int(np.flatnonzero(mask)[-1])

    env = KingdominoSingleAgentEnv(2, opponents=[policy], seat=0)
    play_episode(env, 3)
    assert seen and all(env.observation_space.contains(o) for o in seen)
    env.set_opponents(["random"])
    play_episode(env, 3)
    with pytest.raises(KingdominoError, match="list of 1 opponents"):
        env.set_opponents(["random", "random"])
    with pytest.raises(KingdominoError, match="unknown player"):
        env.set_opponents(["no-such-player"])


def test_a_policy_that_returns_no_action_and_a_player_count_that_is_no_integer_are_named() -> None:
    def silent(observation: dict, mask: np.ndarray) -> None:
        return None

    env = KingdominoSingleAgentEnv(2, opponents=[silent], seat=1)
    with pytest.raises(KingdominoError, match="opponent 'silent' in seat 0 returned None, not an action"):
        env.reset(seed=0)
    for players in ("4", 4.0):
        with pytest.raises(KingdominoError, match=f"num_players must be an integer 2, 3 or 4, not {players!r}"):
            KingdominoSingleAgentEnv(num_players=players)


def test_illegal_learner_move_ends_the_episode_or_raises() -> None:
    env = KingdominoSingleAgentEnv(4, seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(IllegalMoveWarning, match=f"player_0's action {illegal} was an illegal move"):
        _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1 and terminated and "illegal move" in info["illegal_move"]
    strict = KingdominoSingleAgentEnv(4, seat=0, illegal_reward=None)
    strict.reset(seed=0)
    with pytest.raises(IllegalMoveError):
        strict.step(illegal)


def test_numpy_integer_actions_play_and_a_float_is_refused_leaving_the_episode_unchanged() -> None:
    env = KingdominoSingleAgentEnv(4, seat=0)
    env.reset(seed=0)
    legal = np.flatnonzero(env.action_masks())
    before = list(env.game.moves)
    for action in (float(legal[0]), np.float32(legal[0]), np.array([legal[0], legal[1]]), True):
        with pytest.raises(IllegalMoveError, match=r"outside the action space Discrete\(329\)"):
            env.step(action)
        assert env.game.moves == before
    _, _, terminated, _, _ = env.step(np.array([legal[0]]))
    assert not terminated and env.game.moves[len(before)][1] == legal[0]


def test_registered_with_gymnasium() -> None:
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=2, opponents=["random"])
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert env.unwrapped.action_masks().any()
    env.close()


@pytest.mark.slow
def test_maskable_ppo_learns_for_a_few_thousand_steps() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    env = KingdominoSingleAgentEnv(4, rules=STUDY_RULES)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny networks: threads only add overhead on the CI's two cores
    try:
        model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0)
        model.learn(2048)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_the_aec_envs_step_is_pettingzoos_the_action_alone():
    """The single-agent view plays its compiled turn through play_turn; step stays PettingZoo's one argument."""
    import inspect

    from kdenv.kingdomino_v0 import raw_env

    assert list(inspect.signature(raw_env.step).parameters) == ["self", "action"]
