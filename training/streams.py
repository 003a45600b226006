"""Standard output and error whose reader may go away (``kdenv tournament ... 2>&1 | head -1``): a command keeps
working and writes its files, only what it prints is lost, and it exits as Python does on a broken pipe (1)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO


class Guarded:
    """A text stream that survives its reader: at the first broken pipe the stream's descriptor is sent to
    /dev/null, as Python's docs advise, so that nothing more fails on it (progress bars, summaries, a flush at
    exit), and :attr:`broken` remembers it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):  # a stream with no descriptor
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...: the stream's own
        return getattr(self.stream, name)


@contextlib.contextmanager
def guarded() -> Iterator[list[Guarded]]:
    """``sys.stdout`` and ``sys.stderr`` guarded while the block runs (flushed at its end), then put back; a
    stream that is None (no console) stays None."""
    out, err = (Guarded(s) if s is not None else None for s in (sys.stdout, sys.stderr))
    sys.stdout, sys.stderr = out or sys.stdout, err or sys.stderr
    streams = [s for s in (out, err) if s is not None]
    try:
        yield streams
    finally:
        for stream in streams:
            stream.flush()
        sys.stdout, sys.stderr = out.stream if out else None, err.stream if err else None
