"""Search speed (`kdenv bench search`): simulations/s of ``az`` by batch size, where its time goes, and ``mce``.

At the study's table (4 players, Middle Kingdom and Harmony), from mid-game positions (30 random decisions in), one
core: ``az:default`` (the shipped network: its prior alone where rollouts value the leaves, with ``--rollout none``
also its values, ``--values`` saying how) searches a fixed number of simulations per position at each batch size.
Beside the simulations/s, the new leaves/s: the simulations of one batch that meet at a leaf still waiting for its
value share its one evaluation (and rollout), so a large batch over few simulations counts more simulations than it
evaluates leaves. Its time is split into the compiled core (copying the root and playing each path, drawing the
kingdoms), the encoder (the observations, gains included), the rollouts (the leaves played out by ``--rollout``'s
compiled policy), the network (one forward pass a batch) and the tree (the rest: selection, backup, the improved
policy). In the same run, the reference: ``mce``'s playouts/s from the same positions.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import get_args

import numpy as np

from agents.az import AZPlayer
from agents.az_search import Evaluate
from agents.az_search import search as driver
from agents.mce import MonteCarloPlayer
from agents.registry import make_player
from agents.search_settings import Rollout, Settings
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView

BATCHES = (1, 8, 32, 64)
PARTS = {"core": ("branch", "redraw_rows"), "encoder": ("observe_seats",), "rollouts": ("finish_rows",)}


def mid_game(seed: int, decisions: int = 30) -> PublicView:
    """A study game after ``decisions`` random decisions."""
    game = Game(4, STUDY_RULES, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        game.step(rng.choice(game.legal_actions()))
    return PublicView(game)


class Timed:
    """An evaluator whose calls add their CPU seconds to ``spent["network"]``."""

    def __init__(self, evaluate: Evaluate, spent: dict[str, float]) -> None:
        self.evaluate, self.spent, self.views = evaluate, spent, evaluate.views

    def __call__(
        self, board: np.ndarray, features: np.ndarray, mask: np.ndarray, movers: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        start = time.process_time()
        try:
            return self.evaluate(board, features, mask, movers)
        finally:
            self.spent["network"] += time.process_time() - start


@contextmanager
def timed_parts(spent: dict[str, float]):
    """Add the seconds spent in the search's compiled calls to ``spent`` by part, while the block runs."""
    originals = {name: getattr(driver, name) for names in PARTS.values() for name in names}

    def timer(part: str, function: Callable) -> Callable:
        def call(*args):
            start = time.process_time()
            try:
                return function(*args)
            finally:
                spent[part] += time.process_time() - start

        return call

    for part, names in PARTS.items():
        for name in names:
            setattr(driver, name, timer(part, originals[name]))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(driver, name, function)


def az_rate(batch: int, values: str, simulations: int, positions: int, network: str = "default",
            rollout: str = Settings.rollout) -> tuple[float, float, dict[str, float]]:  # fmt: skip
    """(simulations per CPU second, the share of them that made a new leaf, share of the time per part) of ``az``
    over ``positions`` positions."""
    spec = f"az:{network},simulations={simulations},batch={batch},rollout={rollout}"
    spec += f",values={values}" if values else ""
    player = make_player(spec, 4, STUDY_RULES)
    assert isinstance(player, AZPlayer)
    spent = dict.fromkeys([*PARTS, "network"], 0.0)
    player.evaluator = Timed(player.evaluator, spent)
    player.reset(0, seed=0)
    player.search(mid_game(1000))  # compiles (or loads) the kernels before timing
    spent.update(dict.fromkeys(spent, 0.0))
    done, leaves, total = 0, 0, 0.0
    with timed_parts(spent):
        for k in range(positions):
            view = mid_game(k)
            start = time.process_time()
            result = player.search(view)
            total += time.process_time() - start
            done, leaves = done + result.simulations, leaves + result.leaves
    shares = {part: seconds / total for part, seconds in spent.items()}
    shares["tree"] = 1.0 - sum(shares.values())
    return done / total, leaves / done, shares


def leaf_costs(paths: int, depth: int) -> tuple[float, float]:
    """(compiled, engine) CPU microseconds to make one leaf: a determinized copy of a mid-game position with
    ``depth`` random moves played and observed by its mover with gains, on the core (as ``az`` does) or on the
    engine (``determinize``, ``step``, ``ObservationEncoder``)."""
    import numpy as np

    from agents.playout import Snapshot
    from kdenv.batched.branch import branch, observe_seats
    from kdenv.batched.machine import DRAWN, RANK, games
    from kdenv.batched.observe import redraw_rows, seen
    from kdenv.encoding import ObservationEncoder

    view, rng = mid_game(7), random.Random(0)
    walks = []
    for _ in range(paths):
        game, walk = view.determinize(rng), []
        for _ in range(depth):
            walk.append(rng.choice(game.legal_actions()))
            game.step(walk[-1])
        walks.append(walk)
    root = Snapshot(view, gains=True)
    t = root.tables
    g, s = games(paths, t), seen(paths, t)
    rows = np.arange(paths, dtype=np.int64)
    decks = np.tile(root.games.deck[0], (paths, 1))
    drawn = int(root.games.counters[0, DRAWN])
    for deck in decks:
        deck[drawn:] = np.random.default_rng(0).permutation(deck[drawn:])
    moves = np.array(walks, np.int64)
    lengths = np.full(paths, depth, np.int64)
    over, values = np.zeros(paths, np.bool_), np.zeros((paths, 4))
    board = np.zeros((paths, t.num_planes, t.cells), np.float32)
    features = np.zeros((paths, t.num_features), np.float32)
    mask, work = np.zeros((paths, t.num_actions), np.int8), np.zeros(4 * t.cells, np.int64)
    seats = np.zeros(paths, np.int64)

    def compiled() -> None:
        branch(root.games, 0, g, t, rows, decks, moves, lengths, over, values, RANK)
        redraw_rows(s, g, rows, t)
        observe_seats(s, g, t, rows, seats, board, features, mask, work)

    encoder = ObservationEncoder(4, 5, gains=True)

    def engine() -> None:
        for walk in walks:
            game = view.determinize(rng)
            for action in walk:
                game.step(action)
            encoder.encode(game, game.current_player)

    costs = []
    for make in (compiled, engine):
        make()  # compiles, fills caches
        start = time.process_time()
        make()
        costs.append((time.process_time() - start) / paths * 1e6)
    return costs[0], costs[1]


def mce_rate(seconds: float, positions: int) -> float:
    """``mce``'s playouts per CPU second from the same positions (Full-Greedy playouts, its defaults)."""
    player = make_player(f"mce:seconds={seconds},clock=cpu", 4, STUDY_RULES)
    assert isinstance(player, MonteCarloPlayer)
    player.act(mid_game(1000))  # compiles (or loads) the playout kernel before timing
    done, total = 0, 0.0
    for k in range(positions):
        view = mid_game(k)
        player.reset(view.current_player, seed=k)
        start = time.process_time()
        player.act(view)
        total += time.process_time() - start
        done += sum(player.tally[1])
    return done / total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench search", description=__doc__)
    parser.add_argument("--simulations", type=int, default=128, help="simulations per position (default 128)")
    parser.add_argument("--positions", type=int, default=20, help="mid-game positions per batch size (default 20)")
    parser.add_argument("--network", default="default", help="the checkpoint searched with (default: the shipped one)")
    parser.add_argument("--values", choices=("views", "mover", "seats"), default="",
                        help="how leaves get every value where the network values them (--rollout none)")  # fmt: skip
    parser.add_argument("--batches", type=int, nargs="+", default=list(BATCHES), help="batch sizes (default 1 8 32 64)")
    parser.add_argument("--rollout", choices=get_args(Rollout), default=Settings.rollout,
                        help="the leaves' rollout policy (default: the az player's; none: network values)")  # fmt: skip
    args = parser.parse_args(argv)
    values = args.values or "the player's default"
    print(f"az:{args.network}, rollout: {args.rollout}, values: {values}, {args.simulations} simulations from "
          f"{args.positions} mid-game positions")  # fmt: skip
    for batch in args.batches:
        rate, new, shares = az_rate(batch, args.values, args.simulations, args.positions, args.network, args.rollout)
        split = ", ".join(f"{part} {share:4.0%}" for part, share in shares.items())
        rates = f"{rate:8,.0f} simulations and {rate * new:8,.0f} new leaves per CPU second"
        print(f"  batch {batch:3}: {rates}   ({split})")
    core, engine = leaf_costs(64, 6)
    print(f"one leaf (6 moves deep, observed with gains): compiled core {core:6.0f} us, engine {engine:6.0f} us")
    print(f"reference: mce (fg playouts) {mce_rate(0.25, args.positions):8,.0f} playouts per CPU second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
