"""Where self-play runs: a crew (:mod:`training.backends`) of ``selfplay.workers`` self-play workers, in the
learner's process, in local processes, or in Ray actors.

Each worker holds its own copy of the network and its own :class:`~training.az.selfplay.SelfPlay` (its games
carry over from one iteration to the next); an iteration sends every worker the learner's weights and its
share of the games, and gathers their positions. The run directory is the same whichever plays.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.checkpoint import CheckpointSettings
from agents.inference import one_thread
from agents.search_settings import settings_of
from training.az.config import SelfPlayConfig
from training.az.selfplay import Positions, SelfPlay, Timing
from training.backends.base import Backend

SEED_STRIDE = 7919  # worker k plays from the seed + k times this


def make_selfplay(settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> SelfPlay:
    """One worker's self-play: a network of ``settings`` with ``weights``, ``selfplay.parallel`` games."""
    from agents.ppo_player import build_policy

    policy = build_policy(settings, weights, "the learner's network")
    return SelfPlay(settings, policy, selfplay.parallel, selfplay.simulations, settings_of(selfplay), seed,
                    selfplay.opponent, selfplay.target_temperature)  # fmt: skip


def shares(games: int, workers: int) -> list[int]:
    """``games`` split among ``workers`` as evenly as whole games go (every worker plays at least one)."""
    return [max(1, games // workers + (k < games % workers)) for k in range(workers)]


class SelfPlayWorker:
    """One worker's self-play, kept from iteration to iteration (a crew's object)."""

    def __init__(self, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> None:
        self.selfplay = make_selfplay(settings, weights, selfplay, seed)

    def play(
        self, games: int, weights: dict, stop: Callable[[], bool] | None = None
    ) -> tuple[Positions, Timing] | None:
        """The positions of ``games`` more games with ``weights`` (None if ``stop`` said so first), and the time
        spent on them; on one torch thread (a worker's batches are small; the cores are shared out by workers)."""
        with one_thread():
            self.selfplay.set_weights(weights)
            self.selfplay.timing = Timing()
            positions = self.selfplay.play(games, stop)
        return None if positions is None else (positions, self.selfplay.timing)


class SelfPlayers:
    """Self-play on ``backend``: ``selfplay.workers`` workers, worker ``k`` seeded ``seed + k *``
    :data:`SEED_STRIDE`, sharing out each iteration's games."""

    def __init__(
        self, backend: Backend, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int
    ) -> None:
        self.here = backend.here
        seeds = [seed + SEED_STRIDE * k for k in range(selfplay.workers)]
        self.crew = backend.crew(SelfPlayWorker, [(settings, weights, selfplay, s) for s in seeds])
        self.workers = selfplay.workers

    def run(self, games: int, weights: dict, stop: Callable[[], bool]) -> tuple[Positions, Timing] | None:
        """The positions of ``games`` more games with ``weights``, and the time spent on them (summed over the
        workers: seconds of work, not of the wall); None if ``stop`` said so first (in this process, at once;
        elsewhere, after the iteration)."""
        each = [(share,) for share in shares(games, self.workers)]
        results = self.crew.call("play", each, (weights, stop) if self.here else (weights,))
        if stop() or any(result is None for result in results):
            return None
        timing = Timing()
        for _, part in results:
            timing.add(part)
        return Positions.concat([positions for positions, _ in results]), timing

    def close(self) -> None:
        self.crew.close()
