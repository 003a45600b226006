"""The learner's view for opponents that only play through the engine: whole games, the vector env's final infos,
the same games for the same seed; a curriculum that mixes them with the league's own networks is refused."""

from __future__ import annotations

import numpy as np
import pytest

from kdenv.rules import STUDY_RULES
from training.envs.table_vector import TableVectorEnv
from training.ppo.config import config_from_dict
from training.ppo.train import engine_only
from training.runs.config import ConfigError

OWN = "tests.helpers.own_bots:Cautious"


def _play(seed: int, steps: int = 80) -> tuple[list, list]:
    """(every step's rewards, each ended game's final info) of 3 games of 3 players, random legal learner moves."""
    env = TableVectorEnv(3, 3, lambda row: [OWN, "fg"], rules=STUDY_RULES, gains=True)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    assert obs["board"].shape[0] == 3 and set(info["seat"]) <= {0, 1, 2}
    rewards, finals = [], []
    for _ in range(steps):
        mask = env.action_masks()
        obs, reward, ended, truncated, info = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
        rewards.append(reward.tolist())
        assert not truncated.any()
        for i in np.flatnonzero(ended):
            final = info["final_info"]
            seat = int(final["seat"][i])
            assert final["agents"][i][seat] == "learner"
            assert sorted(final["agents"][i]) == sorted(["learner", OWN, "fg"])
            assert len(final["scores"][i]) == 3 and 0 <= final["placings"][i][seat] <= 2
            assert {key: value[i].shape for key, value in info["final_obs"].items()} == {
                key: value[i].shape for key, value in obs.items()
            }
            finals.append((seat, final["scores"][i].tolist()))
    env.close()
    return rewards, finals


def test_games_end_and_are_dealt_again_the_same_for_the_same_seed():
    rewards, finals = _play(seed=5)
    assert len(finals) >= 3  # a 3-player game takes the learner 24 moves
    assert (rewards, finals) == _play(seed=5)


def test_engine_only_opponents_are_named_and_kept_apart_from_the_league():
    data = {"env": {"num_players": 2}, "curriculum": [{"opponents": {OWN: 1.0, "fg": 1.0}}]}
    assert engine_only(config_from_dict(data)) == [OWN]
    assert engine_only(config_from_dict({"curriculum": [{"opponents": {"fg": 1.0, "ppo:default": 1.0}}]})) == []
    mixed = config_from_dict({"curriculum": [{"opponents": {OWN: 1.0, "latest": 1.0}}]})
    with pytest.raises(ConfigError, match="league's own networks"):
        engine_only(mixed)
