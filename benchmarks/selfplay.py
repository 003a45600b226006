"""Expert iteration's speed (`kdenv bench selfplay`): search-labelled decisions/s, learner samples/s, and where
an iteration's time goes; then the same self-play in local processes and in Ray actors at each budget, in one run.

Self-play is that of ``kdenv train`` with ``trainer: az`` (:mod:`training.az.selfplay`): the table's shipped
network with a per-seat value head, ``--parallel`` games at once in one process, every seat searching (or, with
``--opponent``, one seat a game against that compiled player; its leaves valued by the network, or played out
by ``--rollout``'s compiled policy as ``configs/az_4p.yaml`` does); the
decisions/s count the searched decisions (those with one legal action are played unsearched and not counted).
The backends' figures are measured on a second iteration, their start-up (processes, Ray, compilation) apart.
"""

from __future__ import annotations

import argparse
import time
from typing import get_args

import numpy as np

from agents.checkpoint import CheckpointSettings
from agents.search_settings import SELFPLAY, Rollout
from training.az.config import AZConfig, Opponent, SelfPlayConfig
from training.az.learner import Learner
from training.az.selfplay import Positions, SelfPlay, Timing
from training.az.start import starting_network
from training.az.workers import SelfPlayers, make_selfplay
from training.backends.choose import choose_backend
from training.runs.config import check_device


def _selfplay_rate(
    settings: CheckpointSettings, weights: dict, config: SelfPlayConfig, seconds: float
) -> tuple[Timing, float, Positions]:
    """(timing, wall seconds, positions labelled) of self-play for about ``seconds`` after a first move."""
    play = make_selfplay(settings, weights, config, seed=0)
    play.step()  # compilation and the first observations apart
    play.timing = Timing()
    labelled: list[Positions] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or not play.timing.decisions:
        labelled.extend(play.step())
    wall = time.perf_counter() - started
    return play.timing, wall, Positions.concat([*labelled, *_pending(play)])


def _pending(play: SelfPlay) -> list[Positions]:
    """The decisions of the games in progress as positions (values 0), learner input for the benchmark: none when
    every game in progress has just begun (a loaded machine can stop the clock there)."""
    rows = [row for pending in play.pending for row in pending.rows]
    if not rows:
        return []
    board, features, mask, policy, _ = (np.stack(column) for column in zip(*rows, strict=True))
    return [Positions(board, features, mask, policy, np.zeros((len(rows), play.num_players), np.float32))]


def _learner_rate(policy, positions: Positions, batch: int, seconds: float, device: str) -> float:
    """Samples/s of the learner's updates on minibatches of ``positions``."""
    learner = Learner(policy, 1e-4, 0.0, 1.0, 1.0, device)
    rng = np.random.default_rng(0)

    def draw() -> Positions:
        rows = rng.integers(0, len(positions), size=batch)
        return Positions(*(getattr(positions, f)[rows] for f in ("board", "features", "mask", "policy", "values")))

    learner.update(draw())
    updates, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds or not updates:
        learner.update(draw())
        updates += 1
    return updates * batch / (time.perf_counter() - started)


def _backend_rate(
    backend: str, settings: CheckpointSettings, weights: dict, selfplay: SelfPlayConfig, games: int
) -> float:
    """Searched decisions/s of the backend's second iteration of ``games`` games (the first pays the start-up)."""
    players = SelfPlayers(choose_backend(backend, selfplay.workers), settings, weights, selfplay, 0)
    try:
        return _second_iteration(players, weights, games)
    finally:
        players.close()


def _second_iteration(players: SelfPlayers, weights: dict, games: int) -> float:
    players.run(games, weights, lambda: False)
    started = time.perf_counter()
    played = players.run(games, weights, lambda: False)
    assert played is not None
    return played[1].decisions / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench selfplay", description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, nargs="+", default=[16, 64], help="search budgets to measure")
    parser.add_argument("--parallel", type=int, default=32, help="games stepped at once in a process")
    parser.add_argument("--considered", type=int, default=SELFPLAY.considered,
                        help="Gumbel's root actions (at most the budget)")  # fmt: skip
    parser.add_argument("--rollout", choices=get_args(Rollout), default=SELFPLAY.rollout,
                        help="the leaves' rollout policy (default: self-play's; none: network values)")  # fmt: skip
    parser.add_argument("--opponent", choices=get_args(Opponent), default="none",
                        help="none: every seat searches; else one seat a game, this player the others")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=20.0, help="time of each self-play measurement")
    parser.add_argument("--batch", type=int, default=256, help="the learner's minibatch")
    parser.add_argument("--epochs", type=float, default=4.0, help="learn.epochs, for the shares of an iteration")
    parser.add_argument("--workers", type=int, default=2, help="processes, and Ray actors, of the backends' run")
    parser.add_argument("--games", type=int, default=64, help="games of each backend's measured iteration")
    parser.add_argument("--device", default="cpu", help="the learner's torch device")
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray backend")
    args = parser.parse_args(argv)
    check_device(args.device, "--device", "option")  # one line, before any work
    import torch

    config = AZConfig()
    settings, policy = starting_network(config, log=lambda _: None)
    weights = {key: value.clone() for key, value in policy.state_dict().items()}
    torch.set_num_threads(1)
    print(f"self-play at {config.env.num_players} players ({config.env.rules}), {args.parallel} games at once in one "
          f"process, one thread, rollout {args.rollout}, opponent {args.opponent}:")  # fmt: skip

    def selfplay(simulations: int, workers: int = 1) -> SelfPlayConfig:
        return SelfPlayConfig(parallel=args.parallel, simulations=simulations, considered=min(args.considered,
                              simulations), rollout=args.rollout, opponent=args.opponent, workers=workers)  # fmt: skip

    labelled = None
    shares = None
    for simulations in args.simulations:
        timing, wall, positions = _selfplay_rate(settings, weights, selfplay(simulations), args.seconds)
        labelled = labelled or positions
        rate = timing.decisions / wall
        where = f"search {timing.search / wall:.0%}, network {timing.network / wall:.0%}, env {timing.env / wall:.0%}"
        print(f"  {simulations:3d} simulations: {rate:7.1f} search-labelled decisions/s ({where})")
        if shares is None:
            shares = (simulations, timing, wall)
    assert labelled is not None and shares is not None
    samples = _learner_rate(policy, labelled, args.batch, min(args.seconds, 10.0), args.device)
    print(f"learner: {samples:,.0f} samples/s (minibatch {args.batch}, {args.device})")
    simulations, timing, wall = shares
    per_decision = wall / timing.decisions
    learning = args.epochs / samples  # seconds of learning per new position
    total = per_decision + learning
    parts = {"search": timing.search, "network": timing.network, "env": timing.env}
    text = ", ".join(f"{name} {seconds / timing.decisions / total:.0%}" for name, seconds in parts.items())
    text += f", learning {learning / total:.0%}"
    print(f"an iteration at {simulations} simulations, learn.epochs {args.epochs:g}: {text}")
    for simulations in args.simulations:
        backends = selfplay(simulations, args.workers)
        local = _backend_rate("local", settings, weights, backends, args.games)
        line = f"backends, {args.workers} workers, {simulations} simulations: local processes {local:.1f} decisions/s"
        if not args.no_ray:
            on_ray = _backend_rate("ray", settings, weights, backends, args.games)
            line += f", Ray actors {on_ray:.1f} decisions/s ({on_ray / local - 1:+.0%})"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
