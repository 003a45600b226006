"""The root's Q-values made into a policy: Q completed by the mixed value, sigma(q), the improved and tilted policies
(mctx's ``qtransform_completed_by_mix_value`` and Gumbel MuZero's policy improvement)."""

from __future__ import annotations

import numpy as np

from agents.az_search.tree import Node
from agents.search_settings import Settings


def completed_q(node: Node) -> np.ndarray:
    """The mover's Q of each action, the unvisited completed by the mixed value (mctx's rule: the node's value
    and the prior-weighted mean Q of the visited actions, weighted 1 and their visits)."""
    visits, mover = node.visits, node.mover
    q = node.totals[:, mover] / np.maximum(visits, 1)
    visited = visits > 0
    total = visits.sum()
    mixed = node.value[mover]
    if total:
        weights = node.prior[visited]
        mixed = (mixed + total * (weights * q[visited]).sum() / weights.sum()) / (total + 1)
    return np.where(visited, q, mixed)


def sigma(node: Node, q: np.ndarray, settings: Settings) -> np.ndarray:
    """sigma(q): ``q`` rescaled to [0, 1] over the node's actions, times (c_visit + max visits) * c_scale."""
    low, high = q.min(), q.max()
    scaled = (q - low) / max(high - low, 1e-8)
    return (settings.c_visit + node.visits.max()) * settings.c_scale * scaled


def improved_policy(node: Node, settings: Settings) -> np.ndarray:
    """softmax(logits + sigma(completed Q)): the policy the search improves the prior into."""
    return _softmax(node.logits + sigma(node, completed_q(node), settings))


def tilted_policy(node: Node, temperature: float) -> np.ndarray:
    """softmax(logits + completed Q / temperature): the prior tilted by the Q-values on the evaluation's own scale
    (rank: +1 first ... -1 last).
    Unlike sigma's rescaling to [0, 1], the tilt grows with how far the Q-values differ, so a few rollouts'
    noise between near-equal actions moves it little (a target for learning, as in MPO's and AWR's)."""
    return _softmax(node.logits + completed_q(node) / temperature)


def _softmax(logits: np.ndarray) -> np.ndarray:
    policy = np.exp(logits - logits.max())
    return policy / policy.sum()
