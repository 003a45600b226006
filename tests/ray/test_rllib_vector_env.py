"""RLlib's vector env over the compiled core, against the engine: every observation an agent gets is the one the
AEC path gives at that decision of the game's record, its rewards are the game's, and a game that ends waits one
step for RLlib's reset; with opponents, only the learner's seat is seen."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray")

from kdenv.encoding import ObservationEncoder
from kdenv.replay import replay_steps
from kdenv.view import PublicView
from tests.helpers.references import terminal_rewards
from training.rllib.vector_env import KingdominoVectorEnv


def play(env: KingdominoVectorEnv, episodes: int, seed: int) -> list[tuple[list, dict, dict]]:
    """Random legal moves until ``episodes`` games ended: per game in the order they ended, the (agent,
    observation) of every decision seen, each agent's summed reward, and the last observations."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    seen: list[list] = [list(o.items()) for o in obs]
    totals: list[dict] = [{} for _ in obs]
    ended: list[tuple[list, dict, dict]] = []
    while len(ended) < episodes:
        waiting = env.waiting.copy()
        actions = [
            {} if waiting[i] else {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs[i].items()}
            for i in range(env.num_envs)
        ]
        assert all(len(a) == (0 if waiting[i] else 1) for i, a in enumerate(actions))  # turn-based
        obs, rewards, done, _, _ = env.step(actions)
        for i in range(env.num_envs):
            for agent, reward in rewards[i].items():
                totals[i][agent] = totals[i].get(agent, 0.0) + reward
            if done[i]["__all__"]:
                ended.append((seen[i], totals[i], obs[i]))
                seen[i], totals[i] = [], {}
            else:
                assert len(obs[i]) == 1
                seen[i] += list(obs[i].items())
    return ended


def check_against_the_engine(env: KingdominoVectorEnv, ended: list, records: list[dict], gains: bool) -> None:
    encoder = ObservationEncoder(env.num_players, records[0]["rules"]["kingdom_size"], gains)
    for (seen, totals, last), record in zip(ended, records, strict=True):
        learners = {agent for agent, _ in seen}
        expected = []
        for game in replay_steps(record):
            agent = f"player_{game.current_player}"
            if not game.is_over and agent in learners:
                expected.append((agent, encoder.encode(PublicView(game), game.current_player), game.legal_actions()))
        assert len(seen) == len(expected)
        for (agent, observation), (want_agent, want, legal) in zip(seen, expected, strict=True):
            assert agent == want_agent
            np.testing.assert_array_equal(observation["observation"]["board"], want["board"])
            np.testing.assert_array_equal(observation["observation"]["features"], want["features"])
            assert sorted(np.flatnonzero(observation["action_mask"])) == sorted(legal)
        rank = terminal_rewards(game, "rank")
        assert set(last) == learners and totals == pytest.approx({a: rank[int(a[7:])] for a in learners})


@pytest.mark.parametrize(("players", "rules"), [(3, "harmony"), (2, "middle_kingdom")])
def test_self_play_games_are_the_engine_s_seen_by_each_seat(players, rules):
    env = KingdominoVectorEnv({"num_players": players, "rules": rules, "gains": True}, 3)
    ended = play(env, 5, seed=players)
    check_against_the_engine(env, ended, env.games.records(), gains=True)
    assert all(len({agent for agent, _ in seen}) == players for seen, _, _ in ended)  # every seat learns


def test_against_compiled_opponents_only_the_learner_s_seat_is_seen():
    env = KingdominoVectorEnv(
        {"num_players": 4, "rules": "middle_kingdom,harmony", "opponents": ["fg", "gprd", "fg"]}, 4
    )
    ended = play(env, 6, seed=1)
    check_against_the_engine(env, ended, env.learners.records(), gains=False)
    assert all(len({agent for agent, _ in seen}) == 1 for seen, _, _ in ended)


def test_a_ppo_checkpoint_opponent_plays_batched_in_the_vector_env():
    table = {"num_players": 2, "rules": "middle_kingdom,harmony", "gains": True, "opponents": ["ppo:default"]}
    env = KingdominoVectorEnv(table, 3)
    ended = play(env, 3, seed=2)
    records = env.learners.records()
    check_against_the_engine(env, ended, records, gains=True)
    for record, (seen, _, _) in zip(records, ended, strict=True):
        learner = int(seen[0][0][len("player_") :])
        assert record["agents"][learner] == "learner" and "ppo" in record["agents"][1 - learner]
