"""The pictures leave the caller's matplotlib alone: drawn without pyplot, the backend (e.g. a notebook's) kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ESTIMATE = {"value": 0.5, "ci": [0.4, 0.6]}
SUMMARY = {
    "metric": "win_rate",
    "algorithms": ["x", "y"],
    "thresholds": [0.0, 1.0],
    "by_task": {
        "all tasks": {
            "iqm": {"x": ESTIMATE, "y": ESTIMATE},
            "mean": {"x": ESTIMATE, "y": ESTIMATE},
            "curve": {"x": {"10": ESTIMATE}, "y": {"10": ESTIMATE}},
            "profile": {"x": [1.0, 0.0], "y": [1.0, 0.0]},
            "probability_of_improvement": {"x > y": ESTIMATE, "y > x": ESTIMATE},
        }
    },
}
EVALUATION = {
    "step": 100,
    "results": {"fg": {"win_rate": 0.5, "ci95": [0.4, 0.6], "mean_margin": 1.0}},
    "league": {"learner": 1.0, "fg": 2.0},
}
CURVE = [{"step": 0, "learner_steps": 0, "win_rate": 0.5, "win_rate_ci": [0.4, 0.6], "normalized": 1.0,
          "normalized_ci": [0.9, 1.1]}]  # fmt: skip
DRAWINGS = {  # each module's pictures, drawn into the folder `out`: the lines of a script
    "leaderboard": [
        "from training.arena.leaderboard import write_page",
        "write_page({}, out / 'LEADERBOARD.md', 0, None)",
    ],
    "benchmark": ["from training.benchmark.report import plot", f"plot({SUMMARY!r}, out)"],
    "run": [
        "from training.runs.pictures import plot_league, plot_learning_curve",
        "plot_learning_curve([out], out / 'curve.png')",
        "plot_league(out, out / 'league.png')",
    ],
    "exploit": [
        "from training.exploit.report import plot",
        f"plot([{{'spec': 'fg', 'start': 'default', 'players': 2, 'games': 4, 'chance': 0.5, 'curve': {CURVE!r}}}], "
        "out / 'exploitability.png')",
    ],
}
LOOK = ["import matplotlib", "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)"]


@pytest.mark.parametrize("module", DRAWINGS)
def test_a_picture_keeps_the_callers_backend_and_never_imports_pyplot(module, tmp_path):
    (tmp_path / "eval.jsonl").write_text(json.dumps(EVALUATION) + "\n")
    script = "\n".join(["import sys", "from pathlib import Path", "out = Path(sys.argv[1])", *DRAWINGS[module], *LOOK])
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "svg"})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["svg", "False"]
    assert len(list(tmp_path.glob("*.png"))) == {"leaderboard": 1, "benchmark": 4, "run": 2, "exploit": 1}[module]
