"""Players for kdenv (scripted baselines, Monte Carlo search, learned policies) made from spec strings, and the
learner's views of a table of them: the Gymnasium env with player specs and the vector env."""

from agents.base import Player
from agents.registry import PLAYERS, PlayerSpecError, make_player

__all__ = ["PLAYERS", "Player", "PlayerSpecError", "make_player"]
