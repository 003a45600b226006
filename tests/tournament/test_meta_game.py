"""Rankings from the whole head-to-head matrix (training.arena.meta_game) on known cases, and in a tournament's
reports beside OpenSkill's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.arena.meta_game import alpha_rank, nash_average
from training.arena.tournament import Tournament
from training.backends.local import InProcess

ROCK_PAPER_SCISSORS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])  # [a][b]: a ahead of b
CHAIN = np.array([[0.5, 0.7, 0.9], [0.3, 0.5, 0.8], [0.1, 0.2, 0.5]])  # strength in a line: 0 > 1 > 2


def with_a_copy_of(share: np.ndarray, agent: int) -> np.ndarray:
    """``share`` with one more agent that plays as ``agent`` does (and even against it)."""
    order = [*range(len(share)), agent]
    return share[np.ix_(order, order)]


def test_a_rock_paper_scissors_cycle_ranks_its_three_players_level():
    mixture, payoffs = nash_average(ROCK_PAPER_SCISSORS)
    assert mixture == pytest.approx([1 / 3] * 3, abs=1e-6) and payoffs == pytest.approx([0, 0, 0], abs=1e-6)
    assert alpha_rank(ROCK_PAPER_SCISSORS) == pytest.approx([1 / 3] * 3, abs=1e-9)


@pytest.mark.parametrize("share", [ROCK_PAPER_SCISSORS, CHAIN], ids=["cycle", "chain"])
@pytest.mark.parametrize("copied", [0, 1, 2])
def test_a_copy_of_a_player_changes_no_nash_average(share, copied):
    _, payoffs = nash_average(share)
    mixture, with_copy = nash_average(with_a_copy_of(share, copied))
    assert with_copy[:3] == pytest.approx(payoffs, abs=1e-6) and with_copy[3] == pytest.approx(
        payoffs[copied], abs=1e-6
    )
    assert mixture[3] == pytest.approx(mixture[copied], abs=1e-6)  # the copies share their weight


def test_strength_in_a_line_is_ranked_in_its_order():
    mixture, payoffs = nash_average(CHAIN)
    assert mixture == pytest.approx([1, 0, 0], abs=1e-6) and payoffs[0] == pytest.approx(0, abs=1e-9)
    assert payoffs[0] > payoffs[1] > payoffs[2]
    mass = alpha_rank(CHAIN)
    assert mass[0] > 0.99 and mass.sum() == pytest.approx(1)


def test_a_tournament_reports_nash_averaging_and_alpha_rank_beside_openskill(tmp_path):
    Tournament(["random", "gprd", "fg"], players=2, games=12, out=tmp_path).play(InProcess())
    data = json.loads((tmp_path / "results.json").read_text())
    assert set(data["nash_average"]) == set(data["alpha_rank"]) == {"random", "gprd", "fg"}
    assert sum(data["nash_mixture"].values()) == pytest.approx(1) and sum(data["alpha_rank"].values()) == pytest.approx(
        1
    )
    assert data["nash_average"]["fg"] == pytest.approx(0, abs=1e-6) and data["nash_average"]["random"] < 0
    text = (tmp_path / "results.md").read_text()
    assert "## Rankings from the whole matrix" in text and "| fg |" in text.split("## Rankings")[1]
