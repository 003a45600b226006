"""The folder a site goes into: a new or empty one, or one that ``kdenv view`` wrote before (it holds ``MARKER``),
which is emptied so that the new site replaces the old one whole (no stale game pages); never a folder that holds
an input (a tournament folder keeps its own ``ratings.png``), and never a folder of someone else's files."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from kdenv.errors import KingdominoError

MARKER = ".kdenv-view"  # in every folder kdenv view writes a site into


class SiteFolderError(KingdominoError):
    """A ``--out`` that the viewer must not write into: a file, a folder that holds an input, someone's folder."""


def clear_site_folder(out: Path, inputs: Sequence[str | os.PathLike]) -> None:
    """Make ``out`` an empty folder that holds only ``MARKER``, ready for a site of ``inputs``."""
    here = out.resolve()
    for given in inputs:
        path = Path(given).resolve()
        if path == here or here in path.parents:
            raise SiteFolderError(f"--out {out} holds the input {given}; give a new or empty folder for the site")
    if out.is_dir():
        entries = list(out.iterdir())
        if entries and not (out / MARKER).is_file():
            raise SiteFolderError(
                f"{out} is a folder that kdenv view did not write (no {MARKER} in it); "
                "give a new or empty folder for the site (--out)"
            )
        for entry in entries:  # a site of ours: replaced whole
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    elif out.exists() or out.is_symlink():
        raise SiteFolderError(f"{out} is not a folder; give a new or empty folder for the site (--out)")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("Written by kdenv view: the next kdenv view --out here replaces this folder whole.\n")
