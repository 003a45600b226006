"""``--seed`` of the commands that deal games: a negative one (which dealt the games of the positive one) is one line
and exit status 2, before anything is written."""

from __future__ import annotations

import pytest

from training.cli import main

COMMANDS = {
    "tournament": ["tournament", "--agents", "random", "gprd", "--games", "2", "--workers", "1", "--no-progress"],
    "evaluate": ["evaluate", "gprd", "--protocol", "vs-fg-2p", "--games", "2", "--workers", "1", "--no-progress"],
    "play": ["play", "--opponents", "random"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_negative_seed_is_one_line_and_exit_status_2(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # where each would write by default
    out = ["--out", str(tmp_path / "out")] if command != "play" else []
    assert main([*COMMANDS[command], *out, "--seed", "-1"]) == 2
    printed = capsys.readouterr()
    assert printed.err == f"kdenv {command}: error: seed must be an integer 0 or more, not -1\n"
    assert list(tmp_path.iterdir()) == []  # no folder, no file
