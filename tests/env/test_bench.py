"""`kdenv bench env` runs in a short mode and prints its figures as multiples of connect_four (speed is for the
benchmark, never for tests)."""

from __future__ import annotations

import pytest

from training.cli import main


def test_bench_env_prints_each_figure_its_multiple_of_connect_four_and_the_load(capsys):
    pytest.importorskip("pygame")  # connect_four_v3 draws with it (the `bench` extra)
    assert main(["bench", "env", "--seconds", "0.05", "--repeats", "1", "--only", "aec-2p-7x7", "view-2p-7x7"]) == 0
    out = capsys.readouterr().out
    assert "AEC env() 2 players 7x7:" in out and "Gymnasium view 2 players 7x7 vs random" in out
    assert out.count("x connect_four_v3") == 2 and out.count("connect_four_v3 same loop beside") == 2
    assert "load average" in out and "(after)" in out
