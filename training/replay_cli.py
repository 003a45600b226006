"""``kdenv replay``: re-play and check game records, each move through the engine (:mod:`kdenv.replay`).

Examples::

    kdenv replay runs/tournament-quick/games.jsonl            # a line per record, then the count checked
    kdenv replay kdenv-game-20261201-1200.json --quiet        # the summary line only

The first record that fails stops the run with its file, its number and the reason, and exit status 1.
"""

from __future__ import annotations

import argparse

from kdenv.errors import RecordError
from kdenv.replay import read_records, replay_record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", help="record files (.json, or .jsonl with one record a line)")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")


def run(args: argparse.Namespace) -> int:
    total = 0
    for path in args.files:
        for index, record in enumerate(read_records(path), start=1):
            try:
                game = replay_record(record)
            except RecordError as err:
                print(f"{path}: record {index}: {err}")
                return 1
            total += 1
            if not args.quiet:
                state = f"scores {game.scores()} winners {game.winners()}" if game.is_over else "unfinished"
                print(f"{path}: record {index}: ok, {len(game.moves)} moves, {state}")
    print(f"{total} record(s) re-played and checked")
    return 0
