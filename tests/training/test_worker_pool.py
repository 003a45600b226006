"""Worker processes of tournaments and evaluation end with their parent, even when it is killed with kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time


def test_workers_end_when_their_parent_is_killed():
    parent = textwrap.dedent(
        """
        import os, sys, time
        from training.backends.pool import WorkerPool

        pool = WorkerPool(2)
        pids = [pool.submit(os.getpid).result() for _ in range(4)]
        print(" ".join(map(str, set(pids))), flush=True)
        time.sleep(120)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True)
    workers = [int(pid) for pid in process.stdout.readline().split()]
    assert workers
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 20
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in alive if _alive(pid)]
    assert not alive, f"orphaned workers {alive}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waiting for init to reap it is gone too
        return stat.read().split()[2] != "Z"
