"""What a long job shows while it works (training, imitation, tournaments): one progress bar with its rate and
time left, and time-stamped status lines."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def log_line(text: str, console: Console | None = None, style: str | None = None) -> None:
    """Print one time-stamped status line (above the progress bar when there is one)."""
    stamp = datetime.now(timezone.utc).strftime("%H:%M:%S")
    (console or Console()).print(f"[{stamp}] {text}", highlight=False, markup=False, style=style)


def _rate(per_second: float) -> str:
    return f"{per_second:.0f}/s" if per_second >= 100 else f"{per_second:.1f}/s"


class ProgressBar:
    """A rich progress bar (done of total, rate, elapsed, time left, a status text); when output is not a
    terminal (nohup, CI), a line every ``every`` seconds instead. ``enabled=False`` shows no bar, but
    :meth:`print` still prints."""

    def __init__(
        self,
        description: str,
        total: int,
        completed: int = 0,
        every: float = 60.0,
        enabled: bool = True,
        stderr: bool = False,
    ) -> None:
        self.console = Console(stderr=stderr)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[info]}"),
            console=self.console,
            disable=not enabled,
        )
        self.description, self.total, self.every, self.enabled = description, total, every, enabled
        self.completed = completed
        self.started = (time.monotonic(), completed)
        self.printed = time.monotonic()
        self.task = self.progress.add_task(description, total=total, completed=completed, rate="", info="")
        self.progress.start()

    def update(self, completed: int, info: str = "") -> None:
        """``completed`` of the total are done; ``info`` is shown beside the bar."""
        self.completed = completed
        elapsed = time.monotonic() - self.started[0]
        rate = _rate((completed - self.started[1]) / elapsed if elapsed > 0 else 0.0)
        self.progress.update(self.task, completed=completed, rate=rate, info=info)
        if self.enabled and not self.console.is_terminal and time.monotonic() - self.printed >= self.every:
            self.printed = time.monotonic()
            self.print(f"{self.description}: {completed}/{self.total} ({rate}) {info}")

    def advance(self, info: str = "") -> None:
        """One more done."""
        self.update(self.completed + 1, info)

    def print(self, text: str, style: str | None = None) -> None:
        log_line(text, self.console, style)

    def stop(self) -> None:
        self.progress.stop()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
