"""A run's stop on SIGINT and SIGTERM: the signal asks the run to stop after its current step, which then writes its
checkpoint, and :class:`Interrupted` says how to resume it."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kdenv.errors import KingdominoError


class Interrupted(KingdominoError):
    """A run stopped by SIGINT or SIGTERM once its checkpoint (``saved``) is written: it can be resumed."""

    def __init__(self, path: Path, step: int, saved: str = "last.zip", unit: str = "step") -> None:
        super().__init__(f"interrupted at {unit} {step}; {saved} is saved: resume with kdenv train --resume {path}")


@contextlib.contextmanager
def stop_on_signals(progress: Any) -> Iterator[None]:
    """While learning, SIGINT and SIGTERM set ``progress.interrupted``, asking the run to stop after the current
    step (which then writes its checkpoint, as at the end of a run) instead of killing it."""

    def stop(signum, frame) -> None:
        progress.interrupted = True

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
