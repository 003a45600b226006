"""An RLlib run's policy as a ``ppo:`` checkpoint, the inverse of ``init``: it then plays without Ray, in the
vector env, as a league opponent or as a shipped player.

``python -m training.rllib.export RUN_DIR OUT.zip`` (or ``export_ppo``): the module of the run's latest
checkpoint (any folder ``rllib:PATH`` plays), its weights renamed to the ``ppo`` network's
(:func:`agents.rllib_module.weights_to_ppo`), and the run's table, observation and network as settings.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from agents.checkpoint import CheckpointSettings, write_player, write_settings
from agents.rllib_module import weights_to_ppo
from agents.rllib_player import load_module
from training.rllib.config import rllib_config
from training.runs.config import read_yaml
from training.runs.directory import CONFIG_FILE, checkpoint_settings


def export_ppo(run: str | Path, out: str | Path, module: str | Path | None = None) -> CheckpointSettings:
    """Write the policy of RLlib run ``run`` (or of its ``module`` folder, e.g. a snapshot) to ``out`` as a ppo
    player checkpoint, with its settings beside it as ``<out>.json``; returns the settings."""
    config = rllib_config(read_yaml(Path(run) / CONFIG_FILE))
    state = load_module(str(module or run)).state_dict()
    provenance = {"rllib_run": str(run), "module": str(module or run)}
    settings = dataclasses.replace(checkpoint_settings(config), provenance=provenance)
    write_player(out, settings, weights_to_ppo(state))
    write_settings(out, settings)
    return settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.rllib.export", description=__doc__.splitlines()[0])
    parser.add_argument("run", help="an RLlib run directory of kdenv train")
    parser.add_argument("out", help="the ppo checkpoint to write (.zip); play it as ppo:OUT")
    parser.add_argument("--module", help="another module folder of the run to export (e.g. one of its snapshots/)")
    args = parser.parse_args(argv)
    export_ppo(args.run, args.out, args.module)
    print(f"wrote {args.out}: play it as ppo:{args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
