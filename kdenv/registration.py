"""The ids that ``import kdenv`` registers: ``kdenv/kingdomino-v0`` with PettingZoo (``pettingzoo.make("aec", ...)``)
and ``kdenv/Kingdomino-v0`` with Gymnasium (``gymnasium.make``).

The entry points are strings, loaded on the first ``make``: registering imports neither env, nor ``training``, where
the Gymnasium view that takes player specs lives. PettingZoo has had a registry since 1.27; on 1.24 to 1.26 (which
the env runs on) its id is left out, with one debug log, and the env is made by hand (``kingdomino_v0.env()``).
"""

from __future__ import annotations

import logging

import gymnasium
import pettingzoo

PETTINGZOO_ID = "kdenv/kingdomino-v0"
GYMNASIUM_ID = "kdenv/Kingdomino-v0"
PETTINGZOO_REGISTRY = "1.27"  # the first PettingZoo with a registry (pettingzoo.register, pettingzoo.aec_registry)

log = logging.getLogger(__name__)


def register() -> None:
    """Register both ids, each once (importing or reloading kdenv again registers nothing twice); the PettingZoo id
    only where PettingZoo has a registry."""
    if hasattr(pettingzoo, "register") and hasattr(pettingzoo, "aec_registry"):
        if PETTINGZOO_ID not in pettingzoo.aec_registry:
            pettingzoo.register("aec", PETTINGZOO_ID, entry_point="kdenv.kingdomino_v0:env")
    else:
        found = getattr(pettingzoo, "__version__", "of unknown version")
        log.debug(
            "pettingzoo %s has no registry (%s has): %s is not registered; make the env with kdenv.kingdomino_v0.env()",
            found, PETTINGZOO_REGISTRY, PETTINGZOO_ID,
        )  # fmt: skip
    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(GYMNASIUM_ID, entry_point="training.envs.single_agent:KingdominoSingleAgentEnv")
