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


def test_a_stopped_pool_ends_a_worker_that_holds_on_to_its_result(tmp_path):
    """A worker that takes SIGTERM as "finish first" (a trainer does), then blocks handing back a large result, is
    killed after the grace period: stopping the pool returns instead of waiting on it forever (the other worker's
    death breaks the pool, whose manager then joins the workers instead of reading their results)."""
    import threading

    from tests.helpers.stubborn import stubborn_task
    from training.backends.pool import WorkerPool

    pool, started = WorkerPool(2), tmp_path / "started"
    pool.submit(time.sleep, 60)
    pool.submit(stubborn_task, str(started))
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    worker = int(started.read_text())
    stopping = threading.Thread(target=pool.terminate, daemon=True)
    stopping.start()
    stopping.join(timeout=60)
    assert not stopping.is_alive(), "the pool waited on a worker that would never end"
    assert not _alive(worker)
