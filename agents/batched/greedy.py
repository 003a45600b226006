"""Full Greedy (``fg``) and ``gprd`` compiled: their filters, the values of a placement and their best moves.

Full Greedy here makes the same decisions as ``agents.greedy.FullGreedy``: the filters (stay in the centred window,
leave no single-square hole, each falling back when it would drop every placement), the values (property-score
change plus the bonuses of the result), the branch and bound and the set-up pick are those of ``agents/greedy.py``,
whose docstrings give the reasons; ``gprd`` is ``agents.greedy.GreedyPlacement``. Scores are incremental: a property
index per cell, and the properties a new square joins. ``tests/conformance`` checks them against the Python players.
"""

from __future__ import annotations

import numpy as np

from agents.batched.workspace import NONE, acting_kingdom, free_slots
from kdenv.batched.grid import (
    EMPTY,
    cells_of,
    centred,
    gain,
    harmony_bonus,
    label,
    middle_bonus,
    occupied,
    place,
    placement_gains,
    placements,
    relabel,
    window,
)
from kdenv.batched.jit import jit
from kdenv.batched.machine import CLAIMS, KING, LINE, NEXT, QUEUE, ROUND


@jit
def study_filters(terrain, box, t, work):
    """Full Greedy's filters of a kingdom, which serve every domino placed in it: whether it is centred (its
    placements kept in the centred window), and ``work.lone``, the cells a placement must not leave alone."""
    is_centred = centred(terrain, t)
    lone_cells(terrain, box, t, work, is_centred)
    return is_centred


@jit
def lone_cells(terrain, box, t, work, is_centred):
    """``work.lone`` of :func:`study_filters` for a kingdom known to be centred or not (``is_centred``)."""
    width, neighbours, middle = t.width, t.neighbours, t.middle
    # cells still to fill: empty ones in the centred window, or else in the window that keeps S x S
    fill, lone = work.fill, work.lone
    r_lo, r_hi, c_lo, c_hi = window(box, t)
    for cell in range(t.cells):
        r, c = cell // width, cell % width
        inside = middle[cell] == 1 if is_centred else (r_lo <= r <= r_hi and c_lo <= c <= c_hi)
        fill[cell] = 1 if terrain[cell] == EMPTY and inside else 0
    for cell in range(t.cells):
        empty_neighbours = 0
        if fill[cell] == 1:
            for d in range(4):
                nb = neighbours[cell, d]
                if nb >= 0 and fill[nb] == 1:
                    empty_neighbours += 1
        lone[cell] = 1 if empty_neighbours == 1 else 0


@jit(inline=True)
def filtered_placements(terrain, reach, box, t, number, out, is_centred, lone):
    """Write Full Greedy's placements of ``number`` to ``out``: legal, then inside the centred window when
    the kingdom ``is_centred``, then leaving no ``lone`` cell (:func:`study_filters`), each filter falling back
    if it drops all; their count."""
    count = placements(terrain, reach, box, t, number, out)
    if count == 0:
        return 0
    if is_centred:
        count = _keep(out, count, t, t.middle, True)
    return _keep(out, count, t, lone, False)


@jit(inline=True)
def _keep(out, count, t, cells, inside):
    """Keep in ``out`` the placements with both cells in ``cells`` (``inside``) or else those next to no
    ``cells`` (lone cells) but each other; all of them if none is kept. The new count."""
    neighbours = t.neighbours
    kept = 0
    for i in range(count):
        a, b = cells_of(out[i], t)
        if inside:
            good = cells[a] == 1 and cells[b] == 1
        else:
            good = True
            for d in range(4):
                x, y = neighbours[a, d], neighbours[b, d]
                if (x >= 0 and x != b and cells[x] == 1) or (y >= 0 and y != a and cells[y] == 1):
                    good = False
        if good:
            out[kept] = out[i]  # only ever moves entries already read
            kept += 1
    return kept if kept else count


@jit
def best_value(terrain, reach, box, labels, sizes, crs, t, number, discards, work, is_centred, squares):
    """Best value of placing ``number`` by Full Greedy's filters (``labels``: this kingdom's properties;
    ``is_centred`` and ``work.lone`` its :func:`study_filters`, ``squares`` its squares): the score change plus
    the bonuses of the result; the bonuses after discarding it if it cannot be placed."""
    middle = t.middle
    out = work.picked
    count = filtered_placements(terrain, reach, box, t, number, out, is_centred, work.lone)
    if count == 0:
        return middle_bonus(t, is_centred) + harmony_bonus(t, squares, discards + 1)
    harmony = harmony_bonus(t, squares + 2, discards)
    middle_kingdom = middle_bonus(t, is_centred)
    gains = work.picked_gains
    placement_gains(terrain, labels, sizes, crs, t, number, out, count, gains)
    inside = outside = NONE
    for i in range(count):
        a, b = cells_of(out[i], t)
        if middle[a] and middle[b]:
            inside = max(inside, gains[i])
        else:
            outside = max(outside, gains[i])
    return max(inside + middle_kingdom + harmony, outside + harmony)


@jit(inline=True)
def _better(best, count, top, value, action, slot):
    """Add (action, slot) of ``value`` to the ``count`` best so far (of value ``top``): the new count and top."""
    if value > top:
        best[0, 0], best[0, 1] = action, slot
        return 1, value
    if value == top:
        best[count, 0], best[count, 1] = action, slot
        return count + 1, top
    return count, top


@jit
def greedy_picks(g, i, t, work):
    """Full Greedy's best picks for the acting king of game ``i``, as slots in ``work.best[:count, 1]``; their
    count. The free slots with the most crowns on one half at set-up, later with the best value of placing
    the picked domino."""
    p = g.draft[i, QUEUE, g.counters[i, KING]]
    terrain, crowns, reach, box = g.terrain[i, p], g.crowns[i, p], g.reach[i, p], g.box[i, p]
    line, claims, first_round = g.draft[i, NEXT], g.draft[i, CLAIMS], g.counters[i, ROUND] == 0
    labels, sizes, crs = work.labels[0], work.sizes[0], work.property_crowns[0]
    if not first_round:
        label(terrain, crowns, labels, sizes, crs, work.stack, t)
        is_centred, squares = study_filters(terrain, box, t, work), occupied(terrain)
    best, top, count = work.best, NONE, 0
    for k in range(g.counters[i, LINE]):
        if claims[k] >= 0:
            continue
        number = line[k]
        if first_round:
            value = max(t.halves[number, 1], t.halves[number, 3])
        else:
            value = best_value(terrain, reach, box, labels, sizes, crs, t, number, g.discards[i, p], work, is_centred,
                               squares)  # fmt: skip
        count, top = _better(best, count, top, value, -1, k)
    return count


@jit
def greedy_turns(g, i, t, work):
    """Full Greedy's best turns for the acting king of game ``i``, as (placement, slot) rows in
    ``work.best[:count]`` (slot -1 when no line is left; the discard alone when it cannot be placed); their
    count. The best over every filtered placement, free slot and best placement of the picked domino.

    Branch and bound as in FullGreedy.best_turns: a picked domino sharing no terrain with the held one
    cannot gain more after the placement than anywhere in the kingdom now."""
    middle, halves = t.middle, t.halves
    c = g.counters[i]
    number, terrain, crowns, reach, box, discards = acting_kingdom(g, i)
    line, claims, size = g.draft[i, NEXT], g.draft[i, CLAIMS], c[LINE]
    firsts, gains, best = work.held, work.gains, work.best
    labels, sizes, crs = work.labels[0], work.sizes[0], work.property_crowns[0]
    properties = label(terrain, crowns, labels, sizes, crs, work.stack, t)
    is_centred = study_filters(terrain, box, t, work)
    count = filtered_placements(terrain, reach, box, t, number, firsts, is_centred, work.lone)
    if count == 0:
        best[0, 0], best[0, 1] = t.discard, -1
        return 1
    placement_gains(terrain, labels, sizes, crs, t, number, firsts, count, gains)
    squares = occupied(terrain)
    top, found = NONE, 0
    if free_slots(claims, size) == 0:
        for k in range(count):
            a, b = cells_of(firsts[k], t)
            inside = is_centred and middle[a] == 1 and middle[b] == 1
            after = middle_bonus(t, inside) + harmony_bonus(t, squares + 2, discards)
            found, top = _better(best, found, top, gains[k] + after, firsts[k], -1)
        return found
    ta, tb = halves[number, 0], halves[number, 2]
    extra = middle_bonus(t, is_centred) + harmony_bonus(t, squares + 4, discards)
    bounds = np.full(size, NONE)
    for s in range(size):
        pa, pb = halves[line[s], 0], halves[line[s], 2]
        if claims[s] < 0 and pa != ta and pa != tb and pb != ta and pb != tb:
            top_gain, out, scores = NONE, work.picked, work.picked_gains
            legal = placements(terrain, reach, box, t, line[s], out)
            placement_gains(terrain, labels, sizes, crs, t, line[s], out, legal, scores)
            for j in range(legal):
                top_gain = max(top_gain, scores[j])
            bounds[s] = max(top_gain, 0) + extra
    t1, c1, r1, b1 = work.after_terrain, work.after_crowns, work.after_reach, work.after_box
    labels1, sizes1, crs1 = work.labels[1], work.sizes[1], work.property_crowns[1]
    for k in np.argsort(-gains[:count], kind="mergesort"):
        built = False
        for s in range(size):
            if claims[s] >= 0 or (bounds[s] != NONE and gains[k] + bounds[s] < top):
                continue
            if not built:  # the kingdom after the placement, its properties brought up to date
                t1[:] = terrain
                r1[:, :] = reach
                b1[:] = box
                place(t1, c1, r1, b1, t, number, firsts[k])
                labels1[:] = labels
                sizes1[:properties] = sizes[:properties]
                crs1[:properties] = crs[:properties]
                relabel(t1, labels1, sizes1, crs1, properties, t, number, firsts[k], work.merged)
                a, b = cells_of(firsts[k], t)
                centred1 = is_centred and middle[a] == 1 and middle[b] == 1
                lone_cells(t1, b1, t, work, centred1)
                built = True
            value = gains[k] + best_value(t1, r1, b1, labels1, sizes1, crs1, t, line[s], discards, work, centred1,
                                          squares + 2)  # fmt: skip
            found, top = _better(best, found, top, value, firsts[k], s)
    return found


@jit
def gprd_placements(g, i, t, work):
    """``gprd``'s best placements for the acting king of game ``i`` as ``work.best[:count, 0]``; their count
    (0 when the domino cannot be placed). Among Full Greedy's filtered placements, the best score of the
    result with its bonuses, then the largest property (the rules' tie-break)."""
    number, terrain, crowns, reach, box, discards = acting_kingdom(g, i)
    out, best = work.held, work.best
    labels, sizes, crs = work.labels[0], work.sizes[0], work.property_crowns[0]
    properties = label(terrain, crowns, labels, sizes, crs, work.stack, t)
    largest = 0
    for k in range(properties):
        largest = max(largest, sizes[k])
    is_centred = study_filters(terrain, box, t, work)
    count = filtered_placements(terrain, reach, box, t, number, out, is_centred, work.lone)
    squares = occupied(terrain)
    found, top, top_largest = 0, NONE, 0
    for k in range(count):
        a, b = cells_of(out[k], t)
        score, joined = gain(terrain, labels, sizes, crs, t, number, out[k])
        inside = is_centred and t.middle[a] == 1 and t.middle[b] == 1
        score += middle_bonus(t, inside) + harmony_bonus(t, squares + 2, discards)
        joined = max(largest, joined)
        if score > top or (score == top and joined > top_largest):
            found, top, top_largest = 0, score, joined
        if score == top and joined == top_largest:
            best[found, 0] = out[k]
            found += 1
    return found
