"""The benchmarks, one module each with ``main(argv)``: ``kdenv bench NAME`` runs one, as ``python -m
benchmarks.MODULE`` does (the module of each name below, imported only when it runs)."""

from __future__ import annotations

import importlib

# name -> (module, what it measures)
BENCHMARKS: dict[str, tuple[str, str]] = {
    "engine": ("engine", "random games through the engine"),
    "env": ("env", "the AEC env and the Gymnasium view, as multiples of connect_four_v3"),
    "playouts": ("playouts", "random and Full-Greedy playouts from the first round"),
    "search": ("search", "az's simulations/s by batch size and where its time goes, against mce"),
    "decisions": ("decisions", "not a speed: players' moves at the same positions, judged by fg playouts"),
    "vector": ("vector", "the vector env and the learner's view, against the AEC env"),
    "train": ("train", "MaskablePPO learner steps/s on the vector env, and where time goes"),
    "rllib": ("rllib", "RLlib's learner steps/s on the vector and PettingZoo envs, against SB3's on the vector env"),
    "ray": ("ray_tournament", "tournament games/s on Ray against the local backend"),
    "soak": ("soak", "not a speed: random decisions in every set-up through both envs, every game checked"),
    "selfplay": ("selfplay", "expert iteration: searched self-play decisions/s, learner samples/s, backends"),
    "anchors": ("anchors", "not a speed: random's and fg's margins on each protocol, the normalized score's 0 and 1"),
}


def run_benchmark(name: str, argv: list[str]) -> int:
    """Run the benchmark ``name`` with its command-line options ``argv``; its exit status."""
    return importlib.import_module(f"benchmarks.{BENCHMARKS[name][0]}").main(argv)
