"""Checkpoint settings: a typed value read from ``kdenv.json`` and written back as the same keys."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest

from agents.checkpoint import CheckpointError, CheckpointSettings, export_player, read_checkpoint, write_player
from tests.helpers.checkpoints import SETTINGS, tiny

SHIPPED = sorted(Path("agents/checkpoints").glob("*.zip"))


def kdenv_json(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("kdenv.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_checkpoint_reads_and_writes_back_as_it_is(path):
    raw = kdenv_json(path)
    settings = CheckpointSettings.from_dict(raw)
    assert settings.to_dict() == {"gains": False, **raw}  # the first checkpoints (v1) were written before gains
    if "gains" in raw:
        assert list(settings.to_dict()) == list(raw)  # the keys in their order too
    assert read_checkpoint(path)[0] == settings


def test_new_checkpoints_write_the_keys_the_trainers_always_wrote(tmp_path):
    from training.ppo.config import config_from_dict
    from training.runs.directory import checkpoint_settings

    settings = checkpoint_settings(config_from_dict({"env": {"num_players": 3, "gains": True}}))
    assert settings.to_dict() == {
        "format": "kdenv-ppo/1",
        "num_players": 3,
        "kingdom_size": 5,
        "rules": {"kingdom_size": 5, "middle_kingdom": True, "harmony": True, "voluntary_discard": False},
        "reward": "rank",
        "gains": True,
        "network": {"channels": 16, "blocks": 2, "hidden": 128},
    }
    towered = dataclasses.replace(settings.network, seat_values=True, value_tower=True)
    assert towered.to_dict() == {"channels": 16, "blocks": 2, "hidden": 128, "seat_values": True, "value_tower": True}


def test_an_exported_player_drops_the_training_state_and_says_where_it_came_from(tmp_path):
    from agents.ppo_player import build_policy

    source, target = tmp_path / "last.zip", tmp_path / "player.zip"
    write_player(source, dataclasses.replace(tiny(), training={"step": 7}), build_policy(tiny()).state_dict())
    assert kdenv_json(source)["training"] == {"step": 7}
    export_player(source, target, {"run": "x"})
    written = kdenv_json(target)
    assert "training" not in written and written["provenance"] == {"run": "x"}
    assert json.loads(target.with_suffix(".json").read_text()) == written


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"network": None}, "settings it cannot use"),
        ({"rules": {"kingdom_size": 5, "harmony": "yes"}}, "rule 'harmony' must be true or false"),
        ({"num_players": "four"}, "settings it cannot use"),
    ],
)
def test_settings_that_cannot_be_used_are_one_line_errors(change, message):
    with pytest.raises(CheckpointError, match=message) as info:
        CheckpointSettings.from_dict({**SETTINGS, **change}, "checkpoint 'x.zip'")
    assert "\n" not in str(info.value)


def test_a_missing_key_is_named():
    with pytest.raises(CheckpointError, match="checkpoint 'x.zip' has no 'network' in its kdenv.json"):
        CheckpointSettings.from_dict(
            {key: value for key, value in SETTINGS.items() if key != "network"}, "checkpoint 'x.zip'"
        )
