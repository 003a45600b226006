"""A checkpoint's network as a search's evaluator: the prior of the player to move and a value for every seat.

A leaf of a max^n search needs each seat's value. Checkpoints whose value head gives the observer's value alone
(every ``ppo`` checkpoint) are read from every seat's view (``values=views``: one row per seat, one forward
pass for the whole batch), or from the mover's alone with the others sharing the opposite of its value (the
rank reward sums to zero: ``values=mover``, a quarter of the rows at 4 players). A checkpoint with a value per
seat (``network.seat_values``, written by expert iteration) gives them all from the mover's row (``values=seats``).
Where the value has a tower of its own (``network.value_tower``), the prior comes from the policy's extractor on
the movers' rows and the values from the tower's, one more pass over the same rows. A search whose leaves are
valued by rollouts alone reads the prior only (``prior_only``): one row a leaf, and no pass of the value's tower.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from agents.checkpoint import CheckpointSettings
from agents.inference import inference

Values = Literal["views", "mover", "seats"]  # where a leaf's values are read from (the module docstring)


class Evaluator:
    """Priors and per-seat values of a batch of leaves from ``policy`` (a KingdomPolicy) under ``settings``."""

    def __init__(self, settings: CheckpointSettings, policy, values: Values | None = None,
                 prior_only: bool = False) -> None:  # fmt: skip
        self.policy, self.settings = policy, settings
        self.num_players = settings.num_players
        self.seat_head = settings.network.seat_values
        self.values: Values = values or ("seats" if self.seat_head else "views")
        if self.values == "seats" and not self.seat_head:
            raise ValueError(
                "values=seats needs a checkpoint with a value per seat (written by `kdenv train` with trainer: az); "
                "use values=views or values=mover"
            )
        self.prior_only = prior_only
        """The values are not wanted (the search's rollouts alone value its leaves): zeros, and no value pass."""
        self.views = self.num_players if self.values == "views" and not prior_only else 1
        """Rows per leaf: its observation from each seat (views), or the mover's alone."""

    def __call__(self, board: np.ndarray, features: np.ndarray, mask: np.ndarray, movers: np.ndarray):
        """(logits (L, A) float64, illegal at -inf; values (L, P) float64, by seat) of L leaves whose rows are
        ``views`` consecutive observations each, the first from the mover (``movers[k]``), the next from the
        seats after it in order; the values are zeros where ``prior_only``."""
        import torch

        from agents.policy_network import leaf_heads  # torch and SB3 load only when a search evaluates

        n, views = self.num_players, self.views
        leaves = movers.shape[0]
        valued: Literal["all", "movers", "none"] = (
            "none" if self.prior_only else "all" if self.values == "views" else "movers"
        )
        with inference():
            rows = {"board": torch.from_numpy(board), "features": torch.from_numpy(features)}
            latent, outputs = leaf_heads(self.policy, rows, views, valued)
            logits = latent.numpy().astype(np.float64)
            seen = None if outputs is None else outputs.numpy().astype(np.float64)  # (rows, 1) or (leaves, P)
        logits[mask[::views] == 0] = -np.inf
        if seen is None:
            return logits, np.zeros((leaves, n), np.float64)
        if self.values == "seats":
            relative = seen  # (leaves, P): the mover's view of every seat
        else:  # the observer's own value (the first output of a per-seat head)
            relative = seen[:, 0].reshape(leaves, n) if self.values == "views" else _shared(seen[:, 0], n)
        seats = (movers[:, None] + np.arange(n)[None, :]) % n
        values = np.empty((leaves, n), np.float64)
        np.put_along_axis(values, seats, relative, axis=1)
        return logits, values


def _shared(mover: np.ndarray, n: int) -> np.ndarray:
    """(L, n) values relative to the mover: its own, then each other seat's share of the opposite."""
    relative = np.repeat((-mover / (n - 1))[:, None], n, axis=1)
    relative[:, 0] = mover
    return relative
