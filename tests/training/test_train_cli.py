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
