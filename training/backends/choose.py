"""A backend from its name, as configs and command lines give it; and one for runs that each hold a share of
the CPUs (``kdenv benchmark --workers``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from kdenv.errors import KingdominoError
from training.backends.base import Backend
from training.backends.local import InProcess, Processes


class BackendError(KingdominoError):
    """A backend's name that is none of local and ray."""


def choose_backend(name: str, workers: int | None = None, address: str | None = None) -> Backend:
    """``local`` with ``workers`` processes (:class:`~training.backends.local.InProcess` for one, default every
    core), or ``ray`` (:class:`~training.backends.ray_backend.Ray`, at ``address``; imported only then: Ray is an
    optional extra)."""
    if name == "ray":
        from training.backends.ray_backend import Ray

        return Ray(workers, address)
    if name != "local":
        raise BackendError(f"unknown backend {name!r}; choose local or ray")
    workers = workers or os.cpu_count() or 1
    return InProcess() if workers == 1 else Processes(workers)


@contextmanager
def sharing(name: str, workers: int, address: str | None = None) -> Iterator[tuple[Backend, int]]:
    """A backend that runs ``workers`` tasks at once, each with an equal share of the CPUs, and that share:
    ``max(1, cpus // workers)`` of this machine's CPUs (a task per worker process; in this process for one), or
    on ``ray`` of the cluster's, at most one node's, which each task reserves (a local Ray, or the cluster at
    ``address``, joined for the block)."""
    if name == "ray":
        from training.backends.ray_backend import Ray, connected, node_cpus

        with connected(address) as ray:
            nodes = node_cpus(ray)
            cpus = max(1, min(sum(nodes) // workers, max(nodes, default=1)))
            yield Ray(workers, address, cpus), cpus
        return
    if address is not None:
        raise BackendError("an address is for the ray backend; add --backend ray")
    yield choose_backend(name, workers), max(1, (os.cpu_count() or 1) // workers)
