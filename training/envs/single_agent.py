"""The single-agent Gymnasium view with opponents named by player specs, registered as ``kdenv/Kingdomino-v0``.

:class:`KingdominoSingleAgentEnv` is :class:`kdenv.wrappers.SingleAgentEnv` whose opponents may also be spec
strings (``"random"``, ``"fg"``, ``"ppo:PATH"``), made by :func:`agents.registry.make_player` and seated at the
table; without ``opponents`` the learner plays against random players. When every opponent is a scripted spec
(``"random"``, ``"gprd"``, ``"fg"``, ``"fgt"``, in any case: :func:`agents.specs.compiled_policy_of`) they play
inside the compiled core (``agents.batched``, as in :mod:`training.envs.one_learner`), drawing from a
generator seeded at each reset, and the engine stays out of the loop; the same seed plays the same episode.
``import kdenv`` registers it (:mod:`kdenv.registration`), and ``gymnasium.make`` imports this module::

    import gymnasium, kdenv
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=4, opponents=["fg"] * 3, observation="flat")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.batched.policy import Policy, advance
from agents.batched.workspace import workspace
from agents.learner_turn import learner_turn
from agents.registry import make_player
from agents.specs import compiled_policy_of
from kdenv.batched.rng import draw_states
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
        self._codes: list[int] | None = None  # the compiled opponents' codes, when every opponent has one
        super().__init__(num_players, rules, default if opponents is None else opponents, *args, **kwargs)
        self._seats = np.zeros((1, self.num_players), np.int64)  # each seat's Policy code, the learner's LEARNER
        self._plans = np.full(1, -1, np.int64)
        self._waiting = np.zeros(1, np.int64)
        self._work = workspace(self.aec.core.tables.cells)
        self._draws = np.zeros(1, np.uint64)
        self._seated = False

    def set_opponents(self, opponents: Sequence[Any]) -> None:
        """As the view's; opponents that are all scripted specs play in the compiled core."""
        super().set_opponents(opponents)
        codes = [code for o in opponents if isinstance(o, str) and (code := compiled_policy_of(o)) is not None]
        self._codes = [int(code) for code in codes] if len(codes) == len(opponents) else None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        self._seated = False
        return super().reset(seed=seed, options=options)

    def _step_learner(self, action: Any) -> None:
        """The learner's action and, with compiled opponents, their replies in the same compiled call."""
        if self._codes is None:
            super()._step_learner(action)
        else:
            self.aec.play_turn(action, learner_turn, self._seats, self._plans, self._waiting, self._work, self._draws)

    def _play_opponents(self) -> float:
        """Compiled opponents move in one call of the core (seated at a game's first call); others as in the view."""
        if self._codes is None:
            return super()._play_opponents()
        aec, learner, n = self.aec, self.learner, self.num_players
        if not self._seated:
            self._seats[0, learner] = Policy.LEARNER
            for j, code in enumerate(self._codes):
                self._seats[0, (learner + 1 + j) % n] = code
            self._plans[0], self._draws[:] = -1, draw_states(self.np_random, 1)
            self._seated = True
        if aec.core.over or aec.core.mover == learner:
            return 0.0
        aec.play_compiled(advance, self._seats, self._plans, self._waiting, self._work, self._draws)
        return aec.rewards[aec.possible_agents[learner]]

    def make_opponent(self, opponent: Any) -> TablePlayer:
        """A spec string is made into its player, seated at this table; anything else as kdenv takes it."""
        if isinstance(opponent, str):
            return make_player(opponent, self.num_players, self.aec.rules)
        return super().make_opponent(opponent)
