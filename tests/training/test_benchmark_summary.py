"""``kdenv benchmark --summarize``: a folder of evaluations made by hand with ``kdenv evaluate`` gives rliable's
statistics, the same for the same folder, with one-line errors for a folder it cannot read."""

from __future__ import annotations

import json
import shutil
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("rliable")

from training.arena.evaluation import evaluate
from training.backends.local import InProcess
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
                evaluate(algorithm, "vs-fg-2p", games=4, seed=seed * 1000 + step, out=out, backend=InProcess())
    return root


def test_a_hand_made_folder_summarizes_the_same_every_time(folder, capsys):
    assert main(["benchmark", "--summarize", str(folder)]) == 0
    assert "gprd: IQM normalized score" in capsys.readouterr().out
    first = (folder / "summary.json").read_text()
    for name in ("ALGORITHMS.md", "aggregates.png", "curves.png", "profiles.png", "improvement.png"):
        assert (folder / name).stat().st_size > 0
    assert main(["benchmark", "--summarize", str(folder)]) == 0
    assert (folder / "summary.json").read_text() == first
    summary = json.loads(first)
    assert summary["step"] == 100 and summary["by_task"]["vs-fg-2p"]["runs"] == {"gprd": 3, "random": 3}
    assert set(summary["by_task"]["all tasks"]["probability_of_improvement"]) == {"gprd > random", "random > gprd"}


@pytest.mark.parametrize("metric", ["normalized", "win_rate"])
def test_the_figures_are_rliable_s_on_known_scores(metric):
    """IQM of 8 runs is the mean of the middle 4; the probability that x beats y is the share of pairs it wins; the
    other metric beside it."""
    rates = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0]
    points = [Point("x", "t", s, 10, r, r, 1) for s, r in enumerate(rates)]
    points += [Point("y", "t", s, 10, 0.25, 0.25, 0) for s in range(8)]
    summary = summarize(points, metric=metric)["by_task"]["t"]
    beside = summary["win_rate" if metric == "normalized" else "normalized"]
    assert beside["iqm"]["x"]["value"] == pytest.approx(np.mean(rates[2:6])) and summary["forfeits"]["x"] == 8
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


def placed(source, root, algorithm, task, seed, step):
    """``source``'s evaluation.json copied to its place in ``root`` as one of ``task`` (the figures as they are)."""
    data = json.loads((source / "evaluation.json").read_text())
    out = root / algorithm / task / f"seed-{seed}" / f"step-{step}"
    out.mkdir(parents=True)
    (out / "evaluation.json").write_text(json.dumps({**data, "protocol": task}))


@pytest.fixture
def two_tasks(folder, tmp_path):
    """The folder's runs on vs-fg-2p, and on study-4p too: every seed of gprd, only seed 0 of random at step 0
    (a grid interrupted there)."""
    root = tmp_path / "grid"
    shutil.copytree(folder, root, ignore=shutil.ignore_patterns("summary.json", "marl_eval.json", "*.md", "*.png"))
    for seed in range(3):
        for step in (0, 100):
            placed(folder / "gprd" / "vs-fg-2p" / f"seed-{seed}" / f"step-{step}", root, "gprd", "study-4p", seed, step)
    placed(folder / "random" / "vs-fg-2p" / "seed-0" / "step-0", root, "random", "study-4p", 0, 0)
    return root


def summarized(root, capsys) -> tuple[dict, list[str]]:
    assert main(["benchmark", "--summarize", str(root)]) == 0
    printed = capsys.readouterr().out.splitlines()
    return json.loads((root / "summary.json").read_text()), [line for line in printed if line.startswith("missing:")]


def test_an_interrupted_grid_summarizes_the_step_every_run_reached_and_says_what_is_missing(two_tasks, capsys):
    summary, missing = summarized(two_tasks, capsys)
    assert summary["tasks"] == ["study-4p", "vs-fg-2p"] and summary["step"] == 0
    assert summary["by_task"]["study-4p"]["runs"] == {"gprd": 3, "random": 1}
    assert missing == ["missing: random on study-4p (no seed reached step 100)"]
    assert summary["marl_eval"].startswith("no marl_eval.json: ") and "has no games.jsonl" in summary["marl_eval"]
    assert not (two_tasks / "marl_eval.json").exists()  # the copied evaluations came without their games
    assert "- missing: random on study-4p (no seed reached step 100)" in (two_tasks / "ALGORITHMS.md").read_text()


def test_algorithms_of_other_tasks_and_seeds_stopped_early_are_left_out_and_said(two_tasks, capsys):
    shutil.rmtree(two_tasks / "random" / "study-4p")
    shutil.rmtree(two_tasks / "random" / "vs-fg-2p" / "seed-2" / "step-100")
    shutil.rmtree(two_tasks / "gprd" / "vs-fg-2p" / "seed-1")
    summary, missing = summarized(two_tasks, capsys)
    assert summary["tasks"] == ["vs-fg-2p"] and summary["step"] == 100
    assert summary["by_task"]["vs-fg-2p"]["runs"] == {"gprd": 2, "random": 2}
    assert missing == [
        "missing: random on study-4p (no evaluation)",
        "missing: gprd on vs-fg-2p, seed 1 (no evaluation)",
        "missing: random on vs-fg-2p, seed 2 (stopped at step 0)",
    ]


def test_algorithms_that_share_no_task_are_one_line(two_tasks, capsys):
    shutil.rmtree(two_tasks / "random" / "study-4p")
    shutil.rmtree(two_tasks / "gprd" / "vs-fg-2p")
    assert main(["benchmark", "--summarize", str(two_tasks)]) == 2
    err = capsys.readouterr().err
    said = "no task has evaluations of every algorithm; missing: random on study-4p (no evaluation); gprd on vs-fg-2p"
    assert err.count("\n") == 1 and said in err
    assert not (two_tasks / "summary.json").exists()


@pytest.mark.parametrize(
    ("win_rate", "message"),
    [
        ("NaN", "'win_rate' input should be a finite number, got nan"),
        ("7", "'win_rate' must be in [0, 1], got 7"),
        ("Infinity", "'win_rate' input should be a finite number, got inf"),
        ("1e400", "'win_rate' input should be a finite number, got inf"),
        ('"0.5"', "'win_rate' input should be a valid number, got '0.5'"),
        ("null", "'win_rate' input should be a valid number, got None"),
    ],
)
def test_a_win_rate_that_is_no_share_is_refused_naming_the_file_and_the_summary_kept(
    two_tasks, capsys, win_rate, message
):
    (two_tasks / "summary.json").write_text('{"written": "before"}\n')
    file = two_tasks / "random" / "vs-fg-2p" / "seed-1" / "step-100" / "evaluation.json"
    text = file.read_text()
    file.write_text(text.replace(f'"win_rate": {json.loads(text)["win_rate"]}', f'"win_rate": {win_rate}'))
    assert main(["benchmark", "--summarize", str(two_tasks)]) == 2
    err = capsys.readouterr().err
    assert f"{file}: {message}" in err and err.count("\n") == 1 and "Traceback" not in err
    assert (two_tasks / "summary.json").read_text() == '{"written": "before"}\n'


def test_a_huge_evaluation_is_refused_having_read_only_its_limit(two_tasks, capsys):
    file = two_tasks / "gprd" / "study-4p" / "seed-0" / "step-0" / "evaluation.json"
    with open(file, "r+b") as stream:
        stream.truncate(2**30)  # 1 GB: zeros after the file's own text (a sparse file, no disk taken)
    tracemalloc.start()
    try:
        assert main(["benchmark", "--summarize", str(two_tasks)]) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert f"{file} holds more than 1,000,000 characters" in err and err.count("\n") == 1 and peak < 200 * 2**20


def test_runs_with_no_evaluation_by_the_step_all_reached_are_one_line():
    points = [Point("x", "t", 0, 200, 0.5, 0.5, 0), Point("y", "t", 0, 100, 0.5, 0.5, 0)]
    with pytest.raises(BenchmarkError, match="x on t has no evaluation at or before step 100, the last that all"):
        summarize(points)


def test_marl_eval_json_reads_back_in_marl_eval_s_layout_with_every_game(folder, capsys):
    """environment -> task -> algorithm -> run -> step, each step its step_count and one value a game; the means
    are the evaluation's own figures."""
    assert main(["benchmark", "--summarize", str(folder)]) == 0
    data = json.loads((folder / "marl_eval.json").read_text())
    assert list(data) == ["kingdomino"] and list(data["kingdomino"]) == ["vs-fg-2p"]
    runs = data["kingdomino"]["vs-fg-2p"]
    assert sorted(runs) == ["gprd", "random"] and sorted(runs["gprd"]) == ["run_0", "run_1", "run_2"]
    run = runs["gprd"]["run_1"]
    assert [run[k]["step_count"] for k in ("step_0", "step_1")] == [0, 100]
    evaluation = json.loads((folder / "gprd" / "vs-fg-2p" / "seed-1" / "step-100" / "evaluation.json").read_text())
    last = run["step_1"]
    assert len(last["win_rate"]) == len(last["margin"]) == len(last["normalized"]) == evaluation["games"]
    assert np.mean(last["win_rate"]) == pytest.approx(evaluation["win_rate"])
    assert np.mean(last["margin"]) == pytest.approx(evaluation["margin"])
    assert np.mean(last["normalized"]) == pytest.approx(evaluation["normalized"])
    assert run["absolute_metrics"] == {k: v for k, v in last.items() if k != "step_count"}
