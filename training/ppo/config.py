"""Training configuration: typed sections read from YAML, checked key by key, overridable with ``--set``.

Every key has a type and a default here; a YAML file only lists what it changes. The sections are pydantic
dataclasses that validate what they are given (types, ranges, unknown keys); an unknown key or a bad value
is a one-line :class:`ConfigError` naming the dotted key (``ppo.n_steps``). Checks that need more than one
key, or the machine (players and rules, opponent names, the device, a writable ``runs_dir``, the ``init``
checkpoint), follow in :func:`check`.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import typing
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Strict, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from kdenv.errors import KingdominoError
from kdenv.rules import Rules
from kdenv.table import Reward


class ConfigError(KingdominoError):
    """A training configuration that names an unknown key or gives a key a bad value."""


# ----- the types of the keys: YAML's values taken as they are, save two liberties -----------------------------
def _whole_number(value: Any) -> Any:
    """A float that is a whole number (``1e6`` in YAML) is an int."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _number_text(value: Any) -> Any:
    """YAML 1.1 reads ``1e-4`` (no dot) as a string: a string that is a number is that number."""
    try:
        return float(value) if isinstance(value, str) else value
    except ValueError:
        return value


Count = Annotated[int, Strict(), BeforeValidator(_whole_number)]  # no bool, no string, no fraction
Real = Annotated[float, Strict(), BeforeValidator(_number_text)]  # an int or a number, no bool
Flag = Annotated[bool, Strict()]  # true or false, nothing else


def _within(test: Any, words: str) -> AfterValidator:
    """A range check whose error says ``words`` (``must be positive``)."""

    def check(value: Any) -> Any:
        if value is not None and not test(value):
            raise PydanticCustomError("config_range", words)
        return value

    return AfterValidator(check)


POSITIVE = _within(lambda v: v > 0, "must be positive")
AT_LEAST_ZERO = _within(lambda v: v >= 0, "must be >= 0")
DISCOUNT = _within(lambda v: 0 < v <= 1, "must be in (0, 1]")
SHARE = _within(lambda v: 0 <= v <= 1, "must be in [0, 1]")
BUDGET = _within(lambda v: v > 0, "must be positive (or null for no limit)")
MAX_ENVS = 65_536  # games in one vector env (what each takes: kdenv.memory.game_bytes, and _check_memory below)
ENVS = _within(
    lambda v: v <= MAX_ENVS, f"must be at most {MAX_ENVS} (a 4-player game takes about 86 kB, and 17 kB a rollout step)"
)

GamesBackend = Literal["local", "ray"]  # where tournaments play (training.arena.tournament.Tournament.run)
Teacher = Literal["fg", "gprd"]  # the compiled players that can teach (training.ppo.bc.TEACHERS)
T = TypeVar("T")
Section = Annotated[T, BeforeValidator(lambda value: {} if value is None else value)]  # an empty section: defaults
SECTION = ConfigDict(extra="forbid")


# ----- the sections -------------------------------------------------------------------------------------------
@dataclass(config=SECTION)
class EnvConfig:
    num_players: Count = 4  # seats at the table, the learner's included
    rules: str = "middle_kingdom,harmony"  # rule names as in Rules.from_names
    reward: Reward = "rank"  # the learner's reward: rank, margin or score (see kdenv.kingdomino_v0)
    gains: Flag = False  # observe what each placement and next-line domino would score (see kdenv.encoding)


@dataclass(config=SECTION)
class NetworkConfig:
    channels: Annotated[Count, POSITIVE] = 16  # width of the convolutional trunk over the kingdom planes
    blocks: Count = 2  # residual blocks of two 3x3 convolutions
    hidden: Annotated[Count, POSITIVE] = 128  # width of the vector trunk (line features + pooled board)


@dataclass(config=SECTION)
class PPOConfig:
    total_timesteps: Annotated[Count, POSITIVE] = 1_000_000  # learner decisions to train for
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
    threads: Count = 2  # torch threads for the network (the env steps between its calls, on one)


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


@dataclass(config=SECTION)
class BCConfig:
    games: Annotated[Count, AT_LEAST_ZERO] = 0  # fg self-play games to imitate before PPO (0 = no warm start)
    teacher: Teacher = "fg"  # the player imitated (a compiled one: training.ppo.bc.TEACHERS)
    epochs: Count = 10  # passes over the recorded decisions
    batch_size: Count = 512
    learning_rate: Real = 1e-3
    value_weight: Real = 0.5  # weight of the value regression on the game's outcome
    max_minutes: Annotated[Real | None, BUDGET] = None  # stop imitating after this long (None = no limit)
    dagger: Annotated[Real, SHARE] = 0.0  # share of seats the student plays while imitating (DAgger)


@dataclass(config=SECTION)
class TrainConfig:
    backend: Literal["sb3"] = "sb3"  # MaskablePPO on the vector env (training.rllib.config: backend rllib)
    name: str = "run"  # run directory prefix: runs/<name>-<time>/
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


_EXPECTED = {
    "bool_type": "bool", "int_type": "int", "float_type": "float", "string_type": "str", "list_type": "a list",
    "dict_type": "a mapping", "dataclass_type": "a mapping",
}  # fmt: skip


def _one_line(error: Any, config: type) -> ConfigError:
    """The ConfigError for pydantic's first complaint about a ``config`` (a config class), naming the dotted key."""
    loc = tuple(error["loc"])
    if loc[-1:] == ("[key]",):  # a bad key of a mapping: named by the mapping
        loc = loc[:-2]
    key, kind, value = _dotted(loc), error["type"], error["input"]
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return ConfigError(f"unknown config key {key!r}; known keys here: {', '.join(_known_keys(loc[:-1], config))}")
    if kind == "config_range":
        return ConfigError(f"config key {key!r} {error['msg']}, got {value!r}")
    if kind == "literal_error":
        choices = ", ".join(map(str, typing.get_args(_type_at(loc, config))))
        return ConfigError(f"config key {key!r}: {value!r} is not one of {choices}")
    where = key or "the top level"
    if kind in _EXPECTED:
        return ConfigError(f"config key {where!r}: expected {_EXPECTED[kind]}, got {value!r}")
    return ConfigError(f"config key {where!r}: {error['msg']}, got {value!r}")


def _dotted(loc: tuple) -> str:
    """``("curriculum", 0, "opponents")`` -> ``curriculum[0].opponents``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _known_keys(loc: tuple, kind: Any) -> list[str]:
    """The keys of the section that the path ``loc`` leads to from the top level of a ``kind`` config."""
    return sorted(f.name for f in dataclasses.fields(_type_at(loc, kind)))


def _type_at(loc: tuple, kind: Any) -> Any:
    """The type of the key that the path ``loc`` leads to from the top level of a ``kind`` config."""
    for part in loc:
        # a section's key (its hint, Annotated stripped), or a list's item, a mapping's value
        kind = typing.get_type_hints(kind)[part] if dataclasses.is_dataclass(kind) else typing.get_args(kind)[-1]
    return kind


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


def check_env(env: EnvConfig) -> None:
    """A table the rules allow."""
    try:
        Rules.from_names(env.rules).setup(env.num_players)
    except KingdominoError as err:
        raise ConfigError(f"config key 'env': {err}") from None


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


def init_checkpoint(init: str, env: EnvConfig) -> str:
    """The file of a run's ``init``: a shipped checkpoint's name (``default``: the table's) or a path."""
    from agents.ppo_player import checkpoint_path

    return checkpoint_path(init, env.num_players, Rules.from_names(env.rules).kingdom_size)


def init_settings(init: str, env: EnvConfig):
    """(path, settings) of a run's ``init``, a checkpoint of this table and observation (gains), else a one-line
    ConfigError."""
    from agents.checkpoint import CheckpointError, read_checkpoint
    from agents.ppo_player import check_table

    path = init_checkpoint(init, env)
    try:
        settings, _ = read_checkpoint(path)
        check_table(settings, env.num_players, Rules.from_names(env.rules).kingdom_size, f"checkpoint {path!r}")
    except CheckpointError as err:
        raise ConfigError(f"config key 'init': {err}") from None
    if settings.gains != env.gains:
        raise ConfigError(
            f"config key 'init': {path} observes gains={settings.gains}, this run env.gains={env.gains}; "
            "give the same in the config"
        )
    return path, settings


def check_device(device: str, key: str = "ppo.device", kind: str = "config key") -> None:
    """A torch device that exists on this machine (``kind`` ``key``: a config key, or a command's option)."""
    import torch

    name = f"{kind} {key!r}"
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError):
        raise ConfigError(f"{name}: {device!r} is not a torch device (e.g. cpu, cuda)") from None
    if parsed.type not in ("cpu", "cuda", "mps"):
        raise ConfigError(f"{name}: {device!r} is not supported; use cpu, cuda or mps")
    if parsed.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"{name}: {device!r}, but torch sees no CUDA device here; use cpu")
    if parsed.type == "cuda" and (parsed.index or 0) >= torch.cuda.device_count():
        last = torch.cuda.device_count() - 1
        seen = "cuda:0" if last == 0 else f"cuda:0 to cuda:{last}"
        raise ConfigError(f"{name}: {device!r}, but torch sees only {seen} here; use one of those")
    if parsed.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"{name}: {device!r}, but torch sees no MPS device here; use cpu")


def check_writable(runs_dir: Path) -> None:
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


def check_opponent(spec: str, key: str, league: tuple[str, ...] = LEAGUE_OPPONENTS) -> None:
    """``spec`` names a player (or, where ``league`` allows, one of the learner's own networks)."""
    from agents.registry import is_own, known_names, known_players, parse_spec

    name, _ = parse_spec(spec)
    if spec not in league and name not in known_players() and not is_own(spec):
        raise ConfigError(f"config key {key!r}: unknown opponent {spec!r}; known: {', '.join(league)}, {known_names()}")


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
    config = validate(data, overrides, TrainConfig)
    check(config)
    return config


def validate(data: Any, overrides: list[str] | None, kind: type[T]) -> T:
    """A ``kind`` config (its keys and values validated) from a raw mapping plus ``key=value`` overrides."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a mapping of keys (see configs/smoke.yaml), not a {type(data).__name__}")
    data = {section: dict(value) if isinstance(value, dict) else value for section, value in data.items()}
    for assignment in overrides or []:
        _set(data, assignment)
    try:
        return TypeAdapter(kind).validate_python(data)
    except ValidationError as err:
        raise _one_line(err.errors()[0], kind) from None


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config file; a missing file, bad YAML, unknown key or bad value is a one-line ConfigError."""
    return config_from_dict(read_yaml(path), overrides)


def read_yaml(path: str | Path) -> Any:
    """The contents of a YAML config file; a missing file, a binary file or bad YAML is a one-line ConfigError."""
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
    return data
