"""A keyword that no env takes is one line naming the env's keywords, in every env; ``max_cycles`` (which
``pettingzoo.make(..., max_cycles=N)`` passes on) is refused with the reason."""

from __future__ import annotations

from collections.abc import Callable

import pettingzoo
import pytest

from kdenv.errors import KingdominoError
from kdenv.kingdomino_v0 import env, raw_env
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
