"""Whole batches of games in one compiled call: check and play one action per game, observe every game.

These loops are what :class:`kdenv.vector.VectorEnv` calls once a step; the rewards are those of the
AEC env (:mod:`kdenv.kingdomino_v0`): ``RANK`` and ``MARGIN`` at the end (:func:`kdenv.batched.machine.outcomes`),
``SCORE`` after each placement or discard (kinds numbered as in :mod:`kdenv.batched.machine`).
"""

from __future__ import annotations

import numpy as np

from kdenv.batched.jit import jit
from kdenv.batched.machine import FINISHED, PHASE, PLACING, SCORE, apply, outcomes, player, standings
from kdenv.batched.observe import observe, redraw, write_mask


@jit
def first_illegal(mask, actions, rows):
    """The first of ``rows`` whose action its (current) legal-action ``mask`` forbids, or -1 when all are legal."""
    for i in rows:
        if not (0 <= actions[i] < mask.shape[1] and mask[i, actions[i]]):
            return i
    return -1


@jit(inline=True)
def play(s, g, t, i, action, step):
    """Play a legal ``action`` in game ``i``: redraw the mover's kingdom, pay the rewards of the move into
    ``step.rewards[i]`` (``step.paid``: each player's score already paid by the ``SCORE`` reward) and note in
    ``step.ended[i]`` whether the game is over (:class:`~kdenv.batched.step.Step`). Kingdoms are redrawn
    (:func:`kdenv.batched.observe.redraw`) only where planes are kept (observations, the gains' properties with
    them) or scores are paid for."""
    reward, paid, rewards, ended = step.reward, step.paid, step.rewards, step.ended
    mover = player(g, i)
    placing = g.counters[i, PHASE] == PLACING
    apply(g, i, t, action)
    if placing and (s.planes.shape[2] or reward == SCORE):
        redraw(s, g, i, mover, t)
        if reward == SCORE:
            rewards[i, mover] += (s.scores[i, mover] - paid[i, mover]) / t.score_scale
            paid[i, mover] = s.scores[i, mover]
    ended[i] = g.counters[i, PHASE] == FINISHED
    if ended[i] and reward != SCORE:
        n = t.num_players
        final = np.empty((n, 3), np.int64)
        places, paid_now = np.empty(n, np.float64), np.empty(n, np.float64)
        standings(g, i, t, final)
        outcomes(final, reward, t.score_scale, places, paid_now)
        for p in range(n):
            rewards[i, p] += paid_now[p]


@jit
def play_rows(s, g, t, actions, step, mask):
    """Unless an action is illegal by ``mask`` (then its row is returned and nothing changes), play
    ``actions[i]`` in each game i of ``step.rows`` as :func:`play`, adding to ``step.rewards``; returns -1."""
    bad = first_illegal(mask, actions, step.rows)
    if bad >= 0:
        return bad
    for i in step.rows:
        play(s, g, t, i, actions[i], step)
    return -1


@jit
def step_all(s, g, t, actions, step, movers, out):
    """One step of the games of ``step.rows``: :func:`play_rows` (the step's rewards and ends start afresh), then
    observe the games that go on from their players to move (``movers``) into ``out``
    (:class:`~kdenv.batched.step.Buffers`). The row of an illegal action, or -1."""
    step.rewards[:, :] = 0.0
    step.ended[:] = False
    bad = play_rows(s, g, t, actions, step, out.mask)
    if bad >= 0:
        return bad
    observing = out.board.shape[1] > 0
    for i in step.rows:
        if not step.ended[i]:
            movers[i] = player(g, i)
            if observing:
                observe(s, g, i, t, movers[i], out.board[i], out.features[i], out.mask[i], out.work)
            else:
                write_mask(g, i, t, out.mask[i], out.work)
    return -1


@jit
def observe_all(s, g, t, rows, observers, out):
    """Observe each game ``i`` of ``rows`` from ``observers[i]`` into row i of the buffers ``out``
    (:class:`~kdenv.batched.step.Buffers`)."""
    for i in rows:
        observe(s, g, i, t, observers[i], out.board[i], out.features[i], out.mask[i], out.work)
