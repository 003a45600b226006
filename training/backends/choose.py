"""A backend from its name, as configs and command lines give it (and the command line's options that name it);
and one for runs that each hold a share of the CPUs (``kdenv benchmark --workers``)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

from kdenv.errors import KingdominoError
from training.backends.base import Backend
from training.backends.local import InProcess, Processes

WORKERS = "worker processes (default: all cores; 1 = no processes); with --backend ray, games at once"


class BackendError(KingdominoError):
    """A backend's name that is none of local and ray, an address without ray, or workers below one."""


def choose_backend(name: str = "local", workers: int | None = None, address: str | None = None) -> Backend:
    """``local`` with ``workers`` processes (:class:`~training.backends.local.InProcess` for one, default every
    core), or ``ray`` (:class:`~training.backends.ray_backend.Ray`, at ``address``; imported only then: Ray is an
    optional extra). Building one starts nothing: a pool is made, and Ray joined, when work comes."""
    if name == "ray":
        from training.backends.ray_backend import Ray

        return Ray(workers, address)
    if name != "local":
        raise BackendError(f"unknown backend {name!r}; choose local or ray")
    if address is not None:
        raise BackendError("an address is for the ray backend; choose it (--backend ray, or backend: ray in a config)")
    workers = workers or os.cpu_count() or 1
    return InProcess() if workers == 1 else Processes(workers)


def add_backend_arguments(parser: argparse.ArgumentParser, workers: str = WORKERS) -> None:
    """``--workers N``, ``--backend {local,ray}`` and ``--address ADDR``: where a command's games run, read back
    by :func:`backend_of`; ``workers`` is the help of ``--workers``."""
    parser.add_argument("--workers", type=int, metavar="N", help=workers)
    parser.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="local: worker processes here; ray: Ray tasks, on a local Ray or the cluster at --address",
    )
    parser.add_argument(
        "--address", metavar="ADDR", help="a running Ray cluster for --backend ray: auto, HOST:PORT or ray://HOST:PORT"
    )


def backend_of(args: argparse.Namespace) -> Backend:
    """The backend that :func:`add_backend_arguments`'s options name; a one-line error for ``--workers`` below 1."""
    if args.workers is not None and args.workers < 1:
        raise BackendError(f"--workers must be at least 1, not {args.workers}")
    return choose_backend(args.backend, args.workers, args.address)


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
    yield choose_backend(name, workers, address), max(1, (os.cpu_count() or 1) // workers)
