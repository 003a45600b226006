"""Writes stay in their folder and a failed write leaves nothing half-done: no write follows a symbolic link planted
in an output folder (the file it points to is left alone), ``--out`` on a file is one line, and a full disk is one
line naming the file, the games written so far kept and no ``.X.tmp`` left behind."""

from __future__ import annotations

import errno
import os

import pytest

from kdenv.files import FolderError, FolderLock, append_jsonl, read_jsonl, write_atomically
from tests.helpers.disks import PROC, failing_writes
from training.cli import main

PRECIOUS = "someone's file, outside the folder"  # no newline at its end: a cut tail, were it read as games.jsonl


@pytest.fixture
def victim(tmp_path):
    """A file outside the output folder ``tmp_path / "out"`` (made), which links in that folder point to."""
    (tmp_path / "out").mkdir()
    path = tmp_path / "victim.txt"
    path.write_text(PRECIOUS)
    return path


def evaluate(out, *argv: str) -> int:
    return main(["evaluate", "gprd", "--protocol", "vs-fg-2p", "--games", "8", "--workers", "1", "--no-progress",
                 "--out", str(out), *argv])  # fmt: skip


@pytest.mark.parametrize("name", [".lock", "games.jsonl", "errors.jsonl"])
def test_a_planted_link_is_refused_in_one_line_and_its_target_left_alone(name, victim, capsys):
    out = victim.parent / "out"
    (out / name).symlink_to("../victim.txt")
    if name == "errors.jsonl":  # appended to when a game fails: the first game of a player that raises
        code = main(["tournament", "--agents", "tests.helpers.fakes:CrashPlayer", "random", "--games", "4",
                     "--workers", "1", "--no-progress", "--out", str(out)])  # fmt: skip
    else:
        code = evaluate(out)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"{out / name} is a symbolic link; kdenv writes no file through a link" in err
    assert victim.read_text() == PRECIOUS and (out / name).is_symlink()


def test_a_planted_temporary_link_is_removed_not_followed(victim, capsys):
    out = victim.parent / "out"
    (out / ".results.md.tmp").symlink_to("../victim.txt")
    (out / ".evaluation.json.tmp").write_text("a stale temporary file of a killed run")
    assert evaluate(out) == 0
    assert victim.read_text() == PRECIOUS
    assert "| gprd" in (out / "results.md").read_text() and not (out / "results.md").is_symlink()
    assert not list(out.glob(".*.tmp"))


def test_a_link_at_a_report_s_name_is_replaced_not_written_through(victim):
    out = victim.parent / "out"
    (out / "results.md").symlink_to("../victim.txt")
    assert evaluate(out) == 0
    assert victim.read_text() == PRECIOUS and not (out / "results.md").is_symlink()


def test_the_writers_of_kdenv_files_follow_no_link(tmp_path):
    target = tmp_path / "target"
    target.write_text(PRECIOUS)
    (tmp_path / "lines.jsonl").symlink_to(target)
    with pytest.raises(FolderError, match="lines.jsonl is a symbolic link"):
        append_jsonl(tmp_path / "lines.jsonl", {"a": 1})
    with pytest.raises(FolderError, match="lines.jsonl is a symbolic link"):
        list(read_jsonl(tmp_path / "lines.jsonl", on_cut_tail=lambda path: None))  # would cut its "tail"
    (tmp_path / ".lock").symlink_to(target)
    with pytest.raises(FolderError, match=r"\.lock is a symbolic link"):
        FolderLock(tmp_path)
    assert target.read_text() == PRECIOUS


@pytest.mark.parametrize("command", ["tournament", "evaluate", "benchmark"])
def test_out_on_a_file_is_one_line_and_the_file_is_kept(command, tmp_path, capsys):
    out = tmp_path / "a-file"
    out.write_text(PRECIOUS)
    argv = {
        "tournament": ["tournament", "--agents", "random", "gprd", "--games", "2", "--workers", "1"],
        "evaluate": ["evaluate", "gprd", "--protocol", "vs-fg-2p", "--games", "2", "--workers", "1"],
        "benchmark": ["benchmark", "tests/helpers/benchmark/tiny.yaml"],
    }[command]
    assert main([*argv, "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    said = f"--out {out} is a file, not a folder" if command == "benchmark" else f"cannot write the tournament to {out}"
    assert err.startswith(f"kdenv {command}: error: {said}") and err.count("\n") == 1
    assert out.read_text() == PRECIOUS


@PROC
@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS])
def test_a_full_disk_is_one_line_keeps_the_games_and_leaves_no_temporary_file(error, tmp_path, monkeypatch, capsys):
    out = tmp_path / "t"
    failing_writes(monkeypatch, "ratings.png", error)
    argv = ["tournament", "--agents", "random", "gprd", "--games", "4", "--workers", "1", "--no-progress"]
    assert main([*argv, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"kdenv tournament: error: {out / 'ratings.png'}: {os.strerror(error)}; the games and ")
    assert err.count("\n") == 1 and "written so far are kept" in err
    assert len((out / "games.jsonl").read_text().splitlines()) == 4 and (out / "results.json").is_file()
    assert not list(out.glob(".*.tmp")) and not (out / "ratings.png").exists()


@PROC
def test_a_failed_atomic_write_keeps_the_old_file_and_removes_its_temporary_one(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    path.write_text("the old results")
    failing_writes(monkeypatch, "results.json")
    with pytest.raises(OSError, match="No space left on device") as err:
        write_atomically(path, "the new results")
    assert err.value.filename == str(path) and err.value.errno == errno.ENOSPC
    assert path.read_text() == "the old results" and list(tmp_path.iterdir()) == [path]
