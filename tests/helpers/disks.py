"""A disk that fails a write, as one that fills up (ENOSPC) or is read-only (EROFS) does while a file is written."""

from __future__ import annotations

import errno
import os

import pytest

PROC = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="finds the file written through /proc")


def failing_writes(monkeypatch: pytest.MonkeyPatch, name: str, error: int = errno.ENOSPC) -> None:
    """``os.write`` raises ``error`` for the temporary file of ``name`` (kdenv.files.write_atomically's
    ``.NAME.tmp``); every other write goes through. Tests that use it are marked :data:`PROC`."""
    write = os.write

    def failing(fd: int, data) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(f"/.{name}.tmp"):
            raise OSError(error, os.strerror(error))
        return write(fd, data)

    monkeypatch.setattr(os, "write", failing)
