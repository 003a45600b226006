"""MaskablePPO trains directly on the SB3 VecEnv of the vector env."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from training.ppo.vec_env import SB3VecEnv


def test_maskable_ppo_learns_a_few_updates_and_every_action_it_plays_is_legal():
    env = SB3VecEnv(16, num_players=2, opponents=["gprd"], reward="margin")
    assert is_masking_supported(env)
    env.seed(0)
    obs = env.reset()
    assert obs["board"].shape == (16, 24, 9, 9)
    assert get_action_masks(env).shape == (16, 329)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]}, verbose=0)  # fmt: skip
    model.learn(total_timesteps=16 * 32 * 2)
    assert model.num_timesteps == 1024
    ended = 0
    obs = env.reset()
    for _ in range(40):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(16), actions].all()
        obs, _, dones, infos = env.step(actions)
        for done, info in zip(dones, infos, strict=True):
            if done:
                ended += 1
                assert info["terminal_observation"]["board"].shape == (24, 9, 9)
                assert len(info["scores"]) == 2
    assert ended > 0


def test_maskable_ppo_s_mlp_policy_trains_on_the_flat_observation():
    env = SB3VecEnv(8, num_players=2, opponents=["random"], observation="flat")
    obs = env.reset()
    assert obs.shape == (8, 2156) and env.observation_space.contains(obs[0])
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, verbose=0)  # fmt: skip
    model.learn(total_timesteps=8 * 16)
    ended = 0
    for _ in range(30):
        actions, _ = model.predict(obs, action_masks=get_action_masks(env))
        obs, _, dones, infos = env.step(actions)
        for done, info in zip(dones, infos, strict=True):
            if done:
                ended += 1
                assert info["terminal_observation"].shape == (2156,)
    assert ended > 0
