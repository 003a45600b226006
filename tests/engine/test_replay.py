"""Game records: the format, malformed records, and the `kdenv replay` command."""

import copy
import random

import pytest

from kdenv.errors import RecordError
from kdenv.game import Game
from kdenv.replay import FORMAT, append_record, read_records, replay_record, to_record, write_record
from kdenv.rules import Rules
from training.cli import main as cli


def finished_record(players: int = 4, seed: int = 7, rules: Rules | None = None) -> dict:
    game = Game(players, rules or Rules(middle_kingdom=True, harmony=True), seed).playout(random.Random(seed))
    return to_record(game, [f"random:{p}" for p in range(players)])


def test_a_record_has_the_documented_fields():
    record = finished_record(2)
    assert record["format"] == FORMAT and record["num_players"] == 2
    assert record["rules"] == {"kingdom_size": 5, "middle_kingdom": True, "harmony": True, "voluntary_discard": False}
    assert len(record["deck"]) == 24 and sorted(record["king_order"]) == [0, 0, 1, 1]
    first = record["moves"][0]
    assert first["action"] == "pick" and first["domino"] in record["deck"][:4]
    place = next(m for m in record["moves"] if m["action"] == "place")
    assert len(place["cells"]) == 2 and abs(place["cells"][0][0] - place["cells"][1][0]) <= 1
    assert set(record["final"]) == {"scores", "winners"}


def mutated(path: list, value) -> dict:
    record = finished_record()
    target = record
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return record


@pytest.mark.parametrize(
    "path, value, message",
    [
        (["format"], "kingdomino-replay/0", "field 'format'"),
        (["deck"], KeyError, "no 'deck' field"),
        (["num_players"], "four", "field 'num_players' has the wrong type"),
        (["deck"], list(range(1, 49))[::-1][:47], "deck must hold 48"),
        (["king_order"], [0, 0, 1, 2], "king_order"),
        (["rules", "harmoni"], True, "unknown rule 'harmoni'"),
        (["moves", 0, "player"], 9, r"moves\[0\].player"),
        (["moves", 5, "action"], "jump", r"moves\[5\].action"),
        (["final", "scores"], [0, 0, 0, 0], "final.scores"),
        (["final", "winners"], [0, 1, 2, 3], "final.winners"),
        (["seed"], "seven", "field 'seed' must be an integer or null"),
        (["agents"], "random", "field 'agents' must be null or a list of 4 names"),
        (["rules", "harmony"], "yes", "rule 'harmony' must be true or false, not 'yes'"),
        (["rules", "kingdom_size"], True, "rule 'kingdom_size' must be an integer"),
        (["moves", 4, "cells"], "xx", r"moves\[4\]\.cells must be two \[row, col\] pairs of integers"),
        (["moves", 4, "cells"], [[0, 1], [0, 1.5]], r"moves\[4\]\.cells must be two \[row, col\] pairs"),
        (["moves", 4, "cells"], [[0, 1], [0, 1], [0, 2]], r"moves\[4\]\.cells must be two \[row, col\] pairs"),
        (["tournament"], {}, "tournament.game_id must be a whole number"),
        (["tournament"], "round 1", "field 'tournament' must be an object"),
        (["tournament"], {"game_id": 0, "deal": 0, "placings": "x"}, "tournament.placings 'x' differ"),
        (["tournament"], {"game_id": 0, "deal": -1, "placings": []}, "tournament.deal must be a whole number"),
        (["moves", 0, "trace"], "thought hard", r"moves\[0\]\.trace must be an object"),
        (["moves", 0, "trace"], {}, r"moves\[0\]\.trace\.kind must be 'search' or 'policy'"),
        (["moves", 0, "trace"], {"kind": "search"}, r"moves\[0\]\.trace\.candidates must be a list"),
        (["moves", 0, "trace"], {"kind": "policy", "value": "0.5", "candidates": []}, r"trace\.value must be a number"),
        (["moves", 0, "trace"], {"kind": "search", "candidates": [{"action": 1, "move": "pick #3", "visits": -1}]},
         r"trace\.candidates\[0\]\.value must be a number or null"),
        (["moves", 0, "trace"], {"kind": "policy", "value": 0.1, "candidates": [{"action": 1, "move": "pick #3"}]},
         r"trace\.candidates\[0\]\.probability must be a number from 0 to 1"),
    ],
)  # fmt: skip
def test_a_malformed_record_names_the_field(path, value, message):
    with pytest.raises(RecordError, match=message):
        replay_record(mutated(path, value))


def test_records_from_other_tools_may_leave_out_the_winners_the_seed_and_the_agents():
    record = finished_record()
    played = replay_record(record)
    del record["final"]["winners"], record["seed"], record["agents"]
    assert replay_record(record).winners() == played.winners() and replay_record(record).seed is None
    record["final"]["winners"] = None
    assert replay_record(record).winners() == played.winners()


def test_well_formed_traces_and_tournament_entries_pass():
    record = finished_record()
    placings = replay_record(record).placings()
    record["tournament"] = {"game_id": 3, "deal": 0, "table": 0, "seating": 1, "play_seed": -5, "placings": placings}
    search = {"action": 1, "move": "pick #3", "value": None, "visits": 0, "chosen": True}
    record["moves"][0]["trace"] = {"kind": "search", "candidates": [search]}
    record["moves"][1]["trace"] = {"kind": "policy", "value": -0.2, "candidates": [{**search, "probability": 1}]}
    assert replay_record(record).scores() == record["final"]["scores"]


@pytest.mark.parametrize("name", ["empty.json", "empty.jsonl"])
@pytest.mark.parametrize("text", ["", "\n \n"])
def test_an_empty_file_is_the_same_one_line_error_whatever_its_suffix(tmp_path, capsys, name, text):
    (tmp_path / name).write_text(text)
    assert cli(["replay", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err == f"kdenv replay: error: {tmp_path / name} holds no records (it is empty); give a file of " + (
        "kingdomino-replay/1 records\n"
    )


def test_an_illegal_move_in_a_record_is_named():
    record = finished_record()
    moves = record["moves"]
    index = next(i for i, m in enumerate(moves) if m["action"] == "place" and i > 20)
    earlier = next(m for m in moves[:index] if m["action"] == "place" and m["player"] == moves[index]["player"])
    moves[index]["cells"] = copy.deepcopy(earlier["cells"])  # the player's own squares: occupied
    with pytest.raises(RecordError, match=rf"moves\[{index}\]"):
        replay_record(record)


def test_records_survive_files(tmp_path):
    records = [finished_record(n, seed=n) for n in (2, 3, 4)]
    for record in records:
        append_record(tmp_path / "games.jsonl", record)
    assert list(read_records(tmp_path / "games.jsonl")) == records
    write_record(tmp_path / "one.json", records[0])
    assert list(read_records(tmp_path / "one.json")) == records[:1]


def test_the_replay_command_checks_files_and_fails_on_the_first_bad_record(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    for seed in range(3):
        append_record(good, finished_record(seed=seed))
    assert cli(["replay", str(good)]) == 0
    assert "3 record(s) re-played and checked" in capsys.readouterr().out
    bad = tmp_path / "bad.jsonl"
    append_record(bad, finished_record(seed=1))
    append_record(bad, mutated(["final", "scores"], [1, 2, 3, 4]))
    assert cli(["replay", str(bad)]) == 1
    assert "record 2: final.scores" in capsys.readouterr().out
    (tmp_path / "broken.jsonl").write_text('{"format": \n')
    assert cli(["replay", str(tmp_path / "broken.jsonl")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_binary_files_and_deeply_nested_json_are_one_line_record_errors(tmp_path):
    from kdenv.errors import RecordError
    from kdenv.replay import read_records

    binary = tmp_path / "games.jsonl"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(RecordError, match="is not a UTF-8 text file; give a file of kingdomino-replay/1 records"):
        list(read_records(binary))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(RecordError, match="nested too deeply"):
        list(read_records(deep))
