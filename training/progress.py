"""What a long run shows while it works: a progress bar with its rate, and time-stamped status lines."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def log_line(text: str, console: Console | None = None) -> None:
    """Print one time-stamped status line (above the progress bar when there is one)."""
    stamp = datetime.now(timezone.utc).strftime("%H:%M:%S")
    (console or Console()).print(f"[{stamp}] {text}", highlight=False, markup=False)


class ProgressBar:
    """A rich progress bar with steps/s and a status text; when output is not a terminal (nohup, CI), a line
    every ``every`` seconds instead."""

    def __init__(self, description: str, total: int, completed: int = 0, every: float = 60.0) -> None:
        self.console = Console()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:.0f}/s"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[info]}"),
            console=self.console,
        )
        self.description, self.total, self.every = description, total, every
        self.started = (time.monotonic(), completed)
        self.printed = time.monotonic()
        self.task = self.progress.add_task(description, total=total, completed=completed, rate=0.0, info="")
        self.progress.start()

    def update(self, completed: int, info: str) -> None:
        elapsed = time.monotonic() - self.started[0]
        rate = (completed - self.started[1]) / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=completed, rate=rate, info=info)
        if not self.console.is_terminal and time.monotonic() - self.printed >= self.every:
            self.printed = time.monotonic()
            self.print(f"{self.description}: {completed}/{self.total} ({rate:.0f}/s) {info}")

    def print(self, text: str) -> None:
        log_line(text, self.console)

    def stop(self) -> None:
        self.progress.stop()
