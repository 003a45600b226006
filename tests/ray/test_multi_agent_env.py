"""The PettingZoo env as RLlib's turn-based MultiAgentEnv: whose observation comes back, masks, rewards, seats."""

import numpy as np
import pytest

pytest.importorskip("ray")

from kdenv.errors import IllegalMoveError
from tests.helpers.references import terminal_rewards
from training.rllib.env import KingdominoMultiAgentEnv


def play(env: KingdominoMultiAgentEnv, seed: int) -> tuple[dict[str, float], dict, set[str]]:
    """Random legal moves to the end; returns each agent's summed reward, the last step's terminateds, and the
    agents that ever got an observation."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    seen: set[str] = set()
    while True:
        assert len(obs) == 1  # turn-based: only the agent to act
        ((agent, observation),) = obs.items()
        seen.add(agent)
        assert agent == env.aec.agent_selection
        mask = observation["action_mask"]
        assert sorted(np.flatnonzero(mask)) == sorted(env.aec.dealt.legal_actions())
        assert env.observation_spaces[agent].contains(observation)
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(mask)))})
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminated["__all__"]:
            assert set(obs) == set(env.agents) and not truncated["__all__"]
            return totals, terminated, seen


def test_self_play_hands_every_seat_its_own_final_reward():
    env = KingdominoMultiAgentEnv({"num_players": 3, "rules": "harmony"})
    totals, terminated, seen = play(env, seed=4)
    game = env.aec.dealt
    assert game.is_over and seen == set(env.possible_agents)
    assert all(terminated[a] for a in env.possible_agents)
    expected = terminal_rewards(game, "rank")
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)


def test_score_rewards_given_while_others_move_are_not_lost():
    env = KingdominoMultiAgentEnv({"num_players": 2, "reward": "score"})  # two kings each: turns come in pairs
    totals, _, _ = play(env, seed=9)
    scores = env.aec.dealt.scores()
    assert [totals[a] * 100 for a in env.possible_agents] == pytest.approx(scores)


def test_fixed_players_play_inside_the_env_and_only_the_learner_is_seen():
    env = KingdominoMultiAgentEnv({"num_players": 4, "opponents": ["fg", "fg", "random"], "gains": True})
    learners = set()
    for seed in range(6):
        totals, _, seen = play(env, seed)
        assert len(seen) == 1 and set(totals) == seen == set(env.agents)
        learners |= seen
    assert len(learners) > 1  # the learner's seat is drawn per game


def test_an_illegal_move_raises_and_leaves_the_game_unchanged():
    env = KingdominoMultiAgentEnv({"num_players": 4})
    obs, _ = env.reset(seed=1)
    ((agent, observation),) = obs.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    moves = list(env.aec.dealt.moves)
    with pytest.raises(IllegalMoveError, match=str(illegal)):
        env.step({agent: illegal})
    assert env.aec.dealt.moves == moves and env.aec.agent_selection == agent


def test_a_wrong_number_of_opponents_is_a_clear_error():
    from kdenv.errors import KingdominoError

    with pytest.raises(KingdominoError, match="give 3 opponents"):
        KingdominoMultiAgentEnv({"num_players": 4, "opponents": ["fg"]})
