"""OpenSkill Plackett-Luce ratings from finished games: one player per team, ranked by final placing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rating:
    """An agent's skill estimate: mean ``mu``, uncertainty ``sigma``; ``ordinal`` = mu - 3 sigma ranks cautiously."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def competition_ranks(placings: Sequence[float]) -> list[int]:
    """Integer ranks (0 best) in which tied players share the better rank: 0, 1, 1, 3."""
    return [sum(other < mine for other in placings) for mine in placings]


class Ratings:
    """OpenSkill Plackett-Luce ratings, updated game by game.

    An agent seated more than once at a table (``X fg fg fg``) plays each seat as its own team
    from the same prior; its new rating is the mean of those seats' updates.
    """

    def __init__(self, ratings: dict[str, Rating] | None = None) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.ratings: dict[str, Rating] = dict(ratings or {})

    def update(self, agents: Sequence[str], placings: Sequence[float]) -> None:
        """Rate one finished game: the agent in each seat and its placing (0 first)."""
        model = self.model
        prior = [self.ratings.get(spec) or Rating(model.mu, model.sigma) for spec in agents]
        teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in prior]
        updated = model.rate(teams, ranks=[float(rank) for rank in competition_ranks(placings)])
        seats: dict[str, list] = {}
        for spec, (new,) in zip(agents, updated, strict=True):
            seats.setdefault(spec, []).append(new)
        for spec, news in seats.items():
            self.ratings[spec] = Rating(sum(n.mu for n in news) / len(news), sum(n.sigma for n in news) / len(news))


def rate_games(games: Iterable[tuple[Sequence[str], Sequence[float]]]) -> dict[str, Rating]:
    """Ratings after the ``(agents by seat, placings by seat)`` of each game, in the order given."""
    ratings = Ratings()
    for agents, placings in games:
        ratings.update(agents, placings)
    return ratings.ratings
