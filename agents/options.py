"""A player's spec options, declared once as a frozen dataclass and read from the spec's strings here, once; and
:class:`Bound`, the one range of a number, that pydantic checks in a spec's options and a training config's keys.

A player class with options names its dataclass ``Options`` and takes an instance of it; each field's type says
how its text is read: ``str``, ``bool`` (true/false, 1/0, yes/no), ``int`` or ``float`` within a :class:`Bound`
(``Annotated[int, Bound(1, least=True)]``; none given: above 0 and at most :data:`LARGEST`), a ``Literal`` of
choices, ``X | None`` (None: not given). Every number is finite and bounded above, so that no option can ask for a
search that never ends: a thinking budget is at most an hour (:data:`SECONDS`) or a million playouts or simulations
(:data:`COUNT`) a decision. A field whose spec key differs from its name says so (``Annotated[str, Key("eval")]``).
Pydantic validates each text (an adapter for each type read, made once): a number as Python reads an int or a
float (``1e7`` is no int), then its Bound, by the code that checks a config key's
(``Annotated[Count, Bound(...)]`` in ``training.runs.config``). Its complaint is a one-line ValueError naming the
option, which the registry turns into a PlayerSpecError. :func:`dotted` and :func:`shown` put the key and the value
of a complaint in words, for a config's keys and a file's fields too.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import reprlib
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from pydantic import BeforeValidator, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter, ValidationError
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, ErrorDetails, PydanticCustomError, core_schema

T = TypeVar("T")
ClockName = Literal["wall", "cpu"]  # a thinking budget's clock: wall time, or this process's CPU time


LARGEST = 1e9  # the most any number option takes unless its Bound says otherwise
OUT_OF_BOUND = "out_of_bound"  # the type of pydantic's error for a number that its Bound refuses
NOT_A_FLAG = "not_a_flag"  # and for a yes/no option's text that is none of FLAGS
FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}  # any case


@dataclass(frozen=True)
class Bound:
    """A number's range: above ``low`` (or at least it, with ``least``), at most ``high``; a pydantic constraint
    (``Annotated[X, Bound(...)]``) whose refusal says ``says`` where given (``must be positive``), else the range."""

    low: float = 0.0
    least: bool = False
    high: float = LARGEST
    says: str | None = None

    def refuses(self, value: float) -> str | None:
        """Why ``value`` lies outside the bound (``must be at most 1``), or None where it lies within."""
        if not (value > self.low or (self.least and value == self.low)):  # also refuses nan
            return self.says or f"must be {'at least' if self.least else 'greater than'} {self.low:g}"
        if value > self.high:  # infinity too: every Bound's high is finite unless a caller asks for none
            return self.says or f"must be at most {self.high:g}"
        return None

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """The type's own validation, then the bound's (None, where the type takes it, lies within)."""
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """A number's JSON Schema with the bound (the web game's offered budgets)."""
        words = handler(schema)
        words["minimum" if self.least else "exclusiveMinimum"] = self.low
        if math.isfinite(self.high):
            words["maximum"] = self.high
        return words

    def _check(self, value: Any) -> Any:
        """``value`` where the bound takes it, else pydantic's complaint."""
        why = None if value is None else self.refuses(value)
        if why:
            raise PydanticCustomError(OUT_OF_BOUND, why)
        return value


SECONDS = Bound(high=3600)  # a thinking budget in seconds: an hour a decision at most
COUNT = Bound(high=1_000_000)  # playouts or simulations a decision: under an hour at the compiled playouts' speed
CONSTANT = Bound(least=True, high=1000)  # a search's exploration constants and scales
SEED = Bound(least=True, high=2**63 - 1)  # what numpy's generators take


_SHORT = reprlib.Repr()  # a value in a complaint: long strings, lists and nesting cut short
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlevel = 60, 60, 3


def shown(value: Any) -> str:
    """``value`` as a one-line complaint shows it: its repr, cut short where it is long or deeply nested."""
    return _SHORT.repr(value)


def dotted(loc: tuple) -> str:
    """Pydantic's location of a complaint as a key: ``("curriculum", 0, "opponents")`` -> ``curriculum[0].opponents``
    (a config key, a file's field)."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


@dataclass(frozen=True)
class Key:
    """The spec's name of an option whose field is named otherwise."""

    name: str


@functools.cache
def fields(kind: type) -> dict[str, tuple[str, Any, dataclasses.Field]]:
    """Spec key -> (field name, type, field) of the options dataclass ``kind`` (read once: players are made per
    game)."""
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
    declared = {name: _bound_of(hint) for name, hint, _ in fields(kind).values()}
    return {name: bound for name, bound in declared.items() if bound is not None}


def read_options(kind: type[T], options: Mapping[str, str]) -> T:
    """The ``kind`` (an options dataclass) that the spec's ``options`` (key -> text) give; a one-line ValueError
    on an unknown key, a missing one or text its field cannot take."""
    declared = fields(typing.cast(type, kind))  # a class is hashable, which mypy does not see of a type[T]
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


def _bound_of(hint: Any) -> Bound | None:
    """The :class:`Bound` that ``hint`` declares, or None."""
    return next((x for x in _extras(hint) if isinstance(x, Bound)), None)


def read(key: str, text: str, hint: Any) -> Any:
    """``text`` read as the type ``hint`` says (see the module docstring); a one-line ValueError naming ``key``
    where it cannot be."""
    kind = _read_as(hint)
    bound = (_bound_of(hint) or Bound()) if kind in (int, float) else None
    try:
        return _reader(kind, bound).validate_python(text)
    except ValidationError as err:
        raise ValueError(_one_line(key, text, kind, err.errors()[0])) from None


def _read_as(hint: Any) -> Any:
    """The type a text of ``hint`` is read as: X of ``X | None`` and of ``Annotated[X, ...]``; str where X is none
    of bool, int, float and a ``Literal``."""
    while get_origin(hint) in (typing.Union, types.UnionType, Annotated):  # X | None, Annotated, either inside
        if get_origin(hint) is Annotated:
            hint = get_args(hint)[0]
        else:
            (hint,) = (arg for arg in get_args(hint) if arg is not type(None))
    return hint if hint in (bool, int, float) or get_origin(hint) is Literal else str


@functools.cache
def _reader(kind: Any, bound: Bound | None) -> TypeAdapter:
    """The pydantic adapter reading a text as ``kind`` (see :func:`_read_as`) within ``bound``: one for each."""
    if kind in (int, float):
        return TypeAdapter(Annotated[kind, bound, BeforeValidator(functools.partial(_number, kind))])
    if kind is bool:
        return TypeAdapter(Annotated[bool, BeforeValidator(_flag)])
    return TypeAdapter(kind)  # the text as it is, or one of a Literal's choices


def _number(kind: Callable[[str], float], text: str) -> float:
    """``text`` read as Python reads ``kind`` (int or float), else pydantic's complaint."""
    try:
        return kind(text)
    except (TypeError, ValueError, OverflowError):
        raise PydanticCustomError("not_a_number", "is not an integer" if kind is int else "is not a number") from None


def _flag(text: str) -> bool:
    """``text`` read as a yes/no option (:data:`FLAGS`), else pydantic's complaint."""
    value = FLAGS.get(text.lower())
    if value is None:
        raise PydanticCustomError(NOT_A_FLAG, "must be true or false")
    return value


def _one_line(key: str, text: str, kind: Any, error: ErrorDetails) -> str:
    """Pydantic's complaint about the text of the option ``key`` (read as ``kind``), in one line naming it."""
    if error["type"] == NOT_A_FLAG:
        return f"{key} {error['msg']}, not {text!r}"
    if error["type"] == "literal_error":
        return f"{key}={text!r} is not one of {', '.join(map(str, get_args(kind)))}"
    return f"{key}={text!r} {error['msg']}"
