"""Players from short spec strings: ``random``, ``fg``, ``mce:policy=fg,eval=r,seconds=1``, ``ppo:PATH``,
``rllib:PATH``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Player
from agents.options import keys, read_options
from kdenv.errors import KingdominoError
from kdenv.rules import Rules

# name -> "module:class"; a class with spec options (Player.Options) takes them read into that dataclass
# (agents.options), one whose spec is "name:PATH" gets it as the option ``path``.
PLAYERS: dict[str, str] = {
    "random": "agents.random_player:RandomPlayer",
    "gprd": "agents.greedy:GreedyPlacementPlayer",
    "fg": "agents.greedy:FullGreedyPlayer",
    "fgt": "agents.tie_break:TieBrokenFullGreedyPlayer",
    "mce": "agents.mce:MonteCarloPlayer",
    "uct": "agents.uct:UCTPlayer",
    "ppo": "agents.ppo_player:PPOPlayer",
    "az": "agents.az:AZPlayer",
    "rllib": "agents.rllib_player:RLlibPlayer",
}


class PlayerSpecError(KingdominoError):
    """A spec string that names no player or gives it options it does not take."""


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


def make_player(spec: str, num_players: int | None = None, rules: Rules | None = None) -> Player:
    """Create the player a spec string describes; a one-line PlayerSpecError on a bad spec. With the table
    (``num_players``, ``rules``) it is seated there (:meth:`Player.seat_at`), which may refuse it."""
    name, options = parse_spec(spec)
    if name not in PLAYERS:
        raise PlayerSpecError(f"unknown player {name!r} in spec {spec!r}; known players: {', '.join(PLAYERS)}")
    module, _, attr = PLAYERS[name].partition(":")
    kind: type[Player] = getattr(importlib.import_module(module), attr)
    factory: Callable[..., Player] = kind  # a class with Options takes them
    known = sorted(keys(kind.Options)) if kind.Options else []
    unknown = [key for key in options if key not in known]
    if unknown:
        key = unknown[0]
        if key == "path":
            reason = f"{name} takes no file or path (got {options[key]!r})"
        else:
            reason = f"unknown option {key!r}; {name} takes {', '.join(known) or 'no options'}"
        raise PlayerSpecError(f"player spec {spec!r}: {reason}")
    try:
        player = factory(read_options(kind.Options, options)) if kind.Options else factory()
    except ValueError as err:
        raise PlayerSpecError(f"player spec {spec!r}: {err}") from None
    player.spec = spec
    if num_players is not None:
        player.seat_at(num_players, rules or Rules())
    return player
