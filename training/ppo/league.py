"""The self-play league: a pool of past policies and the per-episode choice of opponents.

The trainer keeps a :class:`League`: snapshot files of the learner and, for each, how often the learner
has beaten it lately, and an :class:`OpponentSampler` that it updates (opponent mix of the curriculum
stage, snapshot weights, latest weights) and that the vector env asks at every deal for the game's
opponents, each seat drawn independently from the mix. ``latest`` is the learner's
current policy, ``snapshot`` a past one (snapshots the learner still loses to are drawn more often
when ``prioritise`` is on), any other name a player spec such as ``fg``.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from training.arena.ratings import Rating, Ratings

if TYPE_CHECKING:
    from agents.checkpoint import CheckpointSettings
    from agents.ppo_player import BatchedPolicy


@dataclass
class PastPolicy:
    """One past policy in the pool and the learner's recent record against it."""

    path: str
    step: int
    games: float = 0.0  # exponentially discounted counts, so old results fade
    learner_wins: float = 0.0

    def learner_win_rate(self) -> float:
        return (self.learner_wins + 1.0) / (self.games + 2.0)  # Beta(1, 1) prior


@dataclass
class League:
    """The pool of snapshots, oldest first, and the OpenSkill ratings of everyone the learner has met (the
    learner, snapshots, scripted players) from the league's own games; saved with each checkpoint so that a
    resumed run keeps them."""

    pool_size: int = 10
    prioritise: bool = True
    snapshots: list[PastPolicy] = field(default_factory=list)
    decay: float = 0.99
    ratings: dict[str, list[float]] = field(default_factory=dict)  # name -> [mu, sigma]

    def rate(self, agents: list[str], placings: list[float]) -> None:
        """Rate a finished league game: each seat's name (``learner`` for the learner) and placing. Seats of
                the learner's latest self are left out: they are the learner, a few updates behind (a game against
        itself alone rates nobody)."""
        seats = [p for p, name in enumerate(agents) if name != "ppo:latest"]
        if len(seats) < 2:
            return
        ratings = Ratings({name: Rating(*value) for name, value in self.ratings.items()})
        ratings.update([agents[p] for p in seats], [placings[p] for p in seats])
        self.ratings = {name: [r.mu, r.sigma] for name, r in ratings.ratings.items()}

    def add(self, path: str, step: int) -> None:
        """Put a new snapshot in the pool, dropping the oldest beyond ``pool_size``."""
        self.snapshots.append(PastPolicy(path, step))
        for gone in self.snapshots[: max(0, len(self.snapshots) - self.pool_size)]:
            self.ratings.pop(Path(gone.path).stem, None)
        del self.snapshots[: max(0, len(self.snapshots) - self.pool_size)]

    def record(self, path: str, learner_share: float) -> None:
        """The learner beat (1), lost to (0) or shared with a table that held snapshot ``path``."""
        for snapshot in self.snapshots:
            if snapshot.path == path:
                snapshot.games = snapshot.games * self.decay + 1.0
                snapshot.learner_wins = snapshot.learner_wins * self.decay + learner_share

    def weights(self) -> list[tuple[str, float]]:
        """(path, sampling weight) of each snapshot: (1 - learner win rate)^2 when prioritising, else uniform."""
        if not self.prioritise:
            return [(s.path, 1.0) for s in self.snapshots]
        return [(s.path, (1.0 - s.learner_win_rate()) ** 2 + 0.02) for s in self.snapshots]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> League:
        snapshots = [PastPolicy(**s) for s in data.get("snapshots", [])]
        return cls(data["pool_size"], data["prioritise"], snapshots, data.get("decay", 0.99), data.get("ratings", {}))


class OpponentSampler:
    """Draws the opponents of each game, in the trainer's process: scripted players play compiled in the
    vector env, the learner's latest policy and past snapshots as batched torch policies
    (:class:`agents.ppo_player.BatchedPolicy`), one forward pass for all the games waiting on them."""

    def __init__(
        self, num_opponents: int, mix: dict[str, float], settings: CheckpointSettings, seed: int | None = None
    ) -> None:
        self.num_opponents = num_opponents
        self.mix = dict(mix)
        self.settings = settings  # checkpoint settings of the learner's network
        self.rng = random.Random(seed)
        self.snapshots: list[tuple[str, float]] = []
        self._latest: BatchedPolicy | None = None  # the learner's policy as last sent
        self._policies: dict[str, Any] = {}  # snapshot path -> BatchedPolicy

    def update(
        self, mix: dict[str, float] | None = None, snapshots: list[tuple[str, float]] | None = None, latest=None
    ) -> None:
        """New opponent mix, snapshot weights and/or latest weights (a state dict) from the trainer."""
        from agents.ppo_player import BatchedPolicy, build_policy

        if mix is not None:
            self.mix = dict(mix)
        if snapshots is not None:
            self.snapshots = list(snapshots)
            keep = {path for path, _ in self.snapshots}
            self._policies = {p: policy for p, policy in self._policies.items() if p in keep}
        if latest is not None:
            if self._latest is None:
                self._latest = BatchedPolicy(build_policy(self.settings), "ppo:latest")
            self._latest.policy.load_state_dict(latest)

    def _choose(self) -> str:
        """One opponent name: a spec, 'latest', or a snapshot path (unavailable league entries fall back)."""
        mix = dict(self.mix)
        if not self.snapshots:
            mix.pop("snapshot", None)
        if self._latest is None:
            mix.pop("latest", None)
        if not mix:
            return "random"
        name = self.rng.choices(list(mix), weights=list(mix.values()))[0]
        if name == "snapshot":
            paths, weights = zip(*self.snapshots, strict=True)
            return self.rng.choices(paths, weights=weights)[0]
        return name

    def _snapshot(self, path: str):
        from agents.checkpoint import read_checkpoint
        from agents.ppo_player import BatchedPolicy, build_policy

        if path not in self._policies:
            settings, state = read_checkpoint(path)
            self._policies[path] = BatchedPolicy(build_policy(settings, state, f"snapshot {path!r}"), f"ppo:{path}")
        return self._policies[path]

    def pick(self, row: int = 0) -> list:
        """The opponents of the next game (of vector env row ``row``), one per opponent seat: a spec string
        for a scripted player, a batched policy for the latest one or a snapshot (each seat drawn alone)."""
        opponents = []
        for _ in range(self.num_opponents):
            name = self._choose()
            snapshot = name in dict(self.snapshots)  # a path of the pool; a spec such as ppo:PATH.zip plays as itself
            opponents.append(self._latest if name == "latest" else self._snapshot(name) if snapshot else name)
        return opponents
