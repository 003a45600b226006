"""A tiny checkpoint for the tests, written by agents.checkpoint itself."""

from __future__ import annotations

SETTINGS = {
    "format": "kdenv-ppo/1",
    "num_players": 4,
    "kingdom_size": 5,
    "rules": {"kingdom_size": 5, "middle_kingdom": True, "harmony": True, "voluntary_discard": False},
    "reward": "rank",
    "network": {"channels": 8, "blocks": 1, "hidden": 16},
}


def tiny(settings: dict = SETTINGS):
    """The CheckpointSettings that ``settings`` (a ``kdenv.json``) say."""
    from agents.checkpoint import CheckpointSettings

    return CheckpointSettings.from_dict(settings)


def write_checkpoint(path, settings: dict, state: dict | None = None) -> None:
    """A player-only checkpoint of ``settings`` (as ``kdenv.json`` says them), written by the checkpoint module."""
    import torch

    from agents.checkpoint import write_player
    from agents.ppo_player import build_policy

    if state is None:
        torch.manual_seed(0)
        state = build_policy(tiny(settings)).state_dict()
    write_player(path, tiny(settings), state)
