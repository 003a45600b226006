"""The checkpoint format, read and written in one place: by the trainer, the ``ppo:`` player and the tests.

A checkpoint is a ``.zip``: the one stable-baselines3 writes (a training checkpoint, with the optimizer)
or a player-only one, and in both one entry of ours, ``kdenv.json``: the format, the table (players,
kingdom size, rules), the network size and, in a training checkpoint, the state to resume from.
Loading never unpickles: the weights come from ``policy.pth`` through ``torch.load(weights_only=True)``.
Every file is written to a temporary file next to its place, then moved there (:mod:`kdenv.files`).
"""

from __future__ import annotations

import dataclasses
import io
import json
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kdenv.errors import KingdominoError
from kdenv.files import write_atomically
from kdenv.rules import Rules

CHECKPOINT_FORMAT = "kdenv-ppo/1"
SETTINGS_ENTRY = "kdenv.json"
WEIGHTS_ENTRY = "policy.pth"
OPTIMIZER_ENTRY = "policy.optimizer.pth"


EXTRACTOR = "features_extractor."
SHARED_EXTRACTOR = ("pi_features_extractor.", "vf_features_extractor.")  # a policy's names for its extractors
VALUE_WEIGHTS = ("vf_features_extractor.", "mlp_extractor.value.", "value_net.")


class CheckpointError(KingdominoError):
    """A checkpoint that is missing, not a kdenv PPO checkpoint, or does not fit its own settings."""


@dataclass(frozen=True)
class NetworkSettings:
    """The network's size and heads (``network`` in ``kdenv.json``; see :func:`agents.policy_network.policy_kwargs`)."""

    channels: int
    blocks: int
    hidden: int
    seat_values: bool = False  # a value per seat (expert iteration's head) rather than the observer's alone
    value_tower: bool = False  # the value's own features extractor

    def to_dict(self) -> dict[str, Any]:
        """As ``kdenv.json`` holds it: the heads' flags only where set (as checkpoints have always written them)."""
        return {key: value for key, value in dataclasses.asdict(self).items() if value is not False}

    @property
    def size(self) -> tuple[int, int, int]:
        """(channels, blocks, hidden): what must match for one network's policy weights to fit another."""
        return self.channels, self.blocks, self.hidden

    @property
    def shared_value(self) -> bool:
        """Whether the value is PPO's: one output, read from the policy's trunk (no tower, no value per seat)."""
        return not (self.seat_values or self.value_tower)


@dataclass(frozen=True)
class CheckpointSettings:
    """What ``kdenv.json`` says: the table (players, kingdom size, rules), the reward trained on, whether the
    observations have gains (checkpoints written before the option: without), the network, and in a training
    checkpoint the state to resume from, in an exported one its provenance."""

    num_players: int
    kingdom_size: int
    rules: Rules
    reward: str
    network: NetworkSettings
    gains: bool = False
    training: dict[str, Any] | None = None
    provenance: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "checkpoint") -> CheckpointSettings:
        """The settings a ``kdenv.json`` holds; a one-line CheckpointError naming what is missing or wrong."""
        try:
            return cls(
                num_players=int(data["num_players"]),
                kingdom_size=int(data["kingdom_size"]),
                rules=Rules.from_dict(data["rules"]),
                reward=str(data["reward"]),
                network=NetworkSettings(**data["network"]),
                gains=bool(data.get("gains", False)),
                training=data.get("training"),
                provenance=data.get("provenance"),
            )
        except KeyError as err:
            raise CheckpointError(f"{where} has no {err.args[0]!r} in its {SETTINGS_ENTRY}") from None
        except (TypeError, ValueError, KingdominoError) as err:
            raise CheckpointError(f"{where} has settings it cannot use: {str(err).splitlines()[0]}") from None

    def to_dict(self) -> dict[str, Any]:
        """As ``kdenv.json`` holds it, in its order (``training`` and ``provenance`` only where there are some)."""
        data: dict[str, Any] = {
            "format": CHECKPOINT_FORMAT,
            "num_players": self.num_players,
            "kingdom_size": self.kingdom_size,
            "rules": self.rules.to_dict(),
            "reward": self.reward,
            "gains": self.gains,
            "network": self.network.to_dict(),
        }
        for key in ("training", "provenance"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


def read_checkpoint(path: str | Path) -> tuple[CheckpointSettings, dict]:
    """(settings, policy state dict) of a checkpoint; a one-line CheckpointError if it cannot be used."""
    try:
        import torch
    except ImportError:  # the base install: everything but the learned players and training
        raise CheckpointError(
            f'checkpoint {str(path)!r} needs PyTorch: pip install torch==2.13.0 && pip install -e ".[train]"'
        ) from None

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {str(path)!r} not found; give the path of a .zip written by `kdenv train`")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if SETTINGS_ENTRY not in names or WEIGHTS_ENTRY not in names:
                raise CheckpointError(
                    f"checkpoint {str(path)!r} lacks {SETTINGS_ENTRY} or {WEIGHTS_ENTRY}; "
                    "it was not written by `kdenv train`"
                )
            settings = json.loads(archive.read(SETTINGS_ENTRY))
            state = torch.load(io.BytesIO(archive.read(WEIGHTS_ENTRY)), map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, pickle.UnpicklingError, EOFError, RuntimeError, OSError, ValueError) as err:
        reason = str(err).splitlines()[0]
        raise CheckpointError(
            f"checkpoint {str(path)!r} cannot be read: {reason}; give a .zip written by `kdenv train`"
        ) from None
    if settings.get("format") != CHECKPOINT_FORMAT:
        found = settings.get("format")
        raise CheckpointError(f"checkpoint {str(path)!r} has format {found!r}, not {CHECKPOINT_FORMAT}")
    return CheckpointSettings.from_dict(settings, f"checkpoint {str(path)!r}"), state


def write_player(path: str | Path, settings: CheckpointSettings, state: dict, optimizer: dict | None = None) -> None:
    """A player-only checkpoint: ``kdenv.json`` (``settings``) and ``policy.pth`` (the state dict), nothing pickled;
    with ``optimizer``, its state too (a training checkpoint that :func:`load_optimizer` reads)."""
    import torch

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(SETTINGS_ENTRY, json.dumps(settings.to_dict(), indent=1))
        for entry, tensors in ((WEIGHTS_ENTRY, state), (OPTIMIZER_ENTRY, optimizer)):
            if tensors is not None:
                data = io.BytesIO()
                torch.save(tensors, data)
                archive.writestr(entry, data.getvalue())
    write_atomically(path, buffer.getvalue())


def save_model(model, path: str | Path, settings: CheckpointSettings, training: dict | None = None) -> None:
    """A training checkpoint: the SB3 zip of ``model`` plus ``kdenv.json`` (settings and the state to resume)."""
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, "a") as archive:
        resume = dataclasses.replace(settings, training=training or {})
        archive.writestr(SETTINGS_ENTRY, json.dumps(resume.to_dict(), indent=1))
    write_atomically(path, buffer.getvalue())


def load_optimizer(path: str | Path) -> dict | None:
    """The optimizer state saved in a training checkpoint (plain tensors, never unpickled code)."""
    import torch

    with zipfile.ZipFile(path) as archive:
        if OPTIMIZER_ENTRY not in archive.namelist():
            return None
        return torch.load(io.BytesIO(archive.read(OPTIMIZER_ENTRY)), map_location="cpu", weights_only=True)


def export_player(source: str | Path, target: str | Path, provenance: dict | None = None) -> None:
    """A player-only copy of a checkpoint, with its settings and ``provenance`` also written next to it as
    ``<target>.json``."""
    settings, state = read_checkpoint(source)  # checks that it loads
    exported = dataclasses.replace(settings, training=None, provenance=provenance or {})
    write_player(target, exported, state)
    write_settings(target, exported)


def write_settings(target: str | Path, settings: CheckpointSettings) -> None:
    """``<target>.json``: a player checkpoint's settings beside it, readable without opening the zip."""
    write_atomically(Path(target).with_suffix(".json"), json.dumps(settings.to_dict(), indent=1) + "\n")


def starting_weights(settings: CheckpointSettings, state: dict) -> dict:
    """What a PPO or RLlib run started from this checkpoint loads: all its weights where its value is PPO's, else
    its policy's alone (:func:`policy_weights`)."""
    return state if settings.network.shared_value else policy_weights(state)


def policy_weights(state: dict) -> dict:
    """The policy's side of a checkpoint's weights (its extractor and policy heads, no value weights), under the
    names of a network whose extractor is shared: what starts a PPO or RLlib run from a checkpoint whose value
    is not PPO's (expert iteration's tower with a value per seat); the run's value then starts fresh."""
    policy = {}
    for key, value in state.items():
        if key.startswith(EXTRACTOR):
            for prefix in (EXTRACTOR, *SHARED_EXTRACTOR):
                policy[prefix + key[len(EXTRACTOR) :]] = value
        elif not key.startswith((*VALUE_WEIGHTS, *SHARED_EXTRACTOR)):
            policy[key] = value
    return policy
