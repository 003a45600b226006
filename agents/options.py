"""A player's spec options, declared once as a frozen dataclass and read from the spec's strings here, once.

A player class with options names its dataclass ``Options`` and takes an instance of it; each field's type says
how its text is read: ``str``, ``bool`` (true/false, 1/0, yes/no), ``int`` or ``float`` within a :class:`Bound`
(``Annotated[int, Bound(1, least=True)]``; none given: above 0 and at most :data:`LARGEST`), a ``Literal`` of
choices, ``X | None`` (None: not given). Every number is finite and bounded above, so that no option can ask for a
search that never ends: a thinking budget is at most an hour (:data:`SECONDS`) or a million playouts or simulations
(:data:`COUNT`) a decision. A field whose spec key differs from its name says so (``Annotated[str, Key("eval")]``).
Bad text is a one-line ValueError, which the registry turns into a PlayerSpecError.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

T = TypeVar("T")
ClockName = Literal["wall", "cpu"]  # a thinking budget's clock: wall time, or this process's CPU time


LARGEST = 1e9  # the most any number option takes unless its Bound says otherwise


@dataclass(frozen=True)
class Bound:
    """A number option's range: above ``low`` (or at least it, with ``least``), at most ``high`` (finite)."""

    low: float = 0.0
    least: bool = False
    high: float = LARGEST

    def refuses(self, value: float) -> str | None:
        """Why ``value`` lies outside the bound (``must be at most 1``), or None where it lies within."""
        if not (value > self.low or (self.least and value == self.low)):  # also refuses nan
            return f"must be {'at least' if self.least else 'greater than'} {self.low:g}"
        if value > self.high:  # infinity too: every Bound's high is finite unless a caller asks for none
            return f"must be at most {self.high:g}"
        return None


SECONDS = Bound(high=3600)  # a thinking budget in seconds: an hour a decision at most
COUNT = Bound(high=1_000_000)  # playouts or simulations a decision: under an hour at the compiled playouts' speed
CONSTANT = Bound(least=True, high=1000)  # a search's exploration constants and scales
SEED = Bound(least=True, high=2**63 - 1)  # what numpy's generators take


@dataclass(frozen=True)
class Key:
    """The spec's name of an option whose field is named otherwise."""

    name: str


def fields(kind: type) -> dict[str, tuple[str, Any, dataclasses.Field]]:
    """Spec key -> (field name, type, field) of the options dataclass ``kind``."""
    hints = typing.get_type_hints(kind, include_extras=True)
    found = {}
    for f in dataclasses.fields(kind):
        key = next((x.name for x in _extras(hints[f.name]) if isinstance(x, Key)), f.name)
        found[key] = (f.name, hints[f.name], f)
    return found


def keys(kind: type) -> set[str]:
    """The spec keys of the options dataclass ``kind``."""
    return set(fields(kind))


def bounds(kind: type) -> dict[str, Bound]:
    """Field name -> :class:`Bound` of each field of the dataclass ``kind`` that declares one."""
    hints = typing.get_type_hints(kind, include_extras=True)
    declared = {f.name: [x for x in _extras(hints[f.name]) if isinstance(x, Bound)] for f in dataclasses.fields(kind)}
    return {name: found[0] for name, found in declared.items() if found}


def read_options(kind: type[T], options: Mapping[str, str]) -> T:
    """The ``kind`` (an options dataclass) that the spec's ``options`` (key -> text) give; a one-line ValueError
    on an unknown key, a missing one or text its field cannot take."""
    declared = fields(kind)
    values: dict[str, Any] = {}
    for key, text in options.items():
        if key not in declared:
            raise ValueError(f"unknown option {key!r}")
        name, hint, _ = declared[key]
        values[name] = read(key, text, hint)
    for key, (name, _, f) in declared.items():
        if name not in values and f.default is dataclasses.MISSING:
            raise ValueError(f"no {key} given")
    return kind(**values)


def _extras(hint: Any) -> tuple:
    """The ``Annotated`` metadata of ``hint`` (inside ``X | None`` too)."""
    if get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(x for arg in get_args(hint) for x in _extras(arg))
    return hint.__metadata__ if get_origin(hint) is Annotated else ()


def read(key: str, text: str, hint: Any) -> Any:
    """``text`` read as the type ``hint`` says (see the module docstring)."""
    bound = next((x for x in _extras(hint) if isinstance(x, Bound)), Bound())
    while get_origin(hint) in (typing.Union, types.UnionType, Annotated):  # X | None, Annotated, either inside
        if get_origin(hint) is Annotated:
            hint = get_args(hint)[0]
        else:
            (hint,) = (arg for arg in get_args(hint) if arg is not type(None))
    if get_origin(hint) is Literal:
        return choice(key, text, get_args(hint))
    if hint is bool:
        return flag(key, text)
    if hint in (int, float):
        return number(key, text, hint, bound.low, bound.least, bound.high)
    return text


def choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``, else a one-line ValueError."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not one of {', '.join(allowed)}")
    return value


def flag(name: str, value: str) -> bool:
    """``value`` read as a yes/no option (true/false, 1/0, yes/no), else a one-line ValueError."""
    if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(f"{name} must be true or false, not {value!r}")
    return value.lower() in ("true", "1", "yes")


def number(name: str, value: str, kind: Callable[[str], float] = float, minimum: float = 0.0, least: bool = False,
           high: float = LARGEST) -> float:  # fmt: skip
    """``value`` read as ``kind`` (float or int), above ``minimum`` (or at least it, with ``least``) and at most
    ``high``, else a one-line ValueError."""
    try:
        read = kind(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}={value!r} is not a{'n integer' if kind is int else ' number'}") from None
    why = Bound(minimum, least, high).refuses(read)
    if why:
        raise ValueError(f"{name}={value!r} {why}")
    return read
