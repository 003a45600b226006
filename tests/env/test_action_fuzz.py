"""Any value given as an action either plays, or is refused in one line naming the action space with the game
unchanged; a legal-range action the rules forbid ends the game through ``env()`` with one warning, as the classic
games do."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from kdenv import kingdomino_v0
from kdenv.errors import IllegalMoveError, IllegalMoveWarning
from tests.strategies import seeds

NUMBERS = st.integers(-(2**70), 2**70) | st.integers(-2, 700) | st.floats(allow_nan=True, allow_infinity=True)
ACTIONS = st.one_of(
    NUMBERS,
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.lists(st.integers(0, 400), max_size=3),
    st.integers(0, 400).map(np.int64),
    st.integers(0, 400).map(np.uint16),
    st.floats(0, 400).map(np.float32),
    hnp.arrays(st.sampled_from([np.int64, np.int8, np.float64, np.bool_]), hnp.array_shapes(min_dims=0, max_dims=2)),
)


def as_index(action: object) -> int | None:
    """The action the space holds: an int or numpy integer (not a bool), or a one-element integer array."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.ndim <= 1:
        action = action.reshape(())[()]
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        return None
    return int(action) if 0 <= action < 329 else None


@given(seed=seeds, moves=st.integers(0, 40), action=ACTIONS, wrapped=st.booleans())
def test_any_action_plays_or_is_refused_in_one_line_leaving_the_game_as_it_was(seed, moves, action, wrapped) -> None:
    env = kingdomino_v0.env(num_players=2) if wrapped else kingdomino_v0.raw_env(num_players=2)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):  # somewhere into the game
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    agent = env.agent_selection
    if env.terminations[agent]:
        return
    before = env.unwrapped.record()
    legal = env.observe(agent)["action_mask"]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            env.step(action)
        except IllegalMoveError as err:
            assert "\n" not in str(err) and env.unwrapped.record() == before
            if as_index(action) is None:  # outside the space: the space is named
                assert "outside the action space Discrete(329)" in str(err)
            else:  # raw_env: a legal-range action the rules forbid
                assert not wrapped and not legal[as_index(action)]
            return
    index = as_index(action)  # it played: an integer of the space
    assert index is not None
    if legal[index]:
        assert not [w for w in said if issubclass(w.category, IllegalMoveWarning)]
    else:  # env(): the game ends, the offender loses, said once
        assert wrapped and all(env.terminations.values()) and env.rewards[agent] == -1
        assert [str(w.message).startswith(f"{agent}'s action {index} was an illegal move") for w in said] == [True]
