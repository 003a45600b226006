"""Who plays which deal in which seat: balanced tables, rotated seats and duplicate deals.

The scheme, so that luck and seat order cancel out of the comparison:

* **Tables.** With as many agents as seats there is one table. With more, every set of
  ``players`` agents is a table (all combinations), so every agent meets every other
  equally often. A spec listed twice is two agents (``X fg fg fg`` seats three ``fg``).
* **Duplicate deals.** Deal ``d`` (deck order and king order, from seed
  ``seed * 1_000_000 + d``) is played by every table, once per *seating* of that table.
* **Seatings.** In seating ``k`` the table's i-th agent takes the seat whose king is drawn
  ``SEATINGS[n][k][i]``-th at set-up (the seats ranked by their first king in the deal's king
  order). The seatings form a Latin square: over one deal every agent holds every seat and
  every king-draw position once. For 2 and 3 players they are all the permutations; for 4
  players, four rows in which each pair of agents also draws first in two of the four.
* **Distinct seatings.** Seatings that put the same specs in the same seats are one game: a table
  with a spec listed twice (``ppo:default fg fg``) plays each distinct seating once per deal (3 of the
  6 at 3 players), not the same game twice with only the random tie-breaks apart.

One *round* is one deal for every table and distinct seating; a tournament plays whole rounds, so the
number of games is rounded up to a multiple of the round. Game ids count rounds, then tables,
then seatings, so a longer tournament with the same settings extends a shorter one.
"""

from __future__ import annotations

import itertools
from collections.abc import Container, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache

from agents.options import Bound
from kdenv.checks import integer
from kdenv.errors import KingdominoError
from kdenv.game import Game
from kdenv.rules import Rules

SCHEDULE = 2  # the scheme's version, in tournament.json: 2 since a repeated spec's seatings that swap it are one game
SEATINGS: dict[int, tuple[tuple[int, ...], ...]] = {
    2: tuple(itertools.permutations(range(2))),
    3: tuple(itertools.permutations(range(3))),
    4: ((0, 1, 2, 3), (3, 2, 1, 0), (1, 0, 3, 2), (2, 3, 0, 1)),
}
# the most games a tournament schedules (an evaluation, a benchmark grid's point): months of play on a machine
GAMES = Bound(high=10_000_000, says="must be from 1 to 10,000,000")
# a tournament's seed (a benchmark grid's too): what every generator takes, numpy's legacy seeding and torch's too
SEED = Bound(least=True, high=2**32 - 1, says="must be from 0 to 4,294,967,295")


class ScheduleError(KingdominoError):
    """A tournament that cannot be scheduled (too few agents, an impossible table size)."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: a deal, a table and one seating of it."""

    game_id: int
    deal: int  # index of the deal (the round)
    table: int  # index of the table (set of agents) in Schedule.tables
    seating: int  # index into SEATINGS[players]
    agents: tuple[str, ...]  # spec of the agent in each seat
    deal_seed: int  # seeds the deck and king order (Game(players, rules, deal_seed))
    play_seed: int  # seeds the players' own choices (agents.game_loop.play_game)


@dataclass(frozen=True)
class Schedule:
    """The balanced schedule of a tournament; ``games()`` gives its games in game-id order, one at a time."""

    agents: tuple[str, ...]
    players: int
    rules: Rules
    seed: int
    requested: int  # games asked for; ``total`` rounds it up to whole rounds

    def __post_init__(self) -> None:
        # a negative seed would deal a positive one's games (its deal seeds are negative, which Game refuses)
        object.__setattr__(self, "seed", integer("seed", self.seed, 0))  # frozen: set once, here
        self.rules.setup(self.players)  # raises for an impossible table (5 players, Mighty Duel with 3)
        if len(self.agents) < self.players:
            raise ScheduleError(
                f"{self.players}-player tables need at least {self.players} agents, got {len(self.agents)}; "
                f"list a spec more than once to seat it more than once (e.g. --agents random fg fg fg)"
            )
        for what, value, bound in (("the number of games", self.requested, GAMES), ("the seed", self.seed, SEED)):
            why = bound.refuses(value)
            if why:
                raise ScheduleError(f"{what} {why}, not {value}")

    @cached_property
    def tables(self) -> tuple[tuple[int, ...], ...]:
        """Each table as the indices of its agents in ``agents``."""
        return tuple(itertools.combinations(range(len(self.agents)), self.players))

    @cached_property
    def seatings(self) -> tuple[tuple[int, ...], ...]:
        """Each table's distinct seatings, as indices into ``SEATINGS[players]``: of the seatings that put the
        same specs in the same king-draw positions only the first is played."""
        distinct = []
        for table in self.tables:
            first: dict[tuple[str, ...], int] = {}
            for k, seating in enumerate(SEATINGS[self.players]):
                by_draw = sorted(zip(seating, table, strict=True))  # (rank, member), best-drawn first
                first.setdefault(tuple(self.agents[member] for _, member in by_draw), k)
            distinct.append(tuple(first.values()))
        return tuple(distinct)

    @property
    def round_size(self) -> int:
        """Games in one round: one deal for every table and distinct seating."""
        return sum(len(seatings) for seatings in self.seatings)

    @property
    def deals(self) -> int:
        return -(-self.requested // self.round_size)

    @property
    def total(self) -> int:
        return self.deals * self.round_size

    def deal_seed(self, d: int) -> int:
        """The seed of deal ``d``: ``Game(players, rules, seed)`` deals the same deck and king order each time."""
        return self.seed * 1_000_000 + d

    @cached_property
    def slots(self) -> tuple[tuple[int, int], ...]:
        """(table, seating) of each game of a round, in game-id order."""
        return tuple((t, k) for t in range(len(self.tables)) for k in self.seatings[t])

    def game(self, game_id: int) -> ScheduledGame:
        """The scheduled game ``game_id`` (0 to ``total - 1``), made alone: a schedule is never listed whole."""
        d, (t, k) = game_id // self.round_size, self.slots[game_id % self.round_size]
        seats_by_draw = _seats_by_draw(self.players, self.rules, self.deal_seed(d))
        agents: list[str] = [""] * self.players
        for member, rank in zip(self.tables[t], SEATINGS[self.players][k], strict=True):
            agents[seats_by_draw[rank]] = self.agents[member]
        play_seed = self.seed * 1_000_000_007 + game_id
        return ScheduledGame(game_id, d, t, k, tuple(agents), self.deal_seed(d), play_seed)

    def games(self, start: int = 0, done: Container[int] = ()) -> Iterator[ScheduledGame]:
        """The scheduled games with ids from ``start`` up to ``total`` but those in ``done``, in game-id order,
        each made when it is asked for: the first game of a million starts at once."""
        return (self.game(game_id) for game_id in range(start, self.total) if game_id not in done)

    def describe(self) -> str:
        """One line: tables, seatings, deals and games."""
        per_table = {len(seatings) for seatings in self.seatings}
        tables = (
            f"{len(self.tables)} table(s) x {per_table.pop()} seatings"
            if len(per_table) == 1
            else f"{len(self.tables)} tables with {self.round_size} distinct seatings in all"
        )
        return f"{tables} x {self.deals} deal(s) = {self.total} games of {self.players} players"


@lru_cache(maxsize=64)  # the games of a deal are asked for together: its deal is shuffled once
def _seats_by_draw(players: int, rules: Rules, deal_seed: int) -> tuple[int, ...]:
    """The seats of the deal seeded ``deal_seed`` ranked by their first king in its king order."""
    return tuple(dict.fromkeys(Game(players, rules, deal_seed).king_order))
