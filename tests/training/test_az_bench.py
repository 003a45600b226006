"""`kdenv bench selfplay` runs in a short mode and prints each of its figures (speed is for the benchmark, not
for tests; its Ray line is measured in tests/ray)."""

from __future__ import annotations

import pytest

from benchmarks.selfplay import _pending
from training.az.config import AZConfig, SelfPlayConfig
from training.az.start import starting_network
from training.az.workers import make_selfplay
from training.cli import main


@pytest.mark.parametrize(("rollout", "opponent"), [("none", "none"), ("fg", "fg")])
def test_bench_selfplay_prints_decisions_learner_samples_and_shares(capsys, rollout, opponent):
    options = ["--simulations", "2", "3", "--parallel", "2", "--seconds", "0.2", "--games", "2", "--workers", "1"]
    assert main(["bench", "selfplay", *options, "--rollout", rollout, "--opponent", opponent, "--no-ray"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(f"rollout {rollout}, opponent {opponent}:")
    assert "2 simulations:" in lines[1] and "3 simulations:" in lines[2]
    assert all("search-labelled decisions/s (search" in line for line in lines[1:3])
    assert "samples/s" in lines[3]
    assert "learning" in lines[4] and "network" in lines[4]
    assert lines[5].startswith("backends, 1 workers, 2 simulations: local processes")
    assert lines[6].startswith("backends, 1 workers, 3 simulations: local processes")  # each budget


def test_the_positions_in_progress_are_none_when_every_game_has_just_begun():
    """The measurement can stop just as its games end together and new ones begin: nothing is in progress then."""
    settings, policy = starting_network(AZConfig(), log=lambda _: None)
    play = make_selfplay(settings, policy.state_dict(), SelfPlayConfig(games=2, parallel=2, simulations=2), seed=0)
    assert _pending(play) == []
