"""The uniformly random player: the floor every other player is measured from."""

from __future__ import annotations

from agents.base import Player
from kdenv.view import PublicView


class RandomPlayer(Player):
    """Plays a uniformly random legal action."""

    def act(self, view: PublicView) -> int:
        actions = view.legal_actions()
        return actions[self.rng.randrange(len(actions))]
