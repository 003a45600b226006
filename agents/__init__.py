"""Players for kdenv: scripted baselines, Monte Carlo search and learned policies."""

from agents.base import Player
from agents.registry import PLAYERS, PlayerSpecError, make_player

__all__ = ["PLAYERS", "Player", "PlayerSpecError", "make_player"]
