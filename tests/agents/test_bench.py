"""`kdenv bench playouts` runs and prints its three figures (its speed is for the benchmark, not for tests)."""

from __future__ import annotations

from agents.bench import first_round, main


def test_bench_playouts_prints_kernel_and_engine_rates(capsys):
    assert main(["--seconds", "0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split(" playouts/s")[0].strip() for line in lines]
    assert names == ["random", "fg", "random (engine)", "fg (engine)"]
    assert all("playouts/s from the first round" in line for line in lines)


def test_playouts_start_after_the_setup_picks():
    view = first_round(3)
    assert view.round == 1 and view.phase == "place" and all(view.held)
