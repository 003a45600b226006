"""The search tree: decisions (:class:`Node`), finished games (:class:`Leaf`), and the records of a walk down it."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

MAX_DEPTH = 96  # the longest game (2 moves a domino, 48 dominoes)


class Node:
    """A decision: who moves, its legal actions, their priors, visits and summed values per seat, children."""

    __slots__ = ("mover", "actions", "logits", "prior", "visits", "totals", "children", "value", "chance", "drawn",
                 "forced", "plan")  # fmt: skip

    def __init__(self, mover: int, actions: np.ndarray, logits: np.ndarray, value: np.ndarray, chance: bool,
                 drawn: int) -> None:  # fmt: skip
        self.mover, self.actions, self.logits, self.value = mover, actions, logits, value
        self.chance, self.drawn = chance, drawn
        prior = np.exp(logits - logits.max())
        self.prior = prior / prior.sum()
        self.visits = np.zeros(actions.size, np.int64)
        self.totals = np.zeros((actions.size, value.size), np.float64)
        self.children: list = [None] * actions.size  # Node, Leaf, or {line drawn: Node | Leaf} where chance
        self.forced = -1  # the index of the only action searched here (another seat moved by a policy), or -1
        self.plan = -1  # that policy's slot planned with its placement, for its pick


class Leaf:
    """A finished game in the tree: every seat's value of it (the search's ``evaluation``)."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray) -> None:
        self.value = value


class Edge(NamedTuple):
    """A step of a simulation's path: the node and the index of the action taken there."""

    node: Node
    action: int


class Spot(NamedTuple):
    """Where a new node goes: its parent, the action's index, and the line drawn at a chance node (else None). Nodes
    hash by identity, so a spot is a dictionary key: the simulations of a batch that meet there share one leaf."""

    parent: Node
    action: int
    line: tuple[int, ...] | None

    def attach(self, node: Node | Leaf) -> None:
        """Put ``node`` here: the parent's child by the action, and by the line drawn at a chance node."""
        if self.line is None:
            self.parent.children[self.action] = node
        else:
            self.parent.children[self.action][self.line] = node


class Descent(NamedTuple):
    """A simulation walked down the tree: where it ended (a new node's spot, a finished game, or None for the root
    itself), its path (already counted as visited, with the virtual loss), and the deck it dealt."""

    end: Spot | Leaf | None
    path: list[Edge]
    deck: np.ndarray

    def plan(self, mover: int) -> int:
        """The slot that ``mover``'s placement, just made in the parent of the new node, planned for this pick."""
        end = self.end
        return end.parent.plan if isinstance(end, Spot) and end.parent.mover == mover else -1
