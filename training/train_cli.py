"""``kdenv train CONFIG.yaml [--resume RUN_DIR] [--set key=value ...]``: train a player, with MaskablePPO on the
vector env (``backend: sb3``, the default), with RLlib's PPO on the PettingZoo env (``backend: rllib``;
``kdenv train --backend rllib`` alone: RLlib's built-in defaults, self-play on a local Ray), or by expert
iteration, the search teaching the network (``backend: az``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

TRAINERS = ("sb3", "rllib", "az")  # the config key `backend`: what trains (not where games play)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="YAML config (see configs/); optional with --resume")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint (and its config)")
    parser.add_argument(
        "--backend",
        choices=TRAINERS,
        help="sb3 (MaskablePPO), rllib (RLlib's PPO) or az (expert iteration); default: the config's backend",
    )
    parser.add_argument(
        "--workers", type=int, metavar="N", help="backend az: self-play processes (sets selfplay.workers)"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, e.g. --set ppo.total_timesteps=200000 or --set address=auto (repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    from training.ppo.config import ConfigError, read_yaml
    from training.ppo.train import Interrupted

    data = read_yaml(args.config) if args.config else None
    if data is None and args.resume is None and args.backend != "rllib":
        raise ConfigError("give a config file (e.g. configs/smoke.yaml) or --resume RUN_DIR")
    named = _backend_of(data, args.resume)
    backend = args.backend or named
    if args.config and backend != named:
        raise ConfigError(f"--backend {backend}, but {args.config} is a config for backend {named}")
    overrides = list(args.overrides)
    if args.workers is not None:
        if backend != "az":
            raise ConfigError(f"--workers is for backend az (self-play processes); backend {backend} has its own keys")
        overrides.append(f"selfplay.workers={args.workers}")
    trainer = {"rllib": _train_rllib, "az": _train_az}.get(backend, _train_sb3)
    try:
        path = trainer(data, overrides, args.resume)
    except Interrupted as stopped:
        print(f"kdenv train: {stopped}", file=sys.stderr)
        return 130
    if backend == "rllib":
        print(f"run directory: {path} (play it as rllib:{path}; tensorboard --logdir {path / 'tb'})")
    elif backend == "az":
        print(f"run directory: {path} (play last.zip as ppo:PATH or az:PATH; tensorboard --logdir {path / 'tb'})")
    else:
        print(f"run directory: {path} (best.zip, last.zip, eval.jsonl; tensorboard --logdir {path / 'tb'})")
    return 0


def _backend_of(data: Any, resume: str | None) -> str:
    """The config's backend key; with no config, that of the run resumed (an RLlib run has a checkpoint/, an
    expert-iteration run's config.yaml says backend az)."""
    if isinstance(data, dict):
        return str(data.get("backend", "sb3"))
    if resume is None:
        return "sb3"
    if (Path(resume) / "checkpoint").is_dir():
        return "rllib"
    return "az" if _saved_backend(Path(resume)) == "az" else "sb3"


def _saved_backend(run: Path) -> str | None:
    """The backend key of a run directory's config.yaml (None when it has none, or cannot be read)."""
    import yaml

    try:
        data = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return data.get("backend") if isinstance(data, dict) else None


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
