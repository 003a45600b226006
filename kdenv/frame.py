"""Bitboard geometry of the F x F frame around a castle (F = 2S - 1 for kingdom size S).

Cell (fr, fc) of the frame is bit ``fr * F + fc``; the castle sits on the centre cell.
Every legal kingdom fits in the frame whatever square of the kingdom the castle is on.
"""

from __future__ import annotations

from functools import cache

EAST, SOUTH, WEST, NORTH = range(4)
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
"""(row, col) step of each direction, indexed as in the action codec."""


class Frame:
    """Precomputed masks for one kingdom size; shared by every kingdom of that size."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.width = width = 2 * size - 1
        self.cells = width * width
        self.all = (1 << self.cells) - 1
        self.centre = size - 1
        self.steps = tuple(dr * width + dc for dr, dc in DIRECTIONS)  # bit step from half A to half B
        self.castle_index = self.centre * width + self.centre
        self.castle_bit = 1 << self.castle_index
        col0 = sum(1 << (r * width) for r in range(width))
        self.not_first_col = self.all & ~col0
        self.not_last_col = self.all & ~(col0 << (width - 1))
        row0 = (1 << width) - 1
        rows = [row0 << (r * width) for r in range(width)]
        cols = [col0 << c for c in range(width)]
        # span[lo][hi]: the rows (cols) lo..hi inclusive.
        self.row_span = [[sum(rows[lo : hi + 1]) for hi in range(width)] for lo in range(width)]
        self.col_span = [[sum(cols[lo : hi + 1]) for hi in range(width)] for lo in range(width)]
        # Per cell: its neighbours, and the cells within S-1 rows and columns of it. A kingdom fits
        # S x S exactly when every square lies in the cell window of every other, so the cells a
        # kingdom may still grow into are the intersection of its squares' cell windows.
        self.cell_neighbours = [self.neighbours(1 << i) for i in range(self.cells)]
        self.cell_window = [self.window(i // width, i // width, i % width, i % width) for i in range(self.cells)]
        lo, hi = self.centre - size // 2, self.centre + size // 2
        self.middle = self.row_span[lo][hi] & self.col_span[lo][hi]  # Middle Kingdom: castle-centred S x S

    def neighbours(self, bits: int) -> int:
        """The cells orthogonally adjacent to any cell of ``bits`` (may include ``bits``)."""
        w = self.width
        return (
            ((bits << 1) & self.not_first_col)
            | ((bits >> 1) & self.not_last_col)
            | ((bits << w) & self.all)
            | (bits >> w)
        )

    def window(self, minr: int, maxr: int, minc: int, maxc: int) -> int:
        """Cells a new square may take so that the kingdom with bounding box given still fits S x S."""
        s1, last = self.size - 1, self.width - 1
        rows = self.row_span[max(0, maxr - s1)][min(last, minr + s1)]
        return rows & self.col_span[max(0, maxc - s1)][min(last, minc + s1)]

    def component(self, seed: int, within: int) -> int:
        """The orthogonally connected part of ``within`` that contains ``seed``."""
        comp = seed
        while True:
            grown = (self.neighbours(comp) & within) | comp
            if grown == comp:
                return comp
            comp = grown

    def cell(self, row: int, col: int) -> int:
        """Bit index of the castle-relative cell (row, col); raises if it is off the frame."""
        fr, fc = row + self.centre, col + self.centre
        if not (0 <= fr < self.width and 0 <= fc < self.width):
            raise ValueError(f"cell ({row}, {col}) is off the {self.width}x{self.width} frame")
        return fr * self.width + fc

    def coords(self, index: int) -> tuple[int, int]:
        """Castle-relative (row, col) of bit index ``index``."""
        fr, fc = divmod(index, self.width)
        return fr - self.centre, fc - self.centre


@cache
def frame(size: int) -> Frame:
    """The shared Frame for kingdoms of ``size`` (5, or 7 in Mighty Duel)."""
    return Frame(size)
