"""Fixtures of the web tests: one traced tournament, played once for the session (the viewer, the site and the
trace tests all read it)."""

from __future__ import annotations

import pytest

from training.arena.tournament import Tournament
from training.backends.local import InProcess

# every player that traces, and one that does not
TRACED = ["fg", "mce:playouts=6", "uct:playouts=6", "ppo:default", "az:default,simulations=4"]


@pytest.fixture(scope="session")
def traced_tournament(tmp_path_factory):
    """A small 2-player tournament of TRACED written with ``trace=True``, its reports too; the folder."""
    out = tmp_path_factory.mktemp("traced") / "tournament"
    Tournament(TRACED, players=2, games=6, seed=3, out=out, trace=True).play(InProcess())
    return out
