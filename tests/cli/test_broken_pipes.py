"""``kdenv COMMAND ... 2>&1 | head -1``: the reader leaves after a line, and stdout and stderr (the progress bar)
both lead to a closed pipe; every command still does its work and writes its files, then exits 1 as Python does
on a broken pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def head_1(*argv: str, cwd: Path = ROOT) -> int:
    """Run ``kdenv ARGV 2>&1 | head -1``; its exit status."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "training.cli", *argv]
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as run:
        assert run.stdout is not None
        run.stdout.readline()
        run.stdout.close()
        return run.wait(timeout=600)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_tournament_keeps_its_reports(tmp_path, workers):
    out = tmp_path / "t"
    assert head_1("tournament", "--agents", "fg", "gprd", "--players", "2", "--games", "40", "--workers", workers,
                  "--out", str(out)) == 1  # fmt: skip
    assert json.loads((out / "results.json").read_text())["games"] == 40
    assert "| fg |" in (out / "results.md").read_text() and (out / "ratings.png").stat().st_size > 0


def test_an_evaluation_keeps_its_file(tmp_path):
    out = tmp_path / "e"
    assert (
        head_1("evaluate", "gprd", "--protocol", "vs-fg-2p", "--games", "10", "--workers", "1", "--out", str(out)) == 1
    )
    assert json.loads((out / "evaluation.json").read_text())["games"] == 10


def test_a_benchmark_runs_to_its_end(tmp_path):
    assert head_1("bench", "engine", "--players", "2", "3", "--seconds", "0.2") == 1


@pytest.mark.slow
def test_a_training_run_keeps_its_checkpoints(tmp_path):
    settings = ["runs_dir=" + str(tmp_path), "name=piped", "ppo.total_timesteps=256", "ppo.n_envs=4", "ppo.n_steps=64",
                "ppo.batch_size=128", "checkpoint_every=128", "league.snapshot_every=128",
                "eval={every: 256, games: 2, opponents: [random], workers: 1}",
                "bc={games: 2, epochs: 1, batch_size: 64}"]  # fmt: skip
    assert head_1("train", "configs/smoke.yaml", *[arg for s in settings for arg in ("--set", s)]) == 1
    (run,) = tmp_path.glob("piped-*")
    assert (run / "last.zip").stat().st_size > 0 and (run / "eval.jsonl").read_text().count("\n") == 2
