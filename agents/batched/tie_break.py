"""Full Greedy's ties broken (``fgt``) compiled: the twin of :mod:`agents.tie_break`, the Python reference, which
says where the weights come from.

The weights live in this compiled file so that a change to one recompiles the kernels that froze them
(:mod:`kdenv.batched.jit`'s stamp).
"""

from __future__ import annotations

from kdenv.batched.grid import CASTLE, EMPTY, cells_of, window
from kdenv.batched.jit import jit
from kdenv.batched.machine import HELD, KING, NEXT, QUEUE

# The weights of a placement: its squares' neighbours of the same terrain, of another, the castle; how much it
# shrinks the window the kingdom may still grow into; its squares' distances from the castle (the larger of rows
# and columns)
LEAN_SAME, LEAN_OTHER, LEAN_CASTLE, LEAN_SHRINK, LEAN_DISTANCE = 1561, 297, 942, 214, 1355
# a pick's slot (the earlier the slot, the earlier the king moves next round), the domino's number, its crowns,
# and the kingdom's squares of its two terrains
LEAN_SLOT, LEAN_NUMBER, LEAN_CROWNS, LEAN_MATCH = -1628, -127, 2530, 241


@jit(inline=True)
def _window_area(box, t):
    """Cells of the window that keeps a kingdom of bounding ``box`` within S x S (:func:`grid.window`)."""
    r_lo, r_hi, c_lo, c_hi = window(box, t)
    return (r_hi - r_lo + 1) * (c_hi - c_lo + 1)


@jit(inline=True)
def _half_lean(terrain, t, cell, other, kind):
    """The lean of one square of ``kind`` laid on ``cell`` (its domino's other square on ``other``)."""
    lean = 0
    for d in range(4):
        nb = t.neighbours[cell, d]
        if nb < 0 or nb == other or terrain[nb] == EMPTY:
            continue
        lean += LEAN_CASTLE if terrain[nb] == CASTLE else LEAN_SAME if terrain[nb] == kind else LEAN_OTHER
    centre = t.castle // t.width
    return lean + LEAN_DISTANCE * max(abs(cell // t.width - centre), abs(cell % t.width - centre))


@jit
def placement_lean(terrain, box, t, number, action, after):
    """How much the tie-break favours placing ``number`` by ``action`` in a kingdom (as its Python twin);
    ``after``: room for the bounding box after the placement."""
    a, b = cells_of(action, t)
    w, h = t.width, t.halves
    lean = _half_lean(terrain, t, a, b, h[number, 0]) + _half_lean(terrain, t, b, a, h[number, 2])
    after[0], after[1] = min(box[0], a // w, b // w), max(box[1], a // w, b // w)
    after[2], after[3] = min(box[2], a % w, b % w), max(box[3], a % w, b % w)
    return lean + LEAN_SHRINK * (_window_area(box, t) - _window_area(after, t))


@jit
def pick_lean(terrain, t, number, slot):
    """How much the tie-break favours picking ``number`` from ``slot`` for a kingdom (as its Python twin)."""
    h = t.halves
    match = 0
    for cell in range(t.cells):
        match += (terrain[cell] == h[number, 0]) + (terrain[cell] == h[number, 2])
    return LEAN_SLOT * slot + LEAN_NUMBER * number + LEAN_CROWNS * (h[number, 1] + h[number, 3]) + LEAN_MATCH * match


@jit
def broken_ties(g, i, t, work, found):
    """Narrow Full Greedy's ``found`` best (placement, slot) rows of ``work.best`` for the acting king of game ``i``
    to those the tie-break favours most: the placements of the most :func:`placement_lean`, then the slots of the
    most :func:`pick_lean`; their count."""
    if found <= 1:
        return found
    king = g.counters[i, KING]
    p = g.draft[i, QUEUE, king]
    number, terrain, box = g.draft[i, HELD, king], g.terrain[i, p], g.box[i, p]
    line, best, leans = g.draft[i, NEXT], work.best, work.leans
    for column in range(2):
        for k in range(found):
            action, slot = best[k, 0], best[k, 1]
            if column == 0:
                placed = 0 <= action < t.discard
                leans[k] = placement_lean(terrain, box, t, number, action, work.after_box) if placed else 0
            else:
                leans[k] = pick_lean(terrain, t, line[slot], slot) if slot >= 0 else 0
        top, kept = leans[:found].max(), 0
        for k in range(found):
            if leans[k] == top:
                best[kept, 0], best[kept, 1] = best[k, 0], best[k, 1]
                kept += 1
        found = kept
    return found
