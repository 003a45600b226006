"""The anchors of the protocols' normalized scores, measured again: ``random`` and ``fg`` in the agent's seat of each
protocol on its fixed deals (seed 0), their mean margins printed beside the pinned ones
(:class:`training.arena.protocols.Anchors`), with how well the margin and the score track a win over those games.

    kdenv bench anchors                          # every protocol, 1,000 games each (about 4 minutes on 2 cores)
    kdenv bench anchors --protocol vs-fg-2p --games 100

The games go to ``--out`` (default ``runs/anchors``), one ``kdenv evaluate`` folder per protocol and player, so a
run resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from training.arena.evaluation import evaluate
from training.arena.paired import seat_results
from training.arena.protocols import PROTOCOLS, get_protocol
from training.backends.choose import choose_backend

ANCHORED = ("random", "fg")  # the normalized score's 0 and 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", action="append", choices=sorted(PROTOCOLS), help="one protocol (repeatable)")
    parser.add_argument("--games", type=int, default=1000, help="games a player (default 1000, as pinned)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    parser.add_argument(
        "--out", type=Path, default=Path("runs/anchors"), help="the games' folder (default runs/anchors)"
    )
    args = parser.parse_args(argv)
    backend = choose_backend("local", args.workers)
    print("protocol      player  games  pinned margin  measured margin [95% CI]  corr(win, margin)  corr(win, score)")
    for name in args.protocol or list(PROTOCOLS):
        protocol, rows = get_protocol(name), []
        for spec in ANCHORED:
            folder = args.out / name / spec
            e = evaluate(spec, name, args.games, 0, folder, backend).to_dict()
            rows += [seat[1:] for seat in seat_results(folder / "games.jsonl", spec)]  # (win, margin, score)
            low, high = e["margin_ci"]
            pinned = getattr(protocol.anchors, spec)
            measured = f"{e['margin']:>+8.3f} [{low:+.2f}, {high:+.2f}]"
            print(f"{name:<13} {spec:<7} {e['games']:>5}  {pinned:>+13.3f}  {measured}")
        win, margin, score = np.array(rows).T
        print(f"{'':<13} both    {len(rows):>5}  {'':>13}  {'':>24}  {np.corrcoef(win, margin)[0, 1]:>17.3f}  "
              f"{np.corrcoef(win, score)[0, 1]:>16.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
