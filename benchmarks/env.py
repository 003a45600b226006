"""Env speed: AEC turns/s of our env and of PettingZoo's connect_four_v3, measured the same way, in one run.

Both envs are driven by ``pettingzoo.test.performance_benchmark`` itself (random legal moves from the
``action_mask``, ``last()`` + ``step()`` every turn, about 5 s each) as users get them (``env()``: ours has
one wrapper layer, connect_four three), then as ``raw_env`` (no wrappers), so the figures show where time
goes. The last line is the ratio of the ``env()`` figures, ours over connect_four's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random

from kdenv.errors import KingdominoError
from kdenv.rules import Rules


def turns_per_second(aec) -> float:
    """Run PettingZoo's performance_benchmark on ``aec`` and return the turns/s it reports."""
    from pettingzoo.test import performance_benchmark

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        performance_benchmark(aec)
    line = next(line for line in out.getvalue().splitlines() if line.endswith("turns per second"))
    return float(line.split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench env", description=__doc__)
    parser.add_argument("--players", type=int, default=4, help="players at our table (default 4)")
    parser.add_argument("--rules", default="", help="comma-separated rules, e.g. middle_kingdom,harmony")
    parser.add_argument("--repeats", type=int, default=1, help="alternate runs of each env; the best counts")
    args = parser.parse_args(argv)
    rules = Rules.from_names(args.rules)

    import pettingzoo

    from kdenv.kingdomino_v0 import env

    try:
        import pygame  # noqa: F401  (connect_four_v3 imports it)
    except ImportError:
        raise KingdominoError("connect_four_v3 needs pygame: pip install pygame") from None

    random.seed(0)
    ours = f"kingdomino_v0 ({args.players} players{', ' + args.rules if args.rules else ''})"
    makers = {
        (ours, "env"): lambda: env(num_players=args.players, rules=rules),
        ("connect_four_v3", "env"): lambda: pettingzoo.make("aec", "classic/connect_four-v3"),
    }
    best = dict.fromkeys([*makers, (ours, "raw_env"), ("connect_four_v3", "raw_env")], 0.0)
    for _ in range(args.repeats):
        for name, _ in makers:
            best[name, "env"] = max(best[name, "env"], turns_per_second(makers[name, "env"]()))
            best[name, "raw_env"] = max(best[name, "raw_env"], turns_per_second(makers[name, "env"]().unwrapped))
    for (name, kind), figure in best.items():
        print(f"{name} {kind}: {figure:9.0f} turns/s")
    print(f"raw_env ratio kingdomino/connect_four: {best[ours, 'raw_env'] / best['connect_four_v3', 'raw_env']:.2f}")
    print(f"env() ratio kingdomino/connect_four: {best[ours, 'env'] / best['connect_four_v3', 'env']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
