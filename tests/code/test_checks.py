"""The code's own checks, run by CI with the tests: import layers, types of kdenv and agents, lint and format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_imports_run_down_the_layers_only(monkeypatch, capsys):
    """training -> agents -> kdenv, and inside training the command line -> ppo -> arena (pyproject.toml)."""
    lint_imports = pytest.importorskip("importlinter.cli").lint_imports
    monkeypatch.chdir(ROOT)
    assert lint_imports(no_cache=True, no_logo=True) == 0, capsys.readouterr().out


@pytest.mark.slow
def test_kdenv_and_agents_type_check(monkeypatch):
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(ROOT)
    report, errors, status = api.run([])  # files and settings from pyproject.toml
    assert status == 0, report + errors


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff_is_clean(command):
    pytest.importorskip("ruff")
    done = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
