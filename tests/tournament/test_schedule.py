"""The schedule is balanced: seats, king-draw positions and meetings evenly spread; deals duplicated."""

import hashlib
from collections import Counter, defaultdict
from itertools import combinations

import numpy as np
import pytest

from kdenv.errors import KingdominoError
from kdenv.game import Game
from kdenv.rules import Rules
from training.arena import schedule as schedule_module
from training.arena.schedule import SEATINGS, Schedule, ScheduledGame, ScheduleError


def schedule(num_agents: int, players: int, games: int = 1, rules: Rules | None = None) -> Schedule:
    return Schedule(tuple(f"agent{i}" for i in range(num_agents)), players, rules or Rules(), 3, games)


@pytest.mark.parametrize(("num_agents", "players"), [(2, 2), (4, 2), (3, 3), (5, 3), (4, 4), (5, 4), (6, 4)])
def test_every_agent_sits_in_every_seat_and_draw_position_equally_often(num_agents, players):
    s = schedule(num_agents, players, games=500)
    seats, draws, meetings = Counter(), Counter(), Counter()
    for g in s.games():
        ranked = list(dict.fromkeys(Game(players, s.rules, g.deal_seed).king_order))  # seats by first king drawn
        for seat, agent in enumerate(g.agents):
            seats[agent, seat] += 1
            draws[agent, ranked.index(seat)] += 1
        meetings.update(combinations(sorted(g.agents), 2))
    agents = [f"agent{i}" for i in range(num_agents)]
    assert len(set(seats.values())) == 1 and len(seats) == num_agents * players
    assert len(set(draws.values())) == 1 and len(draws) == num_agents * players
    assert len(set(meetings.values())) == 1 and len(meetings) == num_agents * (num_agents - 1) // 2
    assert sum(seats.values()) == s.total * players and s.total >= 500 and s.total % s.round_size == 0
    assert set(agents) == {agent for agent, _ in seats}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seatings_are_latin_and_balance_who_draws_first(players):
    seatings = SEATINGS[players]
    for member in range(players):  # each member holds each draw position equally often
        assert Counter(row[member] for row in seatings) == dict.fromkeys(range(players), len(seatings) // players)
    for a, b in combinations(range(players), 2):
        assert 2 * sum(row[a] < row[b] for row in seatings) == len(seatings)


def test_each_deal_is_played_by_every_table_in_every_seating():
    s = schedule(5, 4, games=40)
    by_deal = Counter((g.deal, g.table) for g in s.games())
    assert set(by_deal.values()) == {len(SEATINGS[4])} and len(by_deal) == len(s.tables) * s.deals
    for g in s.games():
        assert g.deal_seed == s.deal_seed(g.deal)
        table = sorted(s.agents[i] for i in s.tables[g.table])
        assert sorted(g.agents) == table
    for (deal, table), _ in by_deal.items():
        games = [g for g in s.games() if (g.deal, g.table) == (deal, table)]
        for seat in range(4):
            assert len({g.agents[seat] for g in games}) == 4  # every member in this seat once


def test_a_spec_listed_twice_plays_each_distinct_seating_once_a_deal():
    s = Schedule(("ppo:default", "fg", "fg"), 3, Rules(), 3, 30)
    by_deal = defaultdict(list)
    for g in s.games():
        by_deal[g.deal].append(g.agents)
    assert s.round_size == 3 and s.total == 30 and len(by_deal) == 10
    for seatings in by_deal.values():  # ppo:default once in each seat, no seating twice
        assert len(set(seatings)) == len(seatings) == 3
        assert sorted(agents.index("ppo:default") for agents in seatings) == [0, 1, 2]
    assert s.describe().startswith("1 table(s) x 3 seatings x 10 deal(s)")


@pytest.mark.parametrize(
    ("num_agents", "players", "digest"),
    [(3, 2, "ba84bb411b860d69"), (5, 4, "528f4814f389c089"), (3, 3, "22aff898a06fe055")],
)
def test_schedules_of_distinct_agents_are_those_of_before(num_agents, players, digest):
    games = [
        (g.game_id, g.deal, g.table, g.seating, g.agents, g.deal_seed, g.play_seed)
        for g in schedule(num_agents, players, games=50).games()
    ]
    assert hashlib.sha256(repr(games).encode()).hexdigest()[:16] == digest


def test_a_longer_tournament_extends_a_shorter_one():
    short, long = schedule(4, 4, games=8), schedule(4, 4, games=30)
    assert list(long.games())[: short.total] == list(short.games())
    assert list(long.games(start=10)) == list(long.games())[10:]
    assert len({g.play_seed for g in long.games()}) == long.total


def test_mighty_duel_schedules_two_player_tables():
    s = schedule(3, 2, games=6, rules=Rules.from_names("mighty_duel"))
    assert s.total == 6 and all(len(g.agents) == 2 for g in s.games())


@pytest.mark.parametrize(
    ("num_agents", "players", "rules", "message"),
    [
        (2, 4, None, "4-player tables need at least 4 agents"),
        (5, 5, None, "2, 3 or 4 players"),
        (3, 3, Rules.from_names("mighty_duel"), "Mighty Duel"),
        (1, 2, None, "need at least 2 agents"),
    ],
)
def test_impossible_tables_are_one_line_errors(num_agents, players, rules, message):
    with pytest.raises(KingdominoError, match=message) as info:
        schedule(num_agents, players, rules=rules)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True], ids=repr)
def test_a_negative_or_non_integer_seed_is_one_line(seed):
    """A negative seed made negative deal seeds, which dealt the positive ones' games (``random.Random(-s)``)."""
    with pytest.raises(KingdominoError) as info:
        Schedule(("a", "b"), 2, Rules(), seed, 2)
    assert str(info.value) == f"seed must be an integer 0 or more, not {seed!r}"


def test_a_numpy_seed_schedules_what_the_int_schedules():
    numpy_seeded = Schedule(tuple(f"agent{i}" for i in range(3)), 3, Rules(), np.int64(3), 1)
    assert type(numpy_seeded.seed) is int and list(numpy_seeded.games()) == list(schedule(3, 3).games())


@pytest.mark.parametrize(
    ("games", "seed", "message"),
    [
        (0, 3, "the number of games must be from 1 to 10,000,000, not 0"),
        (10**12, 3, "the number of games must be from 1 to 10,000,000, not 1000000000000"),
        (10, 2**32, "the seed must be from 0 to 4,294,967,295, not 4294967296"),
    ],
)
def test_games_and_seeds_out_of_bounds_are_one_line_errors(games, seed, message):
    with pytest.raises(ScheduleError, match=message):
        Schedule(("a", "b"), 2, Rules(), seed, games)


def test_a_schedule_of_the_most_games_makes_only_the_games_asked_for(monkeypatch):
    """Nothing is listed whole: the schedule makes a ScheduledGame when a game is asked for, by its id."""
    made = []
    monkeypatch.setattr(schedule_module, "ScheduledGame", lambda *fields: made.append(fields) or ScheduledGame(*fields))
    s = Schedule(("a", "b", "c"), 2, Rules(), 2**32 - 1, 10_000_000)
    games = s.games(start=s.total - 7, done={s.total - 1})
    assert [g.game_id for g in games] == list(range(s.total - 7, s.total - 1)) and len(made) == 6
    assert s.game(s.total - 1).deal == s.deals - 1 and len(made) == 7
