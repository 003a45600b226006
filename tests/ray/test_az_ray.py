"""Expert iteration with self-play in Ray actors (``selfplay.backend: ray``) on the session's local Ray: the same
run directory, the same positions as self-play in local processes with the same seeds."""

from __future__ import annotations

import json

import pytest

from training.az.config import az_config
from training.az.train import train_az
from training.runs.config import read_yaml

TINY = ["warmup.games=2", "iterations=2", "selfplay={games: 2, parallel: 2, simulations: 2, considered: 2, batch: 2}",
        "eval={every: 2, games: 2, opponents: [fg], search_games: 0, workers: 1}"]  # fmt: skip


@pytest.mark.slow
def test_a_tiny_run_with_ray_actors(tmp_path, local_ray):
    lines = {}
    for backend in ("ray", "local"):
        overrides = [f"runs_dir={tmp_path / backend}", *TINY, f"selfplay.backend={backend}", "selfplay.workers=2"]
        config = az_config(read_yaml("configs/az_smoke.yaml"), overrides)
        run = train_az(config)
        assert (run / "last.zip").is_file() and (run / "eval.jsonl").is_file()
        lines[backend] = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines["ray"]] == [1, 2]
    for key in ("positions", "games", "loss/policy", "loss/value"):  # the same games, wherever they are played
        assert [line[key] for line in lines["ray"]] == [line[key] for line in lines["local"]], key


def test_bench_selfplay_measures_the_ray_backend_beside_the_local_one(local_ray, capsys):
    from training.cli import main

    options = ["--simulations", "2", "--parallel", "2", "--seconds", "0.2", "--games", "2", "--workers", "1"]
    assert main(["bench", "selfplay", *options]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert "local processes" in last and "Ray actors" in last
