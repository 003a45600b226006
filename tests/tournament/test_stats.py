"""Win-rate and mean intervals, placings, head-to-head and ratings from hand-made records."""

import math

import pytest

from training.arena.ratings import competition_ranks, rate_games
from training.arena.report import MIN_DEALS, head_to_head_note, head_to_head_rows, to_markdown
from training.arena.stats import clustered_mean, summarize, t95, wilson


def test_wilson_interval_matches_known_values():
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson(2.5, 10)  # fractional successes: shared wins
    assert 0 < low < 0.25 < high < 1


def test_clustered_mean_is_the_plain_standard_error_when_every_value_is_its_own_cluster():
    values = [1.0, 2.0, 3.0, 4.0]
    mean, se = clustered_mean(values, [0, 1, 2, 3])
    assert mean == 2.5 and se == pytest.approx(math.sqrt(5 / 3) / 2)
    _, clustered = clustered_mean(values, [0, 0, 1, 1])  # correlated pairs: a wider interval
    assert clustered > se
    assert math.isnan(clustered_mean(values, [7, 7, 7, 7])[1])


def test_t_quantiles():
    assert t95(1) == 12.706 and t95(30) == 2.042
    assert t95(31) == pytest.approx(2.040, abs=1e-3) and t95(10_000) == pytest.approx(1.960, abs=1e-3)


def test_competition_ranks_share_the_better_rank():
    assert competition_ranks([0, 1.5, 1.5, 3]) == [0, 1, 1, 3]
    assert competition_ranks([0.5, 0.5]) == [0, 0]


def record(game_id, deal, agents, scores, winners, placings):
    final = {"scores": scores, "winners": winners}
    return {"agents": agents, "final": final, "tournament": {"game_id": game_id, "deal": deal, "placings": placings}}


def test_summary_splits_shared_wins_and_counts_head_to_head():
    records = [
        record(0, 0, ["a", "b", "c"], [30, 30, 10], [0, 1], [0.5, 0.5, 2]),
        record(1, 1, ["b", "c", "a"], [20, 25, 40], [2], [2, 1, 0]),
    ]
    results = summarize(records)
    a, b, c = (results.agent(x) for x in "abc")
    assert (a.games, a.wins, a.win_rate) == (2, 1.5, 0.75)
    assert (b.wins, c.wins) == (0.5, 0.0)
    assert a.score == 35 and a.margin == (0 + 15) / 2 and a.placing == (1.5 + 1) / 2
    assert b.margin == (0 - 20) / 2
    assert results.head_to_head["a"]["b"] == (0.5 + 1) / 2 and results.head_to_head["b"]["a"] == 0.25
    assert results.head_to_head["c"]["b"] == 0.5 and results.meetings["a"]["c"] == 2
    assert [x.agent for x in results.agents][0] == "a" and results.games == 2 and results.deals == 2


def test_an_agent_seated_twice_is_one_line_and_not_its_own_opponent():
    records = [record(i, i, ["x", "fg", "fg", "fg"], [40, 10, 20, 30], [0], [0, 3, 2, 1]) for i in range(3)]
    results = summarize(records)
    assert results.agent("fg").games == 9 and results.agent("x").win_rate == 1.0
    assert set(results.head_to_head["fg"]) == {"x"} and results.head_to_head["x"]["fg"] == 1.0
    assert results.agent("x").win_low < 1.0  # never a zero-width interval


def test_the_head_to_head_interval_is_clustered_by_deal():
    """Two seats each of x and y: a deal's four meetings move together, so its interval is the t interval of the
    deals' means (here 1, 3/4, 1/4, 0: mean 1/2, sample variance 0.625 / 3 over 4 deals); a pair that always places the
    same way has none."""
    outcomes = [[0, 1, 2, 3], [0, 2, 1, 3], [1, 3, 0, 2], [2, 3, 0, 1]]  # x, x, y, y: places of each deal
    records = [record(i, i, ["x", "x", "y", "y"], [9, 8, 7, 6], [0], places) for i, places in enumerate(outcomes)]
    results = summarize(records)
    assert results.head_to_head["x"]["y"] == 0.5 and results.meetings["x"]["y"] == 16
    assert results.head_to_head_ci["x"]["y"] == pytest.approx(t95(3) * math.sqrt(0.625 / 3) / 2)
    fixed = summarize([record(i, i, ["x", "y"], [9, 1], [0], [0, 1]) for i in range(5)])
    assert fixed.head_to_head["x"]["y"] == 1.0 and fixed.head_to_head_ci["x"]["y"] == 0.0


def test_the_head_to_head_table_keeps_its_intervals_within_0_and_100_and_says_when_deals_are_too_few():
    """x ahead in 3 deals of 4 (1, 1, 1, 0): 75% with a t interval at 3 degrees of freedom far past 100%."""

    def deals(n):
        return [record(i, i, ["x", "y"], [9, 1], [0], [0, 1] if i % 4 < 3 else [1, 0]) for i in range(n)]

    wide = summarize(deals(MIN_DEALS + 3))
    assert wide.head_to_head["x"]["y"] + wide.head_to_head_ci["x"]["y"] > 1  # the interval itself goes past 100%
    (x_row,) = [row for row in head_to_head_rows(wide) if row[0] == "x"]
    share, half = wide.head_to_head["x"]["y"], wide.head_to_head_ci["x"]["y"]
    assert x_row[2] == f"{share:.0%} [{share - half:.0%}, 100%]"
    assert "with its 95% CI" in head_to_head_note(wide)
    few = summarize(deals(2))
    assert [row[1:] for row in head_to_head_rows(few)] == [("-", "100%"), ("0%", "-")]
    assert "2 deal(s) are too few for a 95% CI (at least 5)" in head_to_head_note(few)
    settings = {"agents": ["x", "y"], "players": 2, "rules": {"kingdom_size": 5}, "seed": 0}
    assert (
        "too few for a 95% CI" in to_markdown(few, settings, "duplicate deals") and "±" not in head_to_head_rows(few)[0]
    )


def test_ratings_reward_the_agent_that_keeps_placing_first():
    games = [(["strong", "weak", "mid"], [0, 2, 1]) for _ in range(20)]
    ratings = rate_games(games)
    assert ratings["strong"].mu > ratings["mid"].mu > ratings["weak"].mu
    assert (
        ratings["strong"].sigma < 25 / 3
        and ratings["strong"].ordinal == ratings["strong"].mu - 3 * ratings["strong"].sigma
    )
