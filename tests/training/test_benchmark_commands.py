"""``kdenv benchmark``'s entries of one's own: names that stay in ``--out``, a ``command`` whose placeholders are
its own (the shell's ``${HOME}`` left to the shell), and whose processes end with the grid, however it ends (a
SIGTERM to ``kdenv`` alone included); one that outlives a ``kill -9`` of the grid holds its folder, and the resume
says so in one line instead of starting a second trainer there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("rliable")

from training.benchmark.point import workplace
from training.cli import main

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = "sleep 120 & echo $! > {work}/pid; wait"  # a trainer that runs on, its PID told


def grid(tmp_path: Path, entry: dict, name: str = "g") -> Path:
    """A grid of one entry (YAML ``entry``) at one point of 2 games, written in ``tmp_path``."""
    (tmp_path / "entry.yaml").write_text("".join(f"{key}: {value!r}\n" for key, value in entry.items()))
    path = tmp_path / "grid.yaml"
    path.write_text(f"name: {name}\nalgorithms: [{tmp_path / 'entry.yaml'}]\ntasks: [vs-fg-2p]\nseeds: [0]\n"
                    "steps: 2\npoints: 1\ngames: 2\nworkers: 1\n")  # fmt: skip
    return path


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie that no one reaps, as in a container whose init does not, is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def wait_for(path: Path, seconds: float = 60) -> int:
    """The PID that a command writes to ``path``, once it has."""
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.05)
    return int(path.read_text())


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "../../x", "command": "true", "player": "random"}, "key 'name': must be a plain file name"),
        ({"name": "{tmp}/abs", "command": "true", "player": "random"}, "key 'name': must be a plain file name"),
        ({"name": "training", "command": "true", "player": "random"}, "an entry is named 'training'"),
        ({"name": "x", "command": "train --out {wrok}", "player": "random"}, "unknown placeholder {wrok}"),
        ({"name": "x", "command": "true"}, "a command's entry gives player: the spec that plays what"),
        ({"name": "x", "command": "true", "player": "ppo:{run}/last.zip"}, "'player': unknown placeholder {run}"),
        ({"name": "x", "config": "configs/smoke.yaml", "steps_per_unit": 10**20}, "'steps_per_unit' must be a whole"),
    ],
)
def test_a_bad_entry_is_one_line_at_load(entry, message, tmp_path, capsys):
    out = tmp_path / "out"
    entry = {**entry, "name": entry["name"].replace("{tmp}", str(tmp_path))}
    assert main(["benchmark", str(grid(tmp_path, entry)), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("kdenv benchmark: error: ")
    assert not out.exists() and not (tmp_path / "x").exists() and not (tmp_path / "abs").exists()


def test_a_grid_named_as_a_path_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # its default --out: runs/benchmark/NAME, here
    path = grid(tmp_path, {"name": "x", "command": "true", "player": "random"}, "../../elsewhere")
    assert main(["benchmark", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "config key 'name': must be a plain file name" in err and err.count("\n") == 1
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "runs").exists()


def test_a_command_gets_its_placeholders_the_shell_its_variables_and_its_processes_end_with_it(tmp_path):
    command = 'printf %s "${HOME}" > {work}/home; echo {steps} {seed} {players} {rules} > {work}/told; ' + SLEEPER
    command = command.replace("; wait", "")  # exits at once, leaving its trainer running in the background
    out = tmp_path / "out"
    assert main(["benchmark", str(grid(tmp_path, {"name": "x", "command": command, "player": "random"})),
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    work = out / "training" / "x" / "vs-fg-2p" / "seed-0"
    assert (work / "home").read_text() == os.environ["HOME"]
    assert (work / "told").read_text() == "2 0 2 middle_kingdom,harmony\n"
    assert not running(int((work / "pid").read_text()))


def start(tmp_path: Path, *options: str) -> tuple[subprocess.Popen, Path]:
    """``kdenv benchmark`` (a process of its own, its temporary folder ``tmp_path``) on a grid whose command's trainer
    sleeps; the run's folder in the grid's, whose task's folder the command trains in."""
    path = grid(tmp_path, {"name": "x", "command": SLEEPER, "player": "random"})
    command = [sys.executable, "-m", "training.cli", "benchmark", str(path), "--out", str(tmp_path / "out"), *options]
    kdenv = subprocess.Popen([*command, "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env={**os.environ, "TMPDIR": str(tmp_path)})  # fmt: skip
    return kdenv, tmp_path / "out" / "training" / "x" / "vs-fg-2p" / "seed-0"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_to_kdenv_alone_ends_the_command_s_processes(tmp_path, workers):
    """As a scheduler stops a job by its PID: not the process group that Ctrl-C and ``timeout`` signal; with two
    workers, the command runs in a worker process, which the grid stops."""
    kdenv, work = start(tmp_path, "--workers", workers)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(tmp_path))
        trainer = wait_for(workplace(str(work)) / "work" / "pid")
    kdenv.send_signal(signal.SIGTERM)
    _, err = kdenv.communicate(timeout=30)
    assert kdenv.returncode == 128 + signal.SIGTERM and err.endswith("kdenv benchmark: terminated\n")
    deadline = time.monotonic() + 5
    while running(trainer) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(trainer)


def test_a_command_left_running_by_kill_9_holds_its_folder_and_the_resume_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # as the grid's process has it
    kdenv, work = start(tmp_path)
    here = workplace(str(work))
    trainer = wait_for(here / "work" / "pid")
    group = os.getpgid(trainer)
    try:
        kdenv.kill()
        kdenv.wait(timeout=30)  # its pipes stay open: the command's processes inherited them
        assert running(trainer)  # nothing can end it after a kill -9: the resume is told instead
        path = tmp_path / "grid.yaml"
        assert main(["benchmark", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
        error = capsys.readouterr().err.splitlines()[-1]  # after the progress line that names the point
        assert error.startswith("kdenv benchmark: error: x on vs-fg-2p v1, seed 0, step 2: training folder ")
        assert f"{str(here)!r} (of {work}) is in use by process {group}" in error and f"kill -- -{group}" in error
        assert (here / "work" / "pid").read_text().strip() == str(trainer)  # no second trainer started there
    finally:
        os.killpg(group, signal.SIGKILL)
