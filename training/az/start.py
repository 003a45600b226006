"""The network expert iteration starts from, with a value per seat fitted before the first search.

``init: default`` (or a checkpoint's path) takes a ``ppo`` network; ``init: scratch`` a fresh one that first
imitates ``fg`` (:func:`training.ppo.bc.behaviour_clone`). A network whose value is the observer's alone gets a
value of its own: a tower (:mod:`agents.policy_network`, ``value_tower``) ending in a head with one output per
seat, fitted (:func:`fit_values`) to the outcomes of games of the network itself, sampled in every seat
(:func:`network_games`). The policy stays as it was. Why a tower: fitted on the shared trunk, the value of
``ppo:default`` predicted 4-player ranks no better than a constant (mean squared error 0.500 against 0.556 on
held-out games), worse than ranking the seats by their scores so far; a tower of its own, 0.43
(``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch

from agents.checkpoint import CheckpointSettings, NetworkSettings, read_checkpoint
from agents.policy_network import values as value_outputs
from agents.ppo_player import BatchedPolicy, build_policy
from kdenv.vector import VectorEnv
from training.az.config import AZConfig, init_checkpoint
from training.runs.directory import table_settings


def run_settings(config: AZConfig, network: NetworkSettings) -> CheckpointSettings:
    """The checkpoint settings of the run's networks (``kdenv.json``): the table and ``network``."""
    return table_settings(config, "rank", network)


def starting_network(config: AZConfig, log: Callable[[str], None] = print) -> tuple[CheckpointSettings, Any]:
    """(settings, policy) of the run's first network, its value tower not yet fitted (see the module)."""
    if config.init == "scratch":
        network = NetworkSettings(**dataclasses.asdict(config.network))
        policy = build_policy(run_settings(config, network), None, "the new network")
        _imitate(config, policy, log)
    else:
        path = init_checkpoint(config)
        saved, state = read_checkpoint(path)
        network = saved.network
        policy = build_policy(saved, state, f"checkpoint {path!r}")
        if network.value_tower:
            return run_settings(config, network), policy
        network = dataclasses.replace(network, seat_values=False)
    return with_value_tower(run_settings(config, network), policy, config.seed)


def with_value_tower(settings: CheckpointSettings, policy, seed: int) -> tuple[CheckpointSettings, Any]:
    """(settings, network): ``policy``'s actor as it is, and a fresh value tower with a value per seat, its
    initial weights drawn from ``seed`` (a run's first network is the same whatever ran before it)."""
    network = dataclasses.replace(settings.network, seat_values=True, value_tower=True)
    settings = dataclasses.replace(settings, network=network)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        network = build_policy(settings, None, "the network with a value tower")
    critic = ("vf_features_extractor.", "mlp_extractor.value.", "value_net.")
    actor = {k: v for k, v in policy.state_dict().items() if not k.startswith(critic)}
    missing, unexpected = network.load_state_dict(actor, strict=False)
    assert not unexpected and all(k.startswith(critic) for k in missing), "the actor's weights carry over whole"
    return settings, network


def _imitate(config: AZConfig, policy, log: Callable[[str], None]) -> None:
    from kdenv.table import Table
    from training.ppo.bc import behaviour_clone

    bc = config.bc
    summary = behaviour_clone(policy, bc, Table(config.env.num_players, config.rules(), "rank"), config.seed)
    log(f"imitation of {bc.teacher}: {int(summary.get('bc/games', 0))} games, "
        f"accuracy {summary.get('bc/accuracy', 0.0):.1%}")  # fmt: skip


class Outcomes(NamedTuple):
    """Decisions of games, each observed by its mover, with every seat's final rank reward relative to it."""

    board: np.ndarray  # (N, C, F, F) float16
    features: np.ndarray  # (N, V)
    values: np.ndarray  # (N, P): seat (mover + j) % P's rank reward in column j
    games: np.ndarray  # (N,): the game each decision comes from


def network_games(
    settings: CheckpointSettings, policy, games: int, seed: int, keep: int = 8, parallel: int = 256
) -> Outcomes:
    """``keep`` decisions drawn at random from each of ``games`` games of ``policy``, sampled in every seat: the
    decisions of one game share its outcome, so a few from many games teach a value more than all of a few
    (AlphaGo's value network took one a game)."""
    n = settings.num_players
    env = VectorEnv(min(games, parallel), n, rules=settings.rules, gains=settings.gains)
    play = BatchedPolicy(policy, "warm-up", sample=True, seed=seed)
    rng = np.random.default_rng([seed, 1])
    obs, info = env.reset(seed=seed)
    pending: list[list] = [[] for _ in range(env.num_envs)]
    kept: list = []
    finished = 0
    while finished < games:
        movers = info["current_player"]
        for i in range(env.num_envs):
            pending[i].append((obs["board"][i].astype(np.float16), obs["features"][i].copy(), int(movers[i])))
        obs, _, terminated, _, info = env.step(play(obs, obs["action_mask"]))
        for i in np.flatnonzero(terminated).tolist():
            if finished < games:
                reward = 1.0 - 2.0 * info["final_info"]["placings"][i] / (n - 1)
                for k in np.sort(rng.choice(len(pending[i]), min(keep, len(pending[i])), replace=False)):
                    board, feature, mover = pending[i][k]
                    kept.append((board, feature, reward[(mover + np.arange(n)) % n], finished))
                finished += 1
            pending[i] = []
    board, features, values, origin = zip(*kept, strict=True)
    return Outcomes(np.stack(board), np.stack(features), np.array(values, np.float32), np.array(origin, np.int64))


def fit_values(policy, data: Outcomes, epochs: int, batch_size: int, learning_rate: float, seed: int,
               held_out: float = 0.1) -> tuple[float, float]:  # fmt: skip
    """Fit the value tower, its critic layers and per-seat head (the actor is not touched) to ``data``, less a
    ``held_out`` share of its games; the mean squared error on those games (before, after)."""
    assert not policy.share_features_extractor, "the value is fitted on a tower of its own, never the actor's trunk"
    tower = [*policy.vf_features_extractor.parameters(), *policy.mlp_extractor.value.parameters(),
             *policy.value_net.parameters()]  # fmt: skip
    optimizer = torch.optim.Adam(tower, lr=learning_rate)
    rng = np.random.default_rng(seed)
    held = rng.random(int(data.games.max()) + 1) < held_out
    test, train = np.flatnonzero(held[data.games]), np.flatnonzero(~held[data.games])
    before = value_error(policy, data, test)
    for _ in range(epochs):
        order = rng.permutation(train)
        policy.set_training_mode(True)
        for k in range(0, len(order), batch_size):
            rows = np.sort(order[k : k + batch_size])
            loss = torch.nn.functional.mse_loss(
                value_outputs(policy, _tensors(data, rows)), torch.from_numpy(data.values[rows])
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        policy.set_training_mode(False)
    return before, value_error(policy, data, test)


def value_error(policy, data: Outcomes, rows: np.ndarray, chunk: int = 2048) -> float:
    """The mean squared error of ``policy``'s per-seat values on ``rows`` of ``data`` (nan for none)."""
    if not len(rows):
        return float("nan")
    total = 0.0
    with torch.no_grad():
        for k in range(0, len(rows), chunk):
            part = rows[k : k + chunk]
            predicted = value_outputs(policy, _tensors(data, part))
            total += float(((predicted - torch.from_numpy(data.values[part])) ** 2).mean(1).sum())
    return total / len(rows)


def _tensors(data: Outcomes, rows: np.ndarray) -> dict[str, torch.Tensor]:
    return {
        "board": torch.from_numpy(data.board[rows].astype(np.float32)),
        "features": torch.from_numpy(data.features[rows]),
    }
