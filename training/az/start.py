"""The network expert iteration starts from, with a value per seat fitted before the first search.

``init: default`` (or a checkpoint's path) takes a ``ppo`` network; ``init: scratch`` a fresh one that first
imitates ``fg`` (:func:`training.ppo.bc.behaviour_clone`). A network with one value (the observer's) gets a
per-seat head (:func:`agents.ppo_player.seat_values`), started as the old head for the observer and its
opposite shared out among the others (the rank rewards sum to zero). Then the critic is fitted
(:func:`fit_values`) to the outcomes of games of the network itself, sampled in every seat: the shipped value
heads were trained against ``fg`` and believe they win, which would mislead a search among equals. The shared
trunk and the policy stay as they were.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from agents.checkpoint import read_checkpoint
from agents.ppo_player import BatchedPolicy, build_policy, seat_values
from kdenv.vector import VectorEnv
from training.az.config import AZConfig, init_checkpoint
from training.ppo.run import table_settings


def run_settings(config: AZConfig, network: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint settings of the run's networks (``kdenv.json``): the table, and a per-seat value head."""
    return table_settings(config, "rank", {**network, "seat_values": True})


def starting_network(config: AZConfig, log: Callable[[str], None] = print) -> tuple[dict[str, Any], Any]:
    """(settings, policy) of the run's first network, its per-seat head not yet fitted (see the module)."""
    if config.init == "scratch":
        network = dataclasses.asdict(config.network)
        single = {**run_settings(config, network), "network": network}
        policy = build_policy(single, None, "the new network")
        _imitate(config, policy, log)
    else:
        path = init_checkpoint(config)
        saved, state = read_checkpoint(path)
        network = {k: v for k, v in saved["network"].items() if k != "seat_values"}
        policy = build_policy(saved, state, f"checkpoint {path!r}")
        if saved["network"].get("seat_values"):
            return run_settings(config, network), policy
    spread_value_head(policy, config.env.num_players)
    return run_settings(config, network), policy


def spread_value_head(policy, num_players: int) -> None:
    """Replace a one-output value head by a per-seat one: the observer's output the old one, each other seat's
    the old one's opposite over the other seats."""
    old = policy.value_net
    seat_values(policy, num_players)
    with torch.no_grad():
        policy.value_net.weight[0] = old.weight[0]
        policy.value_net.bias[0] = old.bias[0]
        policy.value_net.weight[1:] = -old.weight[0] / (num_players - 1)
        policy.value_net.bias[1:] = -old.bias[0] / (num_players - 1)


def _imitate(config: AZConfig, policy, log: Callable[[str], None]) -> None:
    from training.ppo.bc import behaviour_clone

    bc = config.bc
    summary = behaviour_clone(
        policy, teacher=bc.teacher, games=bc.games, num_players=config.env.num_players, rules=config.rules(),
        reward="rank", epochs=bc.epochs, batch_size=bc.batch_size, learning_rate=bc.learning_rate,
        value_weight=bc.value_weight, seed=config.seed,
        max_seconds=None if bc.max_minutes is None else 60 * bc.max_minutes, dagger=bc.dagger,
    )  # fmt: skip
    log(f"imitation of {bc.teacher}: {int(summary.get('bc/games', 0))} games, "
        f"accuracy {summary.get('bc/accuracy', 0.0):.1%}")  # fmt: skip


def network_games(settings: dict, policy, games: int, seed: int, parallel: int = 64) -> tuple[dict, np.ndarray]:
    """The decisions of ``games`` games of ``policy`` sampled in every seat: (observations of the mover:
    board, features; each seat's rank reward relative to the mover)."""
    from kdenv.rules import Rules

    n = int(settings["num_players"])
    env = VectorEnv(min(games, parallel), n, rules=Rules.from_dict(settings["rules"]), gains=bool(settings["gains"]))
    play = BatchedPolicy(policy, "warm-up", sample=True, seed=seed)
    obs, info = env.reset(seed=seed)
    pending: list[list] = [[] for _ in range(env.num_envs)]
    boards, features, values = [], [], []
    finished = 0
    while finished < games:
        movers = info["current_player"]
        for i in range(env.num_envs):
            pending[i].append((obs["board"][i].astype(np.float16), obs["features"][i], int(movers[i])))
        obs, _, terminated, _, info = env.step(play(obs, obs["action_mask"]))
        for i in np.flatnonzero(terminated).tolist():
            if finished < games:
                reward = 1.0 - 2.0 * info["final_info"]["placings"][i] / (n - 1)
                for board, feature, mover in pending[i]:
                    boards.append(board)
                    features.append(feature)
                    values.append(reward[(mover + np.arange(n)) % n])
                finished += 1
            pending[i] = []
    return {"board": np.stack(boards), "features": np.stack(features)}, np.array(values, np.float32)


def fit_values(policy, obs: dict, values: np.ndarray, epochs: int, batch_size: int, learning_rate: float,
               seed: int) -> tuple[float, float]:  # fmt: skip
    """Fit the critic (its own layers and the per-seat head; the trunk is kept) to ``values``; the mean squared
    error (before, after)."""
    critic = [*policy.mlp_extractor.value.parameters(), *policy.value_net.parameters()]
    optimizer = torch.optim.Adam(critic, lr=learning_rate)
    rng = np.random.default_rng(seed)
    target = torch.from_numpy(values)
    latent = _trunk(policy, obs)
    before = _value_error(policy, latent, target)
    for _ in range(epochs):
        order = torch.from_numpy(rng.permutation(len(target)))
        for k in range(0, len(order), batch_size):
            rows = order[k : k + batch_size]
            predicted = policy.value_net(policy.mlp_extractor.value(latent[rows]))
            loss = torch.nn.functional.mse_loss(predicted, target[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return before, _value_error(policy, latent, target)


def _trunk(policy, obs: dict, chunk: int = 1024) -> torch.Tensor:
    """The shared trunk's vector (what the critic reads) of every observation, computed once: it is not fitted."""
    heads, parts = policy.mlp_extractor, []
    with torch.no_grad():
        for k in range(0, len(obs["features"]), chunk):
            part = {key: torch.from_numpy(obs[key][k : k + chunk].astype(np.float32)) for key in ("board", "features")}
            parts.append(heads.trunk(policy.features_extractor(part)))
    return torch.cat(parts)


def _value_error(policy, latent: torch.Tensor, target: torch.Tensor) -> float:
    with torch.no_grad():
        return float(torch.nn.functional.mse_loss(policy.value_net(policy.mlp_extractor.value(latent)), target))
