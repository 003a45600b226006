"""``kdenv view``: a static, self-contained site of game records to look at in a browser.

Examples::

    kdenv view runs/tournament-quick --out runs/site --open   # a tournament: results, ratings, every game
    kdenv view kdenv-game-20261201-1200.json                   # one game played with `kdenv play`

Each game page steps through the moves (buttons, arrow keys, a slider), draws the kingdoms and both lines,
charts the scores, shows the final breakdown and, for traced records (``--trace``), what the players thought.
"""

from __future__ import annotations

import argparse
import webbrowser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="record files (.json, .jsonl) or tournament folders")
    parser.add_argument(
        "--out",
        default="runs/site",
        metavar="DIR",
        help="the folder of the site: new, empty, or a site kdenv view wrote, replaced whole (default runs/site)",
    )
    parser.add_argument("--open", action="store_true", help="open the site in the web browser")


def run(args: argparse.Namespace) -> int:
    from training.web.site import write_site

    index = write_site(args.files, args.out)
    print(f"wrote {index} (open it in a browser; it needs no server)")
    if args.open:
        webbrowser.open(index.resolve().as_uri())
    return 0
