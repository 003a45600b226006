"""``kdenv benchmark --summarize``: a folder of evaluations made by hand with ``kdenv evaluate`` gives rliable's
statistics, the same for the same folder, with one-line errors for a folder it cannot read."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("rliable")

from training.arena.evaluation import evaluate
from training.benchmark.aggregate import BenchmarkError, Point, collect, summarize
from training.cli import main


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Two 'algorithms' (gprd and random play their own evaluations), 3 seeds, steps 0 and 100, on vs-fg-2p."""
    root = tmp_path_factory.mktemp("benchmark")
    for algorithm in ("gprd", "random"):
        for seed in range(3):
            for step in (0, 100):
                out = root / algorithm / "vs-fg-2p" / f"seed-{seed}" / f"step-{step}"
                evaluate(algorithm, "vs-fg-2p", games=4, seed=seed * 1000 + step, out=out, workers=1)
    return root


def test_a_hand_made_folder_summarizes_the_same_every_time(folder, capsys):
    assert main(["benchmark", "--summarize", str(folder)]) == 0
    assert "gprd: IQM win rate" in capsys.readouterr().out
    first = (folder / "summary.json").read_text()
    for name in ("ALGORITHMS.md", "aggregates.png", "curves.png", "profiles.png", "improvement.png"):
        assert (folder / name).stat().st_size > 0
    assert main(["benchmark", "--summarize", str(folder)]) == 0
    assert (folder / "summary.json").read_text() == first
    summary = json.loads(first)
    assert summary["step"] == 100 and summary["by_task"]["vs-fg-2p"]["runs"] == {"gprd": 3, "random": 3}
    assert set(summary["by_task"]["all tasks"]["probability_of_improvement"]) == {"gprd > random", "random > gprd"}


def test_the_figures_are_rliable_s_on_known_scores():
    """IQM of 8 runs is the mean of the middle 4; the probability that x beats y is the share of pairs it wins."""
    rates = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0]
    points = [Point("x", "t", s, 10, r) for s, r in enumerate(rates)]
    points += [Point("y", "t", s, 10, 0.25) for s in range(8)]
    summary = summarize(points)["by_task"]["t"]
    assert summary["iqm"]["x"]["value"] == pytest.approx(np.mean(rates[2:6]))
    assert summary["mean"]["x"]["value"] == pytest.approx(np.mean(rates))
    assert summary["probability_of_improvement"]["x > y"]["value"] == pytest.approx(5 / 8)
    low, high = summary["iqm"]["x"]["ci"]
    assert low <= summary["iqm"]["x"]["value"] <= high and summary["iqm"]["y"]["ci"] == [0.25, 0.25]
    assert summary["profile"]["y"][0] == 1 and summary["profile"]["y"][-1] == 0


def test_a_misplaced_or_foreign_evaluation_is_a_one_line_error(folder, tmp_path, capsys):
    wrong = tmp_path / "wrong"
    shutil.copytree(folder / "gprd" / "vs-fg-2p" / "seed-0", wrong / "gprd" / "study-4p" / "seed-0")
    with pytest.raises(BenchmarkError, match="evaluates protocol 'vs-fg-2p', not its folder's 'study-4p'"):
        collect(wrong)
    loose = tmp_path / "loose"
    shutil.copytree(folder / "gprd" / "vs-fg-2p" / "seed-0" / "step-0", loose / "gprd")
    assert main(["benchmark", "--summarize", str(loose)]) == 2
    err = capsys.readouterr().err
    assert "is not at ALGORITHM/TASK/seed-S/step-N/evaluation.json" in err and err.count("\n") == 1
    assert main(["benchmark", "--summarize", str(tmp_path / "none")]) == 2
    assert "is not a folder of evaluations" in capsys.readouterr().err


@pytest.mark.parametrize("seed", ["-1", str(2**32)])
def test_a_bootstrap_seed_that_numpy_refuses_is_one_line_and_writes_nothing(folder, tmp_path, capsys, seed):
    copied = tmp_path / "copied"
    shutil.copytree(folder / "gprd", copied / "gprd")
    assert main(["benchmark", "--summarize", str(copied), "--seed", seed]) == 2
    assert capsys.readouterr().err == f"kdenv benchmark: error: seed must be an integer 0..4294967295, not {seed}\n"
    assert not (copied / "summary.json").exists()
