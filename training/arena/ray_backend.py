"""Tournament games as Ray tasks, on a Ray started for the run or on a running cluster (``--address``).

Each scheduled game is one task (:func:`training.arena.worker.play_in_worker` in a Ray worker, whose
players are made once and kept from game to game, as in the local pool). Ray runs a task again when its
worker dies (``max_retries``); a game whose worker is lost every time comes back as a failed Outcome, which
the tournament writes to ``errors.jsonl`` and plays again on the next run. The games are those of the local
backend: a game's deal and play seeds come from the schedule, not from where it runs.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Generator, Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any

from agents.registry import PLAYERS
from kdenv.errors import KingdominoError
from kdenv.rules import Rules
from training.arena.backend import Backend, windowed
from training.arena.schedule import ScheduledGame
from training.arena.worker import Outcome, play_in_worker

RETRIES = 3  # times Ray plays a game again after its worker died
OBJECT_STORE = 256 * 2**20  # bytes of a local Ray's object store: records are small, and /dev/shm may be too
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


class RayTasks(Backend):
    """Each game a Ray task, at most ``workers`` in flight (default: two per CPU of the cluster), on a local Ray
    or the cluster at ``address``; an interrupt cancels the games in flight."""

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        self.workers, self.address = workers, address

    def play(self, games: Sequence[ScheduledGame], rules: Rules, trace: bool = False) -> Generator[Outcome, None, None]:
        with connected(self.address, self.workers) as ray:
            task = ray.remote(num_cpus=1, max_retries=RETRIES)(play_in_worker)
            in_flight = self.workers or 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
            shared_rules, shared_players = ray.put(rules), ray.put(dict(PLAYERS))

            def start(game: ScheduledGame) -> Any:
                return task.remote(game, shared_rules, shared_players, trace)

            def first_done(refs: list[Any]) -> list[Any]:
                return ray.wait(refs, num_returns=1)[0]

            def cancel(ref: Any) -> None:
                ray.cancel(ref, force=True)

            with closing(windowed(games, start, first_done, in_flight, cancel)) as finished:
                for game, ref in finished:
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.RayError as err:  # the worker was lost every time (or Ray failed)
                        yield Outcome(game, error=f"{type(err).__name__}: {_first_line(err)}", trace=str(err))
