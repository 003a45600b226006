"""The notebooks run from top to bottom without an error, in this interpreter, and are saved with outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 300  # seconds; each notebook takes well under a minute on 2 shared cores


@pytest.fixture
def this_interpreter(tmp_path, monkeypatch) -> str:
    """A kernel spec named python3 that runs ipykernel in this interpreter (first on JUPYTER_PATH, so it
    wins over any python3 kernel installed elsewhere for the user)."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return "python3"


def test_the_notebooks_are_there():
    assert {path.name for path in NOTEBOOKS} >= {"quickstart.ipynb", "analysis.ipynb", "sb3_recipe.ipynb", "own_player.ipynb"}


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_runs_without_errors(path, tmp_path, this_interpreter):
    notebook = nbformat.read(path, as_version=4)
    work = tmp_path / "work"
    work.mkdir()
    client = nbclient.NotebookClient(
        notebook, timeout=CELL_TIMEOUT, kernel_name=this_interpreter, resources={"metadata": {"path": str(work)}}
    )
    client.execute()  # raises CellExecutionError naming the cell and the error
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_notebook_is_saved_with_its_outputs(path):
    """So that it reads well on GitHub: every code cell was run, in order, and at least one shows a picture."""
    notebook = nbformat.read(path, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for c in code for o in c.outputs)
