"""Tournaments end to end: records that re-play, duplicate deals, resume, crash isolation, ratings, bad input."""

import json
import re
import warnings
from collections import Counter, defaultdict

import pytest

from agents.registry import PlayerSpecError
from kdenv.replay import read_records, replay_record
from kdenv.rules import Rules
from tests.helpers.interrupts import InterruptAfter
from training.arena import schedule
from training.arena.report import _wrapped, plot
from training.arena.schedule import ScheduledGame
from training.arena.tournament import Tournament, TournamentError
from training.backends.local import InProcess, Processes


def test_every_game_is_recorded_and_replays_with_duplicate_deals(tmp_path):
    tournament = Tournament(["random", "gprd", "fg"], players=3, games=12, seed=5, out=tmp_path)
    tournament.run(InProcess(), progress=False)
    records = list(read_records(tmp_path / "games.jsonl"))
    assert sorted(r["tournament"]["game_id"] for r in records) == list(range(12))
    deals = defaultdict(list)
    for record in records:
        game = replay_record(record)  # every move legal, scores and winners as written
        assert game.placings() == record["tournament"]["placings"]
        assert sorted(record["agents"]) == ["fg", "gprd", "random"]
        deals[record["tournament"]["deal"]].append(record)
    assert len(deals) == 2
    for games in deals.values():
        assert len(games) == 6
        assert len({(tuple(r["deck"]), tuple(r["king_order"]), r["seed"]) for r in games}) == 1  # one deal
        assert len({r["tournament"]["seating"] for r in games}) == 6
    assert len({tuple(r["deck"]) for r in records}) == 2


def test_duplicate_deal_seats_each_agent_everywhere_once(fakes, tmp_path):
    Tournament(["greedy1", "random"], players=2, games=8, out=tmp_path).run(InProcess(), progress=False)
    records = list(read_records(tmp_path / "games.jsonl"))
    by_deal = defaultdict(set)
    for record in records:
        by_deal[tuple(record["deck"]), tuple(record["king_order"])].add(tuple(record["agents"]))
    assert list(by_deal.values()) == [{("greedy1", "random"), ("random", "greedy1")}] * 4


def test_resume_after_an_interruption_plays_each_game_once(tmp_path):
    settings = {"agents": ["random"] * 4, "players": 4, "games": 24, "seed": 1, "out": tmp_path}
    stop_after_ten = InterruptAfter(10)
    with pytest.raises(KeyboardInterrupt):
        Tournament(**settings).run(InProcess(), progress=False, on_outcome=stop_after_ten)
    games = tmp_path / "games.jsonl"
    first_lines = games.read_text().splitlines()
    assert len(first_lines) == 10
    with open(games, "a") as stream:  # a kill in the middle of a write leaves half a line
        stream.write(first_lines[-1][:57])
    again = Tournament(**settings)
    assert "truncated" in again.notes[0] and len(again.records) == 10
    second = []
    results = again.run(InProcess(), progress=False, on_outcome=lambda o: second.append(o.game.game_id))
    assert sorted(stop_after_ten.seen + second) == list(range(24)) and results.games == 24
    lines = games.read_text().splitlines()
    assert lines[:10] == first_lines and len(lines) == 24
    assert sorted(json.loads(line)["tournament"]["game_id"] for line in lines) == list(range(24))
    again.close()  # frees the folder's lock for the next one
    assert list(Tournament(**settings).pending) == []  # a third run has nothing left to play


def test_resume_in_worker_processes(tmp_path):
    settings = {"agents": ["random"] * 2, "players": 2, "games": 40, "out": tmp_path}
    with pytest.raises(KeyboardInterrupt):
        Tournament(**settings).run(Processes(2), progress=False, on_outcome=InterruptAfter(5))
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 5
    results = Tournament(**settings).run(Processes(2), progress=False)
    ids = [r["tournament"]["game_id"] for r in read_records(tmp_path / "games.jsonl")]
    assert sorted(ids) == list(range(40)) and results.games == 40


def test_a_tournament_takes_its_backend_and_every_backend_plays_the_same_games(tmp_path):
    def records(backend, out):
        Tournament(["random", "gprd"], players=2, games=6, seed=4, out=out).run(backend=backend, progress=False)
        return sorted(read_records(out / "games.jsonl"), key=lambda r: r["tournament"]["game_id"])

    here = records(InProcess(), tmp_path / "here")
    assert len(here) == 6 and records(Processes(2), tmp_path / "pool") == here


def test_a_longer_run_extends_the_tournament(tmp_path):
    Tournament(["random"] * 2, players=2, games=4, out=tmp_path).run(InProcess(), progress=False)
    results = Tournament(["random"] * 2, players=2, games=10, out=tmp_path).run(InProcess(), progress=False)
    assert results.games == 10 and len((tmp_path / "games.jsonl").read_text().splitlines()) == 10
    assert json.loads((tmp_path / "tournament.json").read_text())["games"] == 10


def test_a_crashing_player_forfeits_and_every_game_is_counted(fakes, tmp_path, capsys):
    tournament = Tournament(["crash", "random"], players=2, games=12, out=tmp_path)
    results = tournament.run(Processes(2), progress=False)  # the registry reaches the worker processes
    forfeited = sorted(game.game_id for game, _ in tournament.forfeits)
    assert forfeited == list(range(0, 12, 2))  # the crash player raises in games with an even play seed
    assert {(f.reason, f.error) for _, f in tournament.forfeits} == {("raised", "RuntimeError: boom")}
    errors = [json.loads(line) for line in (tmp_path / "errors.jsonl").read_text().splitlines()]
    assert sorted(e["game_id"] for e in errors) == forfeited  # the tracebacks, with the seeds to play them again
    assert all("RuntimeError: boom" in e["traceback"] and "deal_seed" in e and "play_seed" in e for e in errors)
    assert "boom" in capsys.readouterr().err
    assert results.games == 12 and len((tmp_path / "games.jsonl").read_text().splitlines()) == 12
    assert results.agent("crash").forfeits == {"raised": 6}


def test_a_clearly_stronger_agent_ends_higher(fakes):
    results = Tournament(["random", "greedy1"], players=2, games=20).play(InProcess())
    strong, weak = results.agent("greedy1"), results.agent("random")
    assert [a.agent for a in results.agents] == ["greedy1", "random"]
    assert strong.mu > weak.mu and strong.ordinal > weak.ordinal
    assert strong.win_low > 0.5 and strong.margin - strong.margin_ci > 0
    assert results.head_to_head["greedy1"]["random"] > 0.5


def test_reports_are_written(tmp_path):
    mighty_duel = Rules.from_names("mighty_duel")
    results = Tournament(["random"] * 2, players=2, games=4, rules=mighty_duel, out=tmp_path).play(InProcess())
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["games"] == 4 == results.games and data["settings"]["rules"]["kingdom_size"] == 7
    assert data["agents"][0]["agent"] == "random" and "head_to_head" in data
    assert "| random | 8 |" in (tmp_path / "results.md").read_text()
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"


class Stopped(InProcess):
    """A backend stopped (Ctrl-C) before its first game."""

    def tasks(self, task, items, common=()):
        raise KeyboardInterrupt
        yield


def test_play_frees_the_folder_when_its_run_stops_and_writes_no_reports(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        Tournament(["random", "gprd"], players=2, games=4, out=tmp_path).play(Stopped())
    assert not (tmp_path / "results.json").exists()
    with Tournament(["random", "gprd"], players=2, games=4, out=tmp_path) as again:  # not held by the stopped one
        assert len(list(again.pending)) == 4


def test_long_specs_are_broken_after_commas_in_the_plot(tmp_path):
    """A search's spec with its options would squeeze the plot's axes to nothing: its label is broken after commas
    into short lines that still read as the spec, and the figure is laid out without a warning."""
    spec = "mce:policy=fg,eval=r,playouts=2,clock=cpu,select=even"
    label = _wrapped(spec)
    assert label.replace("\n", "") == spec and len(label.splitlines()) > 1
    assert all(len(line) <= 23 for line in label.splitlines())
    assert _wrapped("ppo:default") == "ppo:default"
    path = "sb3:/tmp/benchmark/training/script/vs-fg-2p/seed-0/model.zip"  # a checkpoint's path: after its slashes
    assert _wrapped(path).replace("\n", "") == path and all(len(line) <= 23 for line in _wrapped(path).splitlines())
    results = Tournament([spec, "random"], players=2, games=2).play(InProcess())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot(results, tmp_path / "ratings.png")


def test_other_settings_in_the_same_directory_are_refused(tmp_path):
    Tournament(["random"] * 2, players=2, games=2, out=tmp_path).play(InProcess())
    with pytest.raises(TournamentError, match="other settings .*seed") as info:
        Tournament(["random"] * 2, players=2, games=2, seed=9, out=tmp_path)
    assert "\n" not in str(info.value)


def test_unwritable_output_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(TournamentError, match="cannot write the tournament to"):
        Tournament(["random"] * 2, players=2, games=2, out=blocker / "out")


def test_unknown_agent_fails_before_any_game(tmp_path):
    with pytest.raises(PlayerSpecError, match="unknown player 'rnadom'"):
        Tournament(["random", "rnadom"], players=2, out=tmp_path / "t")
    assert not (tmp_path / "t").exists()


def test_a_bad_line_in_the_middle_is_a_clear_error(tmp_path):
    Tournament(["random"] * 2, players=2, games=4, out=tmp_path).play(InProcess())
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    lines[1] = lines[1][:20]
    (tmp_path / "games.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(TournamentError, match="games.jsonl:2 is not a valid record"):
        Tournament(["random"] * 2, players=2, games=4, out=tmp_path)


def test_seats_of_one_spec_are_separate_players():
    results = Tournament(["random"] * 4, players=4, games=4).play(InProcess())
    assert results.agents[0].games == 16 and Counter(a.agent for a in results.agents) == {"random": 1}


def test_a_workers_players_are_kept_per_table_and_the_oldest_closed():
    from training.arena.worker import Seats

    seats = Seats(keep=4)
    four = seats.table(["ppo:default", "fg", "fg", "fg"], Rules.from_names("middle_kingdom,harmony"))
    assert seats.table(["ppo:default", "fg", "fg", "fg"], Rules.from_names("middle_kingdom,harmony")) == four
    two = seats.table(["ppo:default", "fg"], Rules())  # another table: its own players, the 2-player checkpoint
    assert two[0] is not four[0] and two[0].settings.num_players == 2 and four[0].settings.num_players == 4
    tables = [key[2] for key in seats.players]  # past keep=4, the least recently seated went
    assert tables == [4, 4, 2, 2]


def test_games_of_another_tournament_are_not_taken_as_finished(tmp_path):
    Tournament(["random"] * 2, players=2, games=2, out=tmp_path).run(InProcess(), progress=False)
    (tmp_path / "tournament.json").unlink()
    with pytest.raises(TournamentError, match="holds a game 0 that is not this tournament's"):
        Tournament(["random"] * 2, players=2, games=2, seed=4, out=tmp_path)


def test_a_refused_run_writes_nothing_so_the_right_command_still_resumes(tmp_path):
    first = tmp_path / "first"
    Tournament(["random", "gprd"], players=2, games=4, out=first).run(InProcess(), progress=False)
    (first / "tournament.json").unlink()  # lost: only games.jsonl remains
    with pytest.raises(TournamentError, match="not this tournament's"):
        Tournament(["random", "fg"], players=2, games=4, out=first)
    assert not (first / "tournament.json").exists()
    again = Tournament(["random", "gprd"], players=2, games=4, out=first)
    assert len(again.records) == 4 and not list(again.pending)


@pytest.mark.parametrize(
    "line",
    ['{"tournament": "t"}', "[1, 2]", '"text"', '{"tournament": {"game_id": [0]}}', '{"tournament": {"game_id": "0"}}'],
)
def test_a_line_that_is_no_game_record_is_a_one_line_error_and_changes_nothing(tmp_path, line):
    Tournament(["random", "gprd"], players=2, games=4, out=tmp_path).play(InProcess())
    games = tmp_path / "games.jsonl"
    games.write_text(games.read_text() + line + "\n")
    before = games.read_bytes()
    with pytest.raises(TournamentError, match="holds a line that is no tournament game's record") as info:
        Tournament(["random", "gprd"], players=2, games=4, out=tmp_path)
    assert "\n" not in str(info.value) and games.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]\n", "holds no tournament's settings"),
        ("[" * 100_000, "JSON nested too deeply to read; delete it or use another --out"),
        ("{" + " " * 10**6 + "}", "holds more than 1,000,000 characters: not a file kdenv wrote; delete it"),
    ],
)
def test_settings_that_are_no_object_are_a_one_line_error(tmp_path, text, message):
    (tmp_path / "tournament.json").write_text(text)
    with pytest.raises(TournamentError, match=re.escape(message)) as info:
        Tournament(["random", "gprd"], players=2, games=2, out=tmp_path)
    assert "\n" not in str(info.value) and (tmp_path / "tournament.json").read_text() == text


def test_a_folder_of_the_older_schedule_resumes_unless_a_spec_repeats(tmp_path):
    """Schedule 1 (before 2026-12-01, no "schedule" key) played a repeated spec's swapped seatings twice; the games
    of tables without a repeated spec are the same in both schedules."""

    def made_by_schedule_1(folder):
        settings = json.loads((folder / "tournament.json").read_text())
        del settings["schedule"]
        (folder / "tournament.json").write_text(json.dumps(settings))

    distinct, repeated = tmp_path / "distinct", tmp_path / "repeated"
    Tournament(["random", "gprd"], players=2, games=4, out=distinct).play(InProcess())
    made_by_schedule_1(distinct)
    assert len(Tournament(["random", "gprd"], players=2, games=4, out=distinct).records) == 4
    assert json.loads((distinct / "tournament.json").read_text())["schedule"] == 2
    Tournament(["random", "gprd", "gprd"], players=3, games=3, out=repeated).play(InProcess())
    made_by_schedule_1(repeated)
    with pytest.raises(TournamentError, match=r"older kdenv \(schedule 1\).*use another --out") as info:
        Tournament(["random", "gprd", "gprd"], players=3, games=3, out=repeated)
    assert "\n" not in str(info.value) and "schedule" not in json.loads((repeated / "tournament.json").read_text())


def test_a_tournament_of_a_million_games_starts_its_first_game_at_once(tmp_path, monkeypatch):
    """No list of the scheduled games: none is made to open the folder, and one a game as they are played."""
    made = []
    monkeypatch.setattr(schedule, "ScheduledGame", lambda *fields: made.append(fields) or ScheduledGame(*fields))
    tournament = Tournament(["random", "gprd"], players=2, games=1_000_000, out=tmp_path)
    assert made == [] and tournament.schedule.total == 1_000_000
    with pytest.raises(KeyboardInterrupt):
        tournament.run(InProcess(), progress=False, on_outcome=InterruptAfter(3))
    tournament.close()
    assert len(made) == 3 and len((tmp_path / "games.jsonl").read_text().splitlines()) == 3
    again = Tournament(["random", "gprd"], players=2, games=1_000_000, out=tmp_path)
    assert len(again.records) == 3 and len(made) == 6  # each finished game checked against its scheduled one
    assert next(again.pending).game_id == 3 and len(made) == 7
