"""A pool task that takes SIGTERM as a trainer does (noted, not obeyed), then hands back a result too large for the
pipe's buffer: a worker that a stopped pool must still end."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def stubborn_task(started: str) -> bytes:
    """Ignore SIGTERM, say so in the file ``started``, work a while, then return 8 MB."""
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    Path(started).write_text(str(os.getpid()))
    time.sleep(1.0)
    return bytes(8 << 20)
