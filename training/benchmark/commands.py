"""An entry's own ``command``: run in a process group of its own, which holds its task's folder lock
(:class:`kdenv.files.FolderLock`) with it, and ended (SIGTERM, then SIGKILL) whenever its task stops: a signal, an
error or its end. A command that outlives a ``kill -9`` of the grid keeps holding that lock, so the resume is told,
in one line, instead of starting a second trainer beside it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from kdenv.files import FolderLock

GRACE = 10.0  # seconds a command's processes have to end on SIGTERM before SIGKILL


def run_command(command: str, lock: FolderLock) -> int:
    """Run the shell ``command`` in a process group of its own that holds ``lock`` too, and wait for it; its exit
    status. However the wait ends (its end, a signal, an error), what is left of the group is ended."""
    process = subprocess.Popen(command, shell=True, start_new_session=True, pass_fds=(lock.fileno(),))
    try:
        lock.name_holder(process.pid)  # the group's leader: what a resume that finds it held is told to stop
        return process.wait()
    finally:
        end_group(process)


def end_group(process: subprocess.Popen, grace: float = GRACE) -> None:
    """End the process group that ``process`` leads: SIGTERM, then SIGKILL to what is left after ``grace``
    seconds (SIGINT and SIGTERM to this process wait meanwhile, so that a second Ctrl-C leaves no orphan)."""
    stops = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while process.poll() is None or _group_runs(process.pid):
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                break
            time.sleep(0.05)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)


def _group_runs(group: int) -> bool:
    """Whether a process of the process group ``group`` runs: not a zombie, which an orphan becomes when its new
    parent does not reap it (init in a container need not), where ``/proc`` tells; elsewhere, any process."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    if not Path("/proc/self").is_dir():
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):  # a process that ended meanwhile
            state, _, pgrp = stat.read_text().rpartition(")")[2].split()[:3]
            if int(pgrp) == group and state not in ("Z", "X"):
                return True
    return False
