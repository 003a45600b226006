"""Hypothesis strategies shared by the tests: the table set-ups every property runs on, and deal seeds."""

from hypothesis import strategies as st

from kdenv.rules import Rules

SET_UPS = [
    (2, Rules()),
    (3, Rules()),
    (4, Rules()),
    (2, Rules(kingdom_size=7)),
    (4, Rules(middle_kingdom=True, harmony=True)),
    (3, Rules(voluntary_discard=True, harmony=True)),
]
set_ups = st.sampled_from(SET_UPS)
seeds = st.integers(0, 2**32 - 1)
