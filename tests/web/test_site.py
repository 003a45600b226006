"""``kdenv view``: the static site of a tournament folder or record files, and its one-line errors."""

from __future__ import annotations

import json
import re

import pytest

from kdenv.replay import read_records
from training.cli import main
from training.web.site import game_data, write_site


def page_data(path) -> dict:
    """The DATA a page of the site runs on."""
    return json.loads(re.search(r"const DATA = (.*);\n</script>", path.read_text()).group(1).replace("<\\/", "</"))


def test_a_tournament_folder_gives_an_index_and_a_page_per_game(traced_tournament, tmp_path):
    records = list(read_records(traced_tournament / "games.jsonl"))
    index = write_site([traced_tournament], tmp_path / "site")
    data = page_data(index)
    assert [row["number"] for row in data["games"]] == list(range(1, len(records) + 1))
    assert data["results"]["games"] == len(records) and (tmp_path / "site" / "ratings.png").stat().st_size > 0
    assert data["results"]["rows"][0][0] in {"fg", "mce:playouts=6", "uct:playouts=6", "ppo:default"}
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
     ("folder", "is a folder without games.jsonl"), (b"", "not valid JSON")],
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
