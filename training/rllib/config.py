"""The config of ``kdenv train`` with ``trainer: rllib``: the table and network sections of the PPO config, and
RLlib's own keys. Unknown keys and bad values are one-line errors naming the dotted key, as there."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic.dataclasses import dataclass

from agents.specs import plays_batched
from kdenv.rules import Rules
from training.runs.config import (
    AT_LEAST_ZERO,
    DISCOUNT,
    POSITIVE,
    SECTION,
    ConfigError,
    Count,
    EnvConfig,
    FileName,
    NetworkConfig,
    Real,
    Section,
    check_env,
    check_opponent,
    check_writable,
    init_settings,
    validate,
)
from training.runs.config import init_checkpoint as shared_init_checkpoint


@dataclass(config=SECTION)
class RLlibSection:
    iterations: Annotated[Count, POSITIVE] = 20  # training iterations: each samples a batch, then updates on it
    opponents: list[str] = field(default_factory=list)  # fixed players of the other seats; none: self-play
    # the games: the compiled vector env (opponents random, gprd, fg, fgt or ppo:PATH), or the PettingZoo env,
    # one game at a time (any player spec as an opponent)
    env: Literal["vector", "pettingzoo"] = "vector"
    env_runners: Annotated[Count, AT_LEAST_ZERO] = 1  # Ray actors that play the games (0: in the learner's process)
    envs_per_runner: Annotated[Count, POSITIVE] = 4  # games each env runner steps together
    train_batch_size: Annotated[Count, POSITIVE] = 4000  # learner decisions per iteration
    minibatch_size: Annotated[Count, POSITIVE] = 256
    epochs: Annotated[Count, POSITIVE] = 4  # passes over each batch
    lr: Annotated[Real, POSITIVE] = 3e-4
    gamma: Annotated[Real, DISCOUNT] = 1.0  # the reward comes at the end of a short episode
    lambda_: Real = 0.95  # GAE smoothing
    clip_param: Real = 0.2
    entropy_coeff: Real = 0.01
    vf_loss_coeff: Real = 0.5
    grad_clip: Real = 0.5


@dataclass(config=SECTION)
class RLlibEvalConfig:
    every: Annotated[Count, AT_LEAST_ZERO] = 10  # iterations between evaluations (0: only at the end)
    games: Annotated[Count, AT_LEAST_ZERO] = 40  # games against each opponent (rounded up to whole seatings)
    opponents: list[str] = field(default_factory=lambda: ["fg", "random"])  # each plays all other seats


@dataclass(config=SECTION)
class RLlibConfig:
    trainer: Literal["rllib"] = "rllib"  # what makes `kdenv train` take this config
    name: FileName = "rllib"  # run directory prefix: runs/<name>-<time>/
    seed: Count = 0
    runs_dir: str = "runs"
    address: str | None = None  # a running Ray cluster (auto, HOST:PORT, ray://HOST:PORT); None: a local Ray
    init: str | None = None  # a ppo checkpoint (a path, or a shipped one's name: default, v1) to start the policy from
    checkpoint_every: Annotated[Count, POSITIVE] = 5  # iterations between checkpoints
    env: Section[EnvConfig] = field(default_factory=EnvConfig)
    network: Section[NetworkConfig] = field(default_factory=NetworkConfig)
    rllib: Section[RLlibSection] = field(default_factory=RLlibSection)
    eval: Section[RLlibEvalConfig] = field(default_factory=RLlibEvalConfig)

    def rules(self) -> Rules:
        return Rules.from_names(self.env.rules)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def rllib_config(data: Any, overrides: list[str] | None = None) -> RLlibConfig:
    """A checked RLlibConfig from a raw mapping plus ``key=value`` overrides."""
    config = validate(data, overrides, RLlibConfig)
    check_env(config.env)
    n = config.env.num_players
    if config.rllib.opponents and len(config.rllib.opponents) != n - 1:
        raise ConfigError(
            f"config key 'rllib.opponents' lists {len(config.rllib.opponents)} players; give {n - 1} "
            f"(one per other seat of a {n}-player game), or none for self-play"
        )
    for spec in config.rllib.opponents:
        check_opponent(spec, "rllib.opponents", league=())
        if config.rllib.env == "vector" and not plays_batched(spec):
            raise ConfigError(
                f"config key 'rllib.opponents': {spec!r} cannot play in the vector env (random, gprd, fg, fgt or "
                "ppo:PATH can); set rllib.env: pettingzoo to play it one game at a time"
            )
    for spec in config.eval.opponents:
        check_opponent(spec, "eval.opponents", league=())
    check_writable(Path(config.runs_dir))
    if config.init is not None:
        _check_init(config)
    return config


def init_checkpoint(config: RLlibConfig) -> str:
    """The file of ``init``: a shipped checkpoint's name (``default``: the table's) or a path."""
    assert config.init is not None
    return shared_init_checkpoint(config.init, config.env)


def _check_init(config: RLlibConfig) -> None:
    """``init`` is a ppo checkpoint of this table, observation and network size (its value need not be PPO's:
    :func:`training.rllib.train.start_from` then takes its policy alone)."""
    assert config.init is not None
    path, settings = init_settings(config.init, config.env)
    network = dataclasses.asdict(config.network)
    if settings.network.size != (config.network.channels, config.network.blocks, config.network.hidden):
        raise ConfigError(
            f"config key 'init': {path} has network {settings.network.to_dict()}, this run network {network}; "
            "give the same size in the config"
        )
