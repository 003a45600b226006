"""Players for kdenv (scripted baselines, Monte Carlo search, learned policies, players of one's own) made from spec
strings or from any policy, and the learner's views of a table of them: the Gymnasium env with player specs and the
vector env."""

from agents.base import Player
from agents.policy_player import from_policy
from agents.registry import PLAYERS, PlayerSpecError, make_player

__all__ = ["PLAYERS", "Player", "PlayerSpecError", "from_policy", "make_player"]
