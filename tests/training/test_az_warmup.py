"""Expert iteration's starting network: the actor of the checkpoint as it was, a value tower of its own with one
output per seat, fitted to decisions drawn from games of the network itself."""

from __future__ import annotations

import numpy as np
import torch

from agents.checkpoint import read_checkpoint, write_player
from agents.policy_network import heads
from agents.ppo_player import build_policy
from training.az.config import az_config
from training.az.start import Outcomes, fit_values, network_games, starting_network, value_error
from training.runs.config import read_yaml


def started(tmp_path, *overrides: str):
    config = az_config(read_yaml("configs/az_smoke.yaml"), [f"runs_dir={tmp_path}", *overrides])
    return config, *starting_network(config)


def observations(data: Outcomes, rows=slice(None)) -> dict[str, torch.Tensor]:
    board = torch.from_numpy(data.board[rows].astype(np.float32))
    return {"board": board, "features": torch.from_numpy(data.features[rows])}


def test_the_tower_leaves_the_actor_as_it_was_and_has_a_value_per_seat(tmp_path):
    config, settings, network = started(tmp_path)
    saved, state = read_checkpoint("agents/checkpoints/default.zip")
    original = build_policy(saved, state)
    data = network_games(settings, network, games=2, seed=1, keep=5)
    with torch.no_grad():
        logits, values = heads(network, observations(data))
        expected, _ = heads(original, observations(data))
    assert settings.network.value_tower and settings.network.seat_values
    assert not network.share_features_extractor
    assert torch.equal(logits, expected)
    assert values.shape == (len(data.values), config.env.num_players)


def test_network_games_keep_that_many_decisions_a_game_with_every_seats_rank_reward(tmp_path):
    config, settings, network = started(tmp_path)
    data = network_games(settings, network, games=3, seed=2, keep=7)
    assert len(data.values) == 21 and np.bincount(data.games).tolist() == [7, 7, 7]
    n = config.env.num_players
    ranks = np.sort(data.values, axis=1)
    assert np.allclose(ranks, np.linspace(-1, 1, n)[None, :])  # one of each rank reward (no ties in these games)
    assert data.board.dtype == np.float16 and data.board.shape[0] == data.features.shape[0] == 21


def test_fitting_moves_the_value_toward_the_outcomes_and_never_the_actor(tmp_path):
    """Outcomes that are the same in every game can be learned: the held-out error falls, the actor is unchanged."""
    _, settings, network = started(tmp_path)
    data = network_games(settings, network, games=20, seed=3, keep=8)
    data = data._replace(values=np.tile(np.float32([0.6, -0.2, -0.2, -0.2]), (len(data.values), 1)))
    actor = {k: v.clone() for k, v in network.state_dict().items() if k.startswith("pi_features_extractor.")}
    before, after = fit_values(network, data, epochs=30, batch_size=32, learning_rate=3e-3, seed=0, held_out=0.25)
    assert after < before / 4
    assert all(torch.equal(v, network.state_dict()[k]) for k, v in actor.items())
    assert np.isnan(value_error(network, data, np.array([], np.int64)))


def test_a_checkpoint_with_a_tower_plays_and_starts_a_run_as_it_is(tmp_path):
    _, settings, network = started(tmp_path)
    path = tmp_path / "tower.zip"
    write_player(path, settings, network.state_dict())
    _, again, policy = started(tmp_path, f"init={path}")
    assert again.network == settings.network
    assert all(torch.equal(v, policy.state_dict()[k]) for k, v in network.state_dict().items())


def test_the_fresh_tower_is_drawn_from_the_runs_seed_alone(tmp_path):
    """Two runs with one seed start from the same network, whatever drew from torch's generator before them."""
    _, _, first = started(tmp_path)
    torch.rand(10)
    _, _, second = started(tmp_path)
    _, _, other = started(tmp_path, "seed=5")
    state = second.state_dict()
    assert all(torch.equal(v, state[k]) for k, v in first.state_dict().items())
    assert not torch.equal(other.state_dict()["value_net.weight"], state["value_net.weight"])
