"""The static record viewer: a game page per record and an index page, from record files or a tournament folder.

``write_site(paths, out)`` writes ``out/index.html`` (the games, filterable by agent and winner; for tournament
records also the results table, the head-to-head table and ``ratings.png``, made by the tournament's own report
functions) and ``out/games/NNNN.html``, one self-contained page per game. Every record is re-played through the
engine first, so a page never shows a game the rules do not allow.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from kdenv.errors import KingdominoError, RecordError
from kdenv.files import write_atomically
from kdenv.replay import read_records, replay_steps
from training.web.pages import page
from training.web.state import breakdown, public_state, table

GAMES = "games"  # the folder of the game pages inside the site
MOVE_FIELDS = ("player", "action", "domino", "cells", "trace")  # what a game page reads of a record's moves


class SiteError(KingdominoError):
    """Input the viewer cannot show: a missing file, a folder without games, a file that holds no record."""


def game_data(record: dict) -> dict:
    """What a game page shows: the table, every move (with its trace), the public state before the first move
    and after each, and the final breakdown (None for an unfinished game)."""
    states = []
    for game in replay_steps(record):
        states.append(public_state(game))
    moves = [{key: move[key] for key in MOVE_FIELDS if key in move} for move in record["moves"]]
    return {
        **table(game, record.get("agents")),
        "moves": moves,
        "states": states,
        "final": breakdown(game) if game.is_over else None,
        "tournament": record.get("tournament"),
    }


def record_files(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """The record files named: files as they are, a folder as its ``games.jsonl`` (a tournament's)."""
    files = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            path = path / "games.jsonl"
            if not path.is_file():
                raise SiteError(f"{given} is a folder without games.jsonl; give a tournament folder or record files")
        elif not path.exists():
            raise SiteError(f"{given}: no such file; give record files (.json, .jsonl) or a tournament folder")
        files.append(path)
    return files


def read_games(paths: Sequence[str | os.PathLike]) -> list[tuple[str, dict]]:
    """(where, record) of every record in ``paths``, each re-played and checked (a one-line SiteError if not)."""
    games = []
    for path in record_files(paths):
        try:
            for index, record in enumerate(read_records(path), start=1):
                games.append((f"{path}: record {index}", record))
        except RecordError as err:
            raise SiteError(f"{err}; give record files written by kdenv (kingdomino-replay/1)") from None
    if not games:
        raise SiteError(f"no game records in {', '.join(str(p) for p in paths)}")
    return games


def write_site(paths: Sequence[str | os.PathLike], out: str | os.PathLike) -> Path:
    """Write the site of the records in ``paths`` into ``out``; returns the index page's path."""
    out = Path(out)
    pages = []
    for number, (where, record) in enumerate(read_games(paths), start=1):
        try:
            data = game_data(record)
        except RecordError as err:
            raise SiteError(f"{where}: {err} (kdenv replay checks records)") from None
        name = f"{GAMES}/{number:04d}.html"
        data["index"] = {"number": number, "back": "../index.html", "where": where}
        pages.append((name, data, record))
    try:
        (out / GAMES).mkdir(parents=True, exist_ok=True)
        for name, data, _ in pages:
            title = f"Kingdomino game {data['index']['number']}"
            write_atomically(out / name, page(title, ["draw.js", "viewer.js"], data))
        index = out / "index.html"
        write_atomically(index, page("Kingdomino games", ["draw.js", "index.js"], index_data(out, pages)))
    except OSError as err:
        raise SiteError(f"cannot write the site to {out}: {err.strerror or err}; give a writable --out") from None
    return index


def index_data(out: Path, pages: Iterable[tuple[str, dict, dict]]) -> dict:
    """The index page's data: a row per game, and the tournament's results when the records are a tournament's."""
    pages = list(pages)
    rows = [
        {
            "page": name,
            "number": data["index"]["number"],
            "agents": data["agents"],
            "scores": data["states"][-1]["scores"],
            "winners": data["states"][-1]["winners"],
            "moves": len(data["moves"]),
            "traced": any("trace" in move for move in data["moves"]),
            "seed": data["seed"],
            "players": data["num_players"],
            "rules": [name for name, on in data["rules"].items() if on is True],
        }
        for name, data, _ in pages
    ]
    tournament = [record for _, _, record in pages if "tournament" in record and "final" in record]
    return {"games": rows, "results": results_data(out, tournament) if tournament else None}


def results_data(out: Path, records: list[dict]) -> dict:
    """The results and head-to-head tables of tournament records (as ``results.md`` words them) and their plot,
    written to ``out/ratings.png``."""
    from training.arena.report import COLUMNS, agent_row, head_to_head_rows, plot
    from training.arena.stats import summarize

    results = summarize(records)
    plot(results, out / "ratings.png")
    return {
        "games": results.games,
        "deals": results.deals,
        "columns": list(COLUMNS),
        "rows": [list(agent_row(a)) for a in results.agents],
        "head_to_head": [list(row) for row in head_to_head_rows(results)] if len(results.agents) > 1 else [],
        "agents": [a.agent for a in results.agents],
        "ratings": "ratings.png",
    }
