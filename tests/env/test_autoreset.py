"""Past a game's end under autoreset, every mask still has an action, so a client that samples from the masks (as
CleanRL's loops and vector-env scripts do, ``rng.choice(np.flatnonzero(mask))``) runs on; after the reset it is the
new game's."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import kdenv  # noqa: F401  (registers kdenv/Kingdomino-v0)
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv


def sample(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action a row, drawn among the mask's (numpy's "a cannot be empty" on an empty mask)."""
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=lambda m: m.value)
def test_a_gymnasium_vector_env_of_the_view_samples_from_its_masks_past_game_ends(mode: AutoresetMode) -> None:
    envs = gymnasium.make_vec(
        "kdenv/Kingdomino-v0", num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode},
        num_players=2, opponents=["random"],
    )  # fmt: skip
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    views = [made.unwrapped for made in envs.envs]
    finished, ends = np.zeros(2, bool), 0
    for _ in range(70):  # about 24 learner decisions a 2-player game: each env passes two game ends
        masks = np.stack(envs.call("action_masks"))
        for view, mask, over in zip(views, masks, finished, strict=True):
            if over:  # NEXT_STEP: the step that follows resets the env, ignoring the action; any is allowed
                assert mask.all()
            else:
                assert sorted(np.flatnonzero(mask)) == sorted(view.game.legal_actions())
        _, _, terminated, truncated, _ = envs.step(sample(masks, rng))
        ends += int(terminated.sum())
        finished = (terminated | truncated) & (mode == AutoresetMode.NEXT_STEP)
    assert ends >= 4
    envs.close()


@pytest.mark.parametrize("make", [VectorEnv, OneLearnerVectorEnv])
def test_the_vector_envs_masks_are_the_new_games_within_the_step_that_ends_one(make) -> None:
    """Both are SAME_STEP: a game that ends is dealt again in that step, its mask the new game's first decision's."""
    venv = make(3, 2)
    learner = isinstance(venv, OneLearnerVectorEnv)
    games = venv.env if learner else venv  # the VectorEnv, whose game(i) is game i
    obs, _ = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(110):  # about 48 decisions a 2-player game, 24 of them the learner's
        obs, _, terminated, _, _ = venv.step(sample(venv.action_masks() if learner else obs["action_mask"], rng))
        masks = venv.action_masks() if learner else obs["action_mask"]
        for i in np.flatnonzero(terminated):
            assert sorted(np.flatnonzero(masks[i])) == sorted(games.game(i).legal_actions())
        ends += int(terminated.sum())
    assert ends >= 3
