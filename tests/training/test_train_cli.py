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
