"""``kdenv train CONFIG.yaml [--resume RUN_DIR] [--set key=value ...]``: train a MaskablePPO player."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="YAML config (see configs/); optional with --resume")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last.zip (and its config)")
    parser.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, e.g. --set ppo.total_timesteps=200000 (repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    from training.ppo.config import ConfigError, load_config
    from training.ppo.train import Interrupted, load_run_config, train

    if args.config:
        config = load_config(args.config, args.overrides)
    elif args.resume:
        config = load_run_config(args.resume, args.overrides)
    else:
        raise ConfigError("give a config file (e.g. configs/smoke.yaml) or --resume RUN_DIR")
    try:
        path = train(config, resume=args.resume)
    except Interrupted as stopped:
        print(f"kdenv train: {stopped}", file=sys.stderr)
        return 130
    print(f"run directory: {path} (best.zip, last.zip, eval.jsonl; tensorboard --logdir {path / 'tb'})")
    return 0
