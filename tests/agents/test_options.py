"""Spec options: declared once per player, read once by the registry into typed values."""

from __future__ import annotations

import dataclasses
import importlib
import typing

import pytest

from agents import PlayerSpecError, make_player
from agents.az import AZOptions
from agents.az_search import ROLLOUTS
from agents.mce import MCEOptions
from agents.options import COUNT, LARGEST, SECONDS, Bound, Key, fields, read, read_options
from agents.registry import PLAYERS
from agents.search_settings import Rollout


def player_classes() -> list[type]:
    """Every registered player's class."""
    classes = []
    for target in PLAYERS.values():
        module, _, attr = target.partition(":")
        classes.append(getattr(importlib.import_module(module), attr))
    return classes


@pytest.mark.parametrize("kind", [c.Options for c in player_classes() if c.Options], ids=lambda c: c.__name__)
def test_every_option_s_type_is_one_the_reader_reads(kind):
    """A field of a type the reader does not know would pass its text through untyped: each default's text reads
    back as the default (the paths as they are)."""
    hints = typing.get_type_hints(kind, include_extras=True)
    for field in dataclasses.fields(kind):
        if field.default is dataclasses.MISSING or field.default is None:
            continue
        text = str(field.default).lower() if isinstance(field.default, bool) else str(field.default)
        value = read(field.name, text, hints[field.name])
        assert (type(value), value) == (type(field.default), field.default), field.name


def test_the_registry_hands_players_typed_values():
    assert read_options(MCEOptions, {"eval": "wdl", "playouts": "50", "prune": "0", "width": "0"}) == MCEOptions(
        evaluation="wdl", playouts=50, prune=False, width=0
    )
    az = make_player("az:default,simulations=8,seed=3,mix=1,c=2,sample=true")
    assert (az.budget.count, az.base_seed, az.settings.mix, az.settings.c_puct, az.settings.sample) == (
        8, 3, 1.0, 2.0, True,
    )  # fmt: skip
    assert isinstance(az.settings.mix, float) and isinstance(az.base_seed, int)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("az:default,mix=1.5", "mix='1.5' must be at most 1"),
        ("az:default,considered=0", "considered='0' must be at least 1"),
        ("az:default,seed=-1", "seed='-1' must be at least 0"),
        ("mce:prune=2", "prune must be true or false, not '2'"),
        ("rllib", "no path given"),
        ("fg:some/file.zip", "fg takes no file or path (got 'some/file.zip')"),
    ],
)
def test_bounds_and_missing_options_are_one_line_errors(spec, message):
    with pytest.raises(PlayerSpecError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        make_player(spec)
    assert "\n" not in str(info.value)


def test_az_s_rollouts_are_the_search_s():
    assert set(typing.get_args(Rollout)) == {"none", "network", *ROLLOUTS}
    assert AZOptions().rollout == "fg" and AZOptions().mix == 1  # rollouts value the leaves by default


def test_a_bound_refuses_what_lies_outside_it():
    hint = typing.Annotated[float, Bound(1, least=True, high=2)]
    assert read("x", "1", hint) == 1.0 and read("x", "2", hint) == 2.0
    for text in ("0.5", "2.5", "nan"):
        with pytest.raises(ValueError, match="x="):
            read("x", text, hint)


def test_an_optional_type_is_read_whether_annotated_inside_or_around():
    """``Annotated[X | None, ...]`` (a renamed key around an optional choice, as ``az``'s ``eval``) is read as X."""
    for hint in (typing.Annotated[typing.Literal["a", "b"] | None, Key("k")], typing.Literal["a", "b"] | None):
        assert read("k", "a", hint) == "a"
        with pytest.raises(ValueError, match="k='c' is not one of a, b"):
            read("k", "c", hint)
    assert read("n", "3", typing.Annotated[int | None, Bound(1, least=True)]) == 3


def numeric_options() -> list[tuple[type, str, typing.Any]]:
    """(options class, spec key, type) of every number option of every registered player."""
    found = []
    for kind in (c.Options for c in player_classes() if c.Options):
        for key, (_, hint, _) in fields(kind).items():
            text = str(hint)
            if "int" in text or "float" in text:
                found.append((kind, key, hint))
    return found


@pytest.mark.parametrize(("kind", "key", "hint"), numeric_options(), ids=lambda x: getattr(x, "__name__", str(x)))
def test_every_number_option_is_finite_and_bounded_and_says_its_bound(kind, key, hint):
    for text in ("inf", "-inf", "nan", "1e308", "1" + "0" * 400):
        with pytest.raises(ValueError, match=rf"^{key}='[^']*' (must be|is not)") as info:
            read(key, text, hint)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=r"must be at most [0-9e+.]+$"):  # the bound said
        read(key, "9" * 20, hint)  # a whole number, past every bound


def test_the_search_budgets_end_within_an_hour_a_decision():
    assert SECONDS.high == 3600 and COUNT.high == 1_000_000 and float("inf") > LARGEST
    for spec, message in [
        ("az:default,c=inf", "c='inf' must be at most 1000"),
        ("mce:seconds=1e308", "seconds='1e308' must be at most 3600"),
        ("uct:playouts=2000000", "playouts='2000000' must be at most 1e+06"),
        ("az:default,simulations=1e7", "simulations='1e7' is not an integer"),
    ]:
        with pytest.raises(PlayerSpecError, match=message.replace("+", r"\+")):
            make_player(spec)
    assert make_player("mce:seconds=3600").budget.seconds == 3600  # an hour is still a budget
