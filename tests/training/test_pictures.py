"""The pictures of a run: its learning curve and its league's ratings, drawn from eval.jsonl."""

from __future__ import annotations

import json
import shutil

from benchmarks.plot_training import main as plot_training
from training.runs.pictures import plot_league, plot_learning_curve


def test_learning_curve_and_league_ratings_are_drawn_from_the_evaluations(tmp_path):
    result = {"win_rate": 0.5, "ci95": [0.4, 0.6], "mean_margin": 1.0}
    lines = [
        {"step": step, "results": {"fg": result, "random": result}, "league": league}
        for step, league in [
            (0, {}),
            (100, {"learner": 1.0, "fg": 2.0}),
            (200, {"learner": 3.0, "fg": 2.5, "step-1": 1.0}),
        ]
    ]
    (tmp_path / "eval.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    shutil.copy("configs/smoke.yaml", tmp_path / "config.yaml")
    (tmp_path / "last.zip").touch()  # a run directory as the script finds it; the pictures read the config alone
    assert plot_training([str(tmp_path), "--out", str(tmp_path / "new" / "folder"), "--name", "run"]) == 0
    assert {p.name for p in (tmp_path / "new" / "folder").iterdir()} == {"run-learning.png", "run-league.png"}
    plot_learning_curve([tmp_path], tmp_path / "curve.png", players=2)
    plot_league(tmp_path, tmp_path / "league.png")
    for name in ("curve.png", "league.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (tmp_path / name).stat().st_size > 10_000
