"""Many continuations of one position in one compiled call: what a tree search steps and observes.

A search keeps its tree in Python and its states here: each simulation copies the root's game into a row,
gives it a deck of its own (the unseen dominoes reshuffled: the chance of the rounds to come), plays the
moves of its path and is observed from the seats that want a value. A path's moves must be legal (they come
from the masks of the nodes on it); they are not checked again.
"""

from __future__ import annotations

import numpy as np

from kdenv.batched.jit import jit
from kdenv.batched.machine import FINISHED, PHASE, apply, copy_game, outcomes, standings
from kdenv.batched.observe import observe


@jit
def branch(root, i, g, t, rows, decks, paths, lengths, over, values, how):
    """Make each game ``rows[k]`` of ``g`` game ``i`` of ``root`` dealt from ``decks[k]`` (48 numbers, the
    dominoes already drawn first) and play ``paths[k, :lengths[k]]`` in it; ``over[k]`` tells whether that
    game is finished, and then ``values[k]`` holds each player's value of it (``how``, a kind of
    :func:`kdenv.batched.machine.outcomes`: RANK, the rank reward, +1 first ... -1 last, or SHARE, the study's R)."""
    n = t.num_players
    final = np.empty((n, 3), np.int64)
    places = np.empty(n, np.float64)
    for k in range(rows.shape[0]):
        j = rows[k]
        copy_game(root, i, g, j)
        g.deck[j, :] = decks[k]
        for step in range(lengths[k]):
            apply(g, j, t, paths[k, step])
        over[k] = g.counters[j, PHASE] == FINISHED
        if over[k]:
            standings(g, j, t, final)
            outcomes(final, how, t.score_scale, places, values[k])


@jit
def observe_seats(s, g, t, rows, seats, board, features, mask, work):
    """Row k of the buffers: game ``rows[k]`` seen by ``seats[k]`` (a game may be observed by several seats,
    in several rows); ``board`` (m, C, cells), ``features`` (m, V), ``mask`` (m, A)."""
    for k in range(rows.shape[0]):
        observe(s, g, rows[k], t, seats[k], board[k], features[k], mask[k], work)
