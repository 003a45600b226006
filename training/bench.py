"""`kdenv bench TARGET`: the speed benchmarks, each a module with main(argv) in its own layer."""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS: dict[str, str] = {
    "engine": "benchmarks.engine",  # random games through the engine
    "env": "benchmarks.env",  # AEC turns/s against connect_four
    "playouts": "benchmarks.playouts",  # random and Full-Greedy playouts from the first round
    "search": "benchmarks.search",  # az's simulations/s by batch size and where its time goes, against mce
    "vector": "benchmarks.vector",  # the vector env and the learner's view, against the AEC env
    "train": "benchmarks.train",  # MaskablePPO learner steps/s on the vector env, and where time goes
    "ray": "benchmarks.ray_tournament",  # tournament games/s on Ray against the local backend
    "soak": "benchmarks.soak",  # not a speed: random decisions in every set-up through both envs, every game checked
    "selfplay": "benchmarks.selfplay",  # expert iteration: searched self-play decisions/s, learner samples/s, backends
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=sorted(BENCHMARKS), help="what to measure")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="options of that benchmark (see its --help)")


def run(args: argparse.Namespace) -> int:
    return importlib.import_module(BENCHMARKS[args.target]).main(args.options)
