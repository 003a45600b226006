"""One player's kingdom as Python-int bitboards: legal placements, placing, and scoring.

A kingdom keeps, besides the squares, the cells each terrain's dominoes may connect to
(the neighbours of that terrain and of the castle) and the window of cells that keeps it
within S x S, so that finding every legal placement is a few dozen integer operations.
"""

from __future__ import annotations

from typing import NamedTuple

from kdenv.frame import DIRECTIONS, Frame, frame
from kdenv.tiles import DOMINOES, NUM_TERRAINS, TERRAIN_LETTERS, parse_half

HALVES: tuple[tuple[int, int, int, int], ...] = (
    (0, 0, 0, 0),
    *((d.a.terrain, d.a.crowns, d.b.terrain, d.b.crowns) for d in DOMINOES),
)
"""HALVES[n] = (terrain A, crowns A, terrain B, crowns B) of domino n (index 0 unused)."""


def max_score(kingdom_size: int) -> int:
    """A bound on a kingdom's property score: each terrain's squares times every crown that terrain has on the 48
    dominoes, the S * S - 1 squares going to the terrains with the most crowns first (the bound of every score and
    gain an observation holds: 168 at 5x5, 312 at 7x7)."""
    squares, crowns = [0] * NUM_TERRAINS, [0] * NUM_TERRAINS
    for ta, ca, tb, cb in HALVES[1:]:
        squares[ta], crowns[ta] = squares[ta] + 1, crowns[ta] + ca
        squares[tb], crowns[tb] = squares[tb] + 1, crowns[tb] + cb
    left, total = kingdom_size * kingdom_size - 1, 0
    for t in sorted(range(NUM_TERRAINS), key=lambda t: -crowns[t]):
        taken = min(squares[t], left)
        total, left = total + taken * crowns[t], left - taken
    return total


def placement_actions(masks: tuple[int, int, int, int]) -> list[int]:
    """The placement actions (see kdenv.actions) of four half-A masks, one per direction."""
    actions = []
    for d, mask in enumerate(masks):
        while mask:
            low = mask & -mask
            actions.append(4 * low.bit_length() - 4 + d)
            mask ^= low
    return actions


class Property(NamedTuple):
    """A maximal connected group of one terrain: it scores squares x crowns."""

    terrain: int
    squares: int
    crowns: int
    cells: int

    @property
    def score(self) -> int:
        return self.squares * self.crowns


class Kingdom:
    """The squares of one kingdom, castle at the centre of its frame."""

    __slots__ = ("frame", "occupied", "terrain", "crowns", "reach", "window", "discards", "placed")

    def __init__(self, size: int = 5) -> None:
        f = frame(size)
        self.frame: Frame = f
        self.occupied = f.castle_bit
        self.terrain = [0] * NUM_TERRAINS
        self.crowns = [0, 0, 0, 0]  # crowns[k]: cells with exactly k crowns (k = 1..3)
        self.reach = [f.cell_neighbours[f.castle_index]] * NUM_TERRAINS  # where a half of terrain t connects
        self.window = f.cell_window[f.castle_index] & ~f.castle_bit  # empty cells that keep it S x S
        self.discards = 0
        self.placed = 0

    def copy(self) -> Kingdom:
        k = Kingdom.__new__(Kingdom)
        k.frame = self.frame
        k.occupied = self.occupied
        k.terrain = self.terrain[:]
        k.crowns = self.crowns[:]
        k.reach = self.reach[:]
        k.window = self.window
        k.discards = self.discards
        k.placed = self.placed
        return k

    # ----- legal placements -------------------------------------------------------------
    def placement_masks(self, number: int) -> tuple[int, int, int, int]:
        """For each direction d, the cells where half A of domino ``number`` may go with half B
        one step in direction d: both cells empty and inside the window, one half connected."""
        ta, _, tb, _ = HALVES[number]
        f = self.frame
        free, w = self.window, f.width
        ra, rb = self.reach[ta], self.reach[tb]
        return (
            free & (free >> 1) & f.not_last_col & (ra | (rb >> 1)),
            free & (free >> w) & (ra | (rb >> w)),
            free & (free << 1) & f.not_first_col & (ra | (rb << 1)),
            free & (free << w) & (ra | (rb << w)),
        )

    def legal_placements(self, number: int) -> list[int]:
        """Every legal placement of domino ``number`` as action integers (see kdenv.actions)."""
        return placement_actions(self.placement_masks(number))

    def can_place(self, number: int) -> bool:
        e, s, w, n = self.placement_masks(number)
        return bool(e or s or w or n)

    def why_not(self, number: int, action: int) -> str:
        """The reason placement ``action`` of domino ``number`` is illegal ('' if it is legal)."""
        f = self.frame
        cell, d = divmod(action, 4)
        fr, fc = divmod(cell, f.width)
        dr, dc = DIRECTIONS[d]
        if not (0 <= fr + dr < f.width and 0 <= fc + dc < f.width):
            return "half B would be off the frame"
        a, b = 1 << cell, 1 << (cell + dr * f.width + dc)
        if (a | b) & self.occupied:
            return "a cell is already occupied"
        if not (a & self.window and b & self.window):
            return f"the kingdom would no longer fit in {f.size}x{f.size}"
        ta, _, tb, _ = HALVES[number]
        if not (a & self.reach[ta] or b & self.reach[tb]):
            return "neither half touches the castle or a square of its own terrain"
        return ""

    # ----- changing the kingdom ------------------------------------------------------------
    def place(self, number: int, action: int) -> tuple[int, int]:
        """Place domino ``number`` by a placement action assumed legal; returns the two cell indices."""
        f = self.frame
        cell_a = action >> 2
        cell_b = cell_a + f.steps[action & 3]
        ta, ca, tb, cb = HALVES[number]
        a, b = 1 << cell_a, 1 << cell_b
        self.occupied |= a | b
        terrain, reach, nbr = self.terrain, self.reach, f.cell_neighbours
        terrain[ta] |= a
        terrain[tb] |= b
        reach[ta] |= nbr[cell_a]
        reach[tb] |= nbr[cell_b]
        if ca:
            self.crowns[ca] |= a
        if cb:
            self.crowns[cb] |= b
        self.window &= f.cell_window[cell_a] & f.cell_window[cell_b] & ~(a | b)
        self.placed += 1
        return cell_a, cell_b

    def put(self, cell: int, terrain: int, crowns: int) -> None:
        """Lay one square (no legality check): used to build boards in tests and pictures."""
        f = self.frame
        bit = 1 << cell
        self.occupied |= bit
        self.terrain[terrain] |= bit
        if crowns:
            self.crowns[crowns] |= bit
        self.reach[terrain] |= f.cell_neighbours[cell]
        self.window &= f.cell_window[cell] & ~bit

    @property
    def box(self) -> tuple[int, int, int, int]:
        """Bounding box of the squares, castle included: (min row, max row, min col, max col) in frame cells."""
        f = self.frame
        rows = [r for r in range(f.width) if self.occupied & f.row_span[r][r]]
        cols = [c for c in range(f.width) if self.occupied & f.col_span[c][c]]
        return rows[0], rows[-1], cols[0], cols[-1]

    # ----- scoring ---------------------------------------------------------------------------
    def properties(self) -> list[Property]:
        """Every property (maximal connected one-terrain group), crowned or not."""
        f = self.frame
        found = []
        for t, left in enumerate(self.terrain):
            while left:
                comp = f.component(left & -left, left)
                left ^= comp
                found.append(Property(t, comp.bit_count(), self.crowns_on(comp), comp))
        return found

    def property_score(self) -> int:
        """Sum over properties of squares x crowns (no variant bonus); floods only crowned properties."""
        f = self.frame
        crowned = self.crowns[1] | self.crowns[2] | self.crowns[3]
        total = 0
        for squares in self.terrain:
            seeds = squares & crowned
            while seeds:
                comp = f.component(seeds & -seeds, squares)
                seeds &= ~comp
                total += comp.bit_count() * self.crowns_on(comp)
        return total

    def gain(self, number: int, action: int) -> int:
        """The property score that placing domino ``number`` by legal placement ``action`` would add."""
        return self._score_after(number, action) - self.property_score()

    def gains(self, number: int) -> dict[int, int]:
        """The gain of every legal placement of domino ``number`` (the kingdom is scored once, not per placement)."""
        before = self.property_score()
        return {action: self._score_after(number, action) - before for action in self.legal_placements(number)}

    def best_gain(self, number: int) -> int:
        """The most property score domino ``number`` could add here (0 if it cannot be placed)."""
        return max(self.gains(number).values(), default=0)

    def _score_after(self, number: int, action: int) -> int:
        after = self.copy()
        after.place(number, action)
        return after.property_score()

    def crowns_on(self, cells: int) -> int:
        """The crowns on the squares ``cells`` (a frame bitboard)."""
        c = self.crowns
        return (cells & c[1]).bit_count() + 2 * (cells & c[2]).bit_count() + 3 * (cells & c[3]).bit_count()

    def largest_property(self) -> int:
        """Squares of the largest property, crowns ignored (the first tie-break)."""
        return max((p.squares for p in self.properties()), default=0)

    def total_crowns(self) -> int:
        """All crowns in the kingdom (the second tie-break)."""
        return self.crowns_on(self.occupied)

    def is_centred(self) -> bool:
        """Middle Kingdom: every square within S//2 rows and columns of the castle."""
        return not self.occupied & ~self.frame.middle

    def is_complete(self) -> bool:
        """Every square of the S x S kingdom filled."""
        return self.occupied.bit_count() == self.frame.size**2

    def cell_at(self, row: int, col: int) -> tuple[int, int] | None:
        """(terrain, crowns) of a castle-relative cell; None if empty, (-1, 0) for the castle."""
        bit = 1 << self.frame.cell(row, col)
        if bit == self.frame.castle_bit:
            return (-1, 0)
        if not bit & self.occupied:
            return None
        terrain = next(t for t, b in enumerate(self.terrain) if b & bit)
        return terrain, next((k for k in (1, 2, 3) if self.crowns[k] & bit), 0)

    # ----- pictures for people and tests ----------------------------------------------------
    def to_ascii(self) -> str:
        """The bounding box as rows of tokens: `C` castle, `.` empty, terrain letter + crowns."""
        r0, r1, c0, c1 = self.box
        c = self.frame.centre
        rows = []
        for r in range(r0 - c, r1 - c + 1):
            tokens = []
            for col in range(c0 - c, c1 - c + 1):
                content = self.cell_at(r, col)
                if content is None:
                    tokens.append(".")
                elif content[0] < 0:
                    tokens.append("C")
                else:
                    tokens.append(TERRAIN_LETTERS[content[0]] + (str(content[1]) if content[1] else ""))
            rows.append(" ".join(f"{t:<2}" for t in tokens).rstrip())
        return "\n".join(rows)

    @classmethod
    def from_ascii(cls, picture: str, size: int = 5) -> Kingdom:
        """Build a kingdom from rows of whitespace-separated tokens with exactly one `C`.

        Squares are laid one by one, so the picture need not come from legal play.
        """
        rows = [line.split() for line in picture.strip("\n").splitlines() if line.strip()]
        castles = [(r, c) for r, row in enumerate(rows) for c, tok in enumerate(row) if tok == "C"]
        if len(castles) != 1:
            raise ValueError("a kingdom picture needs exactly one castle 'C'")
        cr, cc = castles[0]
        kingdom = cls(size)
        for r, row in enumerate(rows):
            for c, tok in enumerate(row):
                if tok not in ("C", "."):
                    half = parse_half(tok)
                    kingdom.put(kingdom.frame.cell(r - cr, c - cc), half.terrain, half.crowns)
        return kingdom

    def __repr__(self) -> str:
        return f"Kingdom(size={self.frame.size})\n{self.to_ascii()}"
