"""`kdenv bench TARGET`: the speed benchmarks, each a module with main(argv) in its own layer."""

from __future__ import annotations

import argparse
import importlib

BENCHMARKS: dict[str, str] = {
    "engine": "kdenv.bench",  # random games through the engine
    "env": "kdenv.env_bench",  # AEC turns/s against connect_four
    "playouts": "agents.bench",  # random and Full-Greedy playouts from the first round
    "search": "agents.search_bench",  # az's simulations/s by batch size and where its time goes, against mce
    "vector": "agents.vector_bench",  # the vector env and the learner's view, against the AEC env
    "train": "training.ppo.bench_train",  # MaskablePPO learner steps/s on the vector env, and where time goes
    "ray": "training.arena.bench_ray",  # tournament games/s on Ray against the local backend
    "soak": "training.soak",  # not a speed: random decisions in every set-up through both envs, every game checked
    "selfplay": "training.az.bench",  # expert iteration: searched self-play decisions/s, learner samples/s, backends
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=sorted(BENCHMARKS), help="what to measure")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="options of that benchmark (see its --help)")


def run(args: argparse.Namespace) -> int:
    return importlib.import_module(BENCHMARKS[args.target]).main(args.options)
