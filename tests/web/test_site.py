"""``kdenv view``: the static site of a tournament folder or record files, and its one-line errors."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re

import pytest

from kdenv.game import Game
from kdenv.replay import read_records, to_record
from kdenv.rules import Rules
from kdenv.viewer.site import game_data
from kdenv.viewer.site_folder import MARKER
from training.arena.tournament import Tournament
from training.backends.local import InProcess
from training.cli import main
from training.view_cli import write_site


@pytest.fixture(scope="module")
def small_tournaments(tmp_path_factory) -> list:
    """Two quick tournaments of other agents and sizes, their folders."""
    folders = []
    for agents, players in ((["random", "gprd"], 2), (["random", "gprd", "fg"], 3)):
        out = tmp_path_factory.mktemp("small") / "tournament"
        Tournament(agents, players=players, games=6, seed=1, out=out).play(InProcess())
        folders.append(out)
    return folders


def view(*argv) -> tuple[int, str]:
    """``kdenv view ARGV``: its exit status and what it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["view", *map(str, argv)])
    return status, err.getvalue()


def one_line(err: str, message: str) -> bool:
    return err.count("\n") == 1 and err.startswith("kdenv view: error: ") and message in err


def page_data(path) -> dict:
    """The DATA a page of the site runs on."""
    return json.loads(re.search(r"const DATA = (.*);\n</script>", path.read_text()).group(1))


def test_a_tournament_folder_gives_an_index_and_a_page_per_game(traced_tournament, tmp_path):
    records = list(read_records(traced_tournament / "games.jsonl"))
    index = write_site([traced_tournament], tmp_path / "site")
    data = page_data(index)
    assert [row["number"] for row in data["games"]] == list(range(1, len(records) + 1))
    assert data["results"][0]["games"] == len(records) and (tmp_path / "site" / "ratings.png").stat().st_size > 0
    assert data["results"][0]["rows"][0][0] in {"fg", "mce:playouts=6", "uct:playouts=6", "ppo:default"}
    for row, record in zip(data["games"], records, strict=True):
        game = page_data(tmp_path / "site" / row["page"])
        assert row["scores"] == record["final"]["scores"] and row["winners"] == record["final"]["winners"]
        assert game["agents"] == record["agents"] and game["seed"] == record["seed"]
        assert [m.get("trace") for m in game["moves"]] == [m.get("trace") for m in record["moves"]]


def test_pages_are_self_contained(traced_tournament, tmp_path):
    write_site([traced_tournament], tmp_path / "site")
    for page in (tmp_path / "site").rglob("*.html"):
        text = page.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page
        assert "<script src" not in text and '<link rel="stylesheet"' not in text


def test_the_game_data_follows_every_move(traced_tournament):
    record = next(read_records(traced_tournament / "games.jsonl"))
    data = game_data(record)
    assert len(data["states"]) == len(record["moves"]) + 1
    assert data["states"][-1]["scores"] == record["final"]["scores"]
    assert [b["total"] for b in data["final"]] == record["final"]["scores"]
    assert data["states"][0]["scores"] == [0, 0] and data["states"][0]["phase"] == "pick"


def test_kdenv_view_writes_the_site_from_record_files(traced_tournament, tmp_path, capsys):
    records = list(read_records(traced_tournament / "games.jsonl"))
    one = tmp_path / "one.json"
    one.write_text(json.dumps(records[0]))
    assert main(["view", str(one), str(traced_tournament / "games.jsonl"), "--out", str(tmp_path / "site")]) == 0
    assert "wrote" in capsys.readouterr().out
    assert len(page_data(tmp_path / "site" / "index.html")["games"]) == 1 + len(records)
    assert len(list((tmp_path / "site" / "games").glob("*.html"))) == 1 + len(records)


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), (b"\x89PNG\r\n\x1a\n\x00\x00", "is not a UTF-8 text file"),
     (b'{"hello": "world"}', "record field 'format' must be"), (b"not json at all", "not valid JSON"),
     ("folder", "is a folder without games.jsonl"), (b"", "holds no records"), (b"\n\n", "holds no records")],
)  # fmt: skip
def test_bad_input_is_one_line_saying_what_to_do(tmp_path, capsys, content, message):
    path = tmp_path / "input.json"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    assert main(["view", str(path), "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kdenv view: error: ") and message in err
    assert "Traceback" not in err


def test_the_site_goes_only_into_a_new_or_empty_folder_or_one_it_wrote(small_tournaments, tmp_path):
    t0 = small_tournaments[0]
    ratings = (t0 / "ratings.png").read_bytes()
    status, err = view(t0, "--out", t0)  # the tournament folder itself
    assert status == 2 and one_line(err, "holds the input") and (t0 / "ratings.png").read_bytes() == ratings
    assert not (t0 / "index.html").exists() and not (t0 / MARKER).exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "index.html").write_text("my own page")
    status, err = view(t0, "--out", mine)
    assert (
        status == 2 and one_line(err, "kdenv view did not write") and (mine / "index.html").read_text() == "my own page"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert view(t0, small_tournaments[1], "--out", empty)[0] == 0 and (empty / MARKER).is_file()
    assert len(list((empty / "games").iterdir())) == 12 and (empty / "ratings-2.png").is_file()
    assert view(t0, "--out", empty)[0] == 0  # a site it wrote: replaced whole, no stale page or plot left
    assert len(list((empty / "games").iterdir())) == 6 and not (empty / "ratings-2.png").exists()
    (empty / "kept.json").write_text((t0 / "games.jsonl").read_text().splitlines()[0])
    status, err = view(empty / "kept.json", "--out", empty)  # an input inside a site folder: never replaced
    assert status == 2 and one_line(err, "holds the input") and (empty / "kept.json").is_file()


def test_a_repeated_line_counts_once_and_each_tournament_has_its_own_table(small_tournaments, tmp_path):
    t0, t1 = small_tournaments
    lines = (t0 / "games.jsonl").read_text().splitlines()
    doubled = tmp_path / "games.jsonl"
    doubled.write_text("\n".join(lines + lines[2:3]) + "\n")
    data = page_data(write_site([doubled], tmp_path / "one"))
    assert len(data["games"]) == 6 and [r["games"] for r in data["results"]] == [6]
    assert len(list((tmp_path / "one" / "games").iterdir())) == 6
    data = page_data(write_site([t0, t1, t0 / "games.jsonl"], tmp_path / "two"))  # t0 named twice: read once
    assert [(r["source"], r["games"], r["agents"] and sorted(r["agents"])) for r in data["results"]] == [
        (str(t0), 6, ["gprd", "random"]),
        (str(t1), 6, ["fg", "gprd", "random"]),
    ]
    assert len(data["games"]) == 12 and {r["ratings"] for r in data["results"]} == {"ratings-1.png", "ratings-2.png"}
    mixed = tmp_path / "mixed.jsonl"  # two tournaments in one file: game ids meet other games
    mixed.write_text((t0 / "games.jsonl").read_text() + (t1 / "games.jsonl").read_text())
    status, err = view(mixed, "--out", tmp_path / "three")
    assert status == 2 and one_line(err, "the file mixes tournaments")


def finished_record(agents: list[str]) -> dict:
    game = Game(2, Rules(), seed=2).playout(random.Random(2))
    return to_record(game, agents)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tournament": {}}, "tournament.game_id must be"),
        ({"tournament": "x"}, "record field 'tournament' must be an object"),
        ({"tournament": {"game_id": 0, "deal": 0, "placings": "x"}}, "tournament.placings 'x' differ"),
        ({"moves": {0: {"trace": {}}}}, r"moves[0].trace.kind must be"),
        ({"moves": {0: {"trace": {"kind": "search"}}}}, "moves[0].trace.candidates must be a list"),
        ({"moves": {0: {"trace": {"kind": "policy", "value": "high", "candidates": []}}}}, "value must be a number"),
    ],
)
def test_a_malformed_tournament_entry_or_trace_is_one_line(tmp_path, change, message):
    record = finished_record(["a", "b"])
    for index, fields in change.pop("moves", {}).items():
        record["moves"][index].update(fields)
    record.update(change)
    (tmp_path / "bad.json").write_text(json.dumps(record))
    status, err = view(tmp_path / "bad.json", "--out", tmp_path / "site")
    assert status == 2 and one_line(err, message) and not (tmp_path / "site").exists()


def test_markup_in_a_name_cannot_end_or_blank_the_page(tmp_path):
    record = finished_record(["<!--<script>", "</script><b>"])
    (tmp_path / "game.json").write_text(json.dumps(record))
    index = write_site([tmp_path / "game.json"], tmp_path / "site")
    game = tmp_path / "site" / "games" / "0001.html"
    for page in (index, game):
        script = page.read_text().split("const DATA = ", 1)[1].split(";\n</script>", 1)[0]
        assert "<" not in script
    assert page_data(index)["games"][0]["agents"] == page_data(game)["agents"] == record["agents"]
