"""``kdenv benchmark CONFIG``: a tiny grid (kdenv's PPO and an outside SB3 script, one task, two seeds) end to end:
the figures, a resume after an interruption that trains no finished point again, the same summary for the same
seeds, and one-line errors for a bad grid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("rliable")

from training.benchmark import point as grid_point
from training.cli import main

TINY = "tests/helpers/benchmark/tiny.yaml"
POINTS = 2 * 2 * 2  # algorithms x seeds x points


def kdenv(*argv: str) -> int:
    return main(["benchmark", *argv, "--no-progress"])


def interrupted_then_resumed(out: Path) -> list[tuple[str, int, int]]:
    """The grid stopped (Ctrl-C) at its third evaluation in ``out``, then run again; the trainings of the second
    run."""
    evaluate, trained = grid_point.evaluate, []

    def stop_at_the_third(*args, **kwargs):
        if len(list(out.rglob("evaluation.json"))) == 2:
            raise KeyboardInterrupt
        return evaluate(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grid_point, "evaluate", stop_at_the_third)
        assert kdenv(TINY, "--out", str(out)) == 130
    assert len(list(out.rglob("evaluation.json"))) == 2
    train_to = grid_point._train_to

    def recorded(point, *rest):
        trained.append((point.entry.name, point.seed, point.step))
        return train_to(point, *rest)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grid_point, "_train_to", recorded)
        assert kdenv(TINY, "--out", str(out)) == 0
    return trained


def test_an_interrupted_grid_resumes_without_training_a_finished_point_again_to_the_summary_of_one_run(tmp_path):
    """One test, so that the grid is trained once in it (a fixture would be, once per pytest-xdist worker): every
    point and its figures written, no finished point trained again, and the summary of the grid run at once."""
    out = tmp_path / "resumed"
    trained = interrupted_then_resumed(out)
    assert len(trained) == POINTS - 2 and len(set(trained)) == len(trained)
    assert len(list(out.glob("*/vs-fg-2p/seed-*/step-*/evaluation.json"))) == POINTS
    for name in ("summary.json", "ALGORITHMS.md", "aggregates.png", "curves.png", "profiles.png", "improvement.png"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["algorithms"] == ["ppo", "script"] and summary["step"] == 1024
    assert set(summary["by_task"]["vs-fg-2p"]["curve"]["script"]) == {"512", "1024"}
    assert kdenv(TINY, "--out", str(tmp_path / "at-once")) == 0
    assert (tmp_path / "at-once" / "summary.json").read_text() == (out / "summary.json").read_text()


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("stepz=3", "unknown config key 'stepz'"),
        ("tasks=[study]", "unknown protocol 'study'"),
        ("points=0", "'points' must be from 1 to 1,000, got 0"),
        ("points=100000000", "'points' must be from 1 to 1,000, got 100000000"),
        ("games=1000000000000", "'games' must be from 1 to 10,000,000, got 1000000000000"),
        ("steps=1.0e+20", "'steps' must be from 1 to 10,000,000,000, got 1e+20"),
        ("seeds=[0, -1]", "'seeds[1]' must be from 0 to 4,294,967,295, got -1"),
        ("seeds=[]", "'seeds': List should have at least 1 item"),
        (f"seeds={list(range(1001))}", "'seeds': List should have at most 1000 items after validation, not 1001, got"),
        ("algorithms=[configs/nope.yaml]", "config file 'configs/nope.yaml' not found"),
    ],
)
def test_a_bad_grid_is_one_line_before_any_training(setting, message, tmp_path, capsys):
    assert kdenv(TINY, "--set", setting, "--out", str(tmp_path / "never")) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and len(err) < 300 and not (tmp_path / "never").exists()


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("budget: ppo.total_timestep", "unknown config key 'ppo.total_timestep'"),
        ("opponents: ppo.opponentz", "unknown config key 'ppo.opponentz'"),
        ("opponents: ppo.n_steps", "config key 'ppo.n_steps': expected int, got ['fg']"),
    ],
)
def test_an_entry_s_bad_budget_or_opponents_key_is_told_at_load(key, message, tmp_path, capsys):
    """The entry's config is checked as each task's last point sets it, before any run (not when it starts)."""
    entry = tmp_path / "entry.yaml"
    entry.write_text((Path(TINY).parent / "ppo.yaml").read_text().replace("budget: ppo.total_timesteps", key))
    assert kdenv(TINY, "--set", f"algorithms=[{entry}]", "--out", str(tmp_path / "never")) == 2
    err = capsys.readouterr().err
    assert f"{entry} on vs-fg-2p: {message}" in err and err.count("\n") == 1 and not (tmp_path / "never").exists()


def test_the_shipped_grid_and_its_entries_load():
    from training.benchmark.config import load_grid

    grid, entries = load_grid("configs/benchmark/study.yaml")
    assert grid.at() == [25_000 * k for k in range(1, 5)] and len(entries) == 4
    assert {e.budget for e in entries} == {"ppo.total_timesteps", "rllib.iterations"}
    rllib = next(e for e in entries if e.name == "rllib-vs-fg")
    assert rllib.opponents == "rllib.opponents"  # the task's opponents go there: 1 fg at 2 players, 3 at 4


def test_an_entry_counting_games_gets_the_learner_s_decisions_of_the_table():
    """Expert iteration's budget counts iterations of 64 games: 64 x 2 x 24 dominoes / 2 seats at 2 players."""
    from training.benchmark.config import load_entry

    exit_ = load_entry("configs/benchmark/exit.yaml")
    assert exit_.steps_per(2, 24) == 64 * 48 // 2 and exit_.steps_per(4, 48) == 64 * 96 // 4
    assert load_entry("configs/benchmark/rllib_vs_fg.yaml").steps_per(4, 48) == 4000


@pytest.mark.parametrize(
    ("text", "message"), [("[" * 100_000, "JSON nested too deeply to read"), ("{", "not valid JSON")]
)
def test_a_bad_benchmark_json_in_the_folder_is_one_line_and_kept(text, message, tmp_path, capsys):
    (tmp_path / "benchmark.json").write_text(text)
    assert kdenv(TINY, "--out", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'benchmark.json'}: {message}" in err and err.count("\n") == 1
    assert (tmp_path / "benchmark.json").read_text() == text and not (tmp_path / "training").exists()
