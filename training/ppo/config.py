"""Training configuration: typed sections read from YAML, checked key by key, overridable with ``--set``.

Every key has a type and a default here; a YAML file only lists what it changes. An unknown key or a
value of the wrong type is a one-line :class:`ConfigError` naming the dotted key (``ppo.n_steps``).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kdenv.errors import KingdominoError
from kdenv.rules import Rules


class ConfigError(KingdominoError):
    """A training configuration that names an unknown key or gives a key a bad value."""


@dataclass
class EnvConfig:
    num_players: int = 4  # seats at the table, the learner's included
    rules: str = "middle_kingdom,harmony"  # rule names as in Rules.from_names
    reward: str = "rank"  # the learner's reward: rank, margin or score (see kdenv.kingdomino_v0)
    gains: bool = False  # observe what each placement and next-line domino would score (see kdenv.encoding)


@dataclass
class NetworkConfig:
    channels: int = 16  # width of the convolutional trunk over the kingdom planes
    blocks: int = 2  # residual blocks of two 3x3 convolutions
    hidden: int = 128  # width of the vector trunk (line features + pooled board)


@dataclass
class PPOConfig:
    total_timesteps: int = 1_000_000  # learner decisions to train for
    n_envs: int = 64  # games stepped together in one vector env (one process)
    n_steps: int = 512  # decisions per environment per rollout
    batch_size: int = 256  # minibatch size
    n_epochs: int = 4  # passes over each rollout
    learning_rate: float = 3e-4  # Adam step size (constant)
    gamma: float = 1.0  # discount: the episode is short and the reward comes at the end
    gae_lambda: float = 0.95  # GAE smoothing
    clip_range: float = 0.2  # PPO ratio clip
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clip
    target_kl: float | None = None  # stop an update early past this KL (None = never)
    device: str = "cpu"  # torch device of the learner
    threads: int = 2  # torch threads for the network (the env steps between its calls, on one)


@dataclass
class Stage:
    """One step of the curriculum: the opponent mix used until ``until`` learner steps (None = to the end)."""

    opponents: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    until: int | None = None


@dataclass
class LeagueConfig:
    snapshot_every: int = 50_000  # learner steps between snapshots of the policy into the pool
    pool_size: int = 10  # snapshots kept (the oldest leave first)
    prioritise: bool = True  # sample snapshots that still beat the learner more often


@dataclass
class EvalConfig:
    every: int = 50_000  # learner steps between evaluations (0 = only at the end)
    games: int = 40  # games against each opponent set
    opponents: list[str] = field(default_factory=lambda: ["fg", "random"])  # each plays all other seats
    workers: int = 2  # processes playing evaluation games
    deterministic: bool = True  # the learner plays its most probable move


@dataclass
class BCConfig:
    games: int = 0  # fg self-play games to imitate before PPO (0 = no warm start)
    teacher: str = "fg"  # the player imitated
    epochs: int = 10  # passes over the recorded decisions
    batch_size: int = 512
    learning_rate: float = 1e-3
    value_weight: float = 0.5  # weight of the value regression on the game's outcome
    max_minutes: float | None = None  # stop imitating after this long even if games remain (None = no limit)
    dagger: float = 0.0  # share of seats the student itself plays while imitating (DAgger; 0 = teacher only)


@dataclass
class TrainConfig:
    name: str = "run"  # run directory prefix: runs/<name>-<time>/
    seed: int = 0
    runs_dir: str = "runs"  # where run directories are made
    init: str | None = None  # a checkpoint whose policy weights start the run (e.g. a BC run's best.zip)
    checkpoint_every: int = 20_000  # learner steps between checkpoints (last.zip)
    max_minutes: float | None = None  # wall-clock budget of the PPO phase of this invocation (None = no limit)
    env: EnvConfig = field(default_factory=EnvConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    curriculum: list[Stage] = field(default_factory=lambda: [Stage()])
    league: LeagueConfig = field(default_factory=LeagueConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    bc: BCConfig = field(default_factory=BCConfig)

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


def _convert(value: Any, kind: Any, key: str) -> Any:
    """``value`` checked (and converted where lossless) against the annotation ``kind``."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        errors = []
        for option in options:
            if option is type(None):
                continue
            try:
                return _convert(value, option, key)
            except ConfigError as err:
                errors.append(str(err))
        raise ConfigError(errors[0])
    if dataclasses.is_dataclass(kind):
        return _build(kind, value, key)
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"config key {key!r}: expected a list, got {value!r}")
        (item,) = typing.get_args(kind)
        return [_convert(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"config key {key!r}: expected a mapping, got {value!r}")
        key_kind, value_kind = typing.get_args(kind)
        return {_convert(k, key_kind, key): _convert(v, value_kind, f"{key}.{k}") for k, v in value.items()}
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):  # YAML 1.1 reads 1e-4 (no dot) as a string
            try:
                return float(value)
            except ValueError:
                pass
    elif kind is str and isinstance(value, str):
        return value
    raise ConfigError(f"config key {key!r}: expected {getattr(kind, '__name__', kind)}, got {value!r}")


def _build(cls: type, data: Any, prefix: str = "") -> Any:
    """An instance of dataclass ``cls`` from a mapping; unknown keys and bad values raise ConfigError."""
    where = prefix or "the top level"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"config key {where!r}: expected a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    for key in data:
        if key not in known:
            dotted = f"{prefix}.{key}" if prefix else str(key)
            raise ConfigError(f"unknown config key {dotted!r}; known keys here: {', '.join(sorted(known))}")
    values = {key: _convert(value, hints[key], f"{prefix}.{key}" if prefix else key) for key, value in data.items()}
    return cls(**values)


def _check(config: TrainConfig) -> None:
    """Value checks beyond types: ranges and names that the run would only trip on later."""
    positive = {
        "ppo.total_timesteps": config.ppo.total_timesteps,
        "ppo.n_envs": config.ppo.n_envs,
        "ppo.n_steps": config.ppo.n_steps,
        "ppo.batch_size": config.ppo.batch_size,
        "ppo.n_epochs": config.ppo.n_epochs,
        "ppo.learning_rate": config.ppo.learning_rate,
        "network.channels": config.network.channels,
        "network.hidden": config.network.hidden,
        "league.snapshot_every": config.league.snapshot_every,
        "league.pool_size": config.league.pool_size,
        "eval.workers": config.eval.workers,
        "checkpoint_every": config.checkpoint_every,
    }
    for key, value in positive.items():
        if value <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {value!r}")
    counts = {"eval.every": config.eval.every, "eval.games": config.eval.games, "bc.games": config.bc.games}
    for key, value in counts.items():
        if value < 0:
            raise ConfigError(f"config key {key!r} must be >= 0, got {value!r}")
    from kdenv.kingdomino_v0 import REWARDS

    if config.env.reward not in REWARDS:
        raise ConfigError(f"config key 'env.reward': {config.env.reward!r} is not one of {', '.join(REWARDS)}")
    if not 0 < config.ppo.gamma <= 1:
        raise ConfigError(f"config key 'ppo.gamma' must be in (0, 1], got {config.ppo.gamma!r}")
    try:
        rules = config.rules()
        rules.setup(config.env.num_players)
    except KingdominoError as err:
        raise ConfigError(f"config key 'env': {err}") from None
    if not config.curriculum:
        raise ConfigError("config key 'curriculum' must list at least one stage")
    for i, stage in enumerate(config.curriculum):
        if not stage.opponents or any(w < 0 for w in stage.opponents.values()) or sum(stage.opponents.values()) <= 0:
            raise ConfigError(f"config key 'curriculum[{i}].opponents' needs positive weights, got {stage.opponents!r}")
        for spec in stage.opponents:
            _check_opponent(spec, f"curriculum[{i}].opponents")
    for spec in config.eval.opponents:
        _check_opponent(spec, "eval.opponents")
    for key, minutes in (("max_minutes", config.max_minutes), ("bc.max_minutes", config.bc.max_minutes)):
        if minutes is not None and not minutes > 0:
            raise ConfigError(f"config key {key!r} must be positive (or null for no limit), got {minutes!r}")
    from training.ppo.bc import TEACHERS

    if config.bc.teacher not in TEACHERS:
        raise ConfigError(f"config key 'bc.teacher': {config.bc.teacher!r} is not one of {', '.join(TEACHERS)}")
    if not 0 <= config.bc.dagger <= 1:
        raise ConfigError(f"config key 'bc.dagger' must be in [0, 1], got {config.bc.dagger!r}")
    _check_device(config.ppo.device)
    _check_writable(Path(config.runs_dir))
    if config.init is not None:
        from agents.checkpoint import CheckpointError, read_checkpoint

        try:
            read_checkpoint(config.init)
        except CheckpointError as err:
            raise ConfigError(f"config key 'init': {err}") from None


def _check_device(device: str) -> None:
    """A torch device that exists on this machine."""
    import torch

    try:
        kind = torch.device(device).type
    except (RuntimeError, TypeError):
        raise ConfigError(f"config key 'ppo.device': {device!r} is not a torch device (e.g. cpu, cuda)") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"config key 'ppo.device': {device!r}, but torch sees no CUDA device here; use cpu")
    if kind not in ("cpu", "cuda", "mps"):
        raise ConfigError(f"config key 'ppo.device': {device!r} is not supported; use cpu or cuda")


def _check_writable(runs_dir: Path) -> None:
    """``runs_dir`` exists as a writable folder, or can be made inside one: a folder is made in the nearest one
    that exists and removed at once, which is the only test that holds for root and for special file systems."""
    existing = runs_dir.absolute()
    while not existing.exists():
        existing = existing.parent
    try:
        os.rmdir(tempfile.mkdtemp(dir=existing))
    except OSError:
        raise ConfigError(
            f"config key 'runs_dir': {str(runs_dir)!r} cannot be written here; give a writable folder"
        ) from None


LEAGUE_OPPONENTS = ("latest", "snapshot")  # opponent names that stand for the learner's own networks


def _check_opponent(spec: str, key: str) -> None:
    from agents.registry import PLAYERS, parse_spec

    name, _ = parse_spec(spec)
    if spec not in LEAGUE_OPPONENTS and name not in PLAYERS:
        known = ", ".join([*LEAGUE_OPPONENTS, *PLAYERS])
        raise ConfigError(f"config key {key!r}: unknown opponent {spec!r}; known: {known}")


def _set(data: dict, assignment: str) -> None:
    """Apply one ``key.sub=value`` override to the raw mapping (the value is read as YAML)."""
    key, eq, text = assignment.partition("=")
    if not eq or not key:
        raise ConfigError(f"--set {assignment!r}: expected key=value, e.g. ppo.n_steps=256")
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        value = text
    parts = key.strip().split(".")
    node = data
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"--set {assignment!r}: {part!r} is not a section")
        node = child
    node[parts[-1]] = value


def config_from_dict(data: dict, overrides: list[str] | None = None) -> TrainConfig:
    """A checked TrainConfig from a raw mapping plus ``key=value`` overrides."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a mapping of keys (see configs/smoke.yaml), not a {type(data).__name__}")
    data = dict(data)
    for section, value in data.items():
        if isinstance(value, dict):
            data[section] = dict(value)
    for assignment in overrides or []:
        _set(data, assignment)
    config = _build(TrainConfig, data)
    _check(config)
    return config


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config file; a missing file, bad YAML, unknown key or bad value is a one-line ConfigError."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} not found; see configs/ for examples")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"config file {str(path)!r} is not a UTF-8 text file; give a YAML config") from None
    except (yaml.YAMLError, RecursionError) as err:
        reason = str(err).splitlines()[0] if str(err) else "nested too deeply"
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {reason}") from None
    if data is None:
        raise ConfigError(f"config file {str(path)!r} is empty; give the keys to change (see configs/smoke.yaml)")
    return config_from_dict(data, overrides)
