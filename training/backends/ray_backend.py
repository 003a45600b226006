"""Work on Ray: on a Ray started for the run or on a running cluster (``address``).

A task is a Ray task holding ``cpus`` CPUs (``num_cpus``), run again when its worker dies (``max_retries``); one
whose worker is lost every time comes back as a :class:`~training.backends.base.Lost`, and a task's own error is
raised again in the caller. A crew is one Ray actor per worker, each on one CPU. What every
task or worker is given alike (``common``) is put in Ray's object store once. Where the work runs changes no
result: seeds come with the work (a game's from its schedule, a self-play worker's from its arguments).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from typing import Any

from kdenv.errors import KingdominoError
from training.backends.base import RETRIES, Backend, Crew, Lost, T, windowed

OBJECT_STORE = 256 * 2**20  # bytes of a local Ray's object store: records and networks are small, /dev/shm may be too
CONNECT_TIMEOUT_S = 5.0  # seconds to wait for a cluster's port to answer (ray.init itself waits for minutes)


class RayBackendError(KingdominoError):
    """Ray is not installed, or the cluster at the address cannot be reached."""


def import_ray() -> Any:
    """The ``ray`` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayBackendError('the ray backend needs Ray: pip install -e ".[ray]"') from None
    return ray


@contextmanager
def connected(address: str | None = None, cpus: int | None = None) -> Iterator[Any]:
    """Ray, joined at ``address`` (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``) or started here with ``cpus``
    CPUs when ``address`` is None; a Ray already initialised in this process is used as it is. A Ray started
    or joined here is left again on exit."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    settings: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address is None:
        # Ray's note that a new local Ray has token authentication on is about Ray's default, not this run
        logging.getLogger("ray._private.authentication").setLevel(logging.ERROR)
        try:
            ray.init(num_cpus=cpus or os.cpu_count(), object_store_memory=OBJECT_STORE, **settings)
        except (OSError, RuntimeError, ValueError) as err:
            raise RayBackendError(f"cannot start a local Ray: {_first_line(err)}") from None
    else:
        try:
            _check_reachable(address)
            ray.init(address=address, **settings)
        except (OSError, RuntimeError, ValueError) as err:
            raise RayBackendError(
                f"cannot reach a Ray cluster at {address!r} ({_first_line(err)}); start one with `ray start --head`, "
                "or leave out --address to use a local Ray"
            ) from None
    try:
        yield ray
    finally:
        ray.shutdown()


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _check_reachable(address: str) -> None:
    """Fail fast (ConnectionError) when nothing answers at ``HOST:PORT`` or ``ray://HOST:PORT``; ``auto`` is
    looked up by Ray itself, which fails at once when no cluster runs on this machine."""
    if address == "auto":
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        raise ValueError("give the address as auto, HOST:PORT or ray://HOST:PORT")
    with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S):
        pass


def node_cpus(ray: Any) -> list[int]:
    """The CPUs of each live node of the cluster that ``ray`` is connected to."""
    return [int(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node["Alive"]]


class Ray(Backend):
    """Tasks and crews on a local Ray or the cluster at ``address``; at most ``workers`` tasks in flight (default:
    two per CPU of the cluster), each task holding ``cpus`` CPUs, and an interrupt cancels those in flight."""

    def __init__(self, workers: int | None = None, address: str | None = None, cpus: int = 1) -> None:
        self.workers, self.address, self.cpus = workers, address, cpus

    def tasks(
        self, task: Callable[..., Any], items: Iterable[T], common: tuple = ()
    ) -> Generator[tuple[T, Any], None, None]:
        with connected(self.address, self.workers) as ray:
            remote = ray.remote(num_cpus=self.cpus, max_retries=RETRIES)(task)
            in_flight = self.workers or 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
            shared = [ray.put(value) for value in common]

            def start(item: T) -> Any:
                return remote.remote(item, *shared)

            def first_done(refs: list[Any]) -> list[Any]:
                return ray.wait(refs, num_returns=1)[0]

            def cancel(ref: Any) -> None:
                ray.cancel(ref, force=True)

            with closing(windowed(items, start, first_done, in_flight, cancel)) as finished:
                for item, ref in finished:
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayTaskError as err:  # the task raised: its error, as in this process
                        raise err.cause if isinstance(err.cause, Exception) else err from None
                    except ray.exceptions.RayError as err:  # the worker was lost every time (or Ray failed)
                        result = Lost(f"{type(err).__name__}: {_first_line(err)}", str(err))
                    yield item, result

    def crew(self, kind: type, arguments: Sequence[tuple]) -> Crew:
        return _Actors(kind, arguments, self.address)


class _Actors(Crew):
    """A crew of Ray actors, one CPU each; Ray is joined (or started) for the crew, and left when it closes."""

    def __init__(self, kind: type, arguments: Sequence[tuple], address: str | None) -> None:
        self.stack = ExitStack()
        self.ray = self.stack.enter_context(connected(address, len(arguments)))
        actor = self.ray.remote(num_cpus=1)(kind)
        self.actors = [actor.remote(*each) for each in arguments]

    def call(self, method: str, each: Sequence[tuple], common: tuple = ()) -> list[Any]:
        shared = [self.ray.put(value) for value in common]
        refs = [getattr(a, method).remote(*mine, *shared) for a, mine in zip(self.actors, each, strict=True)]
        return self.ray.get(refs)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.stack.close()
