"""`kdenv bench playouts` runs and prints its three figures (its speed is for the benchmark, not for tests)."""

from __future__ import annotations

from benchmarks.playouts import first_round, main


def test_bench_playouts_prints_kernel_and_engine_rates(capsys):
    assert main(["--seconds", "0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split(" playouts/s")[0].strip() for line in lines]
    assert names == ["random", "fg", "random (engine)", "fg (engine)"]
    assert all("playouts/s from the first round" in line for line in lines)


def test_playouts_start_after_the_setup_picks():
    view = first_round(3)
    assert view.round == 1 and view.phase == "place" and all(view.held)


def test_bench_search_prints_each_batch_its_parts_the_leaf_costs_and_mce(capsys):
    from benchmarks.search import main as search

    assert search(["--positions", "1", "--simulations", "8", "--batches", "1", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in lines[1:3]] == ["batch   1", "batch   4"]
    for line in lines[1:3]:
        shares = [int(part.split()[-1].rstrip("%)")) for part in line.split("(")[1].split(",")]
        assert len(shares) == 4 and abs(sum(shares) - 100) <= 2  # core, encoder, network, tree
    assert "compiled core" in lines[3] and "engine" in lines[3]
    assert lines[4].startswith("reference: mce")
