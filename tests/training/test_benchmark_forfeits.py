"""A learning run whose player breaks its games is ranked by every game: through ``kdenv benchmark``, a player that
raises when behind scores below the same player that plays on (the issue's case ranked it first), and its forfeits
are in the tables."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("rliable")

from training.cli import main

ENTRY = 'name: {name}\ncommand: "true"\nplayer: "{player}"\n'  # trains nothing: the player is the result


def test_a_player_that_raises_when_behind_ranks_below_the_same_player_that_plays_on(tmp_path, capsys):
    (tmp_path / "sore.yaml").write_text(ENTRY.format(name="sore", player="tests.helpers.broken_bots:SoreLoser"))
    (tmp_path / "honest.yaml").write_text(ENTRY.format(name="honest", player="gprd"))
    (tmp_path / "grid.yaml").write_text(
        f"name: forfeits\nalgorithms: [{tmp_path / 'sore.yaml'}, {tmp_path / 'honest.yaml'}]\n"
        "tasks: [vs-fg-2p]\nseeds: [0, 1]\nsteps: 2\npoints: 1\ngames: 40\nworkers: 2\n"
    )
    out = tmp_path / "out"
    assert main(["benchmark", str(tmp_path / "grid.yaml"), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    data = json.loads((out / "summary.json").read_text())["by_task"]["vs-fg-2p"]
    assert data["iqm"]["sore"]["value"] < data["iqm"]["honest"]["value"]  # normalized, by default
    assert data["win_rate"]["iqm"]["sore"]["value"] < data["win_rate"]["iqm"]["honest"]["value"]
    assert data["forfeits"]["sore"] > 0 and data["forfeits"]["honest"] == 0
    assert f"{data['forfeits']['sore']} forfeits" in printed
    assert "| sore | 2 |" in (out / "ALGORITHMS.md").read_text()
    for point in out.glob("sore/vs-fg-2p/seed-*/step-*/evaluation.json"):
        assert json.loads(point.read_text())["games"] == 40  # every game counted
