"""``kdenv train --resume`` is exact: a run trained in segments (as ``kdenv benchmark`` trains, up to each
evaluation point) ends with the same network whether each segment runs in the process that ran the one before,
after whatever else that process did, or in a new process; and a resume with nothing left to train leaves the run
as it was."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import read_checkpoint
from tests.helpers.configs import load_config
from training.ppo.train import load_run_config, train
from training.runs.directory import LAST

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = [
    "bc={games: 0}",
    "eval={every: 0, games: 0}",
    "network={channels: 8, blocks: 1, hidden: 16}",
    "env.num_players=2",
    "ppo.n_envs=4",
    "ppo.n_steps=32",
    "ppo.batch_size=64",
    "curriculum=[{opponents: {fg: 1.0}}]",
]
HALF, END = 128, 256  # two segments of 128 learner steps (one rollout each)


def start(runs: Path) -> Path:
    """A run trained to HALF, in this process."""
    return train(load_config("configs/smoke.yaml", [*SETTINGS, f"runs_dir={runs}", f"ppo.total_timesteps={HALF}"]))


def resume(run: Path, steps: int) -> Path:
    return train(load_run_config(run, [f"ppo.total_timesteps={steps}"]), resume=run)


def weights(run: Path) -> dict[str, torch.Tensor]:
    return read_checkpoint(run / LAST)[1]


def differing(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> list[str]:
    """The names of the weights that differ between two state dicts."""
    return sorted(k for k in a.keys() | b.keys() if k not in a or k not in b or not torch.equal(a[k], b[k]))


def noise() -> None:
    """What another training or an evaluation may leave behind in a process: drawn global generators, another
    thread count."""
    random.random()
    np.random.rand(3)
    torch.rand(3)
    torch.set_num_threads(1)


@pytest.mark.slow
def test_segments_give_the_same_network_in_one_process_or_in_new_ones(tmp_path):
    # one process: the first segment, noise, the second
    here = start(tmp_path / "here")
    noise()
    resume(here, END)

    # as an interrupted benchmark resumes: the first segment in a process of its own, then in a new one a resume
    # with nothing to train (the point whose evaluation was interrupted) and the second segment
    imports = "import sys; from pathlib import Path; from tests.training.test_resume_exact import *\n"
    first = imports + "print(start(Path(sys.argv[1])))\n"
    then = imports + "run = Path(sys.argv[1]); resume(run, HALF); resume(run, END)\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def python(script: str, arg: Path) -> str:
        done = subprocess.run([sys.executable, "-c", script, str(arg)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    there = Path(python(first, tmp_path / "there").strip().splitlines()[-1])
    python(then, there)
    assert differing(weights(here), weights(there)) == []


def test_a_resume_with_nothing_to_train_leaves_the_run_as_it_was(tmp_path):
    run = start(tmp_path)
    before = (run / LAST).read_bytes()
    resume(run, HALF)
    assert (run / LAST).read_bytes() == before
    settings, _ = read_checkpoint(run / LAST)
    assert settings.training is not None and settings.training["step"] == HALF
