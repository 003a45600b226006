"""The recipes users would pick (configs/benchmark/): the shipped table's grid loads with every entry checked on
both tasks, an imitation's games count in the budget, and bc-ppo trains and evaluates end to end."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("rliable")

from training.arena.protocols import get_protocol
from training.benchmark.config import budget, load_entry, load_grid
from training.cli import main
from training.runs.config import ConfigError


def test_the_shipped_table_s_grid_loads_with_every_recipe_checked_on_both_tasks():
    grid, entries = load_grid("configs/benchmark/table.yaml")
    assert {e.name for e in entries} == {"bc-ppo", "ppo-vs-fg", "ppo-vs-fg-no-gains", "ppo-league", "rllib-vs-fg"}
    assert grid.tasks == ["vs-fg-2p", "study-4p"] and grid.steps >= 500_000 and grid.points >= 5


@pytest.mark.parametrize(("task", "imitated"), [("vs-fg-2p", 1000 * 48), ("study-4p", 1000 * 96)])
def test_an_imitation_s_games_are_learner_steps_taken_from_the_budget(task, imitated):
    """Every seat's decisions of each imitated game, once: 48 a game at 2 players (24 dominoes), 96 at 4."""
    protocol = get_protocol(task)
    assert budget(load_entry("configs/benchmark/bc_ppo.yaml"), protocol, 200_000) == (
        f"ppo.total_timesteps={200_000 - imitated}"
    )
    exit_ = load_entry("configs/benchmark/exit.yaml")  # 64 games an iteration, the learner's decisions in one seat
    per_iteration = 64 * 2 * protocol.rules.setup(protocol.players)[1] // protocol.players
    assert budget(exit_, protocol, 200_000) == f"iterations={(200_000 - imitated) // per_iteration}"


def test_an_imitation_that_takes_the_first_point_is_one_line(tmp_path):
    (tmp_path / "grid.yaml").write_text(
        "algorithms: [configs/benchmark/bc_ppo.yaml]\ntasks: [study-4p]\nsteps: 400000\npoints: 5\n"
    )
    with pytest.raises(ConfigError, match=r"its imitation \(1000 games, 96,000 learner steps\) takes the first"):
        load_grid(tmp_path / "grid.yaml", ["points=5", "steps=400000"])


def test_bc_ppo_imitates_then_trains_and_is_evaluated(tmp_path, capsys):
    (tmp_path / "grid.yaml").write_text(
        "name: recipes\nalgorithms: [tests/helpers/benchmark/bc_ppo.yaml]\ntasks: [vs-fg-2p]\nseeds: [0]\n"
        "steps: 1024\npoints: 1\ngames: 4\nworkers: 1\n"
    )
    out = tmp_path / "out"
    assert main(["benchmark", str(tmp_path / "grid.yaml"), "--out", str(out), "--no-progress"]) == 0
    evaluation = json.loads((out / "bc-ppo" / "vs-fg-2p" / "seed-0" / "step-1024" / "evaluation.json").read_text())
    assert evaluation["games"] == 4 and "normalized" in evaluation
    config = next((out / "training" / "bc-ppo" / "vs-fg-2p" / "seed-0").glob("run-*/config.yaml")).read_text()
    assert "games: 4" in config and "total_timesteps: 832" in config  # 1,024 less 4 games x 48 decisions
