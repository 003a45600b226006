"""The config of ``kdenv train`` with ``trainer: az`` (expert iteration): the table and network sections of the
PPO config, and the keys of self-play, the replay buffer, learning and evaluation. Unknown keys and bad values
are one-line errors naming the dotted key, as there."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic.dataclasses import dataclass

from agents.options import bounds
from agents.search_settings import SELFPLAY, Evaluation, Others, Rollout, Root, Settings
from kdenv.rules import Rules
from training.backends.base import Backend
from training.backends.choose import choose_backend
from training.ppo.config import BCConfig
from training.runs.config import (
    AT_LEAST_ZERO,
    BUDGET,
    POSITIVE,
    SECTION,
    ConfigError,
    Count,
    EnvConfig,
    FileName,
    Flag,
    NetworkConfig,
    Real,
    Section,
    check_device,
    check_env,
    check_opponent,
    check_writable,
    init_settings,
    validate,
)
from training.runs.config import init_checkpoint as shared_init_checkpoint

INITS = ("default", "scratch")  # besides a checkpoint's path
SEARCH_RANGES = bounds(Settings)  # the search's numbers and their ranges, as the az player's spec reads them
Opponent = Literal["none", "random", "gprd", "fg", "fgt"]  # self-play: none (every seat searches), or a compiled player


@dataclass(config=SECTION)
class WarmupConfig:
    """Fitting the fresh value tower before self-play: games of the network itself, sampled."""

    games: Annotated[Count, AT_LEAST_ZERO] = 256  # games of the starting network in every seat (0: no fit)
    positions: Annotated[Count, POSITIVE] = 8  # decisions kept from each game, drawn at random
    epochs: Annotated[Count, POSITIVE] = 4  # passes over their decisions
    batch_size: Annotated[Count, POSITIVE] = 512
    learning_rate: Annotated[Real, POSITIVE] = 1e-3


@dataclass(config=SECTION)
class SelfPlayConfig:
    games: Annotated[Count, POSITIVE] = 64  # games finished per iteration (all workers together)
    parallel: Annotated[Count, POSITIVE] = 32  # games stepped at once in each worker (their leaves batch together)
    simulations: Annotated[Count, POSITIVE] = 16  # search budget per decision
    # the search's settings: their names, meanings, ranges (the spec's Bounds) and defaults (SELFPLAY) are
    # agents.search_settings's
    root: Root = SELFPLAY.root
    c_puct: Annotated[Real, SEARCH_RANGES["c_puct"]] = SELFPLAY.c_puct
    considered: Annotated[Count, SEARCH_RANGES["considered"]] = SELFPLAY.considered
    c_visit: Annotated[Real, SEARCH_RANGES["c_visit"]] = SELFPLAY.c_visit
    c_scale: Annotated[Real, SEARCH_RANGES["c_scale"]] = SELFPLAY.c_scale
    batch: Annotated[Count, SEARCH_RANGES["batch"]] = SELFPLAY.batch
    sample: Flag = SELFPLAY.sample
    rollout: Rollout = SELFPLAY.rollout
    mix: Annotated[Real, SEARCH_RANGES["mix"]] = SELFPLAY.mix
    lines: Annotated[Count, SEARCH_RANGES["lines"]] = SELFPLAY.lines
    others: Others = SELFPLAY.others
    evaluation: Evaluation = SELFPLAY.outcome  # rank or r (no null: the profile says which)
    opponent: Opponent = "none"  # none: every seat searches; else one seat a game
    # (drawn at each deal) searches and this compiled player holds the others
    target_temperature: Annotated[Real | None, POSITIVE] = None  # None: the targets are the improved policy; else
    # softmax(logits + Q / this), Q on the reward's scale (agents.az_search.tilted_policy): less moved by noise
    workers: Annotated[Count, POSITIVE] = 1  # self-play processes (1: in the learner's process)
    backend: Literal["local", "ray"] = "local"  # local processes, or Ray actors (each with a copy of the network)


@dataclass(config=SECTION)
class BufferConfig:
    size: Annotated[Count, POSITIVE] = 100_000  # the window: the most recent labelled decisions kept


@dataclass(config=SECTION)
class LearnConfig:
    learning_rate: Annotated[Real, POSITIVE] = 1e-3  # Adam
    weight_decay: Annotated[Real, AT_LEAST_ZERO] = 1e-4
    batch_size: Annotated[Count, POSITIVE] = 256
    epochs: Annotated[Real, POSITIVE] = 4.0  # samples per new position: updates = epochs * new / batch_size
    value_weight: Annotated[Real, AT_LEAST_ZERO] = 1.0  # weight of the per-seat value MSE beside the policy's CE
    max_grad_norm: Annotated[Real, POSITIVE] = 1.0
    min_positions: Annotated[Count, AT_LEAST_ZERO] = 2_000  # no update until the buffer holds this many
    symmetries: bool = False  # each position learned in a random one of its kingdom's 8 images (kdenv.symmetry);
    # off: the players break ties by action index, so their kingdoms come in one orientation (measured:
    # benchmarks/RESULTS.md, section "The prior alone where rollouts value the leaves")


@dataclass(config=SECTION)
class AZEvalConfig:
    every: Annotated[Count, AT_LEAST_ZERO] = 5  # iterations between evaluations (0: only at the start and end)
    games: Annotated[Count, AT_LEAST_ZERO] = 200  # games of the raw network (ppo:) against each opponent
    opponents: list[str] = field(default_factory=lambda: ["fg"])  # each plays all other seats
    search_games: Annotated[Count, AT_LEAST_ZERO] = 40  # games of the az player against the first opponent
    search_simulations: Annotated[Count, POSITIVE] = 32  # its fixed budget per decision
    workers: Annotated[Count, POSITIVE] = 2  # processes for the az player's tournament

    def games_backend(self) -> Backend:
        """Where the evaluations' tournaments play: ``workers`` processes here; made once a run, it starts nothing
        until they do."""
        return choose_backend("local", self.workers)


@dataclass(config=SECTION)
class AZConfig:
    trainer: Literal["az"] = "az"  # what makes `kdenv train` take this config
    name: FileName = "az"  # run directory prefix: runs/<name>-<time>/
    seed: Count = 0
    runs_dir: str = "runs"
    init: str = "default"  # default: the table's ppo:default network; scratch: imitation of fg (bc); or a path
    iterations: Annotated[Count, POSITIVE] = 100  # self-play then learning, each
    max_minutes: Annotated[Real | None, BUDGET] = None  # wall-clock budget of this invocation (None: none)
    checkpoint_every: Annotated[Count, POSITIVE] = 1  # iterations between checkpoints (last.zip, buffer)
    threads: Annotated[Count, POSITIVE] = 1  # torch threads of the learner's process
    device: str = "cpu"  # torch device of the learner (cuda where one exists)
    address: str | None = None  # with selfplay.backend ray: a running Ray cluster (auto, HOST:PORT); None: local
    env: Section[EnvConfig] = field(default_factory=lambda: EnvConfig(gains=True))
    network: Section[NetworkConfig] = field(default_factory=NetworkConfig)  # init scratch's; else the checkpoint's
    warmup: Section[WarmupConfig] = field(default_factory=WarmupConfig)
    bc: Section[BCConfig] = field(default_factory=lambda: BCConfig(games=2000))  # init scratch's imitation
    selfplay: Section[SelfPlayConfig] = field(default_factory=SelfPlayConfig)
    buffer: Section[BufferConfig] = field(default_factory=BufferConfig)
    learn: Section[LearnConfig] = field(default_factory=LearnConfig)
    eval: Section[AZEvalConfig] = field(default_factory=AZEvalConfig)
    keep: Flag = True  # keep each evaluated network in snapshots/ (iter-NNNN.zip)

    def rules(self) -> Rules:
        return Rules.from_names(self.env.rules)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def az_config(data: Any, overrides: list[str] | None = None) -> AZConfig:
    """A checked AZConfig from a raw mapping plus ``key=value`` overrides."""
    config = validate(data, overrides, AZConfig)
    check_env(config.env)
    if config.env.reward != "rank":
        raise ConfigError(
            f"config key 'env.reward': expert iteration learns the rank reward, got {config.env.reward!r}"
        )
    for spec in config.eval.opponents:
        check_opponent(spec, "eval.opponents", league=())
    if not config.eval.opponents:
        raise ConfigError("config key 'eval.opponents' must list at least one player")
    check_device(config.device, "device")
    check_writable(Path(config.runs_dir))
    if config.init != "scratch":
        init_settings(config.init, config.env)  # a checkpoint of this table and observation
    return config


def init_checkpoint(config: AZConfig) -> str:
    """The checkpoint file of ``init`` (default: the table's shipped one)."""
    return shared_init_checkpoint(config.init, config.env)
