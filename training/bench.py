"""`kdenv bench NAME`: the speed benchmarks of the :mod:`benchmarks` package, each imported only when it runs."""

from __future__ import annotations

import argparse

# the one import of the top layer from below it, declared in pyproject.toml's layer contract (ignore_imports)
from benchmarks import BENCHMARKS, run_benchmark


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", choices=sorted(BENCHMARKS), help="what to measure")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="options of that benchmark (see its --help)")


def run(args: argparse.Namespace) -> int:
    return run_benchmark(args.target, args.options)
