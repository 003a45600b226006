"""PPO training configs read from YAML files, as the tests start their runs."""

from __future__ import annotations

from pathlib import Path

from training.ppo.config import TrainConfig, config_from_dict
from training.runs.config import read_yaml


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config file; a missing file, bad YAML, unknown key or bad value is a one-line ConfigError."""
    return config_from_dict(read_yaml(path), overrides)
