"""Every bound of the observation spaces is finite and true: the observations of random games (dict and flat, with
and without gains) lie inside them, Gymnasium's checker has nothing to say of them, and SuperSuit's wrappers, which
read them, run on the env as on PettingZoo's classic games."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kdenv import kingdomino_v0
from kdenv.encoding import observation_space
from kdenv.kingdom import max_score
from kdenv.rules import Rules
from kdenv.wrappers import SingleAgentEnv
from tests.strategies import SET_UP_IDS, SET_UPS, per_set_up, seeds


def test_a_kingdom_scores_at_most_its_bound():
    """By terrain, the squares and crowns of the 48 dominoes: wheat 26 (5 crowns), forest 22 (6), lake 18 (6),
    grassland 14 (6), swamp 10 (6), mine 6 (10). 24 squares: the mines (60), then 18 of a 6-crown terrain (108)."""
    assert max_score(5) == 6 * 10 + 18 * 6 == 168
    assert max_score(7) == 6 * 10 + 18 * 6 + 14 * 6 + 10 * 6 == 312


@pytest.mark.parametrize("gains", [False, True])
@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_every_bound_is_finite(players: int, rules: Rules, gains: bool) -> None:
    env = kingdomino_v0.raw_env(num_players=players, gains=gains, observation="flat", **rules.to_dict())
    space = env.observation_space("player_0")["observation"]
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all() and space.is_bounded()
    dict_space = observation_space(players, rules.kingdom_size, gains)
    assert all(np.isfinite(part.high).all() for part in dict_space.spaces.values())


@pytest.mark.parametrize(("players", "rules"), SET_UPS, ids=SET_UP_IDS)
@per_set_up()
@given(seed=seeds, gains=st.booleans(), flat=st.booleans())
def test_every_observation_of_a_random_game_lies_within_the_bounds(players, rules, seed, gains, flat) -> None:
    env = kingdomino_v0.raw_env(num_players=players, gains=gains, observation="flat" if flat else "dict",
                                **rules.to_dict())  # fmt: skip
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        for seat in env.possible_agents:  # the others' observations too
            assert env.observation_space(seat).contains(env.observe(seat)), (agent, seat)
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_gymnasium_s_checker_finds_no_unbounded_space() -> None:
    from gymnasium.utils.env_checker import check_env

    for flat in (False, True):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            view = SingleAgentEnv(2, opponents=[lambda observation, mask: int(np.flatnonzero(mask)[0])], gains=True,
                                  observation="flat" if flat else "dict")  # fmt: skip
            check_env(view, skip_render_check=True)
        assert not [w for w in said if "inf" in str(w.message).lower() or "bound" in str(w.message).lower()]


@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_supersuit_s_delayed_observations_run_on_the_env(observation: str) -> None:
    supersuit = pytest.importorskip("supersuit")
    env = supersuit.delay_observations_v0(kingdomino_v0.env(num_players=2, observation=observation), 3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        delayed, _, termination, truncation, _ = env.last()
        if observation == "flat":  # SuperSuit fills the first observations with zeros of a Box, not of a Dict
            assert env.observation_space(agent).contains(delayed)
        mask = env.unwrapped.observe(agent)["action_mask"]  # the delayed mask is an old one: act on today's
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(mask))))
    assert not env.agents


def test_supersuit_s_normalized_observations_run_on_the_gymnasium_view() -> None:
    """``normalize_obs_v0`` refuses a space with an infinite bound; on the real bounds every value lands in [0, 1]."""
    supersuit = pytest.importorskip("supersuit")
    first = [lambda observation, mask: int(np.flatnonzero(mask)[0])]
    env = supersuit.normalize_obs_v0(SingleAgentEnv(2, opponents=first, observation="flat", gains=True))
    observation, _ = env.reset(seed=0)
    done = False
    while not done:
        assert env.observation_space.contains(observation) and observation.max() <= 1
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        observation, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
