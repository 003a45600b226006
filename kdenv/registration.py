"""The ids that ``import kdenv`` registers: ``kdenv/kingdomino-v0`` with PettingZoo (``pettingzoo.make("aec", ...)``)
and ``kdenv/Kingdomino-v0`` with Gymnasium (``gymnasium.make``).

The entry points are strings, loaded on the first ``make``: registering imports neither env, nor ``training``, where
the Gymnasium view that takes player specs lives.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from kdenv.errors import KingdominoError

PETTINGZOO_ID = "kdenv/kingdomino-v0"
GYMNASIUM_ID = "kdenv/Kingdomino-v0"
PETTINGZOO_NEEDED = "1.27"  # the first with a registry (pettingzoo.register, pettingzoo.aec_registry)


class DependencyError(KingdominoError, ImportError):
    """An installed library older than kdenv needs."""


def register() -> None:
    """Register both ids, each once (importing or reloading kdenv again registers nothing twice)."""
    if not (hasattr(pettingzoo, "register") and hasattr(pettingzoo, "aec_registry")):
        found, needed = getattr(pettingzoo, "__version__", "an unknown version"), PETTINGZOO_NEEDED
        fix = f"pip install -U 'pettingzoo>={needed}'"
        raise DependencyError(f"kdenv needs pettingzoo>={needed} (found {found}): {fix}")
    if PETTINGZOO_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="kdenv.kingdomino_v0:env")
    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(GYMNASIUM_ID, entry_point="training.envs.single_agent:KingdominoSingleAgentEnv")
