"""The scripted policies compiled (numba) over the core's games: random, ``gprd`` and Full Greedy, and playouts.

The rules are those of :mod:`kdenv.batched` (kingdoms as grids, the draft machine), with its tables passed
in as the argument ``t``; this file holds only how the policies choose. :class:`agents.playout.Snapshot` is the
Python side, and the learner's vector view (``training.envs.one_learner``) seats these policies as opponents.

Full Greedy here makes the same decisions as ``agents.greedy.FullGreedy``: the filters (stay in the
centred window, leave no single-square hole, each falling back when it would drop every placement),
the values (property-score change plus the bonuses of the result), the branch and bound and the
set-up pick are those of ``agents/greedy.py``, whose docstrings give the reasons; ``gprd`` is
``agents.greedy.GreedyPlacement``. Scores are incremental: a property index per cell, and the
properties a new square joins. ``tests/conformance`` checks all of it against the engine
and the Python players.

Random moves and ties are drawn from generators the caller owns and passes in (``draws``, one uint64 state
per game, :mod:`kdenv.batched.rng`), never from numba's process-wide ``np.random``: two envs, or an env and a
search, never share a stream.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np

from kdenv.batched.batch import play
from kdenv.batched.grid import (
    CASTLE,
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
from kdenv.batched.machine import (
    CLAIMS,
    DRAWN,
    FINISHED,
    HELD,
    KING,
    LINE,
    NEXT,
    PHASE,
    PLACING,
    QUEUE,
    ROUND,
    apply,
    copy_game,
    outcomes,
    player,
    standings,
)
from kdenv.batched.rng import below, between, uniform


class Policy(IntEnum):
    """Who makes a seat's moves, the code the compiled players read per seat: a scripted policy (``RANDOM``,
    ``GPRD``, ``FG``, ``FGT``: Full Greedy with its ties broken, :mod:`agents.tie_break`), or ``LEARNER``, the
    learner's seat in :mod:`training.envs.one_learner`, whose moves come from outside (codes from
    :data:`FIRST_BATCHED` on are its batched opponents)."""

    LEARNER = -1
    RANDOM = 0
    GPRD = 1
    FG = 2
    FGT = 3


FIRST_BATCHED = max(Policy) + 1  # the seat code of the first batched opponent (training.envs.one_learner)


FINISHED_GAME = -2  # the code of the seat to move in a game that is over (no seat moves)
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


# ----- Full Greedy's filters and values --------------------------------------------------------------
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


# ----- a seat's kingdom and the line, as the policies read them -----------------------------------------
@jit(inline=True)
def acting_kingdom(g, i):
    """(domino held, terrain, crowns, reach, box, discards) of the acting king's kingdom in game ``i``."""
    p = g.draft[i, QUEUE, g.counters[i, KING]]
    number = g.draft[i, HELD, g.counters[i, KING]]
    return number, g.terrain[i, p], g.crowns[i, p], g.reach[i, p], g.box[i, p], g.discards[i, p]


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


# ----- Full Greedy's ties broken (fgt) ------------------------------------------------------------------
# The integer weights of agents.tie_break (the Python reference, which says where they come from). They live in
# this compiled file so that a change to one recompiles the kernels that froze them (kdenv.batched.jit's stamp):
# a placement's squares' neighbours of the same terrain, of another, the castle; how much it shrinks the window
# the kingdom may still grow into; its squares' distances from the castle (the larger of rows and columns)
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


@jit
def greedy_choices(g, i, t, work, policy):
    """The rows of ``work.best`` that Full Greedy (``policy`` FG, or FGT with its ties broken) chooses from at random
    for the acting king of game ``i``: its best turns when placing, (-1, slot) of its best picks when picking (no
    plan made when placing); their count."""
    placing = g.counters[i, PHASE] == PLACING
    found = greedy_turns(g, i, t, work) if placing else greedy_picks(g, i, t, work)
    return broken_ties(g, i, t, work, found) if policy == Policy.FGT else found


# ----- choosing ---------------------------------------------------------------------------------------
@jit(inline=True)
def free_slots(claims, size):
    """How many slots of the next line no king has claimed."""
    free = 0
    for k in range(size):
        free += claims[k] < 0
    return free


@jit(inline=True)
def random_slot(g, i, draws):
    """A free slot of the next line of game ``i``, uniformly (drawn from ``draws[i]``)."""
    claims = g.draft[i, CLAIMS]
    choice = below(draws, i, free_slots(claims, g.counters[i, LINE]))
    slot = 0
    while claims[slot] >= 0 or choice > 0:
        choice -= claims[slot] < 0
        slot += 1
    return slot


@jit(inline=True)
def random_move(g, i, t, work, draws):
    """A uniformly random legal action in game ``i`` (drawn from ``draws[i]``)."""
    if g.counters[i, PHASE] != PLACING:
        return t.discard + 1 + random_slot(g, i, draws)
    king = g.counters[i, KING]
    p = g.draft[i, QUEUE, king]
    count = placements(g.terrain[i, p], g.reach[i, p], g.box[i, p], t, g.draft[i, HELD, king], work.held)
    choice = below(draws, i, count + 1 if t.voluntary_discard or count == 0 else count)
    return t.discard if choice == count else work.held[choice]


@jit
def choose(g, i, t, policy, epsilon, plans, work, draws):
    """The action of ``policy`` (a scripted :class:`Policy`) for the player to move in game ``i``, ties and random moves
    drawn from the generator ``draws[i]`` (:mod:`kdenv.batched.rng`). With ``epsilon`` > 0 a greedy policy moves
    at random with that chance. ``plans[i]``: the slot Full Greedy chose with its placement (-1: none), kept
    for its pick."""
    planned, plans[i] = plans[i], -1
    if policy == Policy.RANDOM or (epsilon > 0 and uniform(draws, i) < epsilon):
        return random_move(g, i, t, work, draws)
    if g.counters[i, PHASE] == PLACING:
        if policy == Policy.GPRD:
            found = gprd_placements(g, i, t, work)
            return random_move(g, i, t, work, draws) if found == 0 else work.best[below(draws, i, found), 0]
        turn = below(draws, i, greedy_choices(g, i, t, work, policy))
        plans[i] = work.best[turn, 1]
        return work.best[turn, 0]
    if policy == Policy.GPRD:
        return random_move(g, i, t, work, draws)
    if planned >= 0:
        return t.discard + 1 + planned
    return t.discard + 1 + work.best[below(draws, i, greedy_choices(g, i, t, work, policy)), 1]


@jit
def policy_moves(g, t, rows, policy, plans, draws, actions):
    """``actions[k]``: the move of ``policy`` (a scripted :class:`Policy`) for the player to move in game
    ``rows[k]``, ties drawn from ``draws[i]``, as :func:`choose` makes it. ``plans[k]``: on the way in, the slot
    that player's placement chose for this pick (-1: none); on the way out, the slot this placement chooses."""
    work = workspace(t.cells)
    held = np.full(g.counters.shape[0], -1)
    for k in range(rows.shape[0]):
        i = rows[k]
        held[i] = plans[k]
        actions[k] = choose(g, i, t, policy, 0.0, held, work, draws)
        plans[k] = held[i]


# ----- playouts ---------------------------------------------------------------------------------------
@jit
def playout(start, g, t, policies, epsilon, first, seed, shuffle, out):
    """Play game 0 of ``g`` from game 0 of ``start`` to the end: the actions ``first``, then each seat's
    ``policies`` (with ``epsilon``); the unseen dominoes shuffled first unless not ``shuffle``. Fills ``out``
    with the standings; the moves made are in ``g.moves[0]`` after those of ``start``; returns their count.
    Every draw comes from a generator of its own whose state is ``seed``: no other stream is read or moved."""
    draws = np.full(1, seed, np.uint64)
    i = np.int64(0)  # game 0 as an int64, not a literal 0: the kernels called compile once for every caller
    copy_game(start, i, g, i)
    c = g.counters[i]
    if shuffle:
        deck = g.deck[i]
        for k in range(deck.shape[0] - 1, c[DRAWN], -1):  # the unseen dominoes are deck[drawn:]
            j = between(draws, i, c[DRAWN], k + 1)
            deck[k], deck[j] = deck[j], deck[k]
    work = workspace(t.cells)
    plans = np.full(1, -1)
    made = 0
    while c[PHASE] != FINISHED:
        if made < first.shape[0]:
            action = first[made]
        else:
            action = choose(g, i, t, policies[g.draft[i, QUEUE, c[KING]]], epsilon, plans, work, draws)
        apply(g, i, t, action)
        made += 1
    standings(g, i, t, out)
    return made


@jit
def finish_rows(g, t, rows, seats, draws, values, how):
    """Play each game ``rows[k]`` of ``g`` to its end with ``seats[p]`` (a scripted :class:`Policy`) in seat p,
    drawing from ``draws[i]`` (per game i); ``values[k]`` each player's value of its end by ``how`` (a kind of
    :func:`kdenv.batched.machine.outcomes`: RANK, the rank reward, +1 first ... -1 last, or SHARE, the study's
    R): a search's rollouts."""
    work = workspace(t.cells)
    plans = np.full(g.counters.shape[0], -1)
    n = t.num_players
    final = np.empty((n, 3), np.int64)
    places = np.empty(n, np.float64)
    for k in range(rows.shape[0]):
        i = rows[k]
        c = g.counters[i]
        while c[PHASE] != FINISHED:
            apply(g, i, t, choose(g, i, t, seats[g.draft[i, QUEUE, c[KING]]], 0.0, plans, work, draws))
        standings(g, i, t, final)
        outcomes(final, how, t.score_scale, places, values[k])


# ----- opponents in the vector env -------------------------------------------------------------------
@jit
def advance(s, g, t, step, seats, plans, waiting, work, draws):
    """Let the compiled opponents (``seats[i, p]`` a scripted :class:`Policy`) of the games of ``step.rows`` play
    until the learner or a batched opponent is to move or the game ends, as :func:`kdenv.batched.batch.play` (under
    the :class:`~kdenv.batched.step.Step`'s accounting), drawing from the generator ``draws[i]`` of each game.
    Writes the code of the seat to move to ``waiting[i]`` (``LEARNER``, a batched code), or FINISHED_GAME once it
    ends."""
    ended = step.ended
    for i in step.rows:
        while not ended[i]:
            code = seats[i, player(g, i)]
            if code < Policy.RANDOM or code >= FIRST_BATCHED:
                break
            play(s, g, t, i, choose(g, i, t, code, 0.0, plans, work, draws), step)
        waiting[i] = FINISHED_GAME if ended[i] else seats[i, player(g, i)]


@jit
def random_actions(mask, out, draws):
    """A uniformly random legal action for each row i of an action ``mask`` into ``out`` (-1 where none is),
    drawn from the generator ``draws[i]``."""
    legal = np.empty(mask.shape[1], np.int64)
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            if mask[i, a]:
                legal[count] = a
                count += 1
        out[i] = legal[below(draws, i, count)] if count else -1


@jit
def teacher_moves(g, t, rows, policy, plans, work, targets, actions, draws):
    """For each game i of ``rows``: mark the best actions of ``policy`` (FG or GPRD) for the player to move in
    ``targets[i]`` (the whole set it chooses from at random) and write the one it plays, drawn from
    ``draws[i]``, to ``actions[i]``."""
    for i in rows:
        targets[i, :] = False
        if policy == Policy.GPRD and g.counters[i, PHASE] == PLACING:
            found = gprd_placements(g, i, t, work)
            for k in range(found):
                targets[i, work.best[k, 0]] = True
        elif policy == Policy.FG and g.counters[i, PHASE] == PLACING:
            for k in range(greedy_turns(g, i, t, work)):
                targets[i, work.best[k, 0]] = True
        elif policy == Policy.FG:
            for k in range(greedy_picks(g, i, t, work)):
                targets[i, t.discard + 1 + work.best[k, 1]] = True
        else:  # gprd picks at random
            for slot in range(g.counters[i, LINE]):
                targets[i, t.discard + 1 + slot] = g.draft[i, CLAIMS, slot] < 0
        actions[i] = choose(g, i, t, policy, 0.0, plans, work, draws)
        targets[i, actions[i]] = True  # a forced discard is its own target
