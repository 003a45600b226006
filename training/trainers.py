"""The three trainers behind one call, chosen by a config's ``trainer`` key: ``sb3`` (MaskablePPO, the default),
``rllib`` (RLlib's PPO) and ``az`` (expert iteration); for ``kdenv train`` and ``kdenv benchmark``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

TRAINERS = ("sb3", "rllib", "az")  # the config key `trainer`


def trainer_of(data: Any, resume: str | None) -> str:
    """The config's trainer; with no config, that of the run resumed (an RLlib run has a checkpoint/, an
    expert-iteration run's config.yaml says trainer az)."""
    from training.runs.config import TRAINER, renamed

    if isinstance(data, dict):
        return str(renamed(data).get(TRAINER, "sb3"))
    if resume is None:
        return "sb3"
    if (Path(resume) / "checkpoint").is_dir():
        return "rllib"
    return "az" if _saved_trainer(Path(resume)) == "az" else "sb3"


def _saved_trainer(run: Path) -> str | None:
    """The trainer of a run directory's config.yaml (None when it has none, or cannot be read)."""
    import yaml

    from training.runs.config import TRAINER, renamed

    try:
        data = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return renamed(data, quiet=True).get(TRAINER) if isinstance(data, dict) else None


def train(trainer: str, data: Any, overrides: list[str], resume: str | None) -> Path:
    """Train (or, with ``resume``, go on with) a run of ``trainer`` from a raw config and ``key=value``
    overrides; the run directory."""
    return {"rllib": _train_rllib, "az": _train_az}.get(trainer, _train_sb3)(data, overrides, resume)


def check(data: Any, overrides: list[str]) -> None:
    """The config ``data`` with ``overrides``, checked as its trainer would check it (a one-line ConfigError),
    without training: a benchmark's entries are told before any run."""
    from training.az.config import az_config
    from training.ppo.config import config_from_dict
    from training.rllib.config import rllib_config

    {"rllib": rllib_config, "az": az_config}.get(trainer_of(data, None), config_from_dict)(data, overrides)


def _train_sb3(data: Any, overrides: list[str], resume: str | None) -> Path:
    from training.ppo.config import config_from_dict
    from training.ppo.train import load_run_config, train

    if data is None and resume is not None:
        return train(load_run_config(resume, overrides), resume=resume)
    return train(config_from_dict(data, overrides), resume=resume)


def _train_rllib(data: Any, overrides: list[str], resume: str | None) -> Path:
    from training.rllib.config import rllib_config
    from training.rllib.train import load_rllib_run_config, train_rllib

    if data is None and resume is not None:
        return train_rllib(load_rllib_run_config(resume, overrides), resume=resume)
    return train_rllib(rllib_config(data or {}, overrides), resume=resume)


def _train_az(data: Any, overrides: list[str], resume: str | None) -> Path:
    from training.az.config import az_config
    from training.az.train import load_az_run_config, train_az

    if data is None and resume is not None:
        return train_az(load_az_run_config(resume, overrides), resume=resume)
    return train_az(az_config(data, overrides), resume=resume)
