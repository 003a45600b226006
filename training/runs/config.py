"""The config library every trainer reads (PPO, RLlib, expert iteration, the benchmark): typed sections read
from YAML, checked key by key, overridable with ``--set``.

A trainer's config is a pydantic dataclass of sections built from the types here; a number's range is an
:class:`agents.options.Bound` (:data:`POSITIVE`...), the one that bounds a player's spec options too. An unknown key
or a bad value is a one-line :class:`ConfigError` naming the dotted key (``ppo.n_steps``). The sections every
trainer shares (the table, the network) and the checks that need the machine (the table's rules, an opponent's
name, the device, a writable ``runs_dir``, the ``init`` checkpoint) are here too.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import sys
import tempfile
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Strict, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from agents.options import OUT_OF_BOUND, Bound, dotted, shown
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


def _plain_name(value: str) -> str:
    """A name that becomes a file or folder name as it is: nothing that leads elsewhere (``..``, ``/x``, ``a/b``)."""
    if value in ("", ".", "..") or "/" in value or "\\" in value or "\0" in value:
        raise PydanticCustomError("file_name", "must be a plain file name (no '/', not '.' or '..')")
    return value


Count = Annotated[int, Strict(), BeforeValidator(_whole_number)]  # no bool, no string, no fraction
Real = Annotated[float, Strict(), BeforeValidator(_number_text)]  # an int or a number, no bool
Flag = Annotated[bool, Strict()]  # true or false, nothing else
FileName = Annotated[str, Strict(), AfterValidator(_plain_name)]  # a name a path is made of: stays in its folder


# a key's range: an agents.options.Bound, as a spec option's, in the words that the config's errors have always said
POSITIVE = Bound(high=math.inf, says="must be positive")
AT_LEAST_ZERO = Bound(least=True, high=math.inf, says="must be >= 0")
DISCOUNT = Bound(high=1, says="must be in (0, 1]")
SHARE = Bound(least=True, high=1, says="must be in [0, 1]")
BUDGET = Bound(high=math.inf, says="must be positive (or null for no limit)")
GamesBackend = Literal["local", "ray"]  # where tournaments play (training.arena.tournament.Tournament.run)
T = TypeVar("T")
Section = Annotated[T, BeforeValidator(lambda value: {} if value is None else value)]  # an empty section: defaults
SECTION = ConfigDict(extra="forbid")


# ----- the sections every trainer shares ---------------------------------------------------------------------
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


_EXPECTED = {
    "bool_type": "bool", "int_type": "int", "float_type": "float", "string_type": "str", "list_type": "a list",
    "dict_type": "a mapping", "dataclass_type": "a mapping",
}  # fmt: skip


def _one_line(error: Any, config: type) -> ConfigError:
    """The ConfigError for pydantic's first complaint about a ``config`` (a config class), naming the dotted key."""
    loc = tuple(error["loc"])
    if loc[-1:] == ("[key]",):  # a bad key of a mapping: named by the mapping
        loc = loc[:-2]
    key, kind, value = dotted(loc), error["type"], shown(error["input"])
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return ConfigError(f"unknown config key {key!r}; known keys here: {', '.join(_known_keys(loc[:-1], config))}")
    if kind == OUT_OF_BOUND:
        return ConfigError(f"config key {key!r} {error['msg']}, got {value}")
    if kind == "literal_error":
        choices = ", ".join(map(str, typing.get_args(_type_at(loc, config))))
        return ConfigError(f"config key {key!r}: {value} is not one of {choices}")
    where = key or "the top level"
    if kind in _EXPECTED:
        return ConfigError(f"config key {where!r}: expected {_EXPECTED[kind]}, got {value}")
    return ConfigError(f"config key {where!r}: {error['msg']}, got {value}")


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
def check_env(env: EnvConfig) -> None:
    """A table the rules allow."""
    try:
        Rules.from_names(env.rules).setup(env.num_players)
    except KingdominoError as err:
        raise ConfigError(f"config key 'env': {err}") from None


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


TRAINER, OLD_TRAINER = "trainer", "backend"  # the key that chooses the trainer, and its old name


def renamed(data: dict, quiet: bool = False) -> dict:
    """``data`` with an old config's top-level ``backend`` (the trainer's key before it was named ``trainer``, now
    kept for where games run) read as ``trainer``, said in one line unless ``quiet``."""
    if OLD_TRAINER not in data:
        return data
    if TRAINER in data:
        raise ConfigError(f"config keys {OLD_TRAINER!r} and {TRAINER!r}: give {TRAINER!r} alone (it names the trainer)")
    if not quiet:
        _note_renamed(str(data[OLD_TRAINER]))
    return {(TRAINER if key == OLD_TRAINER else key): value for key, value in data.items()}


@functools.cache
def _note_renamed(trainer: str) -> None:
    """The one line that tells an old config's key (once a process)."""
    print(f"kdenv: note: config key {OLD_TRAINER!r} is now {TRAINER!r}; read as {TRAINER}: {trainer}", file=sys.stderr)


def validate(data: Any, overrides: list[str] | None, kind: type[T]) -> T:
    """A ``kind`` config (its keys and values validated) from a raw mapping plus ``key=value`` overrides."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a mapping of keys (see configs/smoke.yaml), not a {type(data).__name__}")
    data = {section: dict(value) if isinstance(value, dict) else value for section, value in data.items()}
    for assignment in overrides or []:
        _set(data, assignment)
    data = renamed(data)
    try:
        return TypeAdapter(kind).validate_python(data)
    except ValidationError as err:
        raise _one_line(err.errors()[0], kind) from None


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
