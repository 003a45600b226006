"""``kdenv benchmark``: learning algorithms compared with rliable's statistics.

``kdenv benchmark --summarize DIR`` reads ``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json`` (each written by
``kdenv evaluate --protocol TASK --out ...``) and writes ``DIR/summary.json``, ``DIR/ALGORITHMS.md`` and four
pictures: IQM and mean win rates with 95% stratified bootstrap CIs, per task and over the tasks, the IQM
against steps, the performance profiles and the probability of improvement of every pair.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kdenv.errors import KingdominoError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--summarize", metavar="DIR", required=True, help="the folder of evaluations to summarize")
    parser.add_argument("--seed", type=int, default=0, help="seeds the bootstrap (default 0)")


def run(args: argparse.Namespace) -> int:
    from training.benchmark.aggregate import write_summary

    folder = Path(args.summarize)
    if not folder.is_dir():
        raise KingdominoError(f"{folder} is not a folder of evaluations (ALGORITHM/TASK/seed-S/step-N/evaluation.json)")
    summary = write_summary(folder, args.seed)
    for algorithm in summary["algorithms"]:
        e = summary["by_task"]["all tasks"]["iqm"][algorithm]
        print(f"{algorithm}: IQM win rate {e['value']:.1%} [95% CI {e['ci'][0]:.1%}, {e['ci'][1]:.1%}]")
    print(f"wrote {folder}/summary.json, {folder}/ALGORITHMS.md and its pictures")
    return 0
