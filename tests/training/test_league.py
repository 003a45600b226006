"""The league: the snapshot pool, prioritised sampling weights, and per-episode opponent draws."""

from __future__ import annotations

from training.ppo.league import League, OpponentSampler


def test_pool_keeps_the_newest_snapshots():
    league = League(pool_size=2)
    for step in (10, 20, 30):
        league.add(f"s{step}.zip", step)
    assert [s.step for s in league.snapshots] == [20, 30]


def test_snapshots_that_beat_the_learner_weigh_more():
    league = League(pool_size=3, prioritise=True)
    league.add("weak.zip", 1)
    league.add("strong.zip", 2)
    for _ in range(20):
        league.record("weak.zip", 1.0)
        league.record("strong.zip", 0.0)
    weights = dict(league.weights())
    assert weights["strong.zip"] > 5 * weights["weak.zip"]
    assert dict(League(3, prioritise=False, snapshots=league.snapshots).weights()) == {
        "weak.zip": 1.0,
        "strong.zip": 1.0,
    }


def test_league_round_trips_through_a_dict():
    league = League(pool_size=4)
    league.add("a.zip", 5)
    league.record("a.zip", 1.0)
    assert League.from_dict(league.to_dict()) == league


def test_sampler_draws_each_seat_from_the_mix():
    sampler = OpponentSampler(3, {"random": 1.0, "gprd": 1.0}, settings={}, seed=1)
    names_seen = set()
    for _ in range(20):
        opponents = sampler.pick()
        assert len(opponents) == 3
        names_seen.update(opponents)
    assert names_seen == {"random", "gprd"}


def test_league_entries_without_a_policy_fall_back():
    sampler = OpponentSampler(3, {"latest": 1.0, "snapshot": 1.0}, settings={}, seed=1)
    assert sampler.pick() == ["random"] * 3


def test_the_latest_policy_is_one_batched_opponent_for_every_seat():
    from agents.ppo_player import build_policy
    from tests.helpers.checkpoints import tiny

    sampler = OpponentSampler(3, {"latest": 1.0}, settings=tiny(), seed=1)
    sampler.update(latest=build_policy(tiny()).state_dict())
    opponents = sampler.pick()
    assert len({id(o) for o in opponents}) == 1 and opponents[0].spec == "ppo:latest"


def test_the_league_rates_its_games_and_keeps_the_ratings_through_a_dict():
    league = League(pool_size=3)
    for _ in range(10):
        league.rate(["learner", "fg", "step-1", "ppo:latest"], [0.0, 1.0, 2.0, 3.0])
    assert set(league.ratings) == {"learner", "fg", "step-1"}  # the latest self is the learner: not rated apart
    before = dict(league.ratings)
    league.rate(["ppo:latest", "learner", "ppo:latest", "ppo:latest"], [1.0, 0.0, 2.0, 3.0])
    assert league.ratings == before
    mu = {name: value[0] for name, value in league.ratings.items()}
    assert mu["learner"] > mu["fg"] > mu["step-1"]
    assert League.from_dict(league.to_dict()).ratings == league.ratings
