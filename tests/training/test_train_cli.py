"""``kdenv train``: bad configs and overrides end with one line on stderr and exit status 2."""

from __future__ import annotations

import pytest

from training.cli import main


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["train", "configs/nope.yaml"], "not found"),
        (["train", "configs/smoke.yaml", "--set", "ppo.n_stepz=3"], "'ppo.n_stepz'"),
        (["train", "configs/smoke.yaml", "--set", "eval.games=-1"], "'eval.games'"),
        (["train"], "--resume"),
        # a run directory is runs_dir/NAME-TIME: a name is a plain file name, not a way out of runs_dir
        (["train", "configs/smoke.yaml", "--set", "name=../../x"], "'name': must be a plain file name"),
        (["train", "configs/az_smoke.yaml", "--set", "name=/abs/path"], "'name': must be a plain file name"),
        (["train", "configs/rllib_vs_fg.yaml", "--set", "name=a/b"], "'name': must be a plain file name"),
    ],
)
def test_errors_are_one_line(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and "\n" not in err and err.startswith("kdenv train: error:")


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("ppo.n_envs=10000000", "'ppo.n_envs' must be at most 65536 (a 4-player game takes about 86 kB"),
        ("ppo.n_steps=100000000", "'ppo.n_envs': ppo.n_envs=16 needs about 26 TB of memory (1.7 TB each"),
    ],
)
def test_more_envs_than_memory_is_refused_before_a_run_directory_is_made(setting, message, tmp_path, capsys):
    assert main(["train", "configs/smoke.yaml", "--set", f"runs_dir={tmp_path}", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_what_rllib_refuses_is_one_line_before_a_run_directory_or_ray_starts(tmp_path, capsys):
    pytest.importorskip("ray.rllib")
    argv = [
        "train",
        "configs/rllib_vs_fg.yaml",
        "--set",
        f"runs_dir={tmp_path}",
        "--set",
        "rllib.minibatch_size=100000",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("kdenv train: error: RLlib refuses the config: `minibatch_size` (100000) must be <=")
    assert err.count("\n") == 1 and list(tmp_path.iterdir()) == []


def test_running_out_of_memory_past_the_checks_is_one_line(tmp_path):
    """Under an address-space limit (``ulimit -v``) that MemAvailable does not show, the check passes and numpy
    runs out: still one line, not a traceback."""
    import os
    import resource
    import subprocess
    import sys
    from pathlib import Path

    from kdenv.memory import free_bytes

    if (free_bytes() or 0) < 8 * 2**30:
        pytest.skip("needs 8 GB free, so that the memory check passes and the limit is met first")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))

    command = [sys.executable, "-m", "training.cli", "train", "configs/smoke.yaml", "--set", f"runs_dir={tmp_path}",
               "--set", "ppo.n_envs=60000", "--set", "ppo.n_steps=2"]  # fmt: skip
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(command, cwd=root, env=env, preexec_fn=limit, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.startswith("kdenv train: error: out of memory (Unable to allocate")
    assert done.stderr.count("\n") == 1
