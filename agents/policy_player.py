"""Any policy as a player: a callable ``(observation, action_mask) -> action`` that sees what a learner sees.

:func:`from_policy` seats a policy trained or written anywhere (a PyTorch module's argmax, a Tianshou or CleanRL
agent, a hand-written rule) in tournaments and the envs' opponents. The policy gets the observation of the
envs from its own seat, in the format it asks for (``"dict"``: ``{"board", "features"}``, or ``"flat"``, one
vector: :mod:`kdenv.flat`), with or without the gains, and the int8 action mask, and returns one legal action.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Player
from kdenv.encoding import ObservationEncoder, action_mask
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.flat import OBSERVATIONS, Observation, flatten
from kdenv.rules import Rules
from kdenv.view import PublicView
from kdenv.wrappers import PolicyFn


class ObservingPlayer(Player):
    """A player that decides from the envs' observation of its seat (``observation`` format, ``gains`` or not)."""

    def __init__(self, observation: Observation = "dict", gains: bool = False) -> None:
        super().__init__()
        if observation not in OBSERVATIONS:
            raise KingdominoError(f"unknown observation {observation!r}; choose from {', '.join(OBSERVATIONS)}")
        self.observation, self.gains = observation, gains
        self.encoder: ObservationEncoder | None = None

    def seat_at(self, num_players: int, rules: Rules) -> None:
        self.encoder = ObservationEncoder(num_players, rules.kingdom_size, self.gains)

    def observe(self, view: PublicView, player: int | None = None) -> tuple[Any, np.ndarray]:
        """The observation of ``player``'s seat in ``view`` (default: this player's) and the mask of the legal
        actions."""
        table = (view.num_players, view.rules.kingdom_size)
        if self.encoder is None or (self.encoder.num_players, self.encoder.kingdom_size) != table:
            self.seat_at(view.num_players, view.rules)  # act() without seat_at(): the view's table
        encoder = self.encoder
        assert encoder is not None
        observed = encoder.encode(view, self.seat if player is None else player)
        return (flatten(observed) if self.observation == "flat" else observed), action_mask(view)


class PolicyPlayer(ObservingPlayer):
    """Plays what ``policy(observation, action_mask)`` returns; a one-line error when that is no legal action."""

    def __init__(self, policy: PolicyFn, observation: Observation = "dict", gains: bool = False) -> None:
        super().__init__(observation, gains)
        if not callable(policy):
            raise KingdominoError(f"{policy!r} is not a callable (observation, action_mask) -> action")
        self.policy = policy
        self.spec = getattr(policy, "__name__", type(policy).__name__)

    def act(self, view: PublicView) -> int:
        observation, mask = self.observe(view)
        chosen = self.policy(observation, mask)
        action = as_action(chosen)
        if action is None or not (0 <= action < len(mask) and mask[action]):
            why = "not an integer" if action is None else "not a legal action now (mask 0 or outside the space)"
            raise IllegalMoveError(f"policy {self.spec!r} in seat {self.seat} returned {chosen!r}: {why}")
        return action


def as_action(value: Any) -> int | None:
    """``value`` as an action index if it is one integer (a Python or numpy int, or a one-element integer array),
    else None."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, np.ndarray) and value.size == 1 and np.issubdtype(value.dtype, np.integer):
        return int(value.reshape(()))
    return None


def from_policy(
    policy: PolicyFn, observation: Observation = "dict", gains: bool = False, name: str | None = None
) -> Player:
    """``policy`` (``(observation, action_mask) -> action``) as a player; ``name`` names it in results."""
    player = PolicyPlayer(policy, observation, gains)
    if name is not None:
        player.spec = name
    return player
