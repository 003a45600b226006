"""Which way a simulation goes: PUCT at a decision, a line at a chance node, and PUCT's root action by visits."""

from __future__ import annotations

import math

import numpy as np

from agents.az_search.qtransforms import completed_q
from agents.az_search.tree import Node


def puct(node: Node, c_puct: float) -> int:
    """PUCT: the action of the best Q (the mover's; unvisited: the node's value) plus exploration."""
    visits = node.visits
    if visits.size == 1:
        return 0
    if node.forced >= 0:
        return node.forced
    q = np.where(visits > 0, node.totals[:, node.mover] / np.maximum(visits, 1), node.value[node.mover])
    u = c_puct * node.prior * math.sqrt(visits.sum() + 1) / (1 + visits)
    return int(np.argmax(q + u))


def chance_line(deck: np.ndarray, drawn: int, lines: dict, kings: int, most: int, rng: np.random.Generator
                ) -> tuple[int, ...]:  # fmt: skip
    """The line (sorted) a simulation draws at a chance node that holds ``lines``: its deck's next (held at once, its
    node to come), or, once the node holds ``most`` of them (0: no most), one of those at random, moved to the
    deck's front."""
    if not most or len(lines) < most:
        line = tuple(sorted(deck[drawn : drawn + kings].tolist()))
        lines.setdefault(line, None)  # counted before the batch's leaves are made
        return line
    keys = list(lines)
    line = keys[int(rng.integers(len(keys)))]
    for k, domino in enumerate(line):
        j = drawn + k + int(np.flatnonzero(deck[drawn + k :] == domino)[0])
        deck[drawn + k], deck[j] = deck[j], deck[drawn + k]
    return line


def by_visits(root: Node, sample: bool, rng: np.random.Generator) -> int:
    """PUCT's root action: drawn in proportion to the visits with ``sample``, else the most visited (of those, the
    best completed Q)."""
    if sample:
        return int(rng.choice(root.actions.size, p=root.visits / root.visits.sum()))
    return int(np.lexsort((-completed_q(root), -root.visits))[0])
