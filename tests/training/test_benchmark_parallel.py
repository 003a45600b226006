"""``kdenv benchmark --workers N``: runs side by side give the summary of one at a time; a task works in a folder of
its own and writes nothing in the grid's, which the grid's process alone writes; a task whose worker dies runs again,
and one lost every time stops the grid in one line."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("rliable")

from training.benchmark.config import Entry
from training.benchmark.packing import unpack
from training.benchmark.point import Point, advance, workplace
from training.cli import main

PARALLEL = "tests/helpers/benchmark/parallel.yaml"
POINTS = 3 * 2  # algorithms x points


def kdenv(*argv: str) -> int:
    return main(["benchmark", *argv, "--no-progress"])


@pytest.fixture(scope="module")
def one_at_a_time(tmp_path_factory) -> Path:
    """The parallel grid run with one worker (this process)."""
    out = tmp_path_factory.mktemp("serial")
    assert kdenv(PARALLEL, "--out", str(out)) == 0
    return out


def test_two_workers_give_the_summary_of_one(one_at_a_time, tmp_path):
    assert kdenv(PARALLEL, "--out", str(tmp_path), "--workers", "2") == 0
    assert len(list(tmp_path.glob("*/vs-fg-2p/seed-0/step-*/evaluation.json"))) == POINTS
    assert (tmp_path / "summary.json").read_text() == (one_at_a_time / "summary.json").read_text()
    assert (tmp_path / "training" / "file" / "vs-fg-2p" / "seed-0" / "policy").read_text() == "512\n1024\n"


def test_a_task_writes_nothing_in_the_grid_s_folder_and_its_files_name_the_grid_s_copy(tmp_path, monkeypatch):
    """Run on its own: the run goes on from the folder that the first point gave back, and the player is named by
    the grid's copy, where the driver puts it, though made from the task's (the grid's is not there)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    player = "tests.helpers.file_bots:from_file,file={work}/policy"
    entry = Entry(name="file", command="echo {steps} >> {work}/policy", player=player)
    work = tmp_path / "grid" / "training" / "file" / "vs-fg-2p" / "seed-0"
    first = advance(Point(entry, None, "vs-fg-2p", 0, 2, 2, 1, str(work), None), 1)
    again = advance(Point(entry, None, "vs-fg-2p", 0, 4, 2, 1, str(work), first.training), 1)
    assert not (tmp_path / "grid").exists() and not any((tmp_path / "tmp" / "kdenv-benchmark").iterdir())
    unpack(again.training, tmp_path / "copy")
    assert (tmp_path / "copy" / "policy").read_text() == "2\n4\n"
    assert {"evaluation.json", "games.jsonl", "tournament.json", "results.json"} <= set(again.files)
    evaluation = json.loads(again.files["evaluation.json"])
    assert evaluation["spec"] == player.format(work=work) and evaluation["games"] == 2
    assert f"file={work}/policy" in again.files["games.jsonl"].decode()


def grid(tmp_path: Path, command: str, *others: str) -> Path:
    """A grid of an entry whose command is ``command`` and the entries ``others``, at one point of 2 games."""
    (tmp_path / "dies.yaml").write_text(f"name: dies\ncommand: {json.dumps(command)}\nplayer: random\n")
    path = tmp_path / "grid.yaml"
    path.write_text(f"name: dies\nalgorithms: [{', '.join([str(tmp_path / 'dies.yaml'), *others])}]\n"
                    "tasks: [vs-fg-2p]\nseeds: [0]\nsteps: 2\npoints: 1\ngames: 2\nworkers: 1\n")  # fmt: skip
    return path


def test_a_task_whose_worker_dies_once_runs_again(tmp_path):
    """Its command kills the worker process that runs it ($PPID) the first time."""
    flag = tmp_path / "died"
    path = grid(tmp_path, f"test -e {flag} || {{ touch {flag}; kill -9 $PPID; }}", "tests/helpers/benchmark/gprd.yaml")
    assert kdenv(str(path), "--out", str(tmp_path / "out"), "--workers", "2") == 0
    assert flag.exists() and len(list((tmp_path / "out").glob("*/vs-fg-2p/seed-0/step-2/evaluation.json"))) == 2


def test_a_task_lost_every_time_stops_the_grid_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert kdenv(str(grid(tmp_path, "kill -9 $PPID")), "--out", str(out), "--workers", "2") == 2
    error = capsys.readouterr().err.splitlines()[-1]  # after the progress line that names the point
    assert error.startswith("kdenv benchmark: error: dies on vs-fg-2p v1, seed 0, step 2: its worker was lost every")
    assert "run the same command to resume" in error and not (out / "dies" / "vs-fg-2p" / "seed-0" / "step-2").exists()
    shutil.rmtree(workplace(str(out / "training" / "dies" / "vs-fg-2p" / "seed-0")))  # left by the last worker lost
