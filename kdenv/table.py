"""``Table``: who sits at a game and under which rules, reward and observations, the value every env is built on.

Every env (the AEC env :mod:`kdenv.kingdomino_v0`, the Gymnasium view :mod:`kdenv.wrappers`, the vector envs) takes
the same table keywords (:class:`TableOptions`) and checks them here once, each bad value or unknown keyword a
one-line :class:`~kdenv.errors.KingdominoError`::

    table = Table.of(4, reward="score", middle_kingdom=True)   # Table(num_players=4, rules=Rules(...), ...)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, get_args

from kdenv.checks import flag
from kdenv.errors import KingdominoError
from kdenv.flat import OBSERVATIONS, Observation
from kdenv.rules import Rules, player_count
from kdenv.tiles import NUM_DOMINOES

Reward = Literal["rank", "margin", "score"]
"""The reward a player receives (see :mod:`kdenv.kingdomino_v0`); the compiled core numbers them in this order."""
REWARDS: tuple[Reward, ...] = get_args(Reward)


class TableOptions(TypedDict, total=False):
    """The table keywords of the envs, those of :meth:`Table.of` after ``num_players``."""

    reward: Reward
    rules: Rules | None
    kingdom_size: int | None
    mighty_duel: bool
    middle_kingdom: bool
    harmony: bool
    voluntary_discard: bool
    gains: bool
    observation: Observation


TABLE_KEYWORDS: tuple[str, ...] = tuple(TableOptions.__annotations__)  # in the order of Table.of


@dataclass(frozen=True)
class Table:
    """The players, the rules, the reward, whether observations carry the gains (see :mod:`kdenv.encoding`) and
    their format (the ``{"board", "features"}`` dict, or the flat vector of :mod:`kdenv.flat`)."""

    num_players: int
    rules: Rules
    reward: Reward = "rank"
    gains: bool = False
    observation: Observation = "dict"

    @classmethod
    def of(
        cls,
        num_players: int = 4,
        reward: str = "rank",
        rules: Rules | None = None,
        kingdom_size: int | None = None,
        mighty_duel: bool = False,
        middle_kingdom: bool = False,
        harmony: bool = False,
        voluntary_discard: bool = False,
        gains: bool = False,
        observation: str = "dict",
    ) -> Table:
        """The table of an env's keywords: ``rules``, or the rules built from the variant flags (not both)."""
        if reward not in REWARDS:
            raise KingdominoError(f"unknown reward {reward!r}; choose from {', '.join(REWARDS)}")
        if observation not in OBSERVATIONS:
            raise KingdominoError(f"unknown observation {observation!r}; choose from {', '.join(OBSERVATIONS)}")
        made = make_rules(
            rules, mighty_duel, kingdom_size=kingdom_size, middle_kingdom=middle_kingdom, harmony=harmony,
            voluntary_discard=voluntary_discard,
        )  # fmt: skip
        num_players = player_count(num_players)
        made.setup(num_players)  # a clear error for an impossible table
        return cls(num_players, made, reward, flag("gains", gains), observation)

    @property
    def flat(self) -> bool:
        """Whether observations are the flat vector of :mod:`kdenv.flat`."""
        return self.observation == "flat"


def check_keywords(name: str, env: Callable[..., Any], options: Mapping[str, Any]) -> None:
    """A one-line KingdominoError for a keyword in ``options`` (what an env's ``**table`` caught) that is no table
    keyword, naming the keywords of the env ``name`` (``env``'s own parameters, then the table's)."""
    unknown = [key for key in options if key not in TABLE_KEYWORDS]
    if not unknown:
        return
    if "max_cycles" in unknown:  # what pettingzoo.make(..., max_cycles=N) passes on
        raise KingdominoError(
            f"{name} takes no max_cycles: a game always ends by itself after its rounds (at most "
            f"{2 * NUM_DOMINOES} decisions, two per domino); leave max_cycles out"
        )
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    own = [p.name for p in inspect.signature(env).parameters.values() if p.kind in named]
    keywords = ", ".join(dict.fromkeys([*own, *TABLE_KEYWORDS]))
    noun = "keyword" if len(unknown) == 1 else "keywords"
    raise KingdominoError(f"{name} takes no {noun} {', '.join(map(repr, unknown))}; its keywords are {keywords}")


def make_rules(rules: Rules | None = None, mighty_duel: bool = False, **flags: Any) -> Rules:
    """The Rules of an env: ``rules`` as given, or built from keyword flags (not both; :class:`Rules` checks them)."""
    if rules is not None and not isinstance(rules, Rules):
        raise KingdominoError(
            f"rules must be a kdenv.rules.Rules or None, not {rules!r}: e.g. Rules(harmony=True), or "
            "Rules.from_names('middle_kingdom,harmony')"
        )
    mighty = flag("mighty_duel", mighty_duel)
    if mighty:
        if flags.get("kingdom_size") not in (None, 7):
            raise KingdominoError(f"mighty_duel is kingdom_size 7, not {flags['kingdom_size']!r}: give one of them")
        flags["kingdom_size"] = 7
    if flags.get("kingdom_size") is None:  # None: the default size
        flags.pop("kingdom_size", None)
    made = Rules(**flags)  # each flag checked, with rules= too
    if rules is None:
        return made
    if mighty or any(flags.values()):
        raise KingdominoError("give either rules= or rule keywords, not both")
    return rules
