"""Hypothesis profiles: ``ci`` (what CI runs) and ``dev`` (fewer examples, for a quick run while working), chosen
by ``HYPOTHESIS_PROFILE``; by default ``ci`` where ``CI=true`` and ``dev`` elsewhere. Tests set no budgets of
their own: a property that runs once per set-up shares the profile's examples out (``tests.strategies``)."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

# no deadline: the first example of a compiled check compiles it (or loads numba's cache), and CI machines are shared
settings.register_profile("ci", max_examples=30, deadline=None)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") == "true" else "dev"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``-n``, ``--dist loadgroup``, as pyproject.toml sets): the tests sharing one local Ray
    (tests/ray) run in one worker, and so do those driving one browser (tests/web)."""
    tests = Path(__file__).parent
    for item in items:
        group = item.path.relative_to(tests).parts[0]
        if group in ("ray", "web"):
            item.add_marker(pytest.mark.xdist_group(group))
