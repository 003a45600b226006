"""The players that ``kdenv play --web`` offers its clients: the one place that says whom a request may seat.

A request names an offered entry's ``spec`` as it is (``fg``, ``ppo:default``), or an entry's player with some of
its budget options, each within its bound (``mce:seconds=2``, ``uct:playouts=400``). Nothing else: never a path,
never ``rllib:`` or ``ppo:PATH`` (a checkpoint is a file the client would choose, and RLlib's unpickle code).
To offer another player, add one :class:`Offered` to ``OFFERED``, as ``az:default`` is.
A person who wants a checkpoint opponent names it on the command line (``--opponents ppo:PATH``): those specs are
offered as they are, to that server's clients (:class:`Offer`). Never code: a player of one's own (``MODULE:ATTR``)
or an ``sb3:`` model (unpickled) is refused even there, as the web game runs what its clients ask for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any

from pydantic import TypeAdapter

from agents.options import Bound, read
from agents.ppo_player import CHECKPOINTS
from agents.registry import PlayerSpecError, is_own, parse_spec
from kdenv.errors import KingdominoError


class NotOffered(KingdominoError):
    """A player spec that the server does not offer, or a budget beyond its bound."""


@dataclass(frozen=True)
class BudgetOption:
    """A budget option that a request may give: a number of ``kind`` (int or float) within ``bound``, whose high
    keeps any request from keeping an agent thinking for long."""

    kind: type
    bound: Bound

    def check(self, name: str, value: str) -> None:
        """Nothing if ``value`` lies within the bound, else a one-line ValueError: the spec's words for text that
        is no number above the bound's low (:mod:`agents.options`), the server's for one past its high."""
        if read(name, value, Annotated[self.kind, replace(self.bound, high=math.inf)]) > self.bound.high:
            raise ValueError(f"{name}={value} is more than this server allows (at most {self.bound.high:g})")

    def to_json(self) -> dict:
        """The option as JSON Schema words (pydantic's, with the bound's)."""
        option: Any = Annotated[self.kind, self.bound]  # a type for pydantic, which mypy takes for a form
        return TypeAdapter(option).json_schema()


SECONDS = BudgetOption(float, Bound(high=5))  # seconds per decision
PLAYOUTS = BudgetOption(int, Bound(high=1000))  # playouts per decision: about 4 s of fg playouts on one core
SIMULATIONS = BudgetOption(int, Bound(high=2000))  # az's simulations per decision: about 2 s on one core


@dataclass(frozen=True)
class Offered:
    """A player a request may name: ``spec`` as it is, or its player with some of the budget ``options``."""

    spec: str
    options: Mapping[str, BudgetOption] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The entry's player name as written: a request must name it so (the offer matches text, no reading)."""
        return self.spec.partition(":")[0]

    @property
    def path(self) -> str | None:
        """The shipped network the entry names (``az:default``), or None."""
        return parse_spec(self.spec)[1].get("path")

    def to_json(self) -> dict:
        return {"spec": self.spec, "options": {key: option.to_json() for key, option in self.options.items()}}


OFFERED: tuple[Offered, ...] = (
    Offered("fg"),
    Offered("fgt"),
    Offered("gprd"),
    Offered("random"),
    Offered("mce:seconds=0.5", {"seconds": SECONDS, "playouts": PLAYOUTS}),
    Offered("uct:seconds=0.5", {"seconds": SECONDS, "playouts": PLAYOUTS}),
    Offered("az:default,seconds=0.5", {"seconds": SECONDS, "simulations": SIMULATIONS}),
    # the shipped checkpoints by name (ppo:default plays the table's own); never a path
    *(Offered(f"ppo:{path.stem}") for path in sorted(CHECKPOINTS.glob("*.zip")) if path.stem.isidentifier()),
)


class Offer:
    """The players one server offers: ``OFFERED`` and the specs that its command line named."""

    def __init__(self, named: Sequence[str] = ()) -> None:
        for spec in named:
            if is_own(spec) or parse_spec(spec)[0] == "sb3":
                raise NotOffered(
                    f"the web game offers no {spec!r}: it runs code of its own (a module or an unpickled model); "
                    "play it in `kdenv tournament` or `kdenv evaluate`"
                )
        known = {entry.spec for entry in OFFERED}
        extra = dict.fromkeys(spec.strip() for spec in named if spec.strip() not in known)
        self.entries = (*OFFERED, *(Offered(spec) for spec in extra))

    def specs(self) -> list[str]:
        return [entry.spec for entry in self.entries]

    def to_json(self) -> list[dict]:
        return [entry.to_json() for entry in self.entries]

    def choose(self, spec: str, where: str) -> str:
        """``spec`` (stripped) if this server offers it, else a one-line NotOffered that says what is offered
        (the same words for every spec not offered: a refusal tells nothing about files)."""
        text = spec.strip()
        if text in self.specs():
            return text
        entry, options = self._budgeted(text)
        if entry is None:
            raise NotOffered(f"{where} is not a player this server offers; {self.choices()}")
        for key, value in options.items():
            try:
                entry.options[key].check(key, value)
            except ValueError as err:
                raise NotOffered(f"{where}: {err}") from None
        return text

    def _budgeted(self, text: str) -> tuple[Offered | None, dict[str, str]]:
        """The entry whose player ``text`` names with budget options of that entry only, and those options
        (no entry: None)."""
        try:
            options = parse_spec(text)[1]
        except PlayerSpecError:
            return None, {}
        path = options.pop("path", None)  # a shipped network by name (az:default), as the entry names it
        entry = next(
            (e for e in self.entries if e.options and e.name == text.partition(":")[0] and e.path == path), None
        )
        return (entry, options) if entry is not None and options.keys() <= entry.options.keys() else (None, {})

    def choices(self) -> str:
        """What a request may name, in words."""
        budgets = "; ".join(
            f"{e.name} takes " + " or ".join(f"{key}= up to {option.bound.high:g}" for key, option in e.options.items())
            for e in self.entries
            if e.options
        )
        return f"choose one of {', '.join(self.specs())} (GET /api/players); {budgets}"
