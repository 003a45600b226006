"""Players from short spec strings: ``random``, ``fg``, ``mce:policy=fg,eval=r,seconds=1``, ``ppo:PATH``,
``sb3:PATH``, ``rllib:PATH``, and players of one's own.

A spec is ``NAME[:PATH][,key=value...]``. NAME is a built-in player (:data:`PLAYERS`), one that an installed package
registers under the entry-point group ``kdenv.players`` (name -> ``module:attr``), or, for a player of one's own,
an importable dotted module: ``mybots.greedy:Cautious`` or ``mybots:Cautious,depth=2`` import ``Cautious`` from that
module. What a name leads to is a :class:`~agents.base.Player` class, whose ``Options`` dataclass takes the spec's
options (:mod:`agents.options`; a spec's PATH is the option ``path``), or a factory returning a Player, whose
keyword parameters take them, read by their annotations as an Options field is.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import typing
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any

from agents.base import Player
from agents.options import keys, read, read_options
from kdenv.errors import KingdominoError
from kdenv.rules import Rules

ENTRY_POINTS = "kdenv.players"  # the entry-point group through which installed packages name their players

# name -> "module:attr" of the built-in players
PLAYERS: dict[str, str] = {
    "random": "agents.random_player:RandomPlayer",
    "gprd": "agents.greedy:GreedyPlacementPlayer",
    "fg": "agents.greedy:FullGreedyPlayer",
    "fgt": "agents.tie_break:TieBrokenFullGreedyPlayer",
    "mce": "agents.mce:MonteCarloPlayer",
    "uct": "agents.uct:UCTPlayer",
    "ppo": "agents.ppo_player:PPOPlayer",
    "az": "agents.az:AZPlayer",
    "sb3": "agents.sb3_player:SB3Player",
    "rllib": "agents.rllib_player:RLlibPlayer",
}
CODE_PLAYERS = ("sb3", "rllib")  # built-ins whose files are unpickled (they run code): command line and Python only


class PlayerSpecError(KingdominoError):
    """A spec string that names no player or gives it options it does not take."""


@functools.cache
def installed_players() -> dict[str, str]:
    """name -> ``module:attr`` of the players that installed packages register (entry points ``kdenv.players``)."""
    return {point.name.lower(): point.value for point in entry_points(group=ENTRY_POINTS)}


def known_players() -> dict[str, str]:
    """Every player a name reaches: the built-ins, then the installed ones (a built-in name cannot be taken)."""
    return {**installed_players(), **PLAYERS}


def known_names() -> str:
    """The known players in words, for help texts and errors."""
    installed = [name for name in installed_players() if name not in PLAYERS]
    extra = f"; installed: {', '.join(installed)}" if installed else ""
    return f"{', '.join(PLAYERS)}{extra}; or MODULE:ATTR for a player of your own"


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,key=value`` (or ``name:PATH``) into the name and its options (text)."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    if rest:
        parts = rest.split(",")
        if "=" not in parts[0]:
            options["path"] = parts.pop(0)
        for part in parts:
            key, eq, value = part.partition("=")
            if not eq or not key:
                raise PlayerSpecError(f"player spec {spec!r}: option {part!r} is not key=value")
            options[key.strip()] = value.strip()
    return name.strip().lower(), options


def is_own(spec: str) -> bool:
    """Whether ``spec`` names a module of its own (``MODULE:ATTR``) rather than a built-in or installed player."""
    name, options = parse_spec(spec)
    return name not in known_players() and "path" in options


def make_player(spec: str, num_players: int | None = None, rules: Rules | None = None) -> Player:
    """Create the player a spec string describes; a one-line PlayerSpecError on a bad spec. With the table
    (``num_players``, ``rules``) it is seated there (:meth:`Player.seat_at`), which may refuse it."""
    name, options = parse_spec(spec)
    target = known_players().get(name)
    if target is None:
        if "path" not in options:
            raise PlayerSpecError(f"unknown player {name!r} in spec {spec!r}; known players: {known_names()}")
        target = f"{spec.strip().partition(':')[0].strip()}:{options.pop('path')}"  # MODULE:ATTR, case kept
        name = target
    made = _load(target, spec)
    if isinstance(made, type):
        player = _from_class(made, name, options, spec)
    elif callable(made):
        player = _from_factory(made, options, spec)
    else:
        raise PlayerSpecError(f"player spec {spec!r}: {target} is {made!r}, not a Player class or a factory of one")
    player.spec = spec
    if num_players is not None:
        player.seat_at(num_players, rules or Rules())
    return player


def _load(target: str, spec: str) -> Any:
    """The object that ``module:attr`` names (attr may be dotted); a one-line PlayerSpecError if there is none."""
    module, _, attr = target.partition(":")
    try:
        found: Any = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and (module == err.name or module.startswith(err.name + ".")):
            raise PlayerSpecError(
                f"player spec {spec!r}: no module named {module!r}; install it, or run where it lies "
                "(or put its folder on PYTHONPATH)"
            ) from None
        raise PlayerSpecError(f"player spec {spec!r}: importing {module} failed: {err}") from None
    except Exception as err:  # the user's module is not ours to trust: its error is told in one line
        raise PlayerSpecError(f"player spec {spec!r}: importing {module} failed: {type(err).__name__}: {err}") from None
    except SystemExit as err:  # nor is it the module's to end the process
        raise PlayerSpecError(f"player spec {spec!r}: importing {module} called sys.exit({err.code!r})") from None
    for part in attr.split("."):
        if not hasattr(found, part):
            raise PlayerSpecError(f"player spec {spec!r}: {module} has no {attr!r}")
        found = getattr(found, part)
    return found


def _from_class(kind: type, name: str, options: dict[str, str], spec: str) -> Player:
    """An instance of the Player class ``kind``, its ``Options`` read from the spec."""
    if not issubclass(kind, Player):
        raise PlayerSpecError(f"player spec {spec!r}: {kind.__qualname__} is not an agents.Player subclass")
    known = sorted(keys(kind.Options)) if kind.Options else []
    _refuse_unknown(options, known, name, spec)
    factory: Callable[..., Player] = kind  # a class with Options takes them
    try:
        return factory(read_options(kind.Options, options)) if kind.Options else factory()
    except ValueError as err:
        raise PlayerSpecError(f"player spec {spec!r}: {err}") from None


def _from_factory(factory: Callable[..., Any], options: dict[str, str], spec: str) -> Player:
    """What the factory returns for the spec's options, each read by the annotation of its keyword parameter."""
    parameters = inspect.signature(factory).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    if not takes_any:
        _refuse_unknown(options, sorted(parameters), getattr(factory, "__name__", "the factory"), spec)
    hints: Mapping[str, Any] = typing.get_type_hints(factory, include_extras=True)
    try:
        player = factory(**{key: read(key, text, hints.get(key, str)) for key, text in options.items()})
    except (TypeError, ValueError) as err:  # text a parameter cannot take, or a required one not given
        raise PlayerSpecError(f"player spec {spec!r}: {err}") from None
    if not isinstance(player, Player):
        returned = type(player).__name__
        raise PlayerSpecError(f"player spec {spec!r}: the factory returned {returned}, not an agents.Player")
    return player


def _refuse_unknown(options: Mapping[str, str], known: list[str], name: str, spec: str) -> None:
    """A one-line PlayerSpecError for the first option that the player does not take."""
    unknown = [key for key in options if key not in known]
    if unknown:
        key = unknown[0]
        if key == "path":
            reason = f"{name} takes no file or path (got {options[key]!r})"
        else:
            reason = f"unknown option {key!r}; {name} takes {', '.join(known) or 'no options'}"
        raise PlayerSpecError(f"player spec {spec!r}: {reason}")
