"""``kdenv evaluate``: measure one agent by a named, versioned protocol, write ``evaluation.json``, print the line
to cite; ``--compare`` gives the paired difference with another evaluation on the same deals.

Examples::

    kdenv evaluate --list
    kdenv evaluate ppo:default --protocol study-4p                 # 1,000 games against three fg
    kdenv evaluate sb3:model.zip --protocol vs-fg-2p --games 200 --out runs/mine
    kdenv evaluate mybots:Cautious --protocol vs-fg-2p --compare runs/evaluate/vs-fg-2p-v1/fg/evaluation.json
    kdenv evaluate --leaderboard --out benchmarks/leaderboard --page benchmarks/LEADERBOARD.md  # every shipped player

Re-running a command with the same ``--out`` resumes it; a larger ``--games`` extends it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kdenv.errors import KingdominoError
from kdenv.files import write_atomically
from training.arena.protocols import PROTOCOLS, get_protocol, listing
from training.backends.base import Backend
from training.backends.choose import add_backend_arguments, backend_of
from training.tournament_cli import add_move_limit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", nargs="?", metavar="SPEC", help="the player to measure (any tournament spec)")
    parser.add_argument(
        "--protocol", default="study-4p", metavar="NAME", help=f"{', '.join(PROTOCOLS)} (default study-4p; --list)"
    )
    parser.add_argument("--list", action="store_true", help="print the protocols and their versions")
    parser.add_argument("--games", type=int, metavar="N", help="games, rounded up to whole deals (default 1000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seeds the deals and the players (default 0)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default runs/evaluate/PROTOCOL-vN/SPEC)")
    add_backend_arguments(parser)
    parser.add_argument(
        "--compare", metavar="EVALUATION", help="another evaluation.json (or its folder) of the same protocol and seed"
    )
    parser.add_argument(
        "--leaderboard",
        action="store_true",
        help="evaluate every shipped player at every protocol into --out (default runs/leaderboard) and write its "
        "page (hours)",
    )
    parser.add_argument(
        "--page",
        metavar="FILE",
        help="--leaderboard's page, written as each cell finishes (default OUT/LEADERBOARD.md; the shipped one: "
        "--out benchmarks/leaderboard --page benchmarks/LEADERBOARD.md)",
    )
    add_move_limit(parser, argparse.SUPPRESS, "the protocol's")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    backend = backend_of(args)
    if args.list:
        print(listing())
        return 0
    if args.leaderboard:
        from training.arena.leaderboard import PAGE, run_leaderboard

        if args.spec or args.compare:
            raise KingdominoError("--leaderboard evaluates the shipped players: give no SPEC and no --compare")
        out = Path(args.out or "runs/leaderboard")
        page = Path(args.page) if args.page else out / PAGE
        run_leaderboard(args.games, args.seed, out, backend, not args.no_progress, page)
        print(f"wrote {page} and {page.with_suffix('.png')}")
        return 0
    if not args.spec:
        raise KingdominoError("give the SPEC to evaluate (e.g. kdenv evaluate fg --protocol vs-fg-2p), or --list")
    return _evaluate(args, backend)


def _evaluate(args: argparse.Namespace, backend: Backend) -> int:
    from training.arena.evaluation import (
        check_comparable,
        compare,
        comparison_line,
        default_out,
        evaluation_tournament,
        finish,
    )
    from training.tournament_cli import announce, forfeit_lines

    protocol = get_protocol(args.protocol)
    if args.compare:
        check_comparable(args.compare, protocol, args.seed)  # a bad file or other deals: before any game is played
    out = Path(args.out) if args.out else default_out(protocol, args.spec)
    limit = getattr(args, "move_limit", protocol.move_limit)
    with evaluation_tournament(protocol, args.spec, args.games, args.seed, out, limit) as tournament:
        announce(tournament, str(out))
        try:
            tournament.run(backend, not args.no_progress)
        except KeyboardInterrupt:
            print(f"{len(tournament.records)} games saved in {out}/games.jsonl; run the same command again to resume")
            raise
        evaluation = finish(tournament, protocol, args.spec, out)
        forfeits = forfeit_lines(tournament, str(out))
    print(evaluation.line())  # first: a comparison refused after the games leaves the line to cite said
    for line in forfeits:
        print(line)
    if args.compare:
        comparison = compare(out, args.compare)
        write_atomically(out / "comparison.json", json.dumps(comparison, indent=2) + "\n")
        print(comparison_line(comparison))
    print(f"wrote {out}/evaluation.json")
    return 0
