"""The eight symmetries of a kingdom: its turns and mirror images about the castle.

Every rule (connection, the S x S bound, Middle Kingdom, Harmony, properties and crowns, the tie-breaks) reads a
kingdom the same way once it is turned or mirrored about its castle, so a position with every kingdom so moved is
worth what the position is, and the image of a good placement is a good placement. Expert iteration learns each
position in one of its eight images drawn at random (AlphaGo Zero's augmentation). A :class:`Symmetry` moves an
observation's board planes (the cells of every plane; the direction planes of the placement among themselves)
and any vector over the action codec (placements move, the discard and the picks stay); the features hold
nothing spatial and stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from kdenv.actions import num_actions
from kdenv.encoding import PLACEMENT_PLANES, PLANES_PER_KINGDOM, num_planes
from kdenv.frame import DIRECTIONS

IMAGES: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = (
    ((1, 0), (0, 1)),  # the identity
    ((0, 1), (-1, 0)),  # a quarter turn
    ((-1, 0), (0, -1)),  # a half turn
    ((0, -1), (1, 0)),  # three quarters
    ((1, 0), (0, -1)),  # mirrored left to right
    ((-1, 0), (0, 1)),  # mirrored top to bottom
    ((0, 1), (1, 0)),  # about the main diagonal
    ((0, -1), (-1, 0)),  # about the other diagonal
)
"""The four turns and four mirror images, each as the 2x2 matrix ((a, b), (c, d)) that moves a castle-relative
(row, column) to (a row + b column, c row + d column)."""


@dataclass(frozen=True, eq=False)
class Symmetry:
    """One symmetry as gather indices: ``image[..., i] = original[..., index[i]]`` over the flat board and the
    action codec."""

    board_index: np.ndarray  # (C * F * F,) into a flat (C, F, F) board
    action_index: np.ndarray  # (A,) into the action codec

    def board(self, board: np.ndarray) -> np.ndarray:
        """The image of boards (..., C, F, F)."""
        flat = board.reshape(*board.shape[:-3], -1)
        return flat[..., self.board_index].reshape(board.shape)

    def actions(self, values: np.ndarray) -> np.ndarray:
        """The image of vectors (..., A) over the action codec: a mask, a policy, logits."""
        return values[..., self.action_index]

    def action(self, action: int) -> int:
        """The image of one action."""
        return int(np.flatnonzero(self.action_index == action)[0])


def _moved(matrix: tuple[tuple[int, int], tuple[int, int]], row: int, column: int) -> tuple[int, int]:
    (a, b), (c, d) = matrix
    return a * row + b * column, c * row + d * column


@cache
def symmetries(num_players: int, kingdom_size: int = 5, gains: bool = False) -> tuple[Symmetry, ...]:
    """The eight symmetries of a table's observations and actions, the identity first."""
    width, centre = 2 * kingdom_size - 1, kingdom_size - 1
    cells, planes = width * width, num_planes(num_players, gains)
    found = []
    for matrix in IMAGES:
        to_cell = np.empty(cells, np.int64)  # cell i's image
        for i in range(cells):
            r, c = _moved(matrix, i // width - centre, i % width - centre)
            to_cell[i] = (r + centre) * width + c + centre
        to_direction = np.array([DIRECTIONS.index(_moved(matrix, *step)) for step in DIRECTIONS], np.int64)
        from_cell, from_direction = np.argsort(to_cell), np.argsort(to_direction)
        from_plane = np.arange(planes)
        for start in range(PLANES_PER_KINGDOM * num_players, planes, PLACEMENT_PLANES):  # placement, then gains
            from_plane[start : start + PLACEMENT_PLANES] = start + from_direction
        board_index = (from_plane[:, None] * cells + from_cell[None, :]).ravel()
        action_index = np.arange(num_actions(kingdom_size))
        action_index[: 4 * cells] = (4 * from_cell[:, None] + from_direction[None, :]).ravel()
        board_index.flags.writeable = action_index.flags.writeable = False  # shared by every caller (cached)
        found.append(Symmetry(board_index, action_index))
    return tuple(found)


def random_images(board: np.ndarray, arrays: list[np.ndarray], table: tuple[Symmetry, ...],
                  rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:  # fmt: skip
    """Each row of ``board`` (N, C, F, F) and of every (N, A) array of ``arrays`` in one symmetry of ``table``,
    drawn for the row."""
    drawn = rng.integers(0, len(table), size=board.shape[0])
    board, arrays = board.copy(), [values.copy() for values in arrays]
    for k, symmetry in enumerate(table):
        rows = np.flatnonzero(drawn == k)
        board[rows] = symmetry.board(board[rows])
        for values in arrays:
            values[rows] = symmetry.actions(values[rows])
    return board, arrays
