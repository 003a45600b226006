"""Another process that holds a folder's lock, as a second ``kdenv train`` or ``kdenv tournament`` would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOLD = (
    "import sys, time; from kdenv.files import FolderLock; lock = FolderLock(sys.argv[1]); print('held', flush=True); "
    "time.sleep(600)"
)


@contextmanager
def held_elsewhere(folder: str | Path) -> Iterator[subprocess.Popen]:
    """A child process holding ``FolderLock(folder)`` while the block runs; killed (``kill -9``) at its end."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        yield process
    finally:
        process.kill()
        process.wait()
