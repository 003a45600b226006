"""Any player spec a person may type either makes a player or fails with one line, in seconds: random names, paths,
option keys and values (infinities, huge numbers, text), never a traceback of another type or a hang."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from agents import make_player
from agents.base import Player
from agents.options import keys
from agents.registry import PLAYERS
from kdenv.errors import KingdominoError
from kdenv.rules import Rules
from tests.agents.test_options import player_classes

KEYS = sorted({key for kind in player_classes() if kind.Options for key in keys(kind.Options)})
VALUES = ["inf", "-inf", "nan", "1e308", "0", "-1", "1", "2", "0.5", "true", "false", "fg", "r", "", "9" * 30]
NAMES = [*PLAYERS, "nobody", "FG", "", " fg", "zz_fuzz_no_module", "tests.helpers.own_bots"]  # no other modules
PATHS = ["", "default", "v1", "missing.zip", "/dev/null", "..", "make", "Cautious"]

options = st.lists(
    st.tuples(st.sampled_from(KEYS) | st.text("abcz_", max_size=4), st.sampled_from(VALUES) | st.text(max_size=6)),
    max_size=3,
)


@st.composite
def specs(draw) -> str:
    name, path = draw(st.sampled_from(NAMES)), draw(st.sampled_from(PATHS))
    parts = [path] * bool(path) + [f"{key}={value}" for key, value in draw(options)]
    return name + (":" + ",".join(parts) if parts else "")


@settings(deadline=None)
@given(spec=specs() | st.text(max_size=12).filter(lambda text: ":" not in text), players=st.sampled_from([2, 3, 4]))
def test_a_spec_makes_a_player_or_fails_in_one_line_within_seconds(spec: str, players: int) -> None:
    started = time.monotonic()
    try:
        player = make_player(spec, players, Rules())
    except KingdominoError as err:
        assert str(err) and "\n" not in str(err), spec
    else:
        assert isinstance(player, Player)
        player.close()
    assert time.monotonic() - started < 5, spec
