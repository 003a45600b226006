"""One process writes a run directory at a time: a second ``kdenv train --resume`` on it is a one-line error
naming the process that holds it, and the OS frees the lock when that process dies, even by ``kill -9``."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from kdenv.files import FolderLock, FolderLockedError
from tests.helpers.configs import load_config
from tests.helpers.locks import held_elsewhere
from training.cli import main
from training.runs.directory import CONFIG_FILE, LAST, RunDirectory


def test_a_second_process_is_refused_with_the_pid_that_holds_the_folder(tmp_path):
    with held_elsewhere(tmp_path) as holder:
        with pytest.raises(FolderLockedError, match=f"in use by process {holder.pid};") as err:
            FolderLock(tmp_path)
        assert "\n" not in str(err.value)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        with FolderLock(tmp_path):  # freed by the OS with the killed process
            pass
    with FolderLock(tmp_path):  # and freed by the end of a with block
        pass


def test_kdenv_train_refuses_a_run_directory_another_process_trains(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / CONFIG_FILE).write_text("{}\n")
    (run / LAST).write_bytes(b"")  # never read: the lock is taken first
    with held_elsewhere(run) as holder:
        assert main(["train", "configs/smoke.yaml", "--resume", str(run)]) == 2
        assert main(["train", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count(f"kdenv train: error: run directory {str(run)!r} is in use by process {holder.pid};") == 2
    assert err.count("\n") == 2


def test_a_run_holds_its_directory_and_a_failed_fresh_run_leaves_none(tmp_path):
    config = load_config("configs/smoke.yaml", [f"runs_dir={tmp_path}"])
    with RunDirectory.create(config) as run:
        (run.path / LAST).write_bytes(b"")
        with pytest.raises(FolderLockedError, match=f"in use by process {os.getpid()};"):
            RunDirectory.open(run.path).lock()
    with RunDirectory.open(run.path).lock():  # freed at the end of the block
        pass
    with pytest.raises(KeyError), RunDirectory.create(config):  # failed before it wrote more than its config
        raise KeyError
    assert [p.name for p in tmp_path.iterdir()] == [run.path.name]


def test_kdenv_train_refuses_an_expert_iteration_run_another_process_trains(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / CONFIG_FILE).write_text(Path("configs/az_smoke.yaml").read_text())
    (run / LAST).write_bytes(b"")  # never read: the lock is taken first
    with held_elsewhere(run) as holder:
        assert main(["train", "configs/az_smoke.yaml", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"kdenv train: error: run directory {str(run)!r} is in use by process {holder.pid};" in err
    assert err.count("\n") == 1
