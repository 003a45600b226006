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
    ],
)
def test_a_malformed_record_names_the_field(path, value, message):
    with pytest.raises(RecordError, match=message):
        replay_record(mutated(path, value))


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
    with pytest.raises(RecordError, match="is not a UTF-8 text file"):
        list(read_records(binary))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    with pytest.raises(RecordError, match="nested too deeply"):
        list(read_records(deep))
