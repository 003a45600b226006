"""Where self-play runs: in the learner's process, in ``selfplay.workers`` local processes, or in Ray actors.

Each worker holds its own copy of the network and its own :class:`~training.az.selfplay.SelfPlay` (its games
carry over from one iteration to the next); an iteration sends every worker the learner's weights and its
share of the games, and gathers their positions. The run directory is the same whichever plays.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable
from typing import Any

from agents.checkpoint import CheckpointSettings
from agents.search_settings import settings_of
from training.az.config import SelfPlayConfig
from training.az.selfplay import Positions, SelfPlay, Timing
from training.main_guard import check_main_guarded


def make_selfplay(settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> SelfPlay:
    """One worker's self-play: a network of ``settings`` with ``weights``, ``selfplay.parallel`` games."""
    import torch

    from agents.ppo_player import build_policy

    policy = build_policy(settings, weights, "the learner's network")
    play = SelfPlay(settings, policy, selfplay.parallel, selfplay.simulations, settings_of(selfplay), seed,
                    selfplay.opponent, selfplay.target_temperature)  # fmt: skip
    torch.set_num_threads(1)  # a worker's batches are small: one thread each, the cores shared out by processes
    return play


def shares(games: int, workers: int) -> list[int]:
    """``games`` split among ``workers`` as evenly as whole games go (every worker plays at least one)."""
    return [max(1, games // workers + (k < games % workers)) for k in range(workers)]


class InProcess:
    """Self-play in the learner's process."""

    def __init__(self, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> None:
        self.play = make_selfplay(settings, weights, selfplay, seed)

    def run(self, games: int, weights: dict, stop: Callable[[], bool]) -> tuple[Positions, Timing] | None:
        """The positions of ``games`` more games with ``weights`` (None if ``stop`` said so first), and the
        time spent on them."""
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            self.play.set_weights(weights)
            self.play.timing = Timing()
            positions = self.play.play(games, stop)
            return None if positions is None else (positions, self.play.timing)
        finally:
            torch.set_num_threads(threads)

    def close(self) -> None:
        """Nothing to release."""


def _worker(connection, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> None:
    """A local self-play process: (games, weights) in, (positions, timing) out, until None comes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner's process decides when to stop, and tells us
    play = make_selfplay(settings, weights, selfplay, seed)
    while True:
        try:
            job = connection.recv()
        except EOFError:  # the learner's process is gone (killed): so is its run
            return
        if job is None:
            return
        games, new = job
        play.set_weights(new)
        play.timing = Timing()
        positions = play.play(games)
        assert positions is not None
        connection.send((positions, play.timing))


class LocalWorkers:
    """Self-play in ``selfplay.workers`` processes of this machine (spawned: each its own torch and numba)."""

    def __init__(self, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> None:
        check_main_guarded("self-play processes")
        context = multiprocessing.get_context("spawn")
        self.connections, self.processes = [], []
        for k in range(selfplay.workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(theirs, settings, weights, selfplay, seed + 7919 * k),
                                      daemon=True)  # fmt: skip
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def run(self, games: int, weights: dict, stop: Callable[[], bool]) -> tuple[Positions, Timing] | None:
        for connection, share in zip(self.connections, shares(games, len(self.connections)), strict=True):
            connection.send((share, weights))
        results = [connection.recv() for connection in self.connections]  # a signal lands after this iteration
        if stop():
            return None
        return _gathered(results)

    def close(self) -> None:
        for connection in self.connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(None)
        for process in self.processes:
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()


class RayWorkers:
    """Self-play in ``selfplay.workers`` Ray actors, each with a copy of the network; the weights are put in
    Ray's object store once per iteration and read by every actor."""

    def __init__(
        self, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int, ray: Any
    ) -> None:
        self.ray = ray
        actor = ray.remote(num_cpus=1)(SelfPlayActor)
        self.actors = [actor.remote(settings, weights, selfplay, seed + 7919 * k) for k in range(selfplay.workers)]

    def run(self, games: int, weights: dict, stop: Callable[[], bool]) -> tuple[Positions, Timing] | None:
        shared = self.ray.put(weights)
        jobs = [a.play.remote(share, shared) for a, share in zip(self.actors, shares(games, len(self.actors)),
                                                                strict=True)]  # fmt: skip
        results = self.ray.get(jobs)
        if stop():
            return None
        return _gathered(results)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


class SelfPlayActor:
    """A Ray actor's self-play (made remote by :class:`RayWorkers`)."""

    def __init__(self, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, seed: int) -> None:
        self.selfplay = make_selfplay(settings, weights, selfplay, seed)

    def play(self, games: int, weights: dict) -> tuple[Positions | None, Timing]:
        self.selfplay.set_weights(weights)
        self.selfplay.timing = Timing()
        return self.selfplay.play(games), self.selfplay.timing


def _gathered(results: list[tuple[Positions, Timing]]) -> tuple[Positions, Timing]:
    """The workers' positions together; their timings summed (seconds of work, not of the wall)."""
    timing = Timing()
    for _, part in results:
        timing.add(part)
    return Positions.concat([positions for positions, _ in results]), timing
