"""``Table``: who sits at a game and under which rules, reward and observations, the value every env is built on.

The AEC env (:mod:`kdenv.kingdomino_v0`) and the vector env (:mod:`kdenv.vector`) take the same table keywords
(:class:`TableOptions`) and check them here once, each bad value a one-line :class:`~kdenv.errors.KingdominoError`::

    table = Table.of(4, reward="score", middle_kingdom=True)   # Table(num_players=4, rules=Rules(...), ...)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict, get_args

from kdenv.errors import KingdominoError
from kdenv.rules import Rules, player_count

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


@dataclass(frozen=True)
class Table:
    """The players, the rules, the reward and whether observations carry the gains (see :mod:`kdenv.encoding`)."""

    num_players: int
    rules: Rules
    reward: Reward = "rank"
    gains: bool = False

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
    ) -> Table:
        """The table of an env's keywords: ``rules``, or the rules built from the variant flags (not both)."""
        if reward not in REWARDS:
            raise KingdominoError(f"unknown reward {reward!r}; choose from {', '.join(REWARDS)}")
        made = make_rules(
            rules, mighty_duel, kingdom_size=kingdom_size, middle_kingdom=middle_kingdom, harmony=harmony,
            voluntary_discard=voluntary_discard,
        )  # fmt: skip
        num_players = player_count(num_players)
        made.setup(num_players)  # a clear error for an impossible table
        return cls(num_players, made, reward, gains)


def make_rules(rules: Rules | None = None, mighty_duel: bool = False, **flags: Any) -> Rules:
    """The Rules of an env: ``rules`` as given, or built from keyword flags (not both)."""
    if rules is not None:
        if mighty_duel or any(flags.values()):
            raise KingdominoError("give either rules= or rule keywords, not both")
        return rules
    if mighty_duel:
        flags["kingdom_size"] = 7
    return Rules(**{k: v for k, v in flags.items() if v is not None})
