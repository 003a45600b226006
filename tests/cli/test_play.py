"""`kdenv play` driven by scripted input: whole games, bad input answered with hints, quitting, bad options."""

from __future__ import annotations

import io
import json
import random
import re

import pytest

from agents.play.terminal import legal_codes, parse_move
from kdenv.game import OVER, Game
from kdenv.replay import replay_record
from kdenv.rules import Rules
from training.cli import main

PROMPT = re.compile(r"your move \(e\.g\. (\S+);")
HEADER = re.compile(r"=== round \d+: your turn to (pick|place) ===")


class ScriptedPerson:
    """A stdin for input(): types the bad inputs queued for the first pick / place prompt, then the code
    each prompt gives as its example (always a legal move); ``quit_after`` prompts it types ``q``."""

    def __init__(self, screen: io.StringIO, bad: dict[str, list[str]] | None = None, quit_after: int | None = None):
        self.screen = screen
        self.bad = {phase: list(lines) for phase, lines in (bad or {}).items()}
        self.quit_after = quit_after
        self.prompts = 0

    def readline(self) -> str:
        text = self.screen.getvalue()
        example = PROMPT.findall(text)[-1]
        phase = HEADER.findall(text)[-1]
        self.prompts += 1
        if self.quit_after is not None and self.prompts > self.quit_after:
            return "q\n"
        if self.bad.get(phase):
            return self.bad[phase].pop(0) + "\n"
        return example + "\n"


def play(monkeypatch, argv: list[str], **person) -> tuple[int, str, ScriptedPerson]:
    screen = io.StringIO()
    stdin = ScriptedPerson(screen, **person)
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setattr("sys.stdin", stdin)
    code = main(["play", *argv])
    return code, screen.getvalue(), stdin


BAD_PICKS = ["xyz", "p9", "", "e5e6"]
BAD_PLACES = ["d", "z9z9", "e5e6", "a1a3", "p1"]


@pytest.mark.parametrize(
    "argv, seat",
    [
        (["--opponents", "random", "--seed", "5"], 0),
        (["--opponents", "random", "--players", "2", "--seat", "1", "--rules", "middle_kingdom,harmony"], 1),
    ],
)
def test_a_whole_game_with_bad_input_finishes_and_saves_a_record_that_replays(monkeypatch, tmp_path, argv, seat):
    path = tmp_path / "game.json"
    bad = {"pick": list(BAD_PICKS), "place": list(BAD_PLACES)}
    code, out, person = play(monkeypatch, [*argv, "--record", str(path)], bad=bad)

    assert code == 0
    assert not person.bad["pick"] and not person.bad["place"]  # every bad input was read and answered
    for hint in (
        "'xyz' is not a move code",
        "p9 is not a domino of the next line",
        "type a move code",
        "not place one",
        "must be placed, not discarded",
        "z9 is off the map",
        "a cell is already occupied",
        "not side by side",
        "first place",
    ):
        assert hint in out
    assert "Traceback" not in out
    assert "Final scores:" in out and ("Winner: " in out or "Shared victory: " in out)
    record = json.loads(path.read_text())
    assert record["agents"][seat] == "human" and record["agents"].count("random") == len(record["agents"]) - 1
    game = replay_record(record)
    assert game.phase == OVER and record["final"]["scores"] == game.scores()
    assert sum(1 for m in record["moves"] if m["player"] == seat) == person.prompts - len(BAD_PICKS + BAD_PLACES)


def test_opponent_moves_are_announced_one_line_each(monkeypatch, tmp_path):
    code, out, _ = play(monkeypatch, ["--opponents", "random", "--seed", "1", "--record", str(tmp_path / "g.json")])
    record = json.loads((tmp_path / "g.json").read_text())
    opponent_moves = [m for m in record["moves"] if m["player"] != 0]
    announced = re.findall(r"^P[123] \(random\) (?:picks|places|discards) #\d+", out, re.MULTILINE)
    assert code == 0 and len(announced) == len(opponent_moves)


@pytest.mark.parametrize("person", [{"quit_after": 3}, {"quit_after": 0}])
def test_quitting_saves_the_unfinished_game(monkeypatch, tmp_path, person):
    path = tmp_path / "quit.json"
    code, out, _ = play(monkeypatch, ["--opponents", "random", "--seed", "2", "--record", str(path)], **person)
    assert code == 0 and "(unfinished) saved to" in out
    record = json.loads(path.read_text())
    assert "final" not in record
    assert replay_record(record).phase != OVER


class CtrlC:
    def readline(self) -> str:
        raise KeyboardInterrupt


@pytest.mark.parametrize("stdin", [io.StringIO(""), CtrlC()], ids=["end of input", "ctrl-c"])
def test_end_of_input_or_ctrl_c_quits_cleanly(monkeypatch, tmp_path, capsys, stdin):
    path = tmp_path / "eof.json"
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["play", "--opponents", "random", "--seed", "3", "--record", str(path)]) == 0
    assert "(unfinished) saved to" in capsys.readouterr().out
    assert replay_record(json.loads(path.read_text())).phase != OVER


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--opponents", "nosuchplayer"], "unknown player 'nosuchplayer'"),
        (["--opponents", "random,random,random,random"], "4 opponents given for 3 opponent seat(s)"),
        (["--players", "5"], "2, 3 or 4 players"),
        (["--seat", "4"], "--seat must be 0..3"),
        (["--rules", "nosuchrule"], "unknown rule 'nosuchrule'"),
        (["--record", "/no/such/folder/g.json"], "cannot be written (No such file or directory)"),
    ],
)
def test_bad_options_give_one_line_errors(monkeypatch, capsys, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--opponents", "random", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("players, rules", [(4, Rules()), (2, Rules(kingdom_size=7, voluntary_discard=True))])
def test_every_legal_move_has_a_code_that_reads_back_to_it(players, rules):
    rng = random.Random(0)
    game = Game(players, rules, seed=4)
    while game.phase != OVER:
        codes = legal_codes(game)
        assert len(codes) == len(game.legal_actions())
        for code, action in codes.items():
            assert parse_move(code.upper(), game) == action
        game.step(rng.choice(game.legal_actions()))


def test_records_are_never_overwritten_and_bad_paths_are_refused_before_the_game(monkeypatch, tmp_path, capsys):
    existing = tmp_path / "game.json"
    existing.write_text("keep me")
    (tmp_path / "linked.jsonl").symlink_to(existing)
    for record, message in [
        (existing, "the file exists; give a new name, or a .jsonl file"),
        (tmp_path / "linked.jsonl", "linked.jsonl is a symbolic link; kdenv writes no file through a link"),
        (tmp_path, "is a folder"),
        (tmp_path / "no" / "such" / "game.json", "cannot be written"),
    ]:
        assert main(["play", "--opponents", "random", "--record", str(record)]) == 2
        assert message in capsys.readouterr().err
    assert existing.read_text() == "keep me"
    log = tmp_path / "games.jsonl"
    for _ in range(2):  # a .jsonl file is appended to
        code, _, _ = play(monkeypatch, ["--opponents", "random", "--players", "2", "--record", str(log)], quit_after=2)
        assert code == 0
    assert len(log.read_text().splitlines()) == 2


def test_two_games_started_in_the_same_second_keep_both_records(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("time.strftime", lambda fmt: "20261201-120000")
    for _ in range(2):
        play(monkeypatch, ["--opponents", "random", "--players", "2"], quit_after=1)
    assert sorted(p.name for p in tmp_path.glob("kdenv-game-*.json")) == [
        "kdenv-game-20261201-120000-2.json",
        "kdenv-game-20261201-120000.json",
    ]


@pytest.fixture
def served(monkeypatch):
    """What ``kdenv play --web`` would serve: the (port, record folder, defaults) of each call of serve()."""
    calls: list[tuple] = []
    monkeypatch.setattr("agents.play.web.server.serve", lambda *args: calls.append(args))
    return calls


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_web_with_a_bad_port_is_a_one_line_error_of_argument_parsing(capsys, served, port):
    with pytest.raises(SystemExit) as stop:
        main(["play", "--web", "--port", port])
    expected = f"kdenv play: error: argument --port: {port!r} is not a port; give a whole number 1-65535, e.g. 8000"
    assert stop.value.code == 2 and served == [] and capsys.readouterr().err.splitlines()[-1] == expected


@pytest.mark.parametrize(
    ("opponents", "message"),
    [("nosuch", "unknown player 'nosuch'"), ("ppo:/no/such.zip", "not found"), ("fg,fg,fg,fg", "4 opponents given")],
)
def test_web_with_a_bad_opponent_is_a_one_line_error_before_the_server_starts(capsys, served, opponents, message):
    assert main(["play", "--web", "--opponents", opponents]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and served == []


def test_web_serves_the_opponents_of_the_command_line(served):
    assert main(["play", "--web", "--opponents", "uct:playouts=5000", "--players", "3", "--port", "8123"]) == 0
    ((port, _, defaults),) = served
    assert port == 8123 and defaults["opponents"] == ["uct:playouts=5000"] * 2  # offered to its page
