"""Fixtures of the training tests: a tiny checkpoint file."""

from __future__ import annotations

import pytest

from tests.helpers.checkpoints import SETTINGS, write_checkpoint


@pytest.fixture
def tiny_checkpoint(tmp_path):
    path = tmp_path / "tiny.zip"
    write_checkpoint(path, SETTINGS)
    return path
