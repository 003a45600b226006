"""``kdenv benchmark``: learning algorithms compared over seeds and tasks, with rliable's statistics.

``kdenv benchmark CONFIG`` runs a grid of (algorithm x task x seed) at a step budget (``configs/benchmark/``):
each run is evaluated at evenly spaced step counts through a ``kdenv evaluate`` protocol, into
``DIR/ALGORITHM/TASK/seed-S/step-N/evaluation.json`` (resumable: the same command goes on where it stopped);
``--workers N`` runs N runs at once, each with its share of the CPUs, here or (``--backend ray``) on a Ray cluster.
``kdenv benchmark --summarize DIR`` summarizes such a folder, one made by hand with ``kdenv evaluate --out``
too. Either writes ``DIR/summary.json``, ``DIR/ALGORITHMS.md`` and four pictures: IQM and mean win rates with
95% stratified bootstrap CIs, per task and over the tasks, the IQM against steps, the performance profiles and
the probability of improvement of every pair.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kdenv.errors import KingdominoError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", metavar="CONFIG", help="the grid (e.g. configs/benchmark/tiny.yaml)")
    parser.add_argument("--out", metavar="DIR", help="its folder (default runs/benchmark/NAME)")
    parser.add_argument("--summarize", metavar="DIR", help="only summarize this folder of evaluations")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a key of the grid, e.g. --set steps=20000 (repeatable)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="seeds the bootstrap (default 0)")
    parser.add_argument("--metric", default="normalized", metavar="NAME",
                        help="what a run scores: normalized (random 0, fg 1; the default) or win_rate")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="runs at once, each with its share of the CPUs (default 1)")  # fmt: skip
    parser.add_argument("--backend", default="local", choices=["local", "ray"],
                        help="where runs go: this machine (default) or Ray, a run a task holding its CPUs")  # fmt: skip
    parser.add_argument("--address", metavar="ADDR",
                        help="the Ray cluster to join (auto, HOST:PORT); default a local Ray")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from training.benchmark.aggregate import METRICS, write_summary
    from training.benchmark.report import headline

    if (args.config is None) == (args.summarize is None):
        raise KingdominoError("give a grid CONFIG to run, or --summarize DIR (one of them)")
    if args.metric not in METRICS:
        raise KingdominoError(f"--metric {args.metric!r}: choose {' or '.join(METRICS)}")
    if args.workers < 1:
        raise KingdominoError(f"--workers {args.workers}: give at least 1 (the runs at once)")
    if args.summarize is not None:
        folder = Path(args.summarize)
        if not folder.is_dir():
            raise KingdominoError(
                f"{folder} is not a folder of evaluations (ALGORITHM/TASK/seed-S/step-N/evaluation.json)"
            )
        summary = write_summary(folder, args.seed, args.metric)
    else:
        from training.benchmark.config import load_grid
        from training.benchmark.run import run_grid
        from training.runs.signals import Interrupted

        grid, entries = load_grid(args.config, args.overrides)
        folder = Path(args.out) if args.out else Path("runs") / "benchmark" / grid.name
        try:
            summary = run_grid(
                grid, entries, folder, not args.no_progress, args.metric, args.workers, args.backend, args.address
            )
        except Interrupted:  # a trainer stopped by the signal, its checkpoint written
            print(f"kdenv benchmark: stopped; the same command resumes the grid in {folder}", file=sys.stderr)
            return 130
    for algorithm in summary["algorithms"]:
        print(headline(summary, algorithm))
    for gap in summary["missing"]:  # runs left out, or cut at the last step that all reached
        print(f"missing: {gap}")
    if summary["marl_eval"] is not None:  # a folder made by hand, of evaluation files alone
        print(summary["marl_eval"])
    marl = f", {folder}/marl_eval.json" if summary["marl_eval"] is None else ""
    print(f"wrote {folder}/summary.json{marl}, {folder}/ALGORITHMS.md and its pictures")
    return 0
