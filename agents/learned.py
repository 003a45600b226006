"""The learned players' one pipeline: the envs' observation of the seat, the network's masked logits, one choice
(the most probable legal action, or one drawn from the masked softmax), and the trace, worked out only when asked.

:class:`LearnedPlayer` is that pipeline; a network's player (``ppo:``, ``rllib:``, ``sb3:``) gives only its
:meth:`~LearnedPlayer.rate` and :meth:`~LearnedPlayer.value`. :func:`choose_rows` is the one way a batch of
logits becomes actions, for the players here and the vector env's batched opponents alike.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Protocol

import numpy as np

from agents.policy_player import ObservingPlayer
from kdenv.flat import Observation
from kdenv.view import PublicView


class Uniform(Protocol):
    """A source of uniform draws in [0, 1): a player's ``random.Random`` or a numpy ``Generator``."""

    def random(self) -> float: ...


def choose_rows(logits: np.ndarray, rng: Uniform, sample: bool = False) -> np.ndarray:
    """Each row's action from (B, A) ``logits`` whose illegal actions are at -inf or the lowest float: the highest,
    or one drawn from the row's softmax with one ``rng.random()`` a row (the inverse of its cumulative sum), never
    an action of probability 0."""
    if not sample:
        return logits.argmax(axis=1)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    draws = np.array([rng.random() for _ in range(len(logits))])
    last = logits.shape[1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)  # a sum rounded below 1 stops there
    return np.minimum((cumulative <= draws[:, None]).sum(axis=1), last)


def choose(logits: np.ndarray, rng: Uniform, sample: bool = False) -> int:
    """One row's action: :func:`choose_rows` of (A,) ``logits``."""
    return int(choose_rows(logits[None], rng, sample)[0])


class LearnedPlayer(ObservingPlayer):
    """A network as a player: it observes its seat as the envs do, plays the most probable legal action of its
    masked logits (``sample``: one drawn from them), and traces its top probabilities and value estimate."""

    def __init__(self, sample: bool = False, observation: Observation = "dict", gains: bool = False) -> None:
        super().__init__(observation, gains)
        self.sample = sample
        self._last: tuple[PublicView, Any, np.ndarray, np.ndarray, int] | None = None  # the last act, for trace()

    @abstractmethod
    def rate(self, observation: Any, mask: np.ndarray) -> np.ndarray:
        """The network's (A,) float64 logits for ``observation``, the actions that ``mask`` forbids at -inf or the
        lowest float."""

    @abstractmethod
    def value(self, observation: Any, mask: np.ndarray) -> float:
        """The network's estimate of the seat's outcome from ``observation``."""

    def logits(self, view: PublicView, player: int) -> np.ndarray:
        """The masked logits for ``player`` to move in ``view``."""
        return self.rate(*self.observe(view, player))

    def act(self, view: PublicView) -> int:
        observation, mask = self.observe(view)
        logits = self.rate(observation, mask)
        action = choose(logits, self.rng, self.sample)
        self._last = (view, observation, mask, logits, action)
        return action

    def trace(self) -> dict | None:
        """The top action probabilities and the value estimate at the last decision (the value worked out here,
        so that untraced games pay nothing for it)."""
        from agents.trace import policy_trace

        if self._last is None:
            return None
        view, observation, mask, logits, chosen = self._last
        return policy_trace(view, logits, chosen, self.value(observation, mask))
