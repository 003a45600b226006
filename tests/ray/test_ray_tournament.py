"""Tournaments on Ray: the local backend's games, resume, a lost worker, evaluation, an unreachable cluster."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("ray")

from agents.registry import PLAYERS
from kdenv.replay import read_records, replay_record
from tests.helpers.fakes import FAKES
from tests.helpers.interrupts import InterruptAfter
from training.arena.errors import TournamentError
from training.arena.tournament import Tournament
from training.backends.local import InProcess
from training.backends.ray_backend import Ray


def records(path) -> list[str]:
    return sorted(json.dumps(record, sort_keys=True) for record in read_records(path / "games.jsonl"))


def test_a_ray_tournament_plays_the_local_backends_games(local_ray, tmp_path):
    settings = {"agents": ["random", "fg", "gprd"], "players": 3, "games": 12, "seed": 7}
    Tournament(**settings, out=tmp_path / "local").run(InProcess(), progress=False)
    results = Tournament(**settings, out=tmp_path / "ray").run(Ray(), progress=False)
    assert results.games == 12
    assert records(tmp_path / "ray") == records(tmp_path / "local")  # the same records, in any order
    for record in read_records(tmp_path / "ray" / "games.jsonl"):
        replay_record(record)


def test_a_ray_tournament_resumes_after_an_interruption(local_ray, tmp_path):
    settings = {"agents": ["random", "fg"], "players": 2, "games": 16, "seed": 3, "out": tmp_path}
    with pytest.raises(KeyboardInterrupt):
        Tournament(**settings).run(Ray(), progress=False, on_outcome=InterruptAfter(5))
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 5
    again = Tournament(**settings)
    assert len(again.records) == 5
    results = again.run(Ray(), progress=False)
    ids = sorted(r["tournament"]["game_id"] for r in read_records(tmp_path / "games.jsonl"))
    assert ids == list(range(16)) and results.games == 16
    Tournament(**{**settings, "out": tmp_path / "local"}).run(InProcess(), progress=False)
    assert records(tmp_path) == records(tmp_path / "local")


def test_a_lost_worker_is_retried_and_its_game_recorded(local_ray, tmp_path, monkeypatch):
    monkeypatch.setitem(PLAYERS, "dies", FAKES["dies"])
    agents = [f"dies:{tmp_path / 'died'}", "random"]
    tournament = Tournament(agents, players=2, games=6, seed=1, out=tmp_path / "ray")
    results = tournament.run(Ray(), progress=False)
    assert (tmp_path / "died").exists()  # a worker was lost...
    assert results.games == 6 and not tournament.forfeits  # ...and its game played again, never scored
    assert not (tmp_path / "ray" / "errors.jsonl").exists()
    Tournament(agents, players=2, games=6, seed=1, out=tmp_path / "local").run(InProcess(), progress=False)
    assert records(tmp_path / "ray") == records(tmp_path / "local")


def test_a_game_whose_worker_is_lost_at_every_try_stops_the_run_and_is_never_scored(local_ray, tmp_path, monkeypatch):
    monkeypatch.setitem(PLAYERS, "dies", FAKES["dies"])
    tournament = Tournament(["dies", "random"], players=2, games=4, seed=1, out=tmp_path)
    with pytest.raises(TournamentError, match="worker was lost every time it ran.*run again to resume"):
        tournament.run(Ray(1), progress=False)  # one at a time: game 1 (an even seed) dies
    tournament.close()  # one process holds a tournament folder at a time, this one too
    with Tournament(["dies", "random"], players=2, games=4, seed=1, out=tmp_path) as again:
        assert {g.game_id for g in again.pending} == {1, 2, 3}  # game 0 kept; the lost game left to play


def test_a_player_of_one_s_own_plays_on_ray(local_ray, tmp_path):
    settings = {"agents": ["tests.helpers.own_bots:make,depth=2", "fg"], "players": 2, "games": 4, "seed": 5}
    results = Tournament(**settings, out=tmp_path / "ray").run(Ray(), progress=False)
    assert results.agent("tests.helpers.own_bots:make,depth=2").games == 4
    Tournament(**settings, out=tmp_path / "local").run(InProcess(), progress=False)
    assert records(tmp_path / "ray") == records(tmp_path / "local")


def test_evaluation_plays_its_tournament_on_ray(local_ray, tmp_path):
    from agents.checkpoint import read_checkpoint
    from tests.helpers.checkpoints import SETTINGS, write_checkpoint
    from training.arena.training_eval import evaluate_policy

    write_checkpoint(tmp_path / "tiny.zip", SETTINGS)
    settings, state = read_checkpoint(tmp_path / "tiny.zip")
    rules = settings.rules
    here = evaluate_policy(settings, state, "mce:playouts=2", 8, rules, backend=InProcess())
    there = evaluate_policy(settings, state, "mce:playouts=2", 8, rules, backend=Ray())
    assert there.games == here.games == 8 and there.win_rate == here.win_rate and there.score == here.score


def test_an_unreachable_address_is_a_one_line_error(tmp_path):
    command = [sys.executable, "-m", "training.cli", "tournament", "--agents", "random", "fg", "--games", "4",
               "--backend", "ray", "--address", "127.0.0.1:9", "--out", str(tmp_path), "--no-progress"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    error = done.stderr.strip().splitlines()
    assert len(error) == 1 and "cannot reach a Ray cluster at '127.0.0.1:9'" in error[0], done.stderr
    assert "ray start --head" in error[0] and "Traceback" not in done.stderr


@pytest.mark.parametrize("bot", ["Sleeps", "HardExits"])
def test_a_player_that_breaks_its_games_forfeits_them_on_ray_as_here(local_ray, tmp_path, bot):
    """The move limit and the refused exit hold in Ray's workers too: the same games, the same forfeits."""
    settings = {"agents": [f"tests.helpers.broken_bots:{bot}", "random"], "players": 2, "games": 2, "move_limit": 0.5}
    results = Tournament(**settings, out=tmp_path / "ray").run(Ray(), progress=False)
    assert results.games == 2 and results.agent(settings["agents"][0]).forfeited == 2
    Tournament(**settings, out=tmp_path / "local").run(InProcess(), progress=False)
    assert records(tmp_path / "ray") == records(tmp_path / "local")
