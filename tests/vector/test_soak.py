"""`kdenv bench soak` at a small count: every set-up through env() and the vector env, every record re-played."""

from __future__ import annotations

import re

from benchmarks import soak
from kdenv.errors import RecordError
from training.cli import main


def test_bench_soak_plays_every_set_up_through_both_envs_and_replays_every_record(capsys):
    assert len(soak.SET_UPS) == 32 and len(set(soak.SET_UPS)) == 32  # 4 tables x every combination of 3 variants
    assert main(["bench", "soak", "--decisions", "3200", "--num-envs", "2"]) == 0
    out = capsys.readouterr().out
    found = re.search(r"soak: ([\d,]+) random decisions through env\(\) and ([\d,]+) through the vector env", out)
    assert found and all(int(count.replace(",", "")) >= 3200 for count in found.groups())
    assert "over 32 set-ups" in out and "records re-played by kdenv replay's checker" in out
    assert out.rstrip().endswith("0 failures")


def test_bench_soak_names_each_failure_and_exits_non_zero(capsys, monkeypatch):
    def refuse(record: dict) -> None:
        raise RecordError("planted")

    monkeypatch.setattr(soak, "replay_record", refuse)
    assert main(["bench", "soak", "--decisions", "32", "--num-envs", "2"]) == 1
    out = capsys.readouterr().out
    records = int(re.search(r"([\d,]+) records re-played", out).group(1).replace(",", ""))
    assert f"; {records} failures" in out and records >= 64  # a game through env() and 2 in the vector env, each
    assert "\n  2 players, env(), record 1: RecordError: planted\n" in out  # the summary names the set-up and record
