"""Tournament speed on Ray against the local backend (`kdenv bench ray`), in one run on this machine.

The same tournament (same agents, seed and games) is played once with the local backend's worker processes
and once as Ray tasks on a local Ray with as many CPUs, each into a fresh folder. It prints games/s of each,
Ray's start-up apart (it is paid once per run, not per game), and Ray's overhead: the share of throughput lost.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from training.arena.tournament import Tournament
from training.backends.choose import choose_backend
from training.backends.ray_backend import connected

AGENTS = ["fg", "gprd", "random", "mce:seconds=0.02"]  # a mix with a search player, about a second a game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench ray", description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=AGENTS, metavar="SPEC")
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--workers", type=int, default=2, help="processes here, and CPUs of the local Ray")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    players = min(4, len(args.agents))
    with tempfile.TemporaryDirectory(prefix="kdenv-bench-ray-") as folder:

        def play(backend: str) -> tuple[int, float]:
            tournament = Tournament(args.agents, players, args.games, seed=args.seed, out=Path(folder) / backend)
            started = time.perf_counter()
            results = tournament.run(choose_backend(backend, args.workers), progress=False)
            return results.games, time.perf_counter() - started

        games, local = play("local")
        started = time.perf_counter()
        with connected(cpus=args.workers):
            start_up = time.perf_counter() - started
            _, on_ray = play("ray")
    print(f"{games} games of {' '.join(args.agents)} at {players} players, {args.workers} workers / CPUs:")
    print(f"  local backend: {games / local:6.2f} games/s ({local:.1f} s)")
    print(f"  ray backend:   {games / on_ray:6.2f} games/s ({on_ray:.1f} s), Ray's start-up {start_up:.1f} s apart")
    print(f"  Ray's overhead: {1 - local / on_ray:+.1%} of the local throughput without the start-up, "
          f"{1 - local / (on_ray + start_up):+.1%} with it")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
