"""What a set of finished games says about each agent: win rate, score, margin and placing with 95% CIs.

Games dealt from the same deck are not independent, so every interval treats the *deal* as the
unit (cluster-robust standard errors): the score and margin intervals are t intervals (deals - 1
degrees of freedom) on that standard error, and the win-rate interval is a Wilson interval whose sample size is
shrunk by the design effect of the clustering (never grown beyond the number of games).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from training.arena.ratings import rate_games

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (scipy's), to the three decimals of
    printed t tables, with which the published intervals were computed (so they come out the same)."""
    from scipy.stats import t  # on first use: scipy takes a while to import

    return round(float(t.ppf(0.975, df)), 3)


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: shared wins)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered_mean(values: Sequence[float], clusters: Sequence[int]) -> tuple[float, float]:
    """Mean of ``values`` and its cluster-robust standard error (nan with fewer than 2 clusters)."""
    n = len(values)
    mean = sum(values) / n
    residuals: dict[int, float] = defaultdict(float)
    for value, cluster in zip(values, clusters, strict=True):
        residuals[cluster] += value - mean
    c = len(residuals)
    if c < 2:
        return mean, math.nan
    return mean, math.sqrt(c / (c - 1) * sum(r * r for r in residuals.values())) / n


@dataclass
class AgentResult:
    """One agent's line in the results (an agent seated twice at a table counts both seats)."""

    agent: str
    games: int
    wins: float  # shared victories split between the winners
    win_rate: float
    win_low: float  # 95% CI of the win rate
    win_high: float
    score: float  # mean final score, variant bonuses included
    score_ci: float  # half-width of its 95% CI
    margin: float  # mean of (own score - best opponent's score)
    margin_ci: float
    placing: float  # mean place, 1 = first (ties share the mean place)
    mu: float  # OpenSkill Plackett-Luce rating
    sigma: float
    ordinal: float  # mu - 3 sigma, the rating the table is sorted by
    forfeits: dict[str, int] = field(default_factory=dict)  # games it forfeited (counted as losses), by reason

    @property
    def forfeited(self) -> int:
        """Games it forfeited."""
        return sum(self.forfeits.values())


@dataclass
class Results:
    """Per-agent results (best first) and the head-to-head table of a set of games."""

    agents: list[AgentResult]
    games: int
    deals: int
    head_to_head: dict[str, dict[str, float]]  # [a][b]: share of meetings in which a placed ahead of b
    meetings: dict[str, dict[str, int]]  # [a][b]: games in which a and b sat at the same table
    head_to_head_ci: dict[str, dict[str, float]]  # [a][b]: half-width of that share's 95% CI, clustered by deal
    # rankings from the whole head-to-head matrix (training.arena.meta_game), where every pair met: by agent
    nash_average: dict[str, float] = field(default_factory=dict)  # payoff against the max-entropy Nash mixture
    nash_mixture: dict[str, float] = field(default_factory=dict)  # that mixture's weights
    alpha_rank: dict[str, float] = field(default_factory=dict)  # alpha-Rank's stationary mass

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "deals": self.deals,
            "agents": [asdict(a) for a in self.agents],
            "head_to_head": self.head_to_head,
            "head_to_head_ci": self.head_to_head_ci,
            "meetings": self.meetings,
            "nash_average": self.nash_average,
            "nash_mixture": self.nash_mixture,
            "alpha_rank": self.alpha_rank,
        }

    def agent(self, spec: str) -> AgentResult:
        return next(a for a in self.agents if a.agent == spec)


def seat_outcome(scores: list[int], winners: list[int], seat: int) -> tuple[float, int]:
    """(win share, margin) of ``seat``: a shared victory counts 1 / number of winners; the margin is
    the seat's score minus the best other score."""
    win = 1 / len(winners) if seat in winners else 0.0
    return win, scores[seat] - max(s for other, s in enumerate(scores) if other != seat)


def standings(record: dict) -> tuple[list[int], list[int]]:
    """The scores and winners that count in a tournament record: a seat that forfeited (its ``forfeits``) scores 0
    and wins nothing, whatever its stand-in made; the winners are the best placed of the other seats."""
    scores, winners = record["final"]["scores"], record["final"]["winners"]
    out = {forfeit["seat"] for forfeit in record.get("forfeits", ())}
    if not out:
        return scores, winners
    placings = record["tournament"]["placings"]
    best = min((p for seat, p in enumerate(placings) if seat not in out), default=None)
    winners = [seat for seat, p in enumerate(placings) if seat not in out and p == best]
    return [0 if seat in out else score for seat, score in enumerate(scores)], winners


def summarize(records: Iterable[dict]) -> Results:
    """Results of finished tournament records (each with ``agents``, ``final`` and ``tournament``, and
    ``forfeits`` where a player broke the game: scored by :func:`standings`)."""
    records = sorted(records, key=lambda r: r["tournament"]["game_id"])
    seen: dict[str, dict[str, list]] = {}
    ahead: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))  # [a][b]: (deal, 1 | 1/2 | 0)
    forfeited: dict[str, dict[str, int]] = defaultdict(dict)  # [a][reason]: games a forfeited so
    for record in records:
        (scores, winners), agents = standings(record), record["agents"]
        placings, deal = record["tournament"]["placings"], record["tournament"]["deal"]
        for forfeit in record.get("forfeits", ()):
            reasons = forfeited[agents[forfeit["seat"]]]
            reasons[forfeit["reason"]] = reasons.get(forfeit["reason"], 0) + 1
        for seat, spec in enumerate(agents):
            row = seen.setdefault(spec, {k: [] for k in ("deal", "win", "score", "margin", "placing")})
            win, margin = seat_outcome(scores, winners, seat)
            row["deal"].append(deal)
            row["win"].append(win)
            row["score"].append(scores[seat])
            row["margin"].append(margin)
            row["placing"].append(placings[seat] + 1)
            for other, other_spec in enumerate(agents):
                if other_spec != spec:
                    diff = placings[other] - placings[seat]
                    ahead[spec][other_spec].append((deal, 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0))
    ratings = rate_games((r["agents"], r["tournament"]["placings"]) for r in records)
    lines = [_agent_result(spec, row, ratings[spec], forfeited[spec]) for spec, row in seen.items()]
    lines.sort(key=lambda a: (-a.ordinal, a.agent))
    order = [a.agent for a in lines]
    shares = {a: {b: _share(ahead[a][b]) for b in order if ahead[a][b]} for a in order}
    return Results(
        **_meta_game(order, {a: {b: share for b, (share, _) in row.items()} for a, row in shares.items()}),
        agents=lines,
        games=len(records),
        deals=len({r["tournament"]["deal"] for r in records}),
        head_to_head={a: {b: share for b, (share, _) in row.items()} for a, row in shares.items()},
        meetings={a: {b: len(ahead[a][b]) for b in order if ahead[a][b]} for a in order},
        head_to_head_ci={a: {b: ci for b, (_, ci) in row.items()} for a, row in shares.items()},
    )


def _meta_game(order: list[str], share: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Nash averaging and alpha-Rank of the head-to-head ``share`` (:mod:`training.arena.meta_game`), by agent; none
    where a pair never met or there is one agent."""
    from training.arena.meta_game import alpha_rank, nash_average

    if len(order) < 2 or any(b not in share[a] for a in order for b in order if a != b):
        return {}
    matrix = np.array([[share[a][b] if a != b else 0.5 for b in order] for a in order])
    mixture, payoffs = nash_average(matrix)
    mass = alpha_rank(matrix)
    return {
        "nash_average": {a: float(v) for a, v in zip(order, payoffs, strict=True)},
        "nash_mixture": {a: float(v) for a, v in zip(order, mixture, strict=True)},
        "alpha_rank": {a: float(v) for a, v in zip(order, mass, strict=True)},
    }


def _share(meetings: list[tuple[int, float]]) -> tuple[float, float]:
    """(mean, 95% CI half-width clustered by deal) of the outcomes of one pair's meetings: (deal, outcome)."""
    deals, outcomes = zip(*meetings, strict=True)
    mean, se = clustered_mean(outcomes, deals)
    return mean, t95(max(1, len(set(deals)) - 1)) * se


def _agent_result(spec: str, row: dict[str, list], rating, forfeits: dict[str, int]) -> AgentResult:
    n, deals = len(row["win"]), row["deal"]
    win_rate, win_se = clustered_mean(row["win"], deals)
    iid_var = win_rate * (1 - win_rate) / n
    design_effect = max(1.0, win_se**2 / iid_var) if iid_var > 0 and not math.isnan(win_se) else 1.0
    low, high = wilson(win_rate * n / design_effect, n / design_effect)
    score, score_se = clustered_mean(row["score"], deals)
    margin, margin_se = clustered_mean(row["margin"], deals)
    t = t95(max(1, len(set(deals)) - 1))
    return AgentResult(
        agent=spec,
        games=n,
        wins=sum(row["win"]),
        win_rate=win_rate,
        win_low=low,
        win_high=high,
        score=score,
        score_ci=t * score_se,
        margin=margin,
        margin_ci=t * margin_se,
        placing=sum(row["placing"]) / n,
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal,
        forfeits=dict(sorted(forfeits.items())),
    )
