"""``kdenv evaluate --leaderboard``'s page: checked before the first game (not half an hour later), in ``--out``
unless ``--page`` says otherwise, and written again as each cell finishes."""

from __future__ import annotations

import errno

import pytest

from tests.helpers.disks import PROC, failing_writes
from training.arena import leaderboard
from training.arena.protocols import PROTOCOLS
from training.cli import main


def kdenv(out, *argv: str) -> int:
    return main(["evaluate", "--leaderboard", "--games", "2", "--workers", "1", "--no-progress", "--out", str(out),
                 *argv])  # fmt: skip


@pytest.fixture
def one_entry(monkeypatch):
    monkeypatch.setattr(leaderboard, "ENTRIES", (leaderboard.Entry("random", "random moves"),))


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("a-folder", "--page {tmp}/a-folder is a folder; give the page's file name, e.g. "),
        ("a-file/LEADERBOARD.md", "--page's folder {tmp}/a-file is a file, not a folder"),
    ],
)
def test_a_page_that_cannot_be_written_is_one_line_before_any_game(page, message, one_entry, tmp_path, capsys):
    (tmp_path / "a-folder").mkdir()
    (tmp_path / "a-file").write_text("someone's")
    out = tmp_path / "runs"
    assert kdenv(out, "--page", str(tmp_path / page)) == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and err.count("\n") == 1 and err.startswith("kdenv evaluate: error: ")
    assert not list(out.rglob("games.jsonl")) and (tmp_path / "a-file").read_text() == "someone's"


def test_the_page_is_in_out_and_written_as_each_cell_finishes(one_entry, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default page is not relative to where the command runs
    out = tmp_path / "runs"
    page = out / "LEADERBOARD.md"
    seen, evaluate = [], leaderboard.evaluate

    def evaluate_and_look(*args, **kwargs):
        seen.append(page.read_text())  # the page as it is when the next cell starts
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(leaderboard, "evaluate", evaluate_and_look)
    assert kdenv(out) == 0
    assert f"wrote {page}" in capsys.readouterr().out and not (tmp_path / "benchmarks").exists()
    rows = [next(line for line in text.splitlines() if line.startswith("| `random`")) for text in seen]
    assert [row.count(leaderboard.TO_COME) for row in rows] == list(range(len(PROTOCOLS), 0, -1))
    assert all(leaderboard.TO_COME_NOTE in text for text in seen)
    final = page.read_text()
    assert leaderboard.TO_COME not in final and ", 2 g" in final and page.with_suffix(".png").is_file()


@PROC
def test_a_page_on_a_read_only_disk_is_one_line_before_any_game(one_entry, tmp_path, monkeypatch, capsys):
    failing_writes(monkeypatch, "LEADERBOARD.md", errno.EROFS)
    out = tmp_path / "runs"
    assert kdenv(out) == 2
    err = capsys.readouterr().err
    assert (
        err == f"kdenv evaluate: error: --page {out / 'LEADERBOARD.md'} cannot be written (Read-only file system); "
        "give a writable file\n"
    )
    assert not list(out.rglob("games.jsonl")) and not list(out.glob(".*.tmp"))
