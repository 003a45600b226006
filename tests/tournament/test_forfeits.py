"""Every game counts: a player that raises, exits, passes the move limit or returns an illegal action forfeits its
game (last place, a score of 0, the reason recorded) in every backend, and a lost worker is played again, never
scored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.registry import PLAYERS
from kdenv.errors import RecordError
from kdenv.replay import read_records, replay_record
from tests.helpers.fakes import FAKES
from training.arena.errors import TournamentError
from training.arena.evaluation import evaluate
from training.arena.tournament import Tournament
from training.backends.choose import choose_backend
from training.backends.local import InProcess, Processes
from training.cli import main

BOTS = "tests.helpers.broken_bots"
ROOT = Path(__file__).resolve().parents[2]

# (player, its reason, the move limit): each breaks every game it plays
BROKEN = [
    (f"{BOTS}:Exits", "exited", None),
    (f"{BOTS}:HardExits", "exited", None),
    (f"{BOTS}:Illegal", "illegal move", None),
    (f"{BOTS}:Sleeps", "move limit", 0.5),
]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(("spec", "reason", "limit"), BROKEN)
def test_a_player_that_breaks_its_games_forfeits_each_and_every_game_counts(tmp_path, spec, reason, limit, workers):
    tournament = Tournament([spec, "random"], players=2, games=4, out=tmp_path, move_limit=limit)
    results = tournament.run(choose_backend("local", workers), progress=False)
    assert results.games == 4 and results.agent(spec).forfeits == {reason: 4}
    assert results.agent(spec).wins == 0 and results.agent(spec).score == 0  # last, with a score of 0
    for record in read_records(tmp_path / "games.jsonl"):  # each game played to its end by a stand-in
        replay_record(record)
        seat = record["agents"].index(spec)
        assert [f["seat"] for f in record["forfeits"]] == [seat] and record["forfeits"][0]["reason"] == reason
        assert record["tournament"]["placings"][seat] == 1.0


def test_a_forfeit_by_an_opponent_is_its_loss_and_the_others_results_stand(tmp_path):
    spec = f"{BOTS}:Exits"
    results = Tournament([spec, "fg", "fg"], players=3, games=6, out=tmp_path).run(InProcess(), progress=False)
    assert results.agent("fg").games == 12 and results.agent("fg").wins > 0
    for record in read_records(tmp_path / "games.jsonl"):
        placings = record["tournament"]["placings"]
        fg = [p for seat, p in enumerate(placings) if record["agents"][seat] == "fg"]
        assert sorted(fg) in ([0.0, 1.0], [0.5, 0.5])  # the fg seats ranked by their own results, ahead of it


def test_a_player_that_raises_when_behind_scores_lower_than_the_same_player_that_does_not(tmp_path, capsys):
    """The issue's case: a figure that left out the games it broke ranked it first."""
    sore = evaluate(f"{BOTS}:SoreLoser", "vs-fg-2p", games=40, out=tmp_path / "sore", backend=Processes(2)).to_dict()
    honest = evaluate("gprd", "vs-fg-2p", games=40, out=tmp_path / "honest", backend=Processes(2)).to_dict()
    assert sore["games"] == honest["games"] == 40
    assert sore["forfeits"]["games"] == sore["forfeits"]["raised"] > 0 and honest["forfeits"] == {"games": 0}
    assert sore["win_rate"] < honest["win_rate"] and sore["margin"] < honest["margin"]


def test_the_command_line_counts_forfeits_in_its_line_and_file(tmp_path, capsys):
    out = tmp_path / "ev"
    argv = ["evaluate", f"{BOTS}:Exits", "--protocol", "vs-fg-2p", "--games", "4", "--out", str(out)]
    assert main([*argv, "--workers", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "4 games" in printed and "4 forfeits" in printed and "forfeited 4 game(s) (exited 4)" in printed
    data = json.loads((out / "evaluation.json").read_text())
    assert data["games"] == 4 and data["forfeits"] == {"games": 4, "exited": 4} and data["move_limit"] == 60.0


def test_a_move_limit_is_a_setting_of_the_folder_and_bad_ones_are_one_line_errors(tmp_path, capsys):
    Tournament(["random", "gprd"], players=2, games=2, out=tmp_path, move_limit=5).run(InProcess(), progress=False)
    assert json.loads((tmp_path / "tournament.json").read_text())["move_limit"] == 5.0
    with pytest.raises(TournamentError, match="move_limit: 5.0 there, 6.0 now"):
        Tournament(["random", "gprd"], players=2, games=2, out=tmp_path, move_limit=6)
    for bad in (0, -1, float("inf"), float("nan"), 10**6):
        with pytest.raises(TournamentError, match="the move limit must be a number of seconds above 0"):
            Tournament(["random", "gprd"], players=2, games=2, move_limit=bad)
    with pytest.raises(SystemExit, match="2"):
        main(["tournament", "--agents", "random", "gprd", "--move-limit", "soon", "--no-progress"])
    assert "argument --move-limit: give seconds or none, not 'soon'" in capsys.readouterr().err


@pytest.mark.parametrize(("limit", "forfeits"), [(None, {}), (0.2, {"move limit": 2})])
def test_a_slow_move_forfeits_only_past_the_limit(tmp_path, limit, forfeits):
    spec = f"{BOTS}:SlowOnce"
    tournament = Tournament([spec, "random"], players=2, games=2, out=tmp_path, move_limit=limit)
    assert tournament.run(InProcess(), progress=False).agent(spec).forfeits == forfeits


def test_a_worker_lost_once_is_played_again_and_never_scored(tmp_path, monkeypatch):
    monkeypatch.setitem(PLAYERS, "dies", FAKES["dies"])
    agents = [f"dies:{tmp_path / 'died'}", "random"]
    tournament = Tournament(agents, players=2, games=6, out=tmp_path / "t")
    results = tournament.run(Processes(2), progress=False)
    assert (tmp_path / "died").exists()  # a worker was lost...
    assert results.games == 6 and not tournament.forfeits  # ...and its game played again, not scored


def test_a_worker_lost_at_every_try_stops_the_run_in_one_line_and_its_game_is_left_to_play(tmp_path, monkeypatch):
    monkeypatch.setitem(PLAYERS, "dies", FAKES["dies"])  # dies in the games of an even seed, every time
    tournament = Tournament(["dies", "random"], players=2, games=8, out=tmp_path)
    with pytest.raises(TournamentError, match="its worker was lost every time it ran.*run again to resume"):
        tournament.run(Processes(2), progress=False)
    assert not tournament.forfeits
    tournament.close()
    with Tournament(["dies", "random"], players=2, games=8, out=tmp_path) as again:
        assert 0 in {game.game_id for game in again.pending}  # never scored: played when the run resumes


def test_sys_exit_in_a_player_module_at_import_is_a_one_line_error(tmp_path):
    (tmp_path / "quitter.py").write_text("import sys\nsys.exit(7)\n")
    done = subprocess.run(
        [sys.executable, "-m", "training.cli", "evaluate", "quitter:Bot", "--protocol", "vs-fg-2p", "--games", "2"],
        cwd=tmp_path, env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": ""}, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "kdenv evaluate: error: player spec 'quitter:Bot': importing quitter called sys.exit(7)"
    ]


@pytest.mark.parametrize(
    ("forfeits", "message"),
    [
        ({"seat": 2}, "must be a list"),
        ([{"seat": 5, "reason": "raised", "move": 0, "error": ""}], "seat must be a seat of the game"),
        ([{"seat": 0, "reason": "sulked", "move": 0, "error": ""}], "reason must be one of raised, exited"),
        ([{"seat": 0, "reason": "raised", "move": 10**6, "error": ""}], "move must be the index of a move"),
        ([{"seat": 0, "reason": "raised", "move": 0, "error": None}], "error must be a string"),
    ],
)
def test_a_record_s_forfeits_are_checked_when_it_is_replayed(tmp_path, forfeits, message):
    Tournament([f"{BOTS}:Exits", "random"], players=2, games=2, out=tmp_path).run(InProcess(), progress=False)
    record = next(read_records(tmp_path / "games.jsonl"))
    with pytest.raises(RecordError, match=message):
        replay_record({**record, "forfeits": forfeits})
