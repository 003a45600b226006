"""The reference study's protocol: one test player against three Full-Greedy players.

Gedda et al. (2018): 4 players, all 48 dominoes, Middle Kingdom and Harmony on. This is
``kdenv tournament --protocol study``: the tournament's schedule (each deal played in the four seatings of a
Latin square over the seats), worker pool, resume and statistics (win rate with shared wins split, mean score
and mean margin over the best opponent, 95% CIs with the deal as the unit).

    python benchmarks/study_protocol.py --agent mce:policy=fg,eval=r,seconds=1 --games 200
    python benchmarks/study_protocol.py --agent fg --opponent random --games 400 --out runs/fg_vs_random

With --out, the games and reports go to that folder, and a rerun resumes from it.
"""

from __future__ import annotations

import argparse

from training.cli import main as kdenv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="fg", help="spec of the test player (default fg)")
    parser.add_argument("--opponent", default="fg", help="spec of the three opponents (default fg, as the study)")
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200; a multiple of 4)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the players (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--out", help="folder of the games and reports: written as games end, resumed from")
    args = parser.parse_args(argv)
    command = ["tournament", "--protocol", "study", "--agent", args.agent, "--opponent", args.opponent]
    command += ["--games", str(args.games), "--seed", str(args.seed), "--workers", str(args.workers)]
    return kdenv(command + (["--out", args.out] if args.out else []))


if __name__ == "__main__":
    raise SystemExit(main())
