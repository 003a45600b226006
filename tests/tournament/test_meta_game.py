"""Rankings from the whole head-to-head matrix (training.arena.meta_game) on known cases, and in a tournament's
reports beside OpenSkill's."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.arena.meta_game import alpha_rank, nash_average
from training.arena.report import meta_game_section
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


def test_alpha_rank_is_open_spiel_s_by_default_worked_by_hand():
    """Two agents, 0 ahead of 1 in 70% of their meetings, alpha 1, a population of 3. OpenSpiel's default (the local
    selection model) gives a mutant the advantage u = alpha * (0.7 - 0.3) = 0.4 (or -0.4), which fixes with
    probability (1 - e^-u) / (1 - e^-3u): 0.47178 for agent 0 invading 1 and 0.21198 for 1 invading 0. The chain
    spends 0.47178 / (0.47178 + 0.21198) of its time on agent 0."""
    share = np.array([[0.5, 0.7], [0.3, 0.5]])
    assert alpha_rank(share, alpha=1.0, population=3) == pytest.approx([0.689974, 0.310026], abs=1e-6)


def test_alpha_rank_moves_with_copies_where_the_nash_average_does_not():
    """As the reports say: rock entered twice draws more alpha-Rank mass (and so does paper, which beats it), while
    every Nash average stays 0."""
    twice = with_a_copy_of(ROCK_PAPER_SCISSORS, 0)
    assert alpha_rank(twice) == pytest.approx([0.2, 0.4, 0.2, 0.2], abs=1e-6)
    assert nash_average(twice)[1] == pytest.approx([0, 0, 0, 0], abs=1e-6)


def test_an_equilibrium_stands_where_the_entropy_is_not_maximized(monkeypatch):
    """Should the maximization end off the equilibria, the linear program's equilibrium is the answer."""
    import scipy.optimize

    class Lost:
        x = np.array([0.0, 0.0, 1.0])  # the weakest agent alone: the others gain against it

    monkeypatch.setattr(scipy.optimize, "minimize", lambda *args, **kwargs: Lost())
    mixture, payoffs = nash_average(CHAIN)
    assert mixture == pytest.approx([1, 0, 0], abs=1e-9) and max(payoffs) <= 1e-9


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


def test_the_report_says_why_there_are_no_rankings_where_a_pair_never_met(tmp_path):
    from dataclasses import replace

    from training.arena.stats import _meta_game

    results = Tournament(["random", "gprd", "fg"], players=2, games=6, out=tmp_path).play(InProcess())
    share = {a: dict(row) for a, row in results.head_to_head.items()}
    del share["random"]["fg"], share["fg"]["random"]
    assert _meta_game([a.agent for a in results.agents], share) == {}
    section = "\n".join(meta_game_section(replace(results, nash_average={}, nash_mixture={}, alpha_rank={})))
    assert "## Rankings from the whole matrix" in section and "some pair never did" in section
