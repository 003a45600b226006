"""Engine speed: complete games with uniformly random legal moves, on one core.

Two loops are timed for 2, 3 and 4 players: ``Game.playout`` (the engine's own random game,
used by search playouts) and the public API loop ``legal_actions()`` + ``step()`` that an
env or a player goes through. The last line is the 4-player games/s of ``Game.playout``.
"""

from __future__ import annotations

import argparse
import random
import time

from kdenv.game import OVER, Game
from kdenv.rules import Rules


def play_random(
    num_players: int, rules: Rules, seconds: float, api: bool = False, seed: int = 0
) -> tuple[int, int, float, float]:
    """Play random games for about ``seconds``; returns (games, decisions, wall seconds, CPU seconds).

    ``api`` plays through legal_actions() + step() instead of Game.playout(). CPU seconds (this
    process's) stay meaningful on a loaded machine, where wall seconds are shared with others.
    """
    rng = random.Random(seed)
    games = decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            game = Game(num_players, rules, seed=rng.getrandbits(32))
            if not api:
                game.playout(rng)
            while game.phase != OVER:
                actions = game.legal_actions()
                game.step(actions[int(rng.random() * len(actions))])
            decisions += len(game.moves)
            games += 1
    return games, decisions, time.perf_counter() - start, time.process_time() - cpu


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per player count (default 3)")
    parser.add_argument("--rules", default="", help="comma-separated rules, e.g. middle_kingdom,harmony")


def run(args: argparse.Namespace) -> int:
    rules = Rules.from_names(args.rules)
    players = sorted(args.players, key=lambda n: n == 4)  # the 4-player figure prints last
    for n in players:
        for api in (True, False):
            games, decisions, wall, cpu = play_random(n, rules, args.seconds, api)
            loop = "legal_actions+step" if api else "Game.playout      "
            print(
                f"{n} players, {loop}: {games / cpu:6.0f} games/s {decisions / cpu:8.0f} decisions/s per CPU second"
                f" ({games / wall:.0f} games/s per wall second)"
            )
    if 4 in players:
        print(
            f"4-player random games/s (Game.playout): {games / cpu:.0f} per CPU second,"
            f" {games / wall:.0f} per wall second"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench engine", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
