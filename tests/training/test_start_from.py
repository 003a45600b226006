"""A PPO run's ``init``: a checkpoint of the same network, or one whose value has a tower of its own (expert
iteration's), whose policy alone starts the run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoint import read_checkpoint
from agents.ppo_player import PPOOptions, PPOPlayer, masked_logits
from kdenv.encoding import action_mask
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from tests.helpers.checkpoints import SETTINGS, write_checkpoint
from tests.helpers.configs import load_config
from training.ppo.league import OpponentSampler
from training.ppo.train import build_model, make_env, start_from
from training.runs.config import ConfigError, init_checkpoint
from training.runs.directory import checkpoint_settings

TINY = SETTINGS["network"]
TOWER = {**SETTINGS, "gains": True, "network": {**TINY, "seat_values": True, "value_tower": True}}


def model_of(tmp_path, network: dict = TINY):
    """A PPO model of configs/smoke.yaml with ``network``, and the run's settings."""
    config = load_config("configs/smoke.yaml", [f"runs_dir={tmp_path}", f"network={network}", "env.gains=true",
                                                "ppo.n_envs=2"])  # fmt: skip
    settings = checkpoint_settings(config)
    sampler = OpponentSampler(3, {"random": 1.0}, settings, 0)
    return build_model(config, make_env(config, sampler, seed=0), seed=1), settings


def test_a_run_starts_from_the_policy_of_a_checkpoint_whose_value_has_a_tower(tmp_path):
    write_checkpoint(tmp_path / "tower.zip", TOWER)
    model, settings = model_of(tmp_path)
    fresh_value = model.policy.value_net.weight.detach().clone()
    start_from(model, str(tmp_path / "tower.zip"), settings)
    player = PPOPlayer(PPOOptions(str(tmp_path / "tower.zip")))
    player.seat_at(4, STUDY_RULES)
    game, rng = Game(4, STUDY_RULES, seed=3), np.random.default_rng(0)
    for _ in range(12):  # the run's policy makes the checkpoint's moves
        view = PublicView(game)
        obs = {k: v[None] for k, v in player.encoder.encode(view, game.current_player).items()}
        ours = masked_logits(model.policy, obs, action_mask(view)[None])[0]
        np.testing.assert_allclose(ours, player.logits(view, game.current_player), rtol=1e-5, atol=1e-5)
        game.step(int(rng.choice(view.legal_actions())))
    assert torch.equal(model.policy.value_net.weight, fresh_value)  # a value per seat does not fit PPO's: fresh
    shared = model.policy.state_dict()
    for key, value in shared.items():  # one extractor under each of its names, the checkpoint's policy tower
        if key.startswith(("pi_features_extractor.", "vf_features_extractor.")):
            assert torch.equal(value, shared["features_extractor." + key.split(".", 1)[1]])
    assert torch.equal(shared["features_extractor.stem.weight"], read_checkpoint(tmp_path / "tower.zip")[1][
        "pi_features_extractor.stem.weight"])  # fmt: skip


def test_a_checkpoint_of_another_network_size_is_a_one_line_error(tmp_path):
    write_checkpoint(tmp_path / "tower.zip", TOWER)
    model, settings = model_of(tmp_path, {**TINY, "hidden": 32})
    with pytest.raises(ConfigError, match="config key 'init'.*same network size"):
        start_from(model, str(tmp_path / "tower.zip"), settings)


def test_a_run_s_init_may_name_a_shipped_checkpoint_default_being_the_table_s(tmp_path):
    config = load_config("configs/selfplay.yaml", [f"runs_dir={tmp_path}", "ppo.n_envs=2", "init=default"])
    settings = checkpoint_settings(config)
    model = build_model(config, make_env(config, OpponentSampler(3, {"fg": 1.0}, settings, 0), seed=0), seed=1)
    start_from(model, init_checkpoint(config.init, config.env), settings)
    shipped = read_checkpoint("agents/checkpoints/default.zip")[1]
    assert all(torch.equal(value, shipped[key]) for key, value in model.policy.state_dict().items())
