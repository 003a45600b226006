"""``kdenv view``: a static, self-contained site of game records to look at in a browser.

Examples::

    kdenv view runs/tournament-quick --out runs/site --open   # a tournament: results, ratings, every game
    kdenv view kdenv-game-20261201-1200.json                   # one game played with `kdenv play`

Each game page steps through the moves (buttons, arrow keys, a slider), draws the kingdoms and both lines,
charts the scores, shows the final breakdown and, for traced records (``--trace``), what the players thought.
"""

from __future__ import annotations

import argparse
import os
import webbrowser
from collections.abc import Sequence
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="record files (.json, .jsonl) or tournament folders")
    parser.add_argument(
        "--out",
        default="runs/site",
        metavar="DIR",
        help="the folder of the site: new, empty, or a site kdenv view wrote, replaced whole (default runs/site)",
    )
    parser.add_argument("--open", action="store_true", help="open the site in the web browser")


def write_site(paths: Sequence[str | os.PathLike], out: str | os.PathLike) -> Path:
    """The viewer's site of the records in ``paths``, with each tournament's results as its reports give them."""
    from kdenv.viewer.site import write_site as write_viewer_site

    return write_viewer_site(paths, out, results_data)


def results_data(image: Path, source: str, games: list[dict]) -> dict:
    """The results and head-to-head tables of one tournament's games (as its ``results.md`` words them), and
    their plot, written to ``image``."""
    from training.arena.report import COLUMNS, agent_row, head_to_head_rows, plot
    from training.arena.stats import summarize

    results = summarize(games)
    plot(results, image)
    return {
        "source": source,
        "games": results.games,
        "deals": results.deals,
        "columns": list(COLUMNS),
        "rows": [list(agent_row(a)) for a in results.agents],
        "head_to_head": [list(row) for row in head_to_head_rows(results)] if len(results.agents) > 1 else [],
        "agents": [a.agent for a in results.agents],
        "ratings": image.name,
    }


def run(args: argparse.Namespace) -> int:
    index = write_site(args.files, args.out)
    print(f"wrote {index} (open it in a browser; it needs no server)")
    if args.open:
        webbrowser.open(index.resolve().as_uri())
    return 0
