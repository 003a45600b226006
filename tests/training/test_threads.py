"""A run's share of the machine (training.runs.threads): torch's and numba's threads held to it, and those of the
processes the run starts, then put back."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from training.runs.threads import VARIABLES, share


@pytest.fixture
def two_threads():
    """torch and numba on two threads (numba on one where it has only one), as they were after."""
    torch = pytest.importorskip("torch")
    import numba

    was = torch.get_num_threads(), numba.get_num_threads()
    torch.set_num_threads(2)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield torch, numba
    torch.set_num_threads(was[0])
    numba.set_num_threads(was[1])


def test_a_share_holds_the_threads_of_this_process_and_of_those_it_starts_then_puts_them_back(two_threads, monkeypatch):
    torch, numba = two_threads
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    before = torch.get_num_threads(), numba.get_num_threads()
    with share(1):
        assert torch.get_num_threads() == 1 and numba.get_num_threads() == 1
        assert all(os.environ[name] == "1" for name in VARIABLES)
        started = [sys.executable, "-c", "import torch; print(torch.get_num_threads())"]
        assert subprocess.run(started, capture_output=True, text=True, check=True).stdout.strip() == "1"
    assert (torch.get_num_threads(), numba.get_num_threads()) == before == (2, min(2, numba.config.NUMBA_NUM_THREADS))
    assert os.environ["OMP_NUM_THREADS"] == "7" and "MKL_NUM_THREADS" not in os.environ
