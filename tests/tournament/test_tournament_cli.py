"""``kdenv tournament``: the table, the files, the study preset, resume, and one-line errors."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.registry import PLAYERS
from training.cli import main


def kdenv(*argv: str) -> int:
    return main(["tournament", *argv, "--workers", "1", "--no-progress"])


def test_a_tournament_prints_the_table_and_writes_its_files(tmp_path, capsys):
    out = tmp_path / "t"
    assert kdenv("--agents", "random", "gprd", "--players", "2", "--games", "4", "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "1 table(s) x 2 seatings x 2 deal(s) = 4 games of 2 players" in printed
    assert "Win rate [95% CI]" in printed and "│ random │" in printed
    for name in ("tournament.json", "games.jsonl", "results.json", "results.md", "ratings.png"):
        assert (out / name).stat().st_size > 0
    assert kdenv("--agents", "random", "gprd", "--players", "2", "--games", "4", "--out", str(out)) == 0
    assert "4 already in" in capsys.readouterr().out  # the same command again resumes: nothing left to play
    assert len((out / "games.jsonl").read_text().splitlines()) == 4


@pytest.mark.parametrize("lines", [0, 1])
def test_a_reader_that_goes_away_loses_no_results(tmp_path, lines):
    out = tmp_path / "t"
    command = [sys.executable, "-m", "training.cli", "tournament", "--agents", "random", "gprd", "--games", "2"]
    command += ["--workers", "1", "--no-progress", "--out", str(out)]
    root, env = Path(__file__).resolve().parents[2], {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        for _ in range(lines):  # `kdenv tournament ... | head -N`: the reader leaves after N lines
            process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read().decode()
    assert (out / "results.json").stat().st_size > 0 and (out / "results.md").stat().st_size > 0
    assert err == "" and process.returncode == 1  # Python's exit status on a broken pipe, and not a word


def test_sigterm_stops_as_ctrl_c_does_saying_what_is_saved_and_the_same_command_resumes(tmp_path):
    """As a scheduler or ``timeout`` stops a run: not a sudden death with no word (and a leaked-semaphore warning
    from multiprocessing), but the games played kept, the folder let go, a resume that plays the rest."""
    out = tmp_path / "t"
    command = [sys.executable, "-m", "training.cli", "tournament", "--agents", "mce:playouts=100", "random"]
    command += ["--games", "200", "--workers", "2", "--no-progress", "--out", str(out)]
    root, env = Path(__file__).resolve().parents[2], {**os.environ, "PYTHONUNBUFFERED": "1"}
    games = out / "games.jsonl"
    with subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
        deadline = time.monotonic() + 180  # the first game compiles the playout kernels where no cache is
        while not (games.exists() and games.read_text().count("\n")) and time.monotonic() < deadline:
            time.sleep(0.1)
        run.send_signal(signal.SIGTERM)
        out_text, err = run.communicate(timeout=30)
    saved = len(games.read_text().splitlines())
    assert 0 < saved < 200 and run.returncode == 128 + signal.SIGTERM
    assert f"{saved} games saved in {out}/games.jsonl; run the same command again to resume" in out_text
    assert err == "kdenv tournament: terminated\n"
    assert kdenv("--agents", "mce:playouts=100", "random", "--games", str(saved), "--out", str(out)) == 0


@pytest.mark.parametrize(
    ("spec", "workers"), [("mce:seconds=3600", "1"), ("mce:seconds=3600", "2"), ("az:default,seconds=3600", "1")]
)
def test_sigterm_stops_a_search_that_would_think_for_an_hour_within_seconds(tmp_path, spec, workers):
    """As ``timeout 20 kdenv tournament --agents mce:seconds=3600 fg ...`` stops it: in this process, the search
    sees the signal between its batches of playouts or simulations; with workers, they are stopped at once."""
    command = [sys.executable, "-m", "training.cli", "tournament", "--agents", spec, "fg"]
    command += ["--players", "2", "--games", "2", "--workers", workers, "--no-progress", "--out", str(tmp_path / "t")]
    root, env = Path(__file__).resolve().parents[2], {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
        assert "= 2 games of 2 players" in run.stdout.readline()
        time.sleep(3)  # thinking
        run.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        out_text, err = run.communicate(timeout=30)
    assert time.monotonic() - stopped < 10 and run.returncode == 128 + signal.SIGTERM
    assert "0 games saved" in out_text and err.endswith("kdenv tournament: terminated\n")


@pytest.mark.skipif("fg" not in PLAYERS, reason="needs the fg player")
def test_the_study_preset_is_one_agent_against_three_fg(tmp_path, capsys):
    out = tmp_path / "study"
    assert kdenv("--protocol", "study", "--agent", "random", "--games", "4", "--out", str(out)) == 0
    printed = capsys.readouterr().out
    assert "study protocol: random vs 3 x fg (4 players, Middle Kingdom + Harmony), 4 games: win rate" in printed
    settings = json.loads((out / "tournament.json").read_text())
    assert settings["agents"] == ["random", "fg", "fg", "fg"] and settings["players"] == 4
    assert settings["rules"] == {"kingdom_size": 5, "middle_kingdom": True, "harmony": True, "voluntary_discard": False}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "random", "rnadom"], "unknown player 'rnadom'"),
        (["--agents", "random", "random", "--players", "5"], "--players must be 2, 3 or 4"),
        (["--agents", "random", "random", "--players", "3"], "3-player tables need at least 3 agents"),
        (["--agents", "random", "random", "random", "--rules", "mighty_duel"], "Mighty Duel"),
        (["--agents", "random", "random", "--games", "0"], "games must be from 1 to 10,000,000, not 0"),
        (["--agents", "random", "random", "--games", "1000000000000"], "games must be from 1 to 10,000,000"),
        (["--agents", "random", "random", "--seed", "-1"], "seed must be an integer 0 or more, not -1"),
        (["--agents", "random", "random", "--seed", str(2**32)], "the seed must be from 0 to 4,294,967,295"),
        (["--protocol", "study"], "needs --agent"),
        (["--agent", "random"], "--agent is for --protocol study"),
    ],
)
def test_bad_input_is_a_one_line_error(argv, message, tmp_path, capsys):
    assert kdenv(*argv, "--out", str(tmp_path / "t")) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("kdenv tournament: error:")
    assert not (tmp_path / "t" / "games.jsonl").exists()


def test_an_unwritable_output_directory_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert kdenv("--agents", "random", "random", "--out", str(tmp_path / "file" / "t")) == 2
    err = capsys.readouterr().err
    assert "cannot write the tournament to" in err and err.count("\n") == 1


def test_a_tournament_folder_another_process_plays_is_refused_until_it_ends(tmp_path, capsys):
    from tests.helpers.locks import held_elsewhere

    out = tmp_path / "t"
    out.mkdir()
    argv = ("--agents", "random", "random", "--players", "2", "--games", "2", "--out", str(out))
    with held_elsewhere(out) as holder:
        assert kdenv(*argv) == 2
        err = capsys.readouterr().err
        assert f"error: tournament folder {str(out)!r} is in use by process {holder.pid};" in err
        assert err.count("\n") == 1 and not (out / "tournament.json").exists()
    assert kdenv(*argv) == 0  # the holder is gone (killed): the folder is free
