"""``kdenv evaluate``: the protocols, the evaluation file, its independence of the workers, resume, the paired
comparison, the leaderboard and the one-line errors."""

from __future__ import annotations

import json
import math
import shutil
import tracemalloc

import pytest

from training.arena import leaderboard
from training.arena.evaluation import FORMAT, EvaluationError, compare, evaluate, read
from training.arena.protocols import PROTOCOLS
from training.arena.tournament import Tournament
from training.backends.local import InProcess, Processes
from training.cli import main

KEYS = {"protocol", "protocol_version", "spec", "games", "win_rate", "win_rate_ci", "margin", "margin_ci"}
KEYS |= {"kdenv_version", "seed", "format", "players", "rules", "opponents", "deals"}


def kdenv(*argv: str) -> int:
    return main(["evaluate", *argv, "--no-progress"])


def test_the_list_names_every_protocol_with_its_version(capsys):
    assert kdenv("--list") == 0
    printed = capsys.readouterr().out
    for name in ("study-4p", "vs-fg-2p", "vs-fg-3p", "mighty-duel"):
        assert name in printed
    assert printed.count(" v1 ") == 4
    assert "Middle Kingdom + Harmony" in printed and "Mighty Duel (7x7)" in printed


def test_an_evaluation_writes_its_file_and_prints_the_line_to_cite(tmp_path, capsys):
    out = tmp_path / "gprd"
    assert kdenv("gprd", "--protocol", "vs-fg-2p", "--games", "4", "--workers", "1", "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "gprd on vs-fg-2p v1 (seed 0, 4 games, 2 deals): normalized score" in printed and "win rate" in printed
    data = json.loads((out / "evaluation.json").read_text())
    assert set(data) >= KEYS and data["format"] == FORMAT
    assert data["games"] == 4 and data["opponents"] == ["fg"] and data["spec"] == "gprd"
    assert data["win_rate_ci"][0] <= data["win_rate"] <= data["win_rate_ci"][1]
    assert len((out / "games.jsonl").read_text().splitlines()) == 4


def test_the_figures_do_not_depend_on_the_worker_count(tmp_path):
    one = evaluate("random", "vs-fg-3p", games=6, out=tmp_path / "one", backend=InProcess()).to_dict()
    two = evaluate("random", "vs-fg-3p", games=6, out=tmp_path / "two", backend=Processes(2)).to_dict()
    assert one == two


def test_the_same_command_again_resumes_and_plays_nothing_more(tmp_path, capsys):
    argv = ("random", "--protocol", "vs-fg-2p", "--games", "4", "--workers", "1", "--out", str(tmp_path / "r"))
    assert kdenv(*argv) == 0
    first = (tmp_path / "r" / "evaluation.json").read_text()
    capsys.readouterr()
    assert kdenv(*argv) == 0
    assert "4 already in" in capsys.readouterr().out
    assert (tmp_path / "r" / "evaluation.json").read_text() == first
    assert len((tmp_path / "r" / "games.jsonl").read_text().splitlines()) == 4


def test_a_paired_comparison_on_the_same_deals(tmp_path, capsys):
    common = ("--protocol", "vs-fg-2p", "--games", "8", "--workers", "1")
    assert kdenv("random", *common, "--out", str(tmp_path / "random")) == 0
    assert kdenv("gprd", *common, "--out", str(tmp_path / "gprd"), "--compare", str(tmp_path / "random")) == 0
    assert "gprd - random on the same 4 deals: win rate" in capsys.readouterr().out
    saved = json.loads((tmp_path / "gprd" / "comparison.json").read_text())
    assert saved["deals"] == 4 and saved["ours"] == "gprd" and saved["theirs"] == "random"
    itself = compare(tmp_path / "gprd", tmp_path / "gprd")
    assert itself["win_rate_diff"] == 0 and itself["win_rate_diff_ci"] == [0, 0] and itself["margin_diff"] == 0


def test_a_comparison_of_two_protocols_is_refused_in_one_line(tmp_path):
    evaluate("random", "vs-fg-2p", games=2, out=tmp_path / "two", backend=InProcess())
    evaluate("random", "mighty-duel", games=2, out=tmp_path / "duel", backend=InProcess())
    with pytest.raises(EvaluationError, match="has protocol 'vs-fg-2p' where this run has 'mighty-duel'"):
        compare(tmp_path / "duel", tmp_path / "two")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("fg", "--protocol", "study"), "unknown protocol 'study'; choose from study-4p, vs-fg-2p"),
        ((), "give the SPEC to evaluate"),
        (("nobody", "--protocol", "vs-fg-2p"), "nobody"),
        (("fg", "--workers", "0"), "--workers must be at least 1, not 0"),
        (("fg", "--address", "auto"), "an address is for the ray backend; choose it (--backend ray"),
        (("fg", "--games", "1000000000000"), "the number of games must be from 1 to 10,000,000, not 1000000000000"),
        (("fg", "--seed", "-1"), "seed must be an integer 0 or more, not -1"),
        (("fg", "--seed", str(2**32)), "the seed must be from 0 to 4,294,967,295, not 4294967296"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert kdenv(*argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_a_million_games_print_their_first_game_at_once(tmp_path, capsys, monkeypatch):
    """The schedule is made a game at a time: the first game of a million is played, and saved, at once."""
    accept = Tournament._accept

    def stop_after_the_first(self, outcome, bar):
        accept(self, outcome, bar)
        raise KeyboardInterrupt

    monkeypatch.setattr(Tournament, "_accept", stop_after_the_first)
    out = tmp_path / "million"
    assert kdenv("random", "--protocol", "vs-fg-2p", "--games", "1000000", "--workers", "1", "--out", str(out)) == 130
    printed = capsys.readouterr().out
    assert "= 1000000 games of 2 players" in printed and f"1 games saved in {out}/games.jsonl" in printed
    assert len((out / "games.jsonl").read_text().splitlines()) == 1


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    """An evaluation of random on vs-fg-2p, 8 games on 4 deals, to compare with."""
    out = tmp_path_factory.mktemp("other") / "random"
    evaluate("random", "vs-fg-2p", games=8, out=out, backend=InProcess())
    return out


def edited(other, tmp_path, evaluation=None, lines=None):
    """A copy of ``other`` whose evaluation.json is ``evaluation(data)``'s text and games.jsonl ``lines(lines)``."""
    folder = tmp_path / "edited"
    shutil.copytree(other, folder)
    if evaluation is not None:
        data = json.loads((folder / "evaluation.json").read_text())
        (folder / "evaluation.json").write_text(evaluation(data))
    if lines is not None:
        records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
        (folder / "games.jsonl").write_text("".join(f"{line}\n" for line in lines(records)))
    return folder


def changed(key, value):
    return lambda data: json.dumps({**data, key: value})


def without(key):
    return lambda data: json.dumps({k: v for k, v in data.items() if k != key})


def first_score(value):
    return lambda records: [json.dumps({**records[0], "final": {**records[0]["final"], "scores": [value, 0]}})]


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("evaluation", "lines", "message"),
    [
        (without("protocol"), None, "evaluation.json: 'protocol' field required"),
        (without("seed"), None, "evaluation.json: 'seed' field required"),
        (without("spec"), None, "evaluation.json: 'spec' field required"),
        (changed("win_rate", math.nan), None, "evaluation.json: 'win_rate' input should be a finite number, got nan"),
        (changed("win_rate", 7), None, "evaluation.json: 'win_rate' must be in [0, 1], got 7"),
        (changed("seed", "0"), None, "evaluation.json: 'seed' input should be a valid integer, got '0'"),
        (changed("seed", 10**30), None, "evaluation.json: 'seed' must be from 0 to 4,294,967,295"),
        (lambda data: DEEP, None, "evaluation.json: JSON nested too deeply to read"),
        (lambda data: "1" * 5000, None, "evaluation.json: not valid JSON (Exceeds the limit (4300 digits)"),
        (changed("seed", 1), None, "has seed 1 where this run has 0; a paired comparison needs the same protocol"),
        (changed("protocol", "study-4p"), None, "has protocol 'study-4p' where this run has 'vs-fg-2p'"),
        (changed("protocol_version", 2), None, "has protocol_version 2 where this run has 1"),
        (None, lambda records: [*map(json.dumps, records), '{"x":1}'], "games.jsonl:9: 'agents' field required"),
        (None, lambda records: [DEEP], "games.jsonl:1: JSON nested too deeply to read"),
        (None, first_score(math.nan), "games.jsonl:1: 'final.scores[0]' input should be a valid integer, got nan"),
        (None, first_score(10**100), "games.jsonl:1: 'final.scores[0]' must be at most 10000"),
        (None, lambda records: [], "games.jsonl holds no game of 'random': nothing to compare"),
    ],
)
def test_a_file_to_compare_is_checked_before_any_game(other, tmp_path, capsys, evaluation, lines, message):
    """A hand-edited evaluation.json or games.jsonl, or an evaluation of other deals: one line naming the file (and
    line) and the field, before any game is played."""
    folder = edited(other, tmp_path, evaluation, lines)
    out = tmp_path / "never"
    assert kdenv("gprd", "--protocol", "vs-fg-2p", "--games", "8", "--compare", str(folder), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(("games", "first", "deals"), [("2", 0, 1), ("4", 2, 0)])
def test_too_few_common_deals_are_one_line_after_the_games_and_keep_the_evaluation(
    other, tmp_path, capsys, games, first, deals
):
    """Fewer than two common deals (the other's from deal ``first`` on) give no interval: refused (exit 2), the
    evaluation written and its line said."""
    folder = edited(
        other, tmp_path, lines=lambda records: [json.dumps(r) for r in records if r["tournament"]["deal"] >= first]
    )
    out = tmp_path / "gprd"
    argv = ("gprd", "--protocol", "vs-fg-2p", "--games", games, "--workers", "1", "--compare", str(folder))
    assert kdenv(*argv, "--out", str(out)) == 2
    captured = capsys.readouterr()
    assert f"cannot compare: {out} and {folder} share {deals} deal(s) of their games" in captured.err
    assert captured.err.count("\n") == 1 and "gprd on vs-fg-2p v1" in captured.out
    assert json.loads((out / "evaluation.json").read_text())["games"] == int(games)


@pytest.mark.parametrize(
    ("name", "message"),
    [("evaluation.json", "holds more than 1,000,000 characters"), ("games.jsonl", "line of more than 10,000,000")],
)
def test_a_huge_file_to_compare_is_refused_having_read_only_its_limit(other, tmp_path, capsys, name, message):
    folder = edited(other, tmp_path)
    with open(folder / name, "r+b") as stream:
        stream.truncate(2**30)  # 1 GB: zeros after the file's own text (a sparse file, no disk taken)
    tracemalloc.start()
    try:
        assert kdenv("gprd", "--protocol", "vs-fg-2p", "--compare", str(folder), "--out", str(tmp_path / "never")) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and peak < 200 * 2**20


@pytest.mark.parametrize("content", [None, b"\x00\x01binary", b'{"format": "something else"}'])
def test_a_bad_file_to_compare_is_refused_before_any_game(tmp_path, capsys, content):
    other = tmp_path / "other.json"
    if content is not None:
        other.write_bytes(content)
    out = tmp_path / "never"
    assert kdenv("random", "--protocol", "vs-fg-2p", "--compare", str(other), "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "that kdenv evaluate wrote" in err and err.count("\n") == 1
    assert not out.exists()
    with pytest.raises(EvaluationError):
        read(other)


def test_the_leaderboard_page_and_picture(tmp_path, monkeypatch, capsys):
    entries = (leaderboard.Entry("random", "random moves"), leaderboard.Entry("ppo:v1", "a 4-player network"))
    monkeypatch.setattr(leaderboard, "ENTRIES", entries)
    page = tmp_path / "LEADERBOARD.md"
    argv = ("--leaderboard", "--games", "2", "--workers", "1", "--out", str(tmp_path / "runs"), "--page", str(page))
    assert kdenv(*argv) == 0
    assert f"wrote {page}" in capsys.readouterr().out
    text = page.read_text()
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| `")}
    assert set(rows) == {"| `random` (random moves)", "| `ppo:v1` (a 4-player network)"}
    assert rows["| `ppo:v1` (a 4-player network)"].count("—") == len(PROTOCOLS) - 1  # it sits at 4 players only
    assert "—" not in rows["| `random` (random moves)"] and ", 2 g" in rows["| `random` (random moves)"]
    assert page.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_leaderboard_resumes_from_its_evaluation_files_alone(tmp_path, monkeypatch, capsys):
    """Copied without their games (as the shipped cells are), finished cells are read back and not played again;
    a cell of another seed is played."""
    monkeypatch.setattr(leaderboard, "ENTRIES", (leaderboard.Entry("random", "random moves"),))
    argv = ("--leaderboard", "--games", "2", "--workers", "1")
    assert kdenv(*argv, "--out", str(tmp_path / "first")) == 0
    first = (tmp_path / "first" / "LEADERBOARD.md").read_text()
    for file in (tmp_path / "first").glob("*/random/evaluation.json"):
        (tmp_path / "copy" / file.parent.parent.name / "random").mkdir(parents=True)
        shutil.copy(file, tmp_path / "copy" / file.parent.parent.name / "random" / file.name)

    def play(spec, protocol, *args):
        raise Played(spec, protocol)

    monkeypatch.setattr(leaderboard, "evaluate", play)
    assert kdenv(*argv, "--out", str(tmp_path / "copy")) == 0
    assert (tmp_path / "copy" / "LEADERBOARD.md").read_text() == first
    with pytest.raises(Played):  # a cell of seed 1 is played, not taken from seed 0's
        kdenv(*argv, "--out", str(tmp_path / "copy"), "--seed", "1")


class Played(Exception):
    """A cell that the leaderboard played."""


def test_a_leaderboard_plays_the_searches_at_their_strong_budgets_last(tmp_path, monkeypatch, capsys):
    """The hours of the strong rows come after every cheap cell, so the page fills first; the page keeps its order."""
    strong = leaderboard.Entry("random", "at a strong budget", leaderboard.STRONG_GAMES)
    monkeypatch.setattr(leaderboard, "ENTRIES", (strong, leaderboard.Entry("gprd", "cheap")))
    assert kdenv("--leaderboard", "--games", "2", "--workers", "1", "--out", str(tmp_path)) == 0
    played = [line.split("] ")[1].split(" on ")[0] for line in capsys.readouterr().out.splitlines() if line[:1] == "["]
    assert played == ["gprd"] * len(PROTOCOLS) + ["random"] * len(PROTOCOLS)
    rows = [line for line in (tmp_path / "LEADERBOARD.md").read_text().splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == ["random", "gprd"]
