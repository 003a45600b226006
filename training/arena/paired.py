"""Two agents measured on the same deals, compared deal by deal: the paired difference of their win rates and
margins with 95% t intervals, the deal as the unit (the luck of a deal, shared by both, cancels out)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from training.arena.stats import clustered_mean, seat_outcome, standings, t95


def by_deal(records: Iterable[dict], spec: str) -> dict[int, tuple[float, float]]:
    """Deal -> (mean win share, mean margin) of ``spec``'s seats over that deal's games in tournament ``records``."""
    seats: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for record in records:
        scores, winners = standings(record)
        for seat, agent in enumerate(record["agents"]):
            if agent == spec:
                seats[record["tournament"]["deal"]].append(seat_outcome(scores, winners, seat))
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
