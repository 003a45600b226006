"""``kdenv train CONFIG.yaml [--resume RUN_DIR] [--set key=value ...]``: train a player, with MaskablePPO on the
vector env (``trainer: sb3``, the default), with RLlib's PPO (``trainer: rllib``, on the vector env or the
PettingZoo env; ``kdenv train --trainer rllib`` alone: RLlib's built-in defaults, self-play on a local Ray), or by
expert iteration, the search teaching the network (``trainer: az``)."""

from __future__ import annotations

import argparse
import sys

from training.trainers import TRAINERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="YAML config (see configs/); optional with --resume")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint (and its config)")
    parser.add_argument(
        "--trainer",
        choices=TRAINERS,
        help="sb3 (MaskablePPO), rllib (RLlib's PPO) or az (expert iteration); default: the config's trainer",
    )
    parser.add_argument("--backend", choices=TRAINERS, help=argparse.SUPPRESS)  # --trainer's old name
    parser.add_argument(
        "--workers", type=int, metavar="N", help="trainer az: self-play processes (sets selfplay.workers)"
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
    from training.runs.config import ConfigError, read_yaml
    from training.runs.signals import Interrupted
    from training.trainers import train, trainer_of

    if args.backend is not None:
        print("kdenv: note: kdenv train --backend is now --trainer", file=sys.stderr)
    asked = args.trainer or args.backend
    data = read_yaml(args.config) if args.config else None
    if data is None and args.resume is None and asked != "rllib":
        raise ConfigError("give a config file (e.g. configs/smoke.yaml) or --resume RUN_DIR")
    named = trainer_of(data, args.resume)
    trainer = asked or named
    if args.config and trainer != named:
        raise ConfigError(f"--trainer {trainer}, but {args.config} is a config for trainer {named}")
    overrides = list(args.overrides)
    if args.workers is not None:
        if trainer != "az":
            raise ConfigError(f"--workers is for trainer az (self-play processes); trainer {trainer} has its own keys")
        overrides.append(f"selfplay.workers={args.workers}")
    try:
        path = train(trainer, data, overrides, args.resume)
    except Interrupted as stopped:
        print(f"kdenv train: {stopped}", file=sys.stderr)
        return 130
    if trainer == "rllib":
        print(f"run directory: {path} (play it as rllib:{path}; tensorboard --logdir {path / 'tb'})")
    elif trainer == "az":
        print(f"run directory: {path} (play last.zip as ppo:PATH or az:PATH; tensorboard --logdir {path / 'tb'})")
    else:
        print(f"run directory: {path} (best.zip, last.zip, eval.jsonl; tensorboard --logdir {path / 'tb'})")
    return 0
