"""`kdenv bench playouts` runs and prints its three figures (its speed is for the benchmark, not for tests)."""

from __future__ import annotations

from benchmarks.playouts import first_round, main
from kdenv.game import OVER


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
    rates = [[float(word.replace(",", "")) for word in line.split(":")[1].split()[:4:3]] for line in lines[1:3]]
    assert rates[0][0] == rates[0][1]  # one simulation at a time: each makes its own leaf
    assert 0 < rates[1][1] <= rates[1][0]  # four at a time may meet at a leaf waiting for its value
    for line in lines[1:3]:
        shares = [int(part.split()[-1].rstrip("%)")) for part in line.split("(")[1].split(",")]
        assert len(shares) == 5 and abs(sum(shares) - 100) <= 2  # core, encoder, rollouts, network, tree
        assert shares[2] > 0  # the default's fg rollouts are timed apart
    assert "compiled core" in lines[3] and "engine" in lines[3]
    assert lines[4].startswith("reference: mce")


def test_bench_search_takes_a_network_and_how_its_leaves_get_values(capsys):
    from benchmarks.search import main as search

    assert search(["--positions", "1", "--simulations", "4", "--batches", "2", "--values", "mover",
                   "--rollout", "none"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.startswith("az:default, rollout: none, values: mover, 4 simulations")
    assert "rollouts   0%" in out.splitlines()[1]


def test_bench_decisions_judges_each_players_moves_at_the_same_positions(capsys):
    """The first player is the reference (a difference of 0 by definition); a player that always moves as the
    reference does differs from it nowhere, whatever the oracle's noise."""
    from benchmarks.decisions import main as decisions
    from benchmarks.decisions import positions

    games = positions("fg", 3, seed=4)
    assert len(games) == 3 and all(len(game.legal_actions()) > 1 and game.phase != OVER for game in games)
    assert decisions(["--players", "fg", "fg", "random", "--player", "fg", "--positions", "3", "--playouts", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("3 positions of fg vs 3 fg"))
    fg, same, random = (line.split() for line in lines[first + 2 : first + 5])
    assert fg[0] == same[0] == "fg" and random[0] == "random"
    assert same[2] == "+0.0000" and same[-1] == "0%"
    assert 0.0 <= float(random[1]) <= 1.0
