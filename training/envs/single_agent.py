"""The single-agent Gymnasium view with opponents named by player specs, registered as ``kdenv/Kingdomino-v0``.

:class:`KingdominoSingleAgentEnv` is :class:`kdenv.wrappers.SingleAgentEnv` whose opponents may also be spec
strings (``"random"``, ``"fg"``, ``"ppo:PATH"``), made by :func:`agents.registry.make_player` and seated at the
table; without ``opponents`` the learner plays against random players. ``import kdenv`` registers it
(:mod:`kdenv.registration`), and ``gymnasium.make`` imports this module::

    import gymnasium, kdenv
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=4, opponents=["fg"] * 3, observation="flat")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.registry import make_player
from kdenv.rules import Rules, player_count
from kdenv.wrappers import Opponent, SingleAgentEnv, TablePlayer


class KingdominoSingleAgentEnv(SingleAgentEnv):
    """One learner against opponents given as specs, players or callables (random players by default)."""

    def __init__(
        self,
        num_players: int = 4,
        rules: Rules | None = None,
        opponents: Sequence[Opponent | str] | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        default = ["random"] * (player_count(num_players) - 1)
        super().__init__(num_players, rules, default if opponents is None else opponents, *args, **kwargs)

    def make_opponent(self, opponent: Any) -> TablePlayer:
        """A spec string is made into its player, seated at this table; anything else as kdenv takes it."""
        if isinstance(opponent, str):
            return make_player(opponent, self.num_players, self.aec.rules)
        return super().make_opponent(opponent)
