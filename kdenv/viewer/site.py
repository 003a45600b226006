"""The static record viewer: a game page per record and an index page, from record files or tournament folders.

``write_site(paths, out, results)`` writes ``out/index.html`` (the games, filterable by agent and winner; for the
records of each tournament also what ``results`` makes of them: ``kdenv view`` passes the tournament's own results
table, head-to-head table and ratings plot) and ``out/games/NNNN.html``, one self-contained page per game. Every
record is re-played through the engine first, so a page never shows a game the rules do not allow; a game that a
tournament's file holds twice is shown and counted once, as the tournament counts it. ``out`` is a new or empty
folder, or a site written before, which is replaced whole (:mod:`kdenv.viewer.site_folder`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from kdenv.errors import KingdominoError, RecordError
from kdenv.files import write_atomically
from kdenv.replay import read_records, replay_steps
from kdenv.viewer.pages import page
from kdenv.viewer.site_folder import clear_site_folder
from kdenv.viewer.state import breakdown, public_state, table

GAMES = "games"  # the folder of the game pages inside the site
MOVE_FIELDS = ("player", "action", "domino", "cells", "trace")  # what a game page reads of a record's moves
# (plot path, source, its games) -> a tournament's results on the index page (see training.view_cli.results_data)
Results = Callable[[Path, str, list[dict]], dict]


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


def record_files(paths: Sequence[str | os.PathLike]) -> dict[Path, str]:
    """The record files named, each once (by its real path), with the name it was given: files as they are, a
    folder as its ``games.jsonl`` (a tournament's)."""
    files: dict[Path, str] = {}
    for given in paths:
        path = Path(given)
        if path.is_dir():
            path = path / "games.jsonl"
            if not path.is_file():
                raise SiteError(f"{given} is a folder without games.jsonl; give a tournament folder or record files")
        elif not path.exists():
            raise SiteError(f"{given}: no such file; give record files (.json, .jsonl) or a tournament folder")
        files.setdefault(path.resolve(), str(given))
    return files


def read_games(paths: Sequence[str | os.PathLike]) -> list[tuple[str, str, dict]]:
    """(source, where, record) of every record in ``paths``: the file or folder as given, the record's place in
    it, and the record (not checked yet)."""
    games = []
    for path, source in record_files(paths).items():
        try:
            for index, record in enumerate(read_records(path), start=1):
                games.append((source, f"{path}: record {index}", record))
        except RecordError as err:  # it says what to give
            raise SiteError(str(err)) from None
    if not games:
        raise SiteError(f"no game records in {', '.join(str(p) for p in paths)}")
    return games


def write_site(paths: Sequence[str | os.PathLike], out: str | os.PathLike, results: Results | None = None) -> Path:
    """Write the site of the records in ``paths`` into ``out``, each tournament's ``results`` on its index (none
    without); returns the index page's path."""
    out = Path(out)
    pages: list[tuple[str, dict]] = []
    tournaments: dict[str, dict[int, dict]] = {}  # source -> game id -> what the results need of that game
    for source, where, record in read_games(paths):
        try:
            data = game_data(record)
        except RecordError as err:
            raise SiteError(f"{where}: {err} (kdenv replay checks records)") from None
        if data["tournament"] is not None and not _first_of_its_id(tournaments.setdefault(source, {}), data, where):
            continue
        number = len(pages) + 1
        data["index"] = {"number": number, "back": "../index.html", "where": where}
        pages.append((f"{GAMES}/{number:04d}.html", data))
    try:
        clear_site_folder(out, paths)
        (out / GAMES).mkdir()
        for name, data in pages:
            title = f"Kingdomino game {data['index']['number']}"
            write_atomically(out / name, page(title, ["draw.js", "viewer.js"], data))
        index = out / "index.html"
        write_atomically(
            index, page("Kingdomino games", ["draw.js", "index.js"], index_data(out, pages, tournaments, results))
        )
    except OSError as err:
        raise SiteError(f"cannot write the site to {out}: {err.strerror or err}; give a writable --out") from None
    return index


def _first_of_its_id(games: dict[int, dict], data: dict, where: str) -> bool:
    """Count a tournament game once, as the tournament does: the first record of a game id goes into ``games``
    (True), a repeat of it is left out (False), and another game under the same id is an error."""
    game_id = data["tournament"]["game_id"]
    first = games.get(game_id)
    if first is None:
        final = data["states"][-1]  # the re-played game's scores and winners
        games[game_id] = {
            "agents": data["agents"],
            "seed": data["seed"],
            "final": {"scores": final["scores"], "winners": final["winners"]},
            "tournament": data["tournament"],
        }
        return True
    if (first["agents"], first["seed"]) != (data["agents"], data["seed"]):
        raise SiteError(
            f"{where} is another game {game_id} (other agents or seed): the file mixes tournaments; "
            "give each tournament's folder or games.jsonl on its own"
        )
    return False


def index_data(
    out: Path, pages: list[tuple[str, dict]], tournaments: dict[str, dict[int, dict]], results: Results | None
) -> dict:
    """The index page's data: a row per game, and the ``results`` of each tournament the records hold."""
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
        for name, data in pages
    ]
    tables = []
    for number, (source, games) in enumerate(tournaments.items(), start=1):
        image = "ratings.png" if len(tournaments) == 1 else f"ratings-{number}.png"
        if results is not None:
            tables.append(results(out / image, source, list(games.values())))
    return {"games": rows, "results": tables}
