"""Who makes a seat's moves in the compiled games (:class:`Policy`), that policy's move (:func:`choose`), and the
drivers that play games on with it: playouts, a search's rollouts, the opponents of the learner's vector view and
the teacher of behaviour cloning.

Random moves and ties are drawn from generators the caller owns and passes in (``draws``, one uint64 state per game,
:mod:`kdenv.batched.rng`), never from numba's process-wide ``np.random``: two envs, or an env and a search, never
share a stream.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from agents.batched.greedy import gprd_placements, greedy_picks, greedy_turns
from agents.batched.random_moves import random_move
from agents.batched.tie_break import broken_ties
from agents.batched.workspace import workspace
from kdenv.batched.batch import play
from kdenv.batched.jit import jit
from kdenv.batched.machine import (
    CLAIMS,
    DRAWN,
    FINISHED,
    KING,
    LINE,
    PHASE,
    PLACING,
    QUEUE,
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


@jit
def greedy_choices(g, i, t, work, policy):
    """The rows of ``work.best`` that Full Greedy (``policy`` FG, or FGT with its ties broken) chooses from at random
    for the acting king of game ``i``: its best turns when placing, (-1, slot) of its best picks when picking (no
    plan made when placing); their count."""
    placing = g.counters[i, PHASE] == PLACING
    found = greedy_turns(g, i, t, work) if placing else greedy_picks(g, i, t, work)
    return broken_ties(g, i, t, work, found) if policy == Policy.FGT else found


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
