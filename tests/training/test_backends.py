"""The backends (training.backends): tasks come back as they finish with what the task returned, a crew's workers
keep their state from call to call, a worker's error reaches the caller, and a dead worker is a one-line error."""

from __future__ import annotations

import argparse
import os
from contextlib import closing

import pytest

from tests.helpers.backend_work import Refilled, Tally, square_plus
from training.backends.base import WorkerDied, windowed
from training.backends.choose import BackendError, add_backend_arguments, backend_of, choose_backend
from training.backends.local import InProcess, Processes

BACKENDS = [InProcess(), Processes(2)]


@pytest.mark.parametrize("backend", BACKENDS, ids=["in-process", "processes"])
def test_tasks_give_each_item_its_result(backend):
    with closing(backend.tasks(square_plus, range(7), (10,))) as finished:
        assert sorted(finished) == [(k, k * k + 10) for k in range(7)]


def chain(finished, items: Refilled) -> list[int]:
    """The results of tasks each started by the last one's result while it is at most 1,000 (k -> k * k + 1)."""
    results = []
    for _, result in finished:
        results.append(result)
        if result <= 1000:
            items.items.append(result)
    return results


@pytest.mark.parametrize("backend", BACKENDS, ids=["in-process", "processes"])
def test_items_added_while_the_results_are_read_run_too(backend):
    items = Refilled(1)
    with closing(backend.tasks(square_plus, items, (1,))) as finished:
        assert chain(finished, items) == [2, 5, 26, 677, 458330]


def test_a_window_of_tasks_starts_the_items_added_while_its_results_are_read():
    """Ray's tasks: a window of two, each task done as it starts (its handle its result), one at a time."""
    items = Refilled(1)
    with closing(windowed(items, lambda k: k * k + 1, lambda handles: handles[:1], 2)) as finished:
        assert chain(finished, items) == [2, 5, 26, 677, 458330]


def test_closing_the_tasks_early_stops_the_rest():
    finished = Processes(2).tasks(square_plus, range(100), (0,))
    first = next(finished)
    finished.close()
    assert first[1] == first[0] ** 2


@pytest.mark.parametrize("backend", BACKENDS, ids=["in-process", "processes"])
def test_a_crew_keeps_each_worker_s_state(backend):
    crew = backend.crew(Tally, [(0,), (100,)])
    try:
        first = crew.call("add", [(1,), (2,)], (10,))
        second = crew.call("add", [(1,), (2,)])
    finally:
        crew.close()
    assert [(total, calls) for total, calls, _ in first] == [(10, 1), (120, 1)]
    assert [(total, calls) for total, calls, _ in second] == [(11, 2), (122, 2)]
    pids = {pid for _, _, pid in first + second}
    expected = 1 if backend.here else 2  # this process, or a process per worker
    assert len(pids) == expected and (os.getpid() in pids) == backend.here


@pytest.mark.parametrize("backend", BACKENDS, ids=["in-process", "processes"])
def test_a_worker_s_error_reaches_the_caller(backend):
    crew = backend.crew(Tally, [(0,)])
    try:
        with pytest.raises(ValueError, match="no such line"):
            crew.call("fail", [()])
        assert crew.call("add", [(5,)])[0][:2] == (5, 1)  # the worker lives on
    finally:
        crew.close()


def test_a_dead_crew_worker_is_a_one_line_error():
    crew = Processes(1).crew(Tally, [(0,)])
    try:
        with pytest.raises(WorkerDied, match="a worker process died"):
            crew.call("die", [()])
    finally:
        crew.close()


def test_a_backend_is_chosen_by_name():
    assert isinstance(choose_backend("local", 1), InProcess)
    assert isinstance(choose_backend("local", 3), Processes) and choose_backend("local", 3).workers == 3
    with pytest.raises(BackendError, match="unknown backend 'gpu'; choose local or ray"):
        choose_backend("gpu")
    with pytest.raises(BackendError, match="an address is for the ray backend; choose it \\(--backend ray"):
        choose_backend("local", 2, "auto")


def test_the_command_line_options_make_the_backend_once():
    parser = argparse.ArgumentParser()
    add_backend_arguments(parser)
    assert isinstance(backend_of(parser.parse_args(["--workers", "1"])), InProcess)
    assert backend_of(parser.parse_args(["--workers", "3"])).workers == 3
    assert isinstance(backend_of(parser.parse_args([])), Processes if (os.cpu_count() or 1) > 1 else InProcess)
    with pytest.raises(BackendError, match="--workers must be at least 1, not 0"):
        backend_of(parser.parse_args(["--workers", "0"]))
