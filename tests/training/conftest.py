"""Shared fixtures: a tiny checkpoint written the way `kdenv train` writes the parts players read."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

SETTINGS = {
    "format": "kdenv-ppo/1",
    "num_players": 4,
    "kingdom_size": 5,
    "rules": {"kingdom_size": 5, "middle_kingdom": True, "harmony": True, "voluntary_discard": False},
    "reward": "rank",
    "network": {"channels": 8, "blocks": 1, "hidden": 16},
}


def write_checkpoint(path, settings: dict, state: dict | None = None) -> None:
    """A zip with kdenv.json and policy.pth (the two entries a player loads)."""
    import torch

    from agents.ppo_player import build_policy

    if state is None:
        torch.manual_seed(0)
        state = build_policy(settings).state_dict()
    buffer = io.BytesIO()
    torch.save(state, buffer)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("kdenv.json", json.dumps(settings))
        archive.writestr("policy.pth", buffer.getvalue())


@pytest.fixture
def tiny_checkpoint(tmp_path):
    path = tmp_path / "tiny.zip"
    write_checkpoint(path, SETTINGS)
    return path
