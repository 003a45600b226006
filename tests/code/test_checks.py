"""The code's own checks, run by CI with the tests: import layers, types of every package, lint and format."""

from __future__ import annotations

import graphlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_imports_run_down_the_layers_only():
    """training -> agents -> kdenv, and inside training the command line -> rllib -> ppo -> arena (pyproject.toml).
    In a process of its own: once Ray is imported (by the Ray tests' modules), import-linter's output under
    pytest's capture loses its stderr."""
    pytest.importorskip("importlinter.cli")
    check = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_import_cycle_among_our_modules():
    """No module of ours imports itself round a cycle, imports inside functions included: import-linter's layers
    let a cycle inside one layer pass (as training.arena's tournament and Ray backend once were). grimp, which
    import-linter ships, reads every import statement of a module, those in function bodies too."""
    grimp = pytest.importorskip("grimp")
    packages = [name for name in ("kdenv", "agents", "training", "benchmarks") if (ROOT / name).is_dir()]
    graph = grimp.build_graph(*packages, cache_dir=None)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    try:
        graphlib.TopologicalSorter(imports).prepare()
    except graphlib.CycleError as err:
        pytest.fail("import cycle: " + " -> ".join(reversed(err.args[1])))


@pytest.mark.slow
def test_our_packages_type_check(monkeypatch):
    """kdenv, agents, training and benchmarks (pyproject.toml's [tool.mypy] files)."""
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(ROOT)
    report, errors, status = api.run([])  # files and settings from pyproject.toml
    assert status == 0, report + errors


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff_is_clean(command):
    pytest.importorskip("ruff")
    done = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
