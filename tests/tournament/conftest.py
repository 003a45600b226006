"""Fixtures of the tournament tests: the fake players registered for the test (also in worker processes)."""

import pytest

from agents.registry import PLAYERS
from tests.helpers.fakes import FAKES


@pytest.fixture
def fakes(monkeypatch):
    """Register ``greedy1`` (clearly stronger than random) and ``crash`` (raises in games with an even seed)."""
    for name, target in FAKES.items():
        monkeypatch.setitem(PLAYERS, name, target)
