"""The compiled playout kernel (numba): kingdoms as grids, Full Greedy, and the playout loop.

Everything numba compiles is in this one file because numba's on-disk cache is checked against the
source file of each compiled function only: a change to a helper in another file would leave stale
machine code behind. ``agents.kernel`` is the Python side (:class:`agents.kernel.Snapshot`).

A kingdom is four arrays over the engine's F x F frame: ``terrain`` (EMPTY, a terrain 0..5 or
CASTLE per cell), ``crowns``, ``reach`` (per terrain, the cells where a half of it connects: next to
that terrain or to the castle) and ``box`` (min row, max row, min col, max col). The geometry
``geo`` = (size, width, neighbours[cell, 4] (-1 off the frame), steps[4], middle[cell]) and the domino
halves come from the engine (``kdenv.frame``, ``kdenv.kingdom.HALVES``).

Full Greedy here makes the same decisions as ``agents.greedy.FullGreedy``: the filters (stay in the
centred window, leave no single-square hole, each falling back when it would drop every placement),
the values (property-score change plus the bonuses of the result), the branch and bound and the
set-up pick are those of ``agents/greedy.py``, whose docstrings give the reasons. Scores are
incremental: a property index per cell, and the properties a new square joins.
``tests/agents/test_kernel.py`` checks all of it against the engine and the Python players.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kdenv.frame import DIRECTIONS, frame
from kdenv.kingdom import HALVES
from kdenv.rules import HARMONY_BONUS, MIDDLE_KINGDOM_BONUS
from kdenv.tiles import NUM_TERRAINS

EMPTY, CASTLE = -1, NUM_TERRAINS  # grid codes besides the terrains 0..5
DOMINO_HALVES = np.array(HALVES, dtype=np.int64)  # [number] = (terrain A, crowns A, terrain B, crowns B)
PICKING, PLACING, FINISHED = 0, 1, 2
RANDOM, GREEDY, EPSILON_GREEDY, PLAYER_GREEDY = range(4)  # playout policies: random, fg, eg, pg


# ----- kingdoms as grids -----------------------------------------------------------------------------
_GEOMETRY: dict[int, tuple] = {}


def geometry(size: int) -> tuple:
    """The kernel's ``geo`` tuple for kingdoms of ``size`` (see the module docstring)."""
    if size not in _GEOMETRY:
        f = frame(size)
        w = f.width
        neighbours = np.full((f.cells, 4), -1, dtype=np.int64)
        for cell in range(f.cells):
            r, c = divmod(cell, w)
            for d, (dr, dc) in enumerate(DIRECTIONS):
                if 0 <= r + dr < w and 0 <= c + dc < w:
                    neighbours[cell, d] = cell + dr * w + dc
        middle = np.array([(f.middle >> cell) & 1 for cell in range(f.cells)], dtype=np.int64)
        _GEOMETRY[size] = (size, w, neighbours, np.array(f.steps, dtype=np.int64), middle)
    return _GEOMETRY[size]


@njit(cache=True)
def prepare(terrain, geo):
    """Every kingdom's reach and box, from its terrain grid."""
    width, neighbours = geo[1], geo[2]
    players, cells = terrain.shape
    reach = np.zeros((players, CASTLE, cells), dtype=np.bool_)
    box = np.empty((players, 4), dtype=np.int64)
    for p in range(players):
        box[p, 0], box[p, 1], box[p, 2], box[p, 3] = width, -1, width, -1
        for cell in range(cells):
            t = terrain[p, cell]
            if t == EMPTY:
                continue
            _extend(box[p], cell, width)
            for d in range(4):
                nb = neighbours[cell, d]
                if nb >= 0:
                    if t == CASTLE:
                        reach[p, :, nb] = True
                    else:
                        reach[p, t, nb] = True
    return reach, box


@njit(cache=True)
def _extend(box, cell, width):
    r, c = cell // width, cell % width
    box[0], box[1] = min(box[0], r), max(box[1], r)
    box[2], box[3] = min(box[2], c), max(box[3], c)


@njit(cache=True)
def cells_of(action, geo):
    """(half A cell, half B cell) of a placement action."""
    a = action >> 2
    return a, a + geo[3][action & 3]


@njit(cache=True)
def place(terrain, crowns, reach, box, geo, number, action):
    """Lay domino ``number`` by placement ``action`` (assumed legal) in one kingdom."""
    a, b = cells_of(action, geo)
    _lay(terrain, crowns, reach, box, geo, a, DOMINO_HALVES[number, 0], DOMINO_HALVES[number, 1])
    _lay(terrain, crowns, reach, box, geo, b, DOMINO_HALVES[number, 2], DOMINO_HALVES[number, 3])


@njit(cache=True)
def _lay(terrain, crowns, reach, box, geo, cell, t, k):
    neighbours = geo[2]
    terrain[cell] = t
    crowns[cell] = k
    for d in range(4):
        if neighbours[cell, d] >= 0:
            reach[t, neighbours[cell, d]] = True
    _extend(box, cell, geo[1])


@njit(cache=True)
def window(box, geo):
    """(first row, last row, first col, last col) a square may take and keep the kingdom within size x size."""
    size, width = geo[0], geo[1]
    return (
        max(0, box[1] - size + 1),
        min(width - 1, box[0] + size - 1),
        max(0, box[3] - size + 1),
        min(width - 1, box[2] + size - 1),
    )


@njit(cache=True)
def placements(terrain, reach, box, geo, number, out):
    """Write the legal placement actions of domino ``number`` to ``out``; their count.

    Both cells empty and inside the window, and half A next to its terrain or the castle, or half B
    next to its own (a domino within the window's rows and columns keeps the kingdom size x size)."""
    width = geo[1]
    ta, tb = DOMINO_HALVES[number, 0], DOMINO_HALVES[number, 2]
    r_lo, r_hi, c_lo, c_hi = window(box, geo)
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


@njit(cache=True)
def centred(terrain, middle):
    """Every square within the size x size window centred on the castle (Middle Kingdom)."""
    for cell in range(terrain.shape[0]):  # noqa: SIM110 (numba compiles loops, not generators)
        if terrain[cell] != EMPTY and not middle[cell]:
            return False
    return True


@njit(cache=True)
def occupied(terrain):
    """Squares of the kingdom, castle included."""
    count = 0
    for cell in range(terrain.shape[0]):
        count += terrain[cell] != EMPTY
    return count


@njit(cache=True)
def middle_bonus(flags, is_centred):
    """The Middle Kingdom bonus of a kingdom (``flags``: voluntary discard, Middle Kingdom, Harmony)."""
    return MIDDLE_KINGDOM_BONUS if flags[1] and is_centred else 0


@njit(cache=True)
def harmony_bonus(flags, geo, squares, discards):
    """The Harmony bonus of a kingdom of ``squares`` squares (castle included) after ``discards`` discards."""
    return HARMONY_BONUS if flags[2] and discards == 0 and squares == geo[0] * geo[0] else 0


@njit(cache=True)
def standings(terrain, crowns, discards, flags, geo, out):
    """Each player's (score with bonuses, largest property, total crowns) into ``out``."""
    players, cells = terrain.shape
    labels, sizes, crs, stack = (
        np.empty(cells, np.int64),
        np.empty(cells, np.int64),
        np.empty(cells, np.int64),
        np.empty(cells, np.int64),
    )
    for p in range(players):
        score = largest = total_crowns = 0
        for i in range(label(terrain[p], crowns[p], labels, sizes, crs, stack, geo)):
            score += sizes[i] * crs[i]
            largest = max(largest, sizes[i])
            total_crowns += crs[i]
        score += middle_bonus(flags, centred(terrain[p], geo[4]))
        score += harmony_bonus(flags, geo, occupied(terrain[p]), discards[p])
        out[p, 0], out[p, 1], out[p, 2] = score, largest, total_crowns


# ----- Full Greedy -----------------------------------------------------------------------------------
NONE = -(1 << 30)  # the value of no placement at all


@njit(cache=True)
def workspace(cells):
    """Scratch arrays for one playout: placements, hole cells, property indices, a kingdom copy, best moves."""
    return (
        np.zeros(4 * cells, dtype=np.int64),  # 0: the held domino's placements (or a random move's)
        np.zeros(4 * cells, dtype=np.int64),  # 1: the picked domino's placements
        np.zeros((2, cells), dtype=np.int64),  # 2: cells to fill, lone cells
        np.zeros((2, cells), dtype=np.int64),  # 3: property index per cell (now, after placing)
        np.zeros((2, cells + 1), dtype=np.int64),  # 4: property squares
        np.zeros((2, cells + 1), dtype=np.int64),  # 5: property crowns
        np.zeros(cells, dtype=np.int64),  # 6: flood-fill stack
        np.zeros(cells, dtype=np.int64),  # 7: kingdom copy: terrain
        np.zeros(cells, dtype=np.int64),  # 8: crowns
        np.zeros((CASTLE, cells), dtype=np.bool_),  # 9: reach
        np.zeros(4, dtype=np.int64),  # 10: box
        np.zeros(4 * cells, dtype=np.int64),  # 11: gains of the held domino's placements
        np.zeros((16 * cells, 2), dtype=np.int64),  # 12: best (action, slot) pairs
    )


@njit(cache=True)
def study_placements(terrain, reach, box, geo, number, out, work):
    """Write Full Greedy's placements of ``number`` to ``out``: legal, then inside the centred window when
    the kingdom is centred, then leaving no single-square hole, each filter falling back if it drops all."""
    width, neighbours, middle = geo[1], geo[2], geo[4]
    count = placements(terrain, reach, box, geo, number, out)
    if count == 0:
        return 0
    is_centred = centred(terrain, middle)
    if is_centred:
        count = _keep(out, count, geo, middle, True)
    # cells still to fill: empty ones in the centred window, or else in the window that keeps size x size
    fill, lone = work[2][0], work[2][1]
    r_lo, r_hi, c_lo, c_hi = window(box, geo)
    for cell in range(terrain.shape[0]):
        r, c = cell // width, cell % width
        inside = middle[cell] == 1 if is_centred else (r_lo <= r <= r_hi and c_lo <= c <= c_hi)
        fill[cell] = 1 if terrain[cell] == EMPTY and inside else 0
    for cell in range(terrain.shape[0]):
        empty_neighbours = 0
        for d in range(4):
            nb = neighbours[cell, d]
            if nb >= 0 and fill[nb] == 1:
                empty_neighbours += 1
        lone[cell] = 1 if fill[cell] == 1 and empty_neighbours == 1 else 0
    return _keep(out, count, geo, lone, False)


@njit(cache=True)
def _keep(out, count, geo, cells, inside):
    """Keep in ``out`` the placements with both cells in ``cells`` (``inside``) or else those next to no
    ``cells`` (lone cells) but each other; all of them if none is kept. The new count."""
    neighbours = geo[2]
    kept = 0
    for i in range(count):
        a, b = cells_of(out[i], geo)
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


@njit(cache=True)
def label(terrain, crowns, labels, sizes, crs, stack, geo):
    """Index the properties: ``labels[cell]`` (-1 on empty cells and the castle), squares and crowns per
    index; returns how many there are."""
    neighbours = geo[2]
    labels[:] = -1
    n = 0
    for start in range(terrain.shape[0]):
        t = terrain[start]
        if not 0 <= t < CASTLE or labels[start] >= 0:  # not a terrain, or done
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
                nb = neighbours[cell, d]
                if nb >= 0 and labels[nb] < 0 and terrain[nb] == t:
                    labels[nb] = n
                    stack[top] = nb
                    top += 1
        sizes[n], crs[n] = squares, property_crowns
        n += 1
    return n


@njit(cache=True)
def gain(terrain, labels, sizes, crs, geo, number, action):
    """Property-score change of laying domino ``number`` by placement ``action``."""
    a, b = cells_of(action, geo)
    ta, ca = DOMINO_HALVES[number, 0], DOMINO_HALVES[number, 1]
    tb, cb = DOMINO_HALVES[number, 2], DOMINO_HALVES[number, 3]
    if ta == tb:
        return _joined(terrain, labels, sizes, crs, geo, ta, a, b, 2, ca + cb)
    return _joined(terrain, labels, sizes, crs, geo, ta, a, -1, 1, ca) + _joined(
        terrain, labels, sizes, crs, geo, tb, b, -1, 1, cb
    )


@njit(cache=True)
def _joined(terrain, labels, sizes, crs, geo, t, a, b, squares, crowns):
    """Score change of ``squares`` new squares of terrain t (cell a, and b if >= 0) with ``crowns``: the
    properties of t next to them merge with them into one."""
    neighbours = geo[2]
    total_squares = total_crowns = total_score = 0
    n = 8 if b >= 0 else 4
    for k in range(n):
        x = neighbours[a, k] if k < 4 else neighbours[b, k - 4]
        if x < 0 or terrain[x] != t:
            continue
        index = labels[x]
        seen = False
        for j in range(k):
            y = neighbours[a, j] if j < 4 else neighbours[b, j - 4]
            if y >= 0 and terrain[y] == t and labels[y] == index:
                seen = True
                break
        if not seen:
            total_squares += sizes[index]
            total_crowns += crs[index]
            total_score += sizes[index] * crs[index]
    return (total_squares + squares) * (total_crowns + crowns) - total_score


@njit(cache=True)
def best_value(terrain, reach, box, labels, sizes, crs, geo, flags, number, discards, work):
    """Best value of placing ``number`` by Full Greedy's filters (``labels``: this kingdom's properties): the
    score change plus the bonuses of the result; the bonuses after discarding it if it cannot be placed."""
    middle = geo[4]
    out = work[1]
    count = study_placements(terrain, reach, box, geo, number, out, work)
    is_centred = centred(terrain, middle)
    squares = occupied(terrain)
    if count == 0:
        return middle_bonus(flags, is_centred) + harmony_bonus(flags, geo, squares, discards + 1)
    harmony = harmony_bonus(flags, geo, squares + 2, discards)
    middle_kingdom = middle_bonus(flags, is_centred)
    inside = outside = NONE
    for i in range(count):
        a, b = cells_of(out[i], geo)
        value = gain(terrain, labels, sizes, crs, geo, number, out[i])
        if middle[a] and middle[b]:
            inside = max(inside, value)
        else:
            outside = max(outside, value)
    return max(inside + middle_kingdom + harmony, outside + harmony)


@njit(cache=True)
def greedy_picks(terrain, crowns, reach, box, geo, flags, first_round, line, claims, size, discards, work):
    """Full Greedy's best picks, as slots in ``work[12][:count, 1]``; their count. The free slots with the most
    crowns on one half at set-up, later with the best value of placing the picked domino."""
    labels, sizes, crs = work[3][0], work[4][0], work[5][0]
    if not first_round:
        label(terrain, crowns, labels, sizes, crs, work[6], geo)
    best, top, count = work[12], NONE, 0
    for i in range(size):
        if claims[i] >= 0:
            continue
        number = line[i]
        if first_round:
            value = max(DOMINO_HALVES[number, 1], DOMINO_HALVES[number, 3])
        else:
            value = best_value(terrain, reach, box, labels, sizes, crs, geo, flags, number, discards, work)
        count, top = _better(best, count, top, value, -1, i)
    return count


@njit(cache=True)
def _better(best, count, top, value, action, slot):
    """Add (action, slot) of ``value`` to the ``count`` best so far (of value ``top``): the new count and top."""
    if value > top:
        best[0, 0], best[0, 1] = action, slot
        return 1, value
    if value == top:
        best[count, 0], best[count, 1] = action, slot
        return count + 1, top
    return count, top


@njit(cache=True)
def greedy_turns(terrain, crowns, reach, box, geo, flags, number, line, claims, size, discards, work):
    """Full Greedy's best turns for domino ``number``, as (placement, slot) rows in ``work[12][:count]`` (slot
    -1 when no line is left; the discard alone when it cannot be placed); their count. The best over every
    filtered placement, free slot and best placement of the picked domino.

    Branch and bound as in FullGreedy.best_turns: a picked domino sharing no terrain with the held one
    cannot gain more after the placement than anywhere in the kingdom now."""
    middle = geo[4]
    firsts, gains, best = work[0], work[11], work[12]
    labels, sizes, crs = work[3][0], work[4][0], work[5][0]
    label(terrain, crowns, labels, sizes, crs, work[6], geo)
    count = study_placements(terrain, reach, box, geo, number, firsts, work)
    if count == 0:
        best[0, 0], best[0, 1] = 4 * terrain.shape[0], -1  # the discard
        return 1
    for i in range(count):
        gains[i] = gain(terrain, labels, sizes, crs, geo, number, firsts[i])
    squares, is_centred = occupied(terrain), centred(terrain, middle)
    top, found = NONE, 0
    if free_slots(claims, size) == 0:
        for i in range(count):
            a, b = cells_of(firsts[i], geo)
            inside = is_centred and middle[a] == 1 and middle[b] == 1
            after = middle_bonus(flags, inside) + harmony_bonus(flags, geo, squares + 2, discards)
            found, top = _better(best, found, top, gains[i] + after, firsts[i], -1)
        return found
    ta, tb = DOMINO_HALVES[number, 0], DOMINO_HALVES[number, 2]
    extra = middle_bonus(flags, is_centred) + harmony_bonus(flags, geo, squares + 4, discards)
    bounds = np.full(size, NONE)
    for i in range(size):
        pa, pb = DOMINO_HALVES[line[i], 0], DOMINO_HALVES[line[i], 2]
        if claims[i] < 0 and pa != ta and pa != tb and pb != ta and pb != tb:
            top_gain, out = NONE, work[1]
            for j in range(placements(terrain, reach, box, geo, line[i], out)):
                top_gain = max(top_gain, gain(terrain, labels, sizes, crs, geo, line[i], out[j]))
            bounds[i] = max(top_gain, 0) + extra
    t1, c1, r1, b1 = work[7], work[8], work[9], work[10]
    labels1, sizes1, crs1 = work[3][1], work[4][1], work[5][1]
    for k in np.argsort(-gains[:count], kind="mergesort"):
        built = False
        for i in range(size):
            if claims[i] >= 0 or (bounds[i] != NONE and gains[k] + bounds[i] < top):
                continue
            if not built:
                t1[:] = terrain
                c1[:] = crowns
                r1[:, :] = reach
                b1[:] = box
                place(t1, c1, r1, b1, geo, number, firsts[k])
                label(t1, c1, labels1, sizes1, crs1, work[6], geo)
                built = True
            value = gains[k] + best_value(t1, r1, b1, labels1, sizes1, crs1, geo, flags, line[i], discards, work)
            found, top = _better(best, found, top, value, firsts[k], i)
    return found


# ----- the playout -----------------------------------------------------------------------------------
@njit(cache=True)
def play(terrain0, crowns0, discards0, draft, counters, unseen, undrawn, flags, geo, first, options, moves, out):
    """Play from the snapshot to the end (``first``, then the policy's moves); fills ``out`` with the
    standings and ``moves`` (if it has rows); returns the number of moves made."""
    policy, seat, epsilon, seed, shuffle = options
    np.random.seed(seed)
    terrain, crowns, discards = terrain0.copy(), crowns0.copy(), discards0.copy()
    queue, held, line, claims = draft[0].copy(), draft[1].copy(), draft[2].copy(), draft[3].copy()
    king, phase, line_size, round_ = counters[0], counters[1], counters[2], counters[3]
    kings = queue.shape[0]
    cells = terrain.shape[1]
    deck = unseen.copy()
    if shuffle:
        for i in range(deck.shape[0] - 1, 0, -1):
            j = np.random.randint(0, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
    drawn, discard = 0, 4 * cells
    reach, box = prepare(terrain, geo)
    work = workspace(cells)
    planned = -1  # the slot Full Greedy chose with the placement just made
    made = 0
    while phase != FINISHED:
        p = queue[king]
        if made < first.shape[0]:
            action, planned = first[made], -1
        else:
            greedy = policy == GREEDY or (policy == PLAYER_GREEDY and p == seat)
            greedy = greedy or (policy == EPSILON_GREEDY and np.random.random() >= epsilon)
            if phase == PLACING and greedy:
                found = greedy_turns(
                    terrain[p], crowns[p], reach[p], box[p], geo, flags, held[king], line, claims, line_size,
                    discards[p], work,
                )  # fmt: skip
                turn = work[12][np.random.randint(0, found)]
                action, planned = turn[0], turn[1]
            elif phase == PLACING:
                count = placements(terrain[p], reach[p], box[p], geo, held[king], work[0])
                choice = np.random.randint(0, count + 1 if flags[0] or count == 0 else count)
                action, planned = discard if choice == count else work[0][choice], -1
            else:
                if greedy and planned < 0:
                    found = greedy_picks(
                        terrain[p], crowns[p], reach[p], box[p], geo, flags, round_ == 0, line, claims, line_size,
                        discards[p], work,
                    )  # fmt: skip
                    slot = work[12][np.random.randint(0, found), 1]
                elif greedy:
                    slot = planned
                else:
                    slot = random_slot(claims, line_size)
                action, planned = discard + 1 + slot, -1
        if phase == PLACING:
            domino = held[king]
            if action == discard:
                discards[p] += 1
            else:
                place(terrain[p], crowns[p], reach[p], box[p], geo, domino, action)
        else:
            domino = line[action - discard - 1]
            claims[action - discard - 1] = p
        if made < moves.shape[0]:
            moves[made, 0], moves[made, 1], moves[made, 2] = p, action, domino
        made += 1
        if phase == PLACING and line_size:
            phase = PICKING
            continue
        king += 1
        if king < kings:
            phase = PLACING if held[king] else PICKING
        elif not line_size:
            phase = FINISHED
        else:
            queue[:] = claims
            held[:] = line
            if drawn < undrawn:
                line[:] = np.sort(deck[drawn : drawn + kings])
                claims[:] = -1
                drawn += kings
            else:
                line_size = 0
            king, phase, round_ = 0, PLACING, round_ + 1
    standings(terrain, crowns, discards, flags, geo, out)
    return made


@njit(cache=True)
def greedy_choices(terrain, crowns, discards, draft, counters, flags, geo):
    """(count, rows): Full Greedy's best (placement, slot) or (-1, slot) choices for the acting king."""
    reach, box = prepare(terrain, geo)
    work = workspace(terrain.shape[1])
    king, phase, size, round_ = counters[0], counters[1], counters[2], counters[3]
    p, line, claims = draft[0, king], draft[2], draft[3]
    if phase == PLACING:
        found = greedy_turns(
            terrain[p], crowns[p], reach[p], box[p], geo, flags, draft[1, king], line, claims, size, discards[p], work
        )
    else:
        found = greedy_picks(terrain[p], crowns[p], reach[p], box[p], geo, flags, round_ == 0, line, claims, size,
                             discards[p], work)  # fmt: skip
    return found, work[12]


@njit(cache=True)
def free_slots(claims, size):
    """How many slots of the next line no king has claimed."""
    free = 0
    for i in range(size):
        free += claims[i] < 0
    return free


@njit(cache=True)
def random_slot(claims, size):
    """A free slot of the next line, uniformly."""
    choice = np.random.randint(0, free_slots(claims, size))
    slot = 0
    while claims[slot] >= 0 or choice > 0:
        choice -= claims[slot] < 0
        slot += 1
    return slot
