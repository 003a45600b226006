"""The compiled policies' scratch arrays, and what they read of a game: the acting king's kingdom and the next
line's free slots."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kdenv.batched.grid import CASTLE
from kdenv.batched.jit import jit
from kdenv.batched.machine import HELD, KING, QUEUE

NONE = -(1 << 30)  # the value of no placement at all


class Workspace(NamedTuple):
    """Scratch arrays of the policies, one set for every game in turn (``cells``: the frame's cells). Rows of two
    are the kingdom now and after placing the held domino."""

    held: np.ndarray  # (4 cells,) the held domino's placements (or a random move's)
    picked: np.ndarray  # (4 cells,) the picked domino's placements
    fill: np.ndarray  # (cells,) 1 on the cells still to fill
    lone: np.ndarray  # (cells,) 1 on the cells to fill next to a single other cell to fill
    labels: np.ndarray  # (2, cells) the index of each cell's property
    sizes: np.ndarray  # (2, cells + 1) each property's squares
    property_crowns: np.ndarray  # (2, cells + 1) each property's crowns
    stack: np.ndarray  # (cells,) the flood fill's stack
    after_terrain: np.ndarray  # (cells,) the kingdom after placing the held domino: terrain
    after_crowns: np.ndarray  # (cells,) where placing writes the domino's crowns (unread: relabel counts them)
    after_reach: np.ndarray  # (terrains, cells) bool: its reach
    after_box: np.ndarray  # (4,) its bounding box
    gains: np.ndarray  # (4 cells,) the score each of the held domino's placements adds
    picked_gains: np.ndarray  # (4 cells,) the score each of the picked domino's placements adds
    merged: np.ndarray  # (cells + 1,) bool: the properties a new square absorbs
    best: np.ndarray  # (16 cells, 2) the best (action, slot) pairs found
    leans: np.ndarray  # (16 cells,) how much the tie-break favours each of them


@jit
def workspace(cells):
    """Room for the policies' scratch arrays (:class:`Workspace`)."""
    return Workspace(
        np.zeros(4 * cells, dtype=np.int64),
        np.zeros(4 * cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros((2, cells), dtype=np.int64),
        np.zeros((2, cells + 1), dtype=np.int64),
        np.zeros((2, cells + 1), dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros(cells, dtype=np.int64),
        np.zeros((CASTLE, cells), dtype=np.bool_),
        np.zeros(4, dtype=np.int64),
        np.zeros(4 * cells, dtype=np.int64),
        np.zeros(4 * cells, dtype=np.int64),
        np.zeros(cells + 1, dtype=np.bool_),
        np.zeros((16 * cells, 2), dtype=np.int64),
        np.zeros(16 * cells, dtype=np.int64),
    )


@jit(inline=True)
def acting_kingdom(g, i):
    """(domino held, terrain, crowns, reach, box, discards) of the acting king's kingdom in game ``i``."""
    p = g.draft[i, QUEUE, g.counters[i, KING]]
    number = g.draft[i, HELD, g.counters[i, KING]]
    return number, g.terrain[i, p], g.crowns[i, p], g.reach[i, p], g.box[i, p], g.discards[i, p]


@jit(inline=True)
def free_slots(claims, size):
    """How many slots of the next line no king has claimed."""
    free = 0
    for k in range(size):
        free += claims[k] < 0
    return free
