"""The learner of expert iteration: supervised updates of the network on the search's targets.

The loss of a position is the cross-entropy of the masked policy to the improved policy, plus ``value_weight``
times the mean squared error of the per-seat value head (``network.seat_values``: output j is seat
(observer + j) % P) to every seat's rank reward. Adam, with a gradient clip.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.policy_network import heads
from training.az.selfplay import Positions

ILLEGAL = -1e9  # the logit of an illegal action: exp() is 0, and 0 * log-probability stays finite


def forward(policy, board, features, mask) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-probabilities (B, A) over the legal actions, per-seat values (B, P)) of a batch of tensors."""
    logits, values = heads(policy, {"board": board, "features": features})
    logits = torch.where(mask, logits, torch.tensor(ILLEGAL, dtype=logits.dtype))
    return torch.log_softmax(logits, dim=1), values


class Learner:
    """Adam on ``policy`` (a KingdomPolicy with a per-seat value head) on ``device``."""

    def __init__(self, policy, learning_rate: float, weight_decay: float, value_weight: float, max_grad_norm: float,
                 device: str = "cpu") -> None:  # fmt: skip
        self.device = torch.device(device)
        self.policy = policy.to(self.device)
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate, weight_decay=weight_decay)
        self.value_weight, self.max_grad_norm = value_weight, max_grad_norm
        self.updates = 0

    def tensors(self, batch: Positions) -> tuple[torch.Tensor, ...]:
        def put(array: np.ndarray, dtype=torch.float32) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(array)).to(self.device, dtype)

        return (put(batch.board), put(batch.features), put(batch.mask, torch.bool), put(batch.policy),
                put(batch.values))  # fmt: skip

    def update(self, batch: Positions) -> dict[str, float]:
        """One gradient step on ``batch``; its losses."""
        board, features, mask, target, values = self.tensors(batch)
        self.policy.set_training_mode(True)
        log_p, predicted = forward(self.policy, board, features, mask)
        policy_loss = -(target * log_p).sum(dim=1).mean()
        value_loss = torch.nn.functional.mse_loss(predicted, values)
        loss = policy_loss + self.value_weight * value_loss
        self.optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
        self.optimizer.step()
        self.policy.set_training_mode(False)
        self.updates += 1
        entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(dim=1).mean()
        return {
            "loss/policy": float(policy_loss.detach()),
            "loss/value": float(value_loss.detach()),
            "loss/policy_kl": float(
                (policy_loss - entropy).detach()
            ),  # the cross-entropy less the targets' own entropy
        }

    def weights(self) -> dict:
        """The network's weights on the CPU (for self-play, checkpoints, evaluation)."""
        return {key: value.detach().to("cpu").clone() for key, value in self.policy.state_dict().items()}


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    """The mean of each loss over a list of updates."""
    return {key: float(np.mean([row[key] for row in rows])) for key in rows[0]} if rows else {}
