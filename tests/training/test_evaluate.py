"""``kdenv evaluate``: the protocols, the evaluation file, its independence of the workers, resume, the paired
comparison, the leaderboard and the one-line errors."""

from __future__ import annotations

import json

import pytest

from training.arena import leaderboard
from training.arena.evaluation import FORMAT, EvaluationError, compare, evaluate, read
from training.arena.protocols import PROTOCOLS
from training.arena.tournament import Tournament
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
    assert "gprd on vs-fg-2p v1 (seed 0, 4 games, 2 deals): win rate" in printed
    data = json.loads((out / "evaluation.json").read_text())
    assert set(data) >= KEYS and data["format"] == FORMAT
    assert data["games"] == 4 and data["opponents"] == ["fg"] and data["spec"] == "gprd"
    assert data["win_rate_ci"][0] <= data["win_rate"] <= data["win_rate_ci"][1]
    assert len((out / "games.jsonl").read_text().splitlines()) == 4


def test_the_figures_do_not_depend_on_the_worker_count(tmp_path):
    one = evaluate("random", "vs-fg-3p", games=6, out=tmp_path / "one", workers=1).to_dict()
    two = evaluate("random", "vs-fg-3p", games=6, out=tmp_path / "two", workers=2).to_dict()
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
    evaluate("random", "vs-fg-2p", games=2, out=tmp_path / "two", workers=1)
    evaluate("random", "mighty-duel", games=2, out=tmp_path / "duel", workers=1)
    with pytest.raises(EvaluationError, match="has protocol 'vs-fg-2p' where this run has 'mighty-duel'"):
        compare(tmp_path / "duel", tmp_path / "two")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("fg", "--protocol", "study"), "unknown protocol 'study'; choose from study-4p, vs-fg-2p"),
        ((), "give the SPEC to evaluate"),
        (("nobody", "--protocol", "vs-fg-2p"), "nobody"),
        (("fg", "--workers", "0"), "--workers must be at least 1, not 0"),
        (("fg", "--games", "1000000000000"), "the number of games must be from 1 to 10,000,000, not 1000000000000"),
        (("fg", "--seed", "-1"), "the seed must be from 0 to 4,294,967,295, not -1"),
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
