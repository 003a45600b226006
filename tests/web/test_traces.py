"""Decision traces: mce, uct and ppo: say what they thought at each move; traced records stay valid and replay."""

from __future__ import annotations

import random

import pytest

from agents.game_loop import play_game
from agents.registry import make_player
from agents.trace import TOP
from kdenv.errors import RecordError
from kdenv.game import Game
from kdenv.replay import read_records, replay_record, to_record
from kdenv.rules import Rules
from training.cli import main


def test_a_traced_tournament_replays(traced_tournament, capsys):
    records = list(read_records(traced_tournament / "games.jsonl"))
    assert len(records) >= 6
    for record in records:
        replay_record(record)
    assert main(["replay", str(traced_tournament / "games.jsonl"), "--quiet"]) == 0
    assert f"{len(records)} record(s) re-played and checked" in capsys.readouterr().out


def test_each_traced_player_says_what_it_thought(traced_tournament):
    kinds: dict[str, set] = {}
    for record in read_records(traced_tournament / "games.jsonl"):
        for move in record["moves"]:
            agent = record["agents"][move["player"]]
            if "trace" not in move:
                continue
            trace = move["trace"]
            kinds.setdefault(agent.partition(":")[0], set()).add(trace["kind"])
            candidates = trace["candidates"]
            assert 1 <= len(candidates) <= TOP
            assert sum(bool(c.get("chosen")) for c in candidates) == 1
            assert all(isinstance(c["action"], int) and c["move"] for c in candidates)
            if trace["kind"] == "policy":
                assert isinstance(trace["value"], float)
                assert all(0 <= c["probability"] <= 1 for c in candidates)
                assert [c["probability"] for c in candidates] == sorted(
                    (c["probability"] for c in candidates), reverse=True
                )
            else:
                assert all(c["visits"] >= 0 for c in candidates)
    # fg thinks nothing it can tell
    assert kinds == {"mce": {"search"}, "uct": {"search"}, "ppo": {"policy"}, "az": {"search"}}


def test_the_chosen_candidate_is_the_move_played():
    rules = Rules()
    players = [make_player("uct:playouts=8", 2, rules), make_player("ppo:default", 2, rules)]
    traces: list = []
    game = play_game(players, Game(2, rules, seed=4), seed=4, traces=traces)
    assert len(traces) == len(game.moves)
    for trace, (_, action, _) in zip(traces, game.moves, strict=True):
        if trace is not None:
            assert next(c for c in trace["candidates"] if c.get("chosen"))["action"] == action


def test_records_keep_traces_and_refuse_bad_ones():
    game = Game(2, Rules(), seed=1).playout(random.Random(1))
    plain = to_record(game)
    assert not any("trace" in move for move in plain["moves"])
    traces = [None] * len(game.moves)
    traces[3] = {"kind": "search", "candidates": []}
    traced = to_record(game, traces=traces)
    assert traced["moves"][3]["trace"] == traces[3] and "trace" not in traced["moves"][2]
    assert replay_record(traced).scores() == game.scores()
    traced["moves"][3]["trace"] = "thought hard"
    with pytest.raises(RecordError, match=r"moves\[3\]\.trace must be an object"):
        replay_record(traced)
