"""A keyword that no env takes is one line naming the env's keywords, in every env; ``max_cycles`` (which
``pettingzoo.make(..., max_cycles=N)`` passes on) is refused with the reason; a keyword's value of the wrong type (a
string for a flag, a float for a size, a bool for a number) is one line naming the keyword and what it takes, and
numpy's scalars are taken as the values they hold."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pettingzoo
import pytest

from kdenv.errors import KingdominoError
from kdenv.kingdomino_v0 import env, raw_env
from kdenv.replay import replay_record
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv
from training.envs.single_agent import KingdominoSingleAgentEnv
from training.ppo.vec_env import SB3VecEnv

ENVS: dict[str, tuple[Callable, str, list[str]]] = {  # how each is made, its name, some of its own keywords
    "env": (env, "kingdomino_v0", ["num_players", "render_mode", "illegal_reward"]),
    "raw_env": (raw_env, "kingdomino_v0", ["num_players", "render_mode", "illegal_reward"]),
    "pettingzoo.make": (lambda **k: pettingzoo.make("aec", "kdenv/kingdomino-v0", **k), "kingdomino_v0", []),
    "VectorEnv": (VectorEnv, "VectorEnv", ["num_envs", "observations", "copy", "max_records"]),
    "gymnasium view": (KingdominoSingleAgentEnv, "KingdominoSingleAgentEnv", ["opponents", "seat", "illegal_reward"]),
    "one learner": (OneLearnerVectorEnv, "OneLearnerVectorEnv", ["num_envs", "opponents", "opponent_picker"]),
    "SB3VecEnv": (lambda **k: SB3VecEnv(2, **k), "OneLearnerVectorEnv", ["opponents", "seat"]),
}
TABLE = ["reward", "rules", "kingdom_size", "mighty_duel", "middle_kingdom", "harmony", "voluntary_discard", "gains",
         "observation"]  # fmt: skip


@pytest.mark.parametrize("kind", ENVS)
def test_an_unknown_keyword_names_the_env_s_keywords(kind: str) -> None:
    make, name, own = ENVS[kind]
    with pytest.raises(KingdominoError, match=f"^{name} takes no keyword 'colour'; its keywords are ") as err:
        make(num_players=2, colour="red")
    message = str(err.value)
    assert "\n" not in message and "unexpected keyword" not in message
    keywords = message.partition("; its keywords are ")[2].split(", ")
    assert set(own) | set(TABLE) <= set(keywords) and len(set(keywords)) == len(keywords)
    with pytest.raises(KingdominoError, match=f"^{name} takes no keywords 'colour', 'size'; "):
        make(num_players=2, colour="red", size=3)


@pytest.mark.parametrize("kind", ENVS)
def test_max_cycles_is_refused_with_the_reason(kind: str) -> None:
    make, name, _ = ENVS[kind]
    with pytest.raises(KingdominoError) as err:
        make(num_players=2, max_cycles=100)
    assert str(err.value) == (
        f"{name} takes no max_cycles: a game always ends by itself after its rounds (at most 96 decisions, two per "
        "domino); leave max_cycles out"
    )


def test_pettingzoo_make_s_own_max_cycles_is_refused_and_minus_one_passes_none() -> None:
    with pytest.raises(KingdominoError, match="kingdomino_v0 takes no max_cycles"):
        pettingzoo.make("aec", "kdenv/kingdomino-v0", max_cycles=500)
    pettingzoo.make("aec", "kdenv/kingdomino-v0", max_cycles=-1).reset(seed=0)  # PettingZoo's "pass none"


# every env takes the table's keywords; each bad value is one line naming the keyword and what it takes
BAD_TABLE = [
    ("harmony", "no", "harmony must be True or False, not 'no'"),  # a string would be truthy: Harmony on
    ("middle_kingdom", 2, "middle_kingdom must be True or False, not 2"),
    ("voluntary_discard", None, "voluntary_discard must be True or False, not None"),
    ("mighty_duel", "yes", "mighty_duel must be True or False, not 'yes'"),
    ("gains", 1, "gains must be True or False, not 1"),
    ("kingdom_size", 5.0, "kingdom_size must be 5 or 7 (Mighty Duel), not 5.0"),
    ("kingdom_size", True, "kingdom_size must be 5 or 7 (Mighty Duel), not True"),
    (
        "rules",
        "harmony",
        "rules must be a kdenv.rules.Rules or None, not 'harmony': e.g. Rules(harmony=True), or "
        "Rules.from_names('middle_kingdom,harmony')",
    ),
]


@pytest.mark.parametrize(("keyword", "value", "message"), BAD_TABLE, ids=[f"{k}={v!r}" for k, v, _ in BAD_TABLE])
@pytest.mark.parametrize("kind", ENVS)
def test_a_table_keyword_of_the_wrong_type_is_one_line_naming_it(kind: str, keyword: str, value, message: str) -> None:
    make = ENVS[kind][0]
    with pytest.raises(KingdominoError) as err:
        make(num_players=2, **{keyword: value})
    assert str(err.value) == message


def test_mighty_duel_with_another_kingdom_size_is_refused() -> None:
    with pytest.raises(KingdominoError) as err:
        raw_env(num_players=2, mighty_duel=True, kingdom_size=5)
    assert str(err.value) == "mighty_duel is kingdom_size 7, not 5: give one of them"
    assert raw_env(num_players=2, mighty_duel=True, kingdom_size=7).rules.kingdom_size == 7


# each env's own keywords: (env, keyword, bad value, message)
BAD_OWN = [
    *[
        (kind, "illegal_reward", value, f"illegal_reward must be a finite number, not {value!r}")
        for kind in ("env", "raw_env", "gymnasium view")
        for value in ("a", True, float("nan"), float("inf"))
    ],
    *[
        (kind, "seat", value, f"seat must be an integer 0..1, not {value!r}")
        for kind in ("gymnasium view", "one learner", "SB3VecEnv")
        for value in ("1", 1.0, 2, -1, True)
    ],
    ("VectorEnv", "num_envs", True, "num_envs must be an integer 1 or more, not True"),
    ("VectorEnv", "num_envs", 2.0, "num_envs must be an integer 1 or more, not 2.0"),
    ("one learner", "num_envs", 0, "num_envs must be an integer 1 or more, not 0"),
    ("VectorEnv", "observations", "no", "observations must be True or False, not 'no'"),
    ("VectorEnv", "copy", 0, "copy must be True or False, not 0"),
    ("one learner", "copy", "yes", "copy must be True or False, not 'yes'"),
    ("VectorEnv", "max_records", -1, "max_records must be an integer 0 or more, not -1"),
    ("VectorEnv", "max_records", "10", "max_records must be an integer 0 or more, not '10'"),
]


@pytest.mark.parametrize(
    ("kind", "keyword", "value", "message"), BAD_OWN, ids=[f"{k}-{w}={v!r}" for k, w, v, _ in BAD_OWN]
)
def test_an_env_s_own_keyword_of_the_wrong_type_is_one_line_naming_it(kind: str, keyword: str, value, message) -> None:
    make = ENVS[kind][0]
    with pytest.raises(KingdominoError) as err:
        make(num_players=2, **{keyword: value})
    assert str(err.value) == message


def test_numpy_s_scalars_are_taken_as_the_python_values_they_hold_and_the_record_replays() -> None:
    aec = raw_env(
        num_players=np.int64(2), harmony=np.True_, middle_kingdom=np.bool_(False), kingdom_size=np.int64(5),
        gains=np.True_, illegal_reward=np.float32(-1),
    )  # fmt: skip
    rules = aec.rules
    assert (rules.harmony, rules.middle_kingdom, rules.kingdom_size) == (True, False, 5)
    assert [type(v) for v in (rules.harmony, rules.middle_kingdom, rules.kingdom_size)] == [bool, bool, int]
    assert aec.table.gains is True and type(aec.illegal_reward) is float and aec.illegal_reward == -1.0
    aec.reset(seed=0)
    for _ in range(6):
        aec.step(int(np.flatnonzero(aec.action_mask())[0]))
    record = json.loads(json.dumps(aec.record()))  # as `kdenv replay` reads it from a file
    assert record["rules"] == {"kingdom_size": 5, "middle_kingdom": False, "harmony": True, "voluntary_discard": False}
    assert replay_record(record).moves == aec.game.moves
