"""``sb3:PATH``: Stable-Baselines3 models trained here, on the Gymnasium view, played in tournaments; models of
another table and files of anything else refused in one line."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from stable_baselines3 import DQN, PPO

import training.envs.single_agent  # noqa: F401  (registers kdenv/Kingdomino-v0)
from agents import make_player
from agents.checkpoint import CheckpointError
from agents.sb3_player import SB3Player
from kdenv.encoding import action_mask
from kdenv.game import OVER, Game
from kdenv.rules import Rules
from kdenv.view import PublicView
from training.arena.tournament import Tournament
from training.backends.local import Processes

SMALL = {"net_arch": [16]}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A MaskablePPO model trained a few steps on the 2-player Gymnasium view, and an untrained PPO (no masks)."""
    folder = tmp_path_factory.mktemp("sb3")
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=2, opponents=["random"])
    masked = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, policy_kwargs=SMALL)
    masked.learn(64)
    masked.save(folder / "masked")
    PPO("MultiInputPolicy", env, n_steps=64, seed=0, policy_kwargs=SMALL).save(folder / "plain")
    return folder


def test_a_maskable_ppo_model_plays_its_own_policy_s_best_legal_action(models):
    player = make_player(f"sb3:{models / 'masked.zip'}", 2)
    model = MaskablePPO.load(models / "masked.zip")
    game = Game(2, Rules(), seed=4)
    view = PublicView(game)
    player.reset(0)
    while game.phase != OVER:
        seat = game.current_player
        if seat == 0:
            observation, mask = player.observe(view)
            expected, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
            action = player.act(view)
            assert action == int(expected) and mask[action]
        else:
            action = game.legal_actions()[0]
        game.step(action, seat)


def test_sb3_models_play_a_tournament_with_and_without_masks(models, tmp_path):
    specs = [f"sb3:{models / 'masked.zip'}", f"sb3:{models / 'plain.zip'}", "random"]
    results = Tournament(specs, players=2, games=6, out=tmp_path).play(Processes(2))
    assert results.games == 6 and all(results.agent(spec).games == 4 for spec in specs)


def test_a_dqn_model_on_the_flat_observation_plays_the_best_legal_q_value(tmp_path):
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=2, opponents=["random"], observation="flat")
    model = DQN("MlpPolicy", env, learning_starts=10**6, policy_kwargs=SMALL, seed=0)
    model.save(tmp_path / "dqn")
    player = make_player(f"sb3:{tmp_path / 'dqn.zip'}", 2)
    assert isinstance(player, SB3Player) and player.observation == "flat"
    game = Game(2, Rules(), seed=1)
    view = PublicView(game)
    observation, mask = player.observe(view)
    q = model.q_net(model.policy.obs_to_tensor(observation)[0])[0].detach().numpy()
    assert player.act(view) == int(np.flatnonzero(mask)[np.argmax(q[mask == 1])])
    np.testing.assert_array_equal(mask, action_mask(game))


def test_a_model_of_another_table_or_a_file_of_anything_else_is_refused_in_one_line(models, tmp_path):
    with pytest.raises(CheckpointError, match=r"observes \{board: \(24, 9, 9\).* not the observation of 4 players"):
        make_player(f"sb3:{models / 'masked.zip'}", 4)
    with pytest.raises(CheckpointError, match=r"does not exist; give the .zip that model.save\(\) wrote"):
        make_player(f"sb3:{tmp_path / 'none.zip'}")
    (tmp_path / "other.zip").write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match=r"is not a Stable-Baselines3 model this can play"):
        make_player(f"sb3:{tmp_path / 'other.zip'}")
