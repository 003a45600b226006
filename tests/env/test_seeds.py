"""Seeds wherever one is taken: a numpy integer deals what the int it holds deals, and a negative seed (which Python's
``random.Random`` would take as the positive one, dealing its games) is one line, nothing changed."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from kdenv.errors import KingdominoError
from kdenv.game import Game, random_game, shuffled_deal
from kdenv.kingdomino_v0 import env, raw_env
from kdenv.rules import Rules
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv
from training.envs.single_agent import KingdominoSingleAgentEnv
from training.ppo.vec_env import SB3VecEnv

BAD_SEEDS = [-1, np.int64(-3), 5.0, "5", True, np.True_]


class Seeded(NamedTuple):
    """An env as these tests use it: ``reset(seed)`` gives what a reset gives, ``now()`` what it holds."""

    reset: Callable[[Any], Any]
    now: Callable[[], Any]


def aec(make: Callable[..., Any]) -> Seeded:
    made = make(num_players=2)

    def reset(seed: Any) -> Any:
        made.reset(seed=seed)
        return made.observe(made.agent_selection), made.unwrapped.record()

    return Seeded(reset, lambda: (made.unwrapped.record(), made.agent_selection))


def view() -> Seeded:
    made = KingdominoSingleAgentEnv(2)
    return Seeded(lambda seed: made.reset(seed=seed), lambda: (made.record(), made.learner))


def vector() -> Seeded:
    made = VectorEnv(3, 2)
    return Seeded(lambda seed: made.reset(seed=seed), made.observation)


def one_learner() -> Seeded:
    made = OneLearnerVectorEnv(3, 2)
    return Seeded(lambda seed: made.reset(seed=seed), lambda: copy.deepcopy((made.env.buffers(), made.learner)))


ENVS: dict[str, Callable[[], Seeded]] = {
    "env": lambda: aec(env),
    "raw_env": lambda: aec(raw_env),
    "gymnasium view": view,
    "VectorEnv": vector,
    "one learner": one_learner,
}


def dealt(make: Callable[..., Game]) -> Callable[[Any], tuple]:
    """What a game ``make(2, rules, seed)`` is: its seed as a record writes it, its deal and its moves."""

    def deal(seed: Any) -> tuple:
        game = make(2, Rules(), seed)
        return json.dumps(game.seed), game.deck, game.king_order, game.moves

    return deal


DEALS: dict[str, Callable[[Any], Any]] = {
    "Game": dealt(Game),
    "random_game": dealt(random_game),
    "shuffled_deal": lambda seed: shuffled_deal(2, Rules(), seed),
}


def same(a: Any, b: Any) -> bool:
    """Whether two observations, infos, records or deals (nested dicts, tuples, lists, arrays) hold the same values."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and bool(np.array_equal(a, b))


@pytest.mark.parametrize("kind", [*ENVS, *DEALS])
def test_a_numpy_integer_seed_deals_what_the_int_deals(kind: str) -> None:
    reset = ENVS[kind]().reset if kind in ENVS else DEALS[kind]
    plain = reset(5)
    assert same(reset(np.int64(5)), plain) and same(reset(np.uint8(5)), plain)
    assert not same(reset(6), plain)


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
@pytest.mark.parametrize("kind", ENVS)
def test_a_negative_or_non_integer_seed_is_one_line_and_changes_nothing(kind: str, seed: Any) -> None:
    made, twin = ENVS[kind](), ENVS[kind]()
    made.reset(7), twin.reset(7)
    before = made.now()
    with pytest.raises(KingdominoError) as err:
        made.reset(seed)
    assert str(err.value) == f"seed must be an integer 0 or more, not {seed!r}"
    assert same(made.now(), before)
    assert same(made.reset(None), twin.reset(None))  # its generator untouched: the next deal is the twin's


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
@pytest.mark.parametrize("kind", DEALS)
def test_the_engine_refuses_a_negative_or_non_integer_seed_in_one_line(kind: str, seed: Any) -> None:
    with pytest.raises(KingdominoError) as err:
        DEALS[kind](seed)
    assert str(err.value) == f"seed must be an integer 0 or more, not {seed!r}"


def test_negative_seeds_no_longer_deal_the_positive_ones_games() -> None:
    """The report: ``--seed -1`` dealt deal 0 of ``--seed 1`` (deal seeds -1,000,000 and 1,000,000), as
    ``random.Random(-s)`` is ``random.Random(s)``."""
    with pytest.raises(KingdominoError, match="^seed must be an integer 0 or more, not -1000000$"):
        Game(4, Rules(), -1_000_000)


def test_sb3_vec_env_refuses_a_bad_seed_when_given_and_takes_numpy_s() -> None:
    venv = SB3VecEnv(2, num_players=2)
    assert venv.seed(np.int64(4)) == [4, 4]
    first = venv.reset()
    with pytest.raises(KingdominoError, match="^seed must be an integer 0 or more, not -1$"):
        venv.seed(-1)
    venv.seed(4)
    assert same(venv.reset(), first)
