"""Incremental scoring for greedy players: the score a domino adds, from per-terrain gain tables.

Laying a square of terrain t with c crowns on empty cell x joins the properties of t next to x.
If those hold S squares, C crowns and score P, the kingdom's property score changes by
``(S + 1) * (C + c) - P``. A :class:`TerrainTable` keeps, for one terrain's squares, each cell's
``(S + 1) * C - P`` and ``S + 1`` (so the change is ``base + c * mult``) and which properties it
touches (needed when both halves are of the same terrain). Only the properties touching the new
squares change, so a placement is scored with a few list look-ups instead of re-scoring the kingdom.
"""

from __future__ import annotations

from kdenv.frame import Frame, frame
from kdenv.kingdom import HALVES, Kingdom

_TABLE_CACHE_LIMIT = 20_000  # about 2 kB a table


def _totals(ids: int, sizes: list[int], crowns: list[int]) -> tuple[int, int, int]:
    """Squares, crowns and score (squares x crowns) of the properties whose bits are set in ``ids``."""
    squares = total_crowns = score = 0
    j = 0
    while ids:
        if ids & 1:
            squares += sizes[j]
            total_crowns += crowns[j]
            score += sizes[j] * crowns[j]
        ids >>= 1
        j += 1
    return squares, total_crowns, score


class TerrainTable:
    """The properties of one terrain and, per cell, the gain of laying a square of it there."""

    __slots__ = ("comps", "sizes", "crowns", "nbs", "base", "mult", "ids")

    def __init__(self, f: Frame, comps: list[int], sizes: list[int], crowns: list[int], nbs: list[int]) -> None:
        self.comps, self.sizes, self.crowns, self.nbs = comps, sizes, crowns, nbs
        n = f.cells
        base, mult, ids = [0] * n, [1] * n, [0] * n
        for i, nb in enumerate(nbs):
            s, c, bit = sizes[i], crowns[i], 1 << i
            while nb:
                low = nb & -nb
                x = low.bit_length() - 1
                nb ^= low
                if ids[x]:
                    # a second property next to x: recompute from the union of all of them
                    ids[x] |= bit
                    ss, cc, pp = _totals(ids[x], sizes, crowns)
                    mult[x] = ss + 1
                    base[x] = (ss + 1) * cc - pp
                else:
                    ids[x] = bit
                    mult[x] = s + 1
                    base[x] = (s + 1) * c - s * c
        self.base, self.mult, self.ids = base, mult, ids

    def pair_gain(self, a: int, b: int, crowns: int) -> int:
        """Score change of laying two adjacent squares a, b of this terrain carrying ``crowns`` in all."""
        ss, cc, pp = _totals(self.ids[a] | self.ids[b], self.sizes, self.crowns)
        return (ss + 2) * (cc + crowns) - pp

    def with_square(self, f: Frame, x: int, crowns_x: int, y: int = -1, crowns_y: int = 0) -> TerrainTable:
        """The table after laying square x (and y, if given, adjacent to x) of this terrain."""
        touched = self.ids[x] | (self.ids[y] if y >= 0 else 0)
        bits = 1 << x
        if y >= 0:
            bits |= 1 << y
        size = bits.bit_count()
        crowns = crowns_x + crowns_y
        comps, sizes, crs, nbs = [], [], [], []
        for j, comp in enumerate(self.comps):
            if touched >> j & 1:
                bits |= comp
                size += self.sizes[j]
                crowns += self.crowns[j]
            else:
                comps.append(comp)
                sizes.append(self.sizes[j])
                crs.append(self.crowns[j])
                nbs.append(self.nbs[j])
        comps.append(bits)
        sizes.append(size)
        crs.append(crowns)
        nbs.append(f.neighbours(bits) & ~bits)
        return TerrainTable(f, comps, sizes, crs, nbs)


def terrain_table(kingdom: Kingdom, terrain: int, cache: dict | None = None) -> TerrainTable:
    """The gain table of one terrain of ``kingdom`` (memoised in ``cache`` by the squares and crowns)."""
    bits = kingdom.terrain[terrain]
    c1, c2, c3 = kingdom.crowns[1] & bits, kingdom.crowns[2] & bits, kingdom.crowns[3] & bits
    key = (kingdom.frame.size, bits, c1, c2, c3)
    if cache is not None:
        table = cache.get(key)
        if table is not None:
            return table
    f = kingdom.frame
    comps, sizes, crs, nbs = [], [], [], []
    left = bits
    while left:
        comp = f.component(left & -left, left)
        left ^= comp
        comps.append(comp)
        sizes.append(comp.bit_count())
        crs.append((comp & c1).bit_count() + 2 * (comp & c2).bit_count() + 3 * (comp & c3).bit_count())
        nbs.append(f.neighbours(comp) & ~comp)
    table = TerrainTable(f, comps, sizes, crs, nbs)
    if cache is not None:
        if len(cache) > _TABLE_CACHE_LIMIT:
            cache.clear()
        cache[key] = table
    return table


def placement_gain(tables: list[TerrainTable], number: int, a: int, b: int) -> int:
    """Property-score change of laying domino ``number`` with half A on cell a and half B on cell b."""
    ta, ca, tb, cb = HALVES[number]
    if ta == tb:
        return tables[ta].pair_gain(a, b, ca + cb)
    t, u = tables[ta], tables[tb]
    return t.base[a] + ca * t.mult[a] + u.base[b] + cb * u.mult[b]


def joined_squares(tables: list[TerrainTable], number: int, a: int, b: int) -> int:
    """Squares of the largest property that domino ``number`` ends up in, laid on cells a (half A) and b."""
    ta, _, tb, _ = HALVES[number]
    if ta == tb:
        t = tables[ta]
        return _totals(t.ids[a] | t.ids[b], t.sizes, t.crowns)[0] + 2
    return max(tables[ta].mult[a], tables[tb].mult[b])


def centred_masks(size: int) -> tuple[int, tuple[int, int, int, int]]:
    """The S x S window centred on the castle, and per direction the half-A cells of dominoes inside it."""
    if size not in _CENTRED:
        f = frame(size)
        window, w = f.middle, f.width
        pairs = (
            window & (window >> 1) & f.not_last_col,
            window & (window >> w),
            window & (window << 1) & f.not_first_col,
            window & (window << w) & f.all,
        )
        _CENTRED[size] = (window, pairs)
    return _CENTRED[size]


_CENTRED: dict[int, tuple[int, tuple[int, int, int, int]]] = {}


def hole_masks(f: Frame, empty: int) -> tuple[int, int, int, int]:
    """Per direction, the half-A cells of placements that would leave a single-square hole.

    ``empty`` is the set of cells still to fill. A hole appears when a placement fills the only
    empty neighbour of an empty cell that is not itself covered by the domino.
    """
    w, nfc, nlc, full = f.width, f.not_first_col, f.not_last_col, f.all
    # cells whose east / south / west / north neighbour is empty
    e, s, wst, n = (empty >> 1) & nlc, empty >> w, (empty << 1) & nfc, (empty << w) & full
    odd = e ^ s ^ wst ^ n
    two = (e & s) | (e & wst) | (e & n) | (s & wst) | (s & n) | (wst & n)
    lone = empty & odd & ~two  # empty cells with exactly one empty neighbour
    # cells that have a lone cell as east / south / west / north neighbour
    le, ls, lw, ln = (lone >> 1) & nlc, lone >> w, (lone << 1) & nfc, (lone << w) & full
    not_e, not_s, not_w, not_n = ls | lw | ln, le | lw | ln, le | ls | ln, le | ls | lw
    # half B is east of A: bad if A has a lone neighbour other than B, or B one other than A
    return (
        not_e | ((not_w >> 1) & nlc),
        not_s | (not_n >> w),
        not_w | ((not_e << 1) & nfc),
        not_n | ((not_s << w) & full),
    )
