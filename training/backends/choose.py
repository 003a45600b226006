"""A backend from its name, as configs and command lines give it."""

from __future__ import annotations

import os

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
