"""kdenv: an exact, fast Kingdomino engine with PettingZoo and Gymnasium environments.

Importing it registers the envs' ids with PettingZoo and Gymnasium (:mod:`kdenv.registration`)."""

from kdenv import registration
from kdenv.actions import Move, decode, discard_action, encode, num_actions, pick_action, pick_slot, place_action
from kdenv.errors import IllegalMoveError, KingdominoError, RecordError
from kdenv.game import Game, ScoreBreakdown, random_game
from kdenv.kingdom import Kingdom, Property
from kdenv.rules import STUDY_RULES, Rules
from kdenv.tiles import DOMINOES, TERRAINS, Domino, Half, domino
from kdenv.view import PublicView

__all__ = [
    "DOMINOES", "STUDY_RULES", "TERRAINS", "Domino", "Game", "Half", "IllegalMoveError", "Kingdom",
    "KingdominoError", "Move", "Property", "PublicView", "RecordError", "Rules", "ScoreBreakdown",
    "decode", "discard_action", "domino", "encode", "num_actions", "pick_action", "pick_slot", "place_action",
    "random_game",
]  # fmt: skip

registration.register()

_LAZY = {"env": "kdenv.kingdomino_v0", "raw_env": "kdenv.kingdomino_v0", "SingleAgentEnv": "kdenv.wrappers"}


def __getattr__(name: str) -> object:
    """``kdenv.env`` and ``kdenv.raw_env`` (those of :mod:`kdenv.kingdomino_v0`) and ``kdenv.SingleAgentEnv``
    on first use: the envs' modules (the encoder, the renderer, game records), which engine-only users need not
    load."""
    if name not in _LAZY:
        raise AttributeError(f"module 'kdenv' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
