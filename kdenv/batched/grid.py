"""Kingdoms as grids, compiled: placing, legal placements, properties and scores.

A kingdom is four arrays over the F x F frame: ``terrain`` (EMPTY, a terrain 0..5, or CASTLE per cell),
``crowns``, ``reach`` (per terrain, the cells where a half of it connects: next to that terrain or to
the castle) and ``box`` (min row, max row, min col, max col of its squares). The engine's
:class:`kdenv.kingdom.Kingdom` is the same kingdom as bitboards; the tests keep the two equal.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kdenv.batched.jit import jit
from kdenv.tiles import NUM_TERRAINS

EMPTY, CASTLE = -1, 6  # grid codes besides the terrains 0..5
assert CASTLE == NUM_TERRAINS


@jit
def clear(terrain, crowns, reach, box, t):
    """Make a kingdom of the castle alone."""
    terrain[:] = EMPTY
    crowns[:] = 0
    reach[:, :] = False
    box[0], box[1], box[2], box[3] = t.width, -1, t.width, -1
    _lay(terrain, crowns, reach, box, t, t.castle, CASTLE, 0)


@jit
def prepare(terrain, t):
    """Every kingdom's reach and box, from its terrain grid (rows of ``terrain`` are kingdoms)."""
    players, cells = terrain.shape
    reach = np.zeros((players, CASTLE, cells), dtype=np.bool_)
    box = np.empty((players, 4), dtype=np.int64)
    for p in range(players):
        box[p, 0], box[p, 1], box[p, 2], box[p, 3] = t.width, -1, t.width, -1
        for cell in range(cells):
            if terrain[p, cell] != EMPTY:
                _touch(reach[p], box[p], t, cell, terrain[p, cell])
    return reach, box


@jit(inline=True)
def _touch(reach, box, t, cell, terrain):
    """Record a square of ``terrain`` on ``cell`` in the reach and the box."""
    r, c = cell // t.width, cell % t.width
    box[0], box[1] = min(box[0], r), max(box[1], r)
    box[2], box[3] = min(box[2], c), max(box[3], c)
    for d in range(4):
        nb = t.neighbours[cell, d]
        if nb >= 0:
            if terrain == CASTLE:
                reach[:, nb] = True
            else:
                reach[terrain, nb] = True


@jit(inline=True)
def _lay(terrain, crowns, reach, box, t, cell, kind, k):
    terrain[cell] = kind
    crowns[cell] = k
    _touch(reach, box, t, cell, kind)


@jit(inline=True)
def cells_of(action, t):
    """(half A cell, half B cell) of a placement action."""
    a = action >> 2
    return a, a + t.steps[action & 3]


@jit(inline=True)
def place(terrain, crowns, reach, box, t, number, action):
    """Lay domino ``number`` by placement ``action`` (assumed legal)."""
    a, b = cells_of(action, t)
    h = t.halves
    _lay(terrain, crowns, reach, box, t, a, h[number, 0], h[number, 1])
    _lay(terrain, crowns, reach, box, t, b, h[number, 2], h[number, 3])


@jit(inline=True)
def window(box, t):
    """(first row, last row, first col, last col) a square may take and keep the kingdom within S x S."""
    size, last = t.size, t.width - 1
    return (
        max(0, box[1] - size + 1),
        min(last, box[0] + size - 1),
        max(0, box[3] - size + 1),
        min(last, box[2] + size - 1),
    )


@jit(inline=True)
def placements(terrain, reach, box, t, number, out):
    """Write the legal placement actions of domino ``number`` to ``out`` (cell-major); their count.

    Both cells empty and inside the window, and half A next to its terrain or the castle, or half B
    next to its own (a domino within the window's rows and columns keeps the kingdom S x S)."""
    width = t.width
    ta, tb = t.halves[number, 0], t.halves[number, 2]
    r_lo, r_hi, c_lo, c_hi = window(box, t)
    count = 0
    for r in range(r_lo, r_hi + 1):
        for c in range(c_lo, c_hi + 1):
            a = r * width + c
            if terrain[a] != EMPTY:
                continue
            near_a = reach[ta, a]
            if c < c_hi and terrain[a + 1] == EMPTY and (near_a or reach[tb, a + 1]):
                out[count] = 4 * a
                count += 1
            if r < r_hi and terrain[a + width] == EMPTY and (near_a or reach[tb, a + width]):
                out[count] = 4 * a + 1
                count += 1
            if c > c_lo and terrain[a - 1] == EMPTY and (near_a or reach[tb, a - 1]):
                out[count] = 4 * a + 2
                count += 1
            if r > r_lo and terrain[a - width] == EMPTY and (near_a or reach[tb, a - width]):
                out[count] = 4 * a + 3
                count += 1
    return count


@jit(inline=True)
def centred(terrain, t):
    """Every square within the S x S window centred on the castle (Middle Kingdom)."""
    for cell in range(t.cells):  # noqa: SIM110 (numba compiles loops, not generators)
        if terrain[cell] != EMPTY and not t.middle[cell]:
            return False
    return True


@jit(inline=True)
def occupied(terrain):
    """Squares of the kingdom, castle included."""
    count = np.int64(0)  # not a literal 0: numba's first pass would type it Literal[int](0), and compile the
    # jitted functions it is passed to for that type as well
    for cell in range(terrain.shape[0]):
        count += terrain[cell] != EMPTY
    return count


@jit(inline=True)
def middle_bonus(t, is_centred):
    """The Middle Kingdom bonus of a kingdom (0 when the variant is off)."""
    return t.middle_bonus if is_centred else 0


@jit(inline=True)
def harmony_bonus(t, squares, discards):
    """The Harmony bonus of a kingdom of ``squares`` squares (castle included) after ``discards`` discards."""
    return t.harmony_bonus if discards == 0 and squares == t.size * t.size else 0


@jit
def bonuses(terrain, discards, t):
    """The variant bonuses a kingdom earns now, as ``Rules.bonuses``."""
    return middle_bonus(t, centred(terrain, t)) + harmony_bonus(t, occupied(terrain), discards)


@jit
def label(terrain, crowns, labels, sizes, crs, stack, t):
    """Index the properties: ``labels[cell]`` (-1 on empty cells and the castle), squares and crowns per
    index; returns how many there are."""
    labels[:] = -1
    n = 0
    for start in range(terrain.shape[0]):
        kind = terrain[start]
        if not 0 <= kind < CASTLE or labels[start] >= 0:  # not a terrain, or done
            continue
        labels[start] = n
        stack[0] = start
        top, squares, property_crowns = 1, 0, 0
        while top:
            top -= 1
            cell = stack[top]
            squares += 1
            property_crowns += crowns[cell]
            for d in range(4):
                nb = t.neighbours[cell, d]
                if nb >= 0 and labels[nb] < 0 and terrain[nb] == kind:
                    labels[nb] = n
                    stack[top] = nb
                    top += 1
        sizes[n], crs[n] = squares, property_crowns
        n += 1
    return n


@jit
def relabel(terrain, labels, sizes, crs, count, t, number, action, merged):
    """After laying domino ``number`` by ``action`` on ``terrain`` (done already), bring the properties of
    :func:`label` (``count`` of them, labelled before the domino) up to date without a new flood fill: each half
    takes a new index that absorbs the properties of its terrain next to it. ``merged``: room for one flag per
    index. Returns the new count (old indices absorbed stay counted, unused)."""
    a, b = cells_of(action, t)
    ta, ca, tb, cb = halves_of(number, t)
    if ta == tb:
        return _absorb(terrain, labels, sizes, crs, count, t, ta, a, b, 2, ca + cb, merged)
    count = _absorb(terrain, labels, sizes, crs, count, t, ta, a, -1, 1, ca, merged)
    return _absorb(terrain, labels, sizes, crs, count, t, tb, b, -1, 1, cb, merged)


@jit(inline=True)
def _absorb(terrain, labels, sizes, crs, count, t, kind, a, b, squares, crowns, merged):
    """Label ``squares`` new squares of terrain ``kind`` (cell a, and b if >= 0) with ``crowns`` as property
    ``count``, with the properties of that terrain next to them; returns ``count + 1``."""
    neighbours = t.neighbours
    merged[:count] = False
    total_squares, total_crowns, any_merged = squares, crowns, False
    for k in range(8 if b >= 0 else 4):
        x = neighbours[a, k] if k < 4 else neighbours[b, k - 4]
        if x < 0 or terrain[x] != kind or labels[x] < 0 or merged[labels[x]]:
            continue
        merged[labels[x]] = any_merged = True
        total_squares += sizes[labels[x]]
        total_crowns += crs[labels[x]]
    if any_merged:
        for cell in range(labels.shape[0]):
            if labels[cell] >= 0 and merged[labels[cell]]:
                labels[cell] = count
    labels[a] = count
    if b >= 0:
        labels[b] = count
    sizes[count], crs[count] = total_squares, total_crowns
    return count + 1


@jit(inline=True)
def gain(terrain, labels, sizes, crs, t, number, action):
    """(property-score change, squares of the largest property the domino ends up in) of laying domino
    ``number`` by placement ``action``."""
    a, b = cells_of(action, t)
    ta, ca, tb, cb = t.halves[number, 0], t.halves[number, 1], t.halves[number, 2], t.halves[number, 3]
    if ta == tb:
        return _joined(terrain, labels, sizes, crs, t, ta, a, b, 2, ca + cb)
    score_a, squares_a = _joined(terrain, labels, sizes, crs, t, ta, a, -1, 1, ca)
    score_b, squares_b = _joined(terrain, labels, sizes, crs, t, tb, b, -1, 1, cb)
    return score_a + score_b, max(squares_a, squares_b)


@jit(inline=True)
def halves_of(number, t):
    """(terrain A, crowns A, terrain B, crowns B) of domino ``number``."""
    return t.halves[number, 0], t.halves[number, 1], t.halves[number, 2], t.halves[number, 3]


@jit(inline=True)
def _joined(terrain, labels, sizes, crs, t, kind, a, b, squares, crowns):
    """(score change, squares) of the property that ``squares`` new squares of terrain ``kind`` (cell a, and
    b if >= 0) with ``crowns`` form with the properties of that terrain next to them."""
    neighbours = t.neighbours
    total_squares = total_crowns = total_score = 0
    n = 8 if b >= 0 else 4
    for k in range(n):
        x = neighbours[a, k] if k < 4 else neighbours[b, k - 4]
        if x < 0 or terrain[x] != kind:
            continue
        index = labels[x]
        seen = False
        for j in range(k):
            y = neighbours[a, j] if j < 4 else neighbours[b, j - 4]
            if y >= 0 and terrain[y] == kind and labels[y] == index:
                seen = True
                break
        if not seen:
            total_squares += sizes[index]
            total_crowns += crs[index]
            total_score += sizes[index] * crs[index]
    joined = total_squares + squares
    return joined * (total_crowns + crowns) - total_score, joined


class Joins(NamedTuple):
    """What a square laid on each empty cell of a kingdom's window would join (:func:`joins`): room to score
    many placements of that kingdom with a few look-ups each."""

    joined: np.ndarray  # (cells, terrains, 3): 1 + squares, crowns, score of the properties of a terrain next to x
    openings: np.ndarray  # (cells,): bit d set where the next cell in direction d is empty and in the window
    reached: np.ndarray  # (terrains, cells): the empty cells of the window where a half of the terrain connects
    counts: np.ndarray  # (terrains,): how many ``reached`` holds of each terrain


def joins_room(t) -> Joins:
    """Room for one kingdom's :func:`joins` at the table of ``t``."""
    return Joins(
        np.zeros((t.cells, CASTLE, 3), np.int64),
        np.zeros(t.cells, np.int64),
        np.zeros((CASTLE, t.cells), np.int64),
        np.zeros(CASTLE, np.int64),
    )


@jit
def joins(terrain, reach, box, labels, sizes, crs, t, out):
    """Fill ``out`` (:class:`Joins`) for a kingdom whose properties are ``labels``, ``sizes``, ``crs``, at the
    cells of the window where a terrain connects (``reach``), the only ones next to its properties."""
    neighbours, width, joined = t.neighbours, t.width, out.joined
    r_lo, r_hi, c_lo, c_hi = window(box, t)
    out.counts[:] = 0
    for r in range(max(r_lo, box[0] - 1), min(r_hi, box[1] + 1) + 1):  # a cell next to a square
        for c in range(max(c_lo, box[2] - 1), min(c_hi, box[3] + 1) + 1):
            x = r * width + c
            if terrain[x] != EMPTY:
                continue
            connects = False
            for kind in range(CASTLE):
                if reach[kind, x]:
                    joined[x, kind, 0], joined[x, kind, 1], joined[x, kind, 2] = 1, 0, 0
                    out.reached[kind, out.counts[kind]] = x
                    out.counts[kind] += 1
                    connects = True
            if not connects:
                continue
            openings = 0  # the directions of placements (cell-major, as placements)
            if c < c_hi and terrain[x + 1] == EMPTY:
                openings |= 1
            if r < r_hi and terrain[x + width] == EMPTY:
                openings |= 2
            if c > c_lo and terrain[x - 1] == EMPTY:
                openings |= 4
            if r > r_lo and terrain[x - width] == EMPTY:
                openings |= 8
            out.openings[x] = openings
            for d in range(4):
                y = neighbours[x, d]
                index = labels[y] if y >= 0 else -1
                if index < 0 or _seen_before(neighbours, labels, x, d, index):
                    continue
                kind = terrain[y]
                joined[x, kind, 0] += sizes[index]
                joined[x, kind, 1] += crs[index]
                joined[x, kind, 2] += sizes[index] * crs[index]


@jit(inline=True)
def _seen_before(neighbours, labels, x, d, index):
    """Whether property ``index`` lies next to cell ``x`` in a direction before ``d``."""
    for e in range(d):
        z = neighbours[x, e]
        if z >= 0 and labels[z] == index:
            return True
    return False


@jit(inline=True)
def _half(joined, reach, kind, crowns, x):
    """What a square of terrain ``kind`` with ``crowns`` on empty cell x adds to the property score, from the
    :func:`joins` ``joined`` (where that terrain does not connect, no property of it lies next to x)."""
    if reach[kind, x]:
        return joined[x, kind, 0] * (joined[x, kind, 1] + crowns) - joined[x, kind, 2]
    return crowns


@jit(inline=True)
def _joined_score(terrain, reach, labels, sizes, crs, joined, t, halves, a, b):
    """:func:`gain`'s score of laying a domino of ``halves`` (terrain A, crowns A, terrain B, crowns B) on
    cells a, b: from the :func:`joins` ``joined`` where its halves are of two terrains."""
    ta, ca, tb, cb = halves
    if ta == tb:
        score = _joined(terrain, labels, sizes, crs, t, ta, a, b, 2, ca + cb)[0]
    else:
        score = _half(joined, reach, ta, ca, a) + _half(joined, reach, tb, cb, b)
    return score


@jit(inline=True)
def placement_gains(terrain, labels, sizes, crs, t, number, actions, count, out):
    """:func:`gain`'s score of each of the first ``count`` legal placements ``actions`` of domino ``number``
    into ``out``: the domino's halves read once, where a call of :func:`gain` a placement takes numba's
    reference counts on the tables each time (about twice the time)."""
    ta, ca, tb, cb = halves_of(number, t)
    for k in range(count):
        a, b = cells_of(actions[k], t)
        if ta == tb:
            out[k] = _joined(terrain, labels, sizes, crs, t, ta, a, b, 2, ca + cb)[0]
        else:
            score = _joined(terrain, labels, sizes, crs, t, ta, a, -1, 1, ca)[0]
            out[k] = score + _joined(terrain, labels, sizes, crs, t, tb, b, -1, 1, cb)[0]


@jit(inline=True)
def best_gain(terrain, reach, labels, sizes, crs, j, t, number):
    """The most property score domino ``number`` could add to the kingdom (0 if it cannot be placed), as
    ``Kingdom.best_gain``; ``labels``: its properties, ``j``: their :func:`joins`.

    Its legal placements are those whose half A connects (from ``j.reached``), then those whose half B alone
    does: both cells empty in the window (``j.openings``)."""
    halves = halves_of(number, t)
    ta, tb = halves[0], halves[2]
    best = 0
    for q in range(j.counts[ta]):
        a = j.reached[ta, q]
        for d in range(4):
            if j.openings[a] >> d & 1:
                score = _joined_score(terrain, reach, labels, sizes, crs, j.joined, t, halves, a, a + t.steps[d])
                best = max(best, score)
    for q in range(j.counts[tb]):
        b = j.reached[tb, q]
        for e in range(4):
            a = b + t.steps[e]
            if j.openings[b] >> e & 1 and not reach[ta, a]:
                best = max(best, _joined_score(terrain, reach, labels, sizes, crs, j.joined, t, halves, a, b))
    return best


@jit
def standing(terrain, crowns, discards, t, out):
    """The kingdom's (score with bonuses, largest property, total crowns) into ``out``."""
    cells = terrain.shape[0]
    labelled_standing(terrain, crowns, discards, t, out, np.empty((3, cells), np.int64), np.empty(cells, np.int64))


@jit
def labelled_standing(terrain, crowns, discards, t, out, properties, stack):
    """:func:`standing`, leaving the kingdom's properties in ``properties`` (3, cells): the labels, squares and
    crowns of :func:`label` (what the gains read); ``stack``: room for the flood fill."""
    labels, sizes, crs = properties[0], properties[1], properties[2]
    score = largest = total_crowns = 0
    for i in range(label(terrain, crowns, labels, sizes, crs, stack, t)):
        score += sizes[i] * crs[i]
        largest = max(largest, sizes[i])
        total_crowns += crs[i]
    out[0], out[1], out[2] = score + bonuses(terrain, discards, t), largest, total_crowns
