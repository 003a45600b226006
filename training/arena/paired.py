"""Two agents measured on the same deals, compared deal by deal: the paired difference of their win rates and
margins with 95% t intervals, the deal as the unit (the luck of a deal, shared by both, cancels out)."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Iterator
from typing import Annotated

from pydantic import BaseModel, model_validator
from pydantic_core import PydanticCustomError

from agents.options import Bound
from kdenv.files import stream_jsonl
from training.arena.contents import READ_BACK, checked
from training.arena.stats import clustered_mean, seat_outcome, standings, t95

# a kingdom's score: far above any (kdenv.kingdom.max_score: 312 at 7x7, then bonuses), so the margins stay finite
SCORES = 10_000
Score = Annotated[int, Bound(least=True, high=SCORES)]


class Final(BaseModel):
    model_config = READ_BACK
    scores: list[Score]  # by seat
    winners: list[int]  # seats


class Place(BaseModel):
    model_config = READ_BACK
    deal: Annotated[int, Bound(least=True)]
    placings: list[Annotated[float, Bound(least=True, high=3)]] = []  # by seat, 0 first: whom a forfeit puts last


class Forfeited(BaseModel):
    model_config = READ_BACK
    seat: Annotated[int, Bound(least=True, high=3)]


class GameLine(BaseModel):
    """What :func:`by_deal` reads of a line of a tournament's ``games.jsonl``: the seats' agents, their final scores
    and winners, the game's deal, and its forfeits with the placings that put them last."""

    model_config = READ_BACK
    agents: list[str]
    final: Final
    tournament: Place
    forfeits: list[Forfeited] = []  # the seats that broke the game: last, with a score of 0 (stats.standings)

    @model_validator(mode="after")
    def _seats(self) -> GameLine:
        seats = range(len(self.agents))
        if len(self.final.scores) != len(seats) or not self.final.winners or set(self.final.winners) - set(seats):
            raise PydanticCustomError("seats", "final.scores and final.winners do not match the seats of agents")
        if self.forfeits and (
            len(self.tournament.placings) != len(seats) or {f.seat for f in self.forfeits} - set(seats)
        ):
            raise PydanticCustomError("seats", "forfeits and tournament.placings do not match the seats of agents")
        return self


def seat_results(games: str | os.PathLike, spec: str) -> Iterator[tuple[int, float, int, int]]:
    """(deal, win share, margin, score) of each of ``spec``'s seats in a tournament's ``games.jsonl``, in the file's
    order, read a line at a time, each line checked (a one-line error names it); forfeits scored as the figures score
    them."""
    for where, value in stream_jsonl(games):
        game = checked(GameLine, value, where)
        scores, winners = standings(game.model_dump())
        for seat, agent in enumerate(game.agents):
            if agent == spec:
                yield (game.tournament.deal, *seat_outcome(scores, winners, seat), scores[seat])


def by_deal(games: str | os.PathLike, spec: str) -> dict[int, tuple[float, float]]:
    """Deal -> (mean win share, mean margin) of ``spec``'s seats over that deal's games in a tournament's
    ``games.jsonl`` (:func:`seat_results`)."""
    seats: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for deal, win, margin, _ in seat_results(games, spec):
        seats[deal].append((win, margin))
    return {
        deal: (sum(w for w, _ in outcomes) / len(outcomes), sum(m for _, m in outcomes) / len(outcomes))
        for deal, outcomes in sorted(seats.items())
    }


def difference(ours: dict[int, tuple[float, float]], theirs: dict[int, tuple[float, float]]) -> dict:
    """The mean per-deal difference ``ours - theirs`` in win rate and margin over the deals both have, each with
    its 95% t interval ([low, high]; nan with fewer than 2 deals)."""
    deals = sorted(ours.keys() & theirs.keys())
    out: dict = {"deals": len(deals)}
    for i, key in enumerate(("win_rate_diff", "margin_diff")):
        diffs = [ours[d][i] - theirs[d][i] for d in deals]
        mean, se = clustered_mean(diffs, deals) if deals else (math.nan, math.nan)  # each deal its own cluster
        half = t95(max(1, len(deals) - 1)) * se
        out[key], out[f"{key}_ci"] = mean, [mean - half, mean + half]
    return out
