"""A run's training folder as bytes and back: the driver sends its copy to the task that trains the run and puts
the trained folder that comes back in its place, whole or not at all, so that only the driver writes the grid's
folder and a task needs no file system shared with it (a node of a Ray cluster)."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

from kdenv.files import LOCK_FILE


def pack(folder: Path) -> bytes:
    """The files and folders under ``folder`` as a tar archive; lock files left out (they hold a process's lock,
    not the run)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname=".", filter=lambda member: None if Path(member.name).name == LOCK_FILE else member)
    return buffer.getvalue()


def unpack(data: bytes, folder: Path) -> None:
    """Make ``folder`` hold what :func:`pack` packed in ``data`` (nothing outside it: tarfile's ``data`` filter)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")


def replace(folder: Path, data: bytes) -> None:
    """Put the folder that ``data`` packs in place of ``folder`` (made if missing): unpacked beside it, then
    renamed into place, so that a kill midway leaves the old folder or the new one (:func:`settle`)."""
    settle(folder)
    new, old = _beside(folder, "new"), _beside(folder, "old")
    unpack(data, new)
    if folder.exists():
        folder.rename(old)
    new.rename(folder)
    settle(folder)  # the old folder goes


def settle(folder: Path) -> None:
    """Finish a :func:`replace` of ``folder`` that a kill cut short, or undo it: the new folder is whole once the
    old one is moved aside, and then takes its place; before that it may be partial, and goes."""
    new, old = _beside(folder, "new"), _beside(folder, "old")
    if old.exists():
        if not folder.exists():
            new.rename(folder)
        shutil.rmtree(old)
    shutil.rmtree(new, ignore_errors=True)


def _beside(folder: Path, what: str) -> Path:
    return folder.with_name(f".{folder.name}.{what}")
