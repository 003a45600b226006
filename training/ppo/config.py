"""MaskablePPO's training configuration (``trainer: sb3``), on the config library of :mod:`training.runs.config`.

Every key has a type and a default here; a YAML file only lists what it changes. Checks that need more than one
key, or the machine, follow in :func:`check`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic.dataclasses import dataclass

from agents.options import Bound
from kdenv.rules import Rules
from training.backends.base import Backend
from training.backends.choose import choose_backend
from training.runs.config import (
    AT_LEAST_ZERO,
    BUDGET,
    DISCOUNT,
    POSITIVE,
    SECTION,
    SHARE,
    ConfigError,
    Count,
    EnvConfig,
    FileName,
    Flag,
    GamesBackend,
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

MAX_ENVS = 65_536  # games in one vector env (what each takes: kdenv.memory.game_bytes, and _check_memory below)
ENVS = Bound(  # its high side only, in words of its own: POSITIVE says the low side's
    -math.inf,
    high=MAX_ENVS,
    says=f"must be at most {MAX_ENVS} (a 4-player game takes about 86 kB, and 17 kB a rollout step)",
)

Teacher = Literal["fg", "gprd"]  # the compiled players that can teach (agents.batched.policy.teacher_moves)


# ----- the sections -------------------------------------------------------------------------------------------
@dataclass(config=SECTION)
class PPOConfig:
    total_timesteps: Annotated[Count, AT_LEAST_ZERO] = 1_000_000  # learner decisions to train for (0: the start alone)
    n_envs: Annotated[Count, POSITIVE, ENVS] = 64  # games stepped together in one vector env (one process)
    n_steps: Annotated[Count, POSITIVE] = 512  # decisions per environment per rollout
    batch_size: Annotated[Count, POSITIVE] = 256  # minibatch size
    n_epochs: Annotated[Count, POSITIVE] = 4  # passes over each rollout
    learning_rate: Annotated[Real, POSITIVE] = 3e-4  # Adam step size (constant)
    gamma: Annotated[Real, DISCOUNT] = 1.0  # discount: the episode is short and the reward comes at the end
    gae_lambda: Real = 0.95  # GAE smoothing
    clip_range: Real = 0.2  # PPO ratio clip
    ent_coef: Real = 0.01  # entropy bonus
    vf_coef: Real = 0.5  # value loss weight
    max_grad_norm: Real = 0.5  # gradient clip
    target_kl: Real | None = None  # stop an update early past this KL (None = never)
    device: str = "cpu"  # torch device of the learner
    # torch threads for the network (the env steps between its calls, on one): one, so that runs side by side do
    # not starve each other (the measure: `kdenv bench train --beside 1`, in benchmarks/RESULTS.md)
    threads: Count = 1


@dataclass(config=SECTION)
class Stage:
    """One step of the curriculum: the opponent mix used until ``until`` learner steps (None = to the end)."""

    opponents: dict[str, Real] = field(default_factory=lambda: {"random": 1.0})
    until: Count | None = None


@dataclass(config=SECTION)
class LeagueConfig:
    snapshot_every: Annotated[Count, POSITIVE] = 50_000  # learner steps between snapshots of the policy into the pool
    pool_size: Annotated[Count, POSITIVE] = 10  # snapshots kept (the oldest leave first)
    prioritise: Flag = True  # sample snapshots that still beat the learner more often


@dataclass(config=SECTION)
class EvalConfig:
    every: Annotated[Count, AT_LEAST_ZERO] = 50_000  # learner steps between evaluations (0 = only at the end)
    games: Annotated[Count, AT_LEAST_ZERO] = 40  # games against each opponent set
    opponents: list[str] = field(default_factory=lambda: ["fg", "random"])  # each plays all other seats
    workers: Annotated[Count, POSITIVE] = 2  # processes for the tournament against players outside the vector env
    backend: GamesBackend = "local"  # where that tournament plays: local (processes here) or ray (Ray tasks)
    address: str | None = None  # with backend ray, a running Ray cluster (auto, HOST:PORT); None: a local Ray
    deterministic: Flag = True  # the learner plays its most probable move

    def games_backend(self) -> Backend:
        """Where the tournaments against players outside the vector env play (``workers``, ``backend``,
        ``address``); made once a run, it starts nothing until they do."""
        return choose_backend(self.backend, self.workers, self.address)


@dataclass(config=SECTION)
class BCConfig:
    games: Annotated[Count, AT_LEAST_ZERO] = 0  # fg self-play games to imitate before PPO (0 = no warm start)
    teacher: Teacher = "fg"  # the player imitated (a compiled one: Teacher)
    epochs: Count = 10  # passes over the recorded decisions
    batch_size: Count = 512
    learning_rate: Real = 1e-3
    value_weight: Real = 0.5  # weight of the value regression on the game's outcome
    max_minutes: Annotated[Real | None, BUDGET] = None  # stop imitating after this long (None = no limit)
    dagger: Annotated[Real, SHARE] = 0.0  # share of seats the student plays while imitating (DAgger)


@dataclass(config=SECTION)
class TrainConfig:
    trainer: Literal["sb3"] = "sb3"  # MaskablePPO on the vector env (training.rllib.config: trainer rllib)
    name: FileName = "run"  # run directory prefix: runs/<name>-<time>/
    seed: Count = 0
    runs_dir: str = "runs"  # where run directories are made
    init: str | None = None  # a checkpoint whose policy weights start the run: a path (e.g. a BC run's best.zip), or a
    # shipped checkpoint's name (default: the table's), as the rllib and az backends read it
    checkpoint_every: Annotated[Count, POSITIVE] = 20_000  # learner steps between checkpoints (last.zip)
    max_minutes: Annotated[Real | None, BUDGET] = None  # wall-clock budget of this invocation's PPO (None: none)
    env: Section[EnvConfig] = field(default_factory=EnvConfig)
    network: Section[NetworkConfig] = field(default_factory=NetworkConfig)
    ppo: Section[PPOConfig] = field(default_factory=PPOConfig)
    curriculum: list[Section[Stage]] = field(default_factory=lambda: [Stage()])
    league: Section[LeagueConfig] = field(default_factory=LeagueConfig)
    eval: Section[EvalConfig] = field(default_factory=EvalConfig)
    bc: Section[BCConfig] = field(default_factory=BCConfig)

    def rules(self) -> Rules:
        return Rules.from_names(self.env.rules)

    def stage(self, step: int) -> Stage:
        """The curriculum stage in force at learner step ``step``."""
        for stage in self.curriculum:
            if stage.until is None or step < stage.until:
                return stage
        return self.curriculum[-1]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# ----- checks beyond one key ----------------------------------------------------------------------------------
def check(config: TrainConfig) -> None:
    """What the run would only trip on later: the table, the opponents, the device, the folder."""
    check_env(config.env)
    _check_memory(config)
    _check_curriculum(config.curriculum)
    for spec in config.eval.opponents:
        check_opponent(spec, "eval.opponents")
    check_device(config.ppo.device)
    check_writable(Path(config.runs_dir))
    if config.init is not None:
        init_settings(config.init, config.env)


def _check_memory(config: TrainConfig) -> None:
    """``ppo.n_envs`` games and their rollouts (SB3 keeps each step's observation, mask and outcome as float32)
    fit in the memory free here."""
    from kdenv.batched.tables import tables
    from kdenv.memory import MemoryNeedError, check_fits, game_bytes

    t, steps = tables(config.env.num_players, config.rules(), config.env.gains), config.ppo.n_steps
    step = 4 * (t.num_planes * t.width**2 + t.num_features + t.num_actions + 7)
    try:
        check_fits("ppo.n_envs", config.ppo.n_envs, game_bytes(t) + steps * step, f"a game and {steps} rollout steps")
    except MemoryNeedError as err:
        raise ConfigError(f"config key 'ppo.n_envs': {err} (or fewer ppo.n_steps)") from None


def _check_curriculum(curriculum: list[Stage]) -> None:
    if not curriculum:
        raise ConfigError("config key 'curriculum' must list at least one stage")
    for i, stage in enumerate(curriculum):
        if not stage.opponents or any(w < 0 for w in stage.opponents.values()) or sum(stage.opponents.values()) <= 0:
            raise ConfigError(f"config key 'curriculum[{i}].opponents' needs positive weights, got {stage.opponents!r}")
        for spec in stage.opponents:
            check_opponent(spec, f"curriculum[{i}].opponents")


def config_from_dict(data: dict, overrides: list[str] | None = None) -> TrainConfig:
    """A checked TrainConfig from a raw mapping plus ``key=value`` overrides."""
    config = validate(data, overrides, TrainConfig)
    check(config)
    return config
