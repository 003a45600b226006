"""Uniformly random legal moves, compiled, drawn from generators the caller owns (:mod:`kdenv.batched.rng`)."""

from __future__ import annotations

import numpy as np

from agents.batched.workspace import free_slots
from kdenv.batched.grid import placements
from kdenv.batched.jit import jit
from kdenv.batched.machine import CLAIMS, HELD, KING, LINE, PHASE, PLACING, QUEUE
from kdenv.batched.rng import below


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
