"""The set-ups every test runs on, and what hypothesis draws: deal seeds, and examples spread over the set-ups.

:data:`SET_UPS` is the one list of tables: every player count, Mighty Duel, and each variant at least once.
A test parametrized over them takes ``ids=SET_UP_IDS``; a property that runs once per set-up takes
:func:`per_set_up` for the profile's examples (``tests/conftest.py``) shared out between them.
"""

from hypothesis import settings
from hypothesis import strategies as st

from kdenv.rules import STUDY_RULES, Rules

SET_UPS = [
    (2, Rules()),
    (3, Rules(middle_kingdom=True)),
    (4, Rules()),
    (4, STUDY_RULES),  # the reference study's table: Middle Kingdom and Harmony
    (2, Rules(kingdom_size=7, middle_kingdom=True, harmony=True)),  # Mighty Duel with both bonuses
    (3, Rules(voluntary_discard=True, harmony=True)),
]


def set_up_id(set_up: tuple[int, Rules]) -> str:
    """A set-up's name in test ids: ``4p-middle-harmony``, ``2p-mighty-duel-middle-harmony``..."""
    players, rules = set_up
    variants = {
        "mighty-duel": rules.kingdom_size == 7,
        "middle": rules.middle_kingdom,
        "harmony": rules.harmony,
        "discard": rules.voluntary_discard,
    }
    return "-".join([f"{players}p", *(name for name, on in variants.items() if on)])


SET_UP_IDS = [set_up_id(s) for s in SET_UPS]
set_ups = st.sampled_from(SET_UPS)
seeds = st.integers(0, 2**32 - 1)


def decisions(players: int, rules: Rules) -> st.SearchStrategy[int]:
    """How many random decisions into a game of this set-up to start from: anywhere up to its end."""
    return st.integers(0, 2 * rules.setup(players)[1])  # a pick and a placement per domino in play


def per_set_up() -> settings:
    """The settings of a property run once per set-up: the profile's examples shared out between the set-ups."""
    return settings(max_examples=max(1, settings.default.max_examples // len(SET_UPS)))
