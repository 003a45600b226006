"""Tournament games as Ray tasks, on a Ray started for the run or on a running cluster (``--address``).

Each scheduled game is one task (:func:`training.arena.tournament.play_scheduled` in a Ray worker, whose
players are made once and kept from game to game, as in the local pool). Ray runs a task again when its
worker dies (``max_retries``); a game whose worker is lost every time comes back as a failed Outcome, which
the tournament writes to ``errors.jsonl`` and plays again on the next run. The games are those of the local
backend: a game's deal and play seeds come from the schedule, not from where it runs.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kdenv.errors import KingdominoError
from kdenv.rules import Rules

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


def play_on_ray(
    pending: list, rules: Rules, players: dict[str, str], workers: int | None, address: str | None, trace: bool = False
) -> Iterator[Any]:
    """Outcomes of the ``pending`` scheduled games as Ray finishes them, at most ``workers`` in flight (default:
    two per CPU of the cluster), their records traced with ``trace``; an interrupt cancels the games in flight."""
    from training.arena.tournament import Outcome, play_in_worker

    with connected(address, workers) as ray:
        task = ray.remote(num_cpus=1, max_retries=RETRIES)(play_in_worker)
        in_flight = workers or 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        shared_rules, shared_players = ray.put(rules), ray.put(players)
        games = iter(pending)
        waiting: dict[Any, Any] = {}

        def submit(count: int) -> None:
            for game in itertools.islice(games, count):
                waiting[task.remote(game, shared_rules, shared_players, trace)] = game

        try:
            submit(in_flight)
            while waiting:
                done, _ = ray.wait(list(waiting), num_returns=1)
                game = waiting.pop(done[0])
                submit(1)
                try:
                    yield ray.get(done[0])
                except ray.exceptions.RayError as err:  # the worker was lost every time (or Ray failed)
                    yield Outcome(game, error=f"{type(err).__name__}: {_first_line(err)}", trace=str(err))
        finally:
            for ref in waiting:
                ray.cancel(ref, force=True)
