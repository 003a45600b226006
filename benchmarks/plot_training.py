"""The pictures of a training run: its learning curve and its league's rating curve.

``python benchmarks/plot_training.py RUN_DIR --out DIR [--title TEXT]`` writes ``DIR/<name>-learning.png``
(win rate and margin against each evaluation opponent) and ``DIR/<name>-league.png`` (OpenSkill ratings).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.ppo.train import load_run_config
from training.runs.pictures import plot_league, plot_learning_curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run", help="a run directory (with eval.jsonl)")
    parser.add_argument("--out", default="benchmarks", help="folder for the pictures (default benchmarks)")
    parser.add_argument("--name", help="file name prefix (default: the run's config name)")
    parser.add_argument("--title", default="", help="title of the learning curve")
    args = parser.parse_args(argv)
    run, out = Path(args.run), Path(args.out)
    name = args.name or run.name.rsplit("-", 2)[0]
    players = load_run_config(run).env.num_players
    out.mkdir(parents=True, exist_ok=True)
    plot_learning_curve([run], out / f"{name}-learning.png", args.title, players)
    plot_league(run, out / f"{name}-league.png")
    print(f"wrote {out / f'{name}-learning.png'} and {out / f'{name}-league.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
