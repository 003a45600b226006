"""Observations and masks, compiled: the layout of :class:`kdenv.encoding.ObservationEncoder`, value for value.

Each seat's ten planes, its score and its properties (for the gains) are kept per game (:class:`Seen`) and
redrawn only when that kingdom changes (:func:`redraw`, once per placement or discard); with the gains, each
seat's best gain of each next-line domino is kept until its kingdom changes or a new line is drawn. An
observation is then a copy of the kingdoms in the observer's order, the legal placements of the acting king,
and a few dozen features.

A search that copies game rows (:func:`~kdenv.batched.machine.copy_game`) copies their seen rows with them
(:func:`copy_seen`), or draws them afresh (:func:`redraw_rows`): a seen row is only updated by the moves
played through :func:`kdenv.batched.batch.play`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kdenv.batched.grid import (
    CASTLE,
    EMPTY,
    Joins,
    best_gain,
    joins,
    joins_room,
    labelled_standing,
    placement_gains,
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
    legal_placements,
)
from kdenv.batched.machine import held as held_domino
from kdenv.batched.tables import Tables

CURRENT_LINE, NEXT_LINE, HELD_DOMINO, DECISION, ROUND_FEATURE, SCORES, UNSEEN, GAINS = range(8)  # Tables.starts


class Seen(NamedTuple):
    """Each seat's planes, score, properties and next-line gains as last drawn, per game.

    Row i describes row i of a :class:`~kdenv.batched.machine.Games` while every move goes through
    :func:`kdenv.batched.batch.play` (which redraws the mover's kingdom where planes are kept, or the scores
    alone where only the ``SCORE`` reward needs them); a row dealt afresh needs
    :func:`redraw_rows`, and a game row copied by :func:`~kdenv.batched.machine.copy_game` needs its seen row
    copied with it (:func:`copy_seen`) or drawn afresh (:func:`redraw_rows`)."""

    planes: np.ndarray  # (n, players, planes per kingdom, cells) float32
    scores: np.ndarray  # (n, players): score with bonuses
    properties: np.ndarray  # (n, players, 3, cells): labels, squares and crowns per property (grid.label)
    line_gains: np.ndarray  # (n, players, 2, kings): next line seen (-1: stale), best gain of each of its dominoes
    standing: np.ndarray  # (3,) scratch for a standing
    stack: np.ndarray  # (cells,) scratch for the flood fill
    spots: np.ndarray  # (4 * cells,) scratch for the gains of the placements
    joins: Joins  # scratch for the gains: one kingdom's grid.joins


def seen(n: int, t: Tables, planes: bool = True) -> Seen:
    """Room for what ``n`` games' observations are made of (fill games with :func:`redraw_rows`); with
    ``planes=False`` no planes, for masks without observations."""
    return Seen(
        np.zeros((n, t.num_players, int(t.planes[0]), t.cells) if planes else (n, t.num_players, 0, 0), np.float32),
        np.zeros((n, t.num_players), np.int64),
        np.zeros((n, t.num_players, 3, t.cells), np.int64),
        np.full((n, t.num_players, 2, t.kings), -1, np.int64),
        np.zeros(3, np.int64),
        np.zeros(t.cells, np.int64),
        np.zeros(4 * t.cells, np.int64),
        joins_room(t),
    )


@jit
def redraw(s, g, i, p, t):
    """Draw seat ``p``'s planes (if kept), score and properties in game ``i`` afresh from its kingdom; its
    next-line gains go stale."""
    planes, terrain, crowns = s.planes[i, p], g.terrain[i, p], g.crowns[i, p]
    labelled_standing(terrain, crowns, g.discards[i, p], t, s.standing, s.properties[i, p], s.stack)
    s.scores[i, p] = s.standing[0]
    s.line_gains[i, p, 0, 0] = -1
    if planes.shape[0] == 0:
        return
    crown_plane, castle_plane, empty_plane, window_plane = t.planes[1], t.planes[2], t.planes[3], t.planes[4]
    planes[:, :] = 0.0
    r_lo, r_hi, c_lo, c_hi = window(g.box[i, p], t)
    for cell in range(t.cells):
        kind = terrain[cell]
        if kind == EMPTY:
            planes[empty_plane, cell] = 1.0
            r, c = cell // t.width, cell % t.width
            if r_lo <= r <= r_hi and c_lo <= c <= c_hi:
                planes[window_plane, cell] = 1.0
        elif kind == CASTLE:
            planes[castle_plane, cell] = 1.0
        else:
            planes[kind, cell] = 1.0
            if crowns[cell]:
                planes[crown_plane, cell] = crowns[cell] / t.crown_scale


@jit
def redraw_rows(s, g, rows, t):
    """Draw every seat of the games of ``rows`` afresh (new deals, games copied in without their seen rows)."""
    for i in rows:
        for p in range(t.num_players):
            redraw(s, g, i, p, t)


@jit
def copy_seen(src, i, dst, j):
    """Make row ``j`` of ``dst`` a copy of row ``i`` of ``src``: what game ``j`` needs once
    :func:`~kdenv.batched.machine.copy_game` made it a copy of game ``i`` (cheaper than :func:`redraw_rows`)."""
    dst.planes[j] = src.planes[i]
    dst.scores[j] = src.scores[i]
    dst.properties[j] = src.properties[i]
    dst.line_gains[j] = src.line_gains[i]


@jit(inline=True)
def write_mask(g, i, t, mask, work):
    """Write game ``i``'s legal-action mask into ``mask`` (A); the placements stay in ``work``, their count
    is returned (0 unless placing)."""
    phase, line = g.counters[i, PHASE], g.counters[i, LINE]
    mask[:] = 0
    count = 0
    if phase == PLACING:
        count = legal_placements(g, i, t, work)
        for k in range(count):
            mask[work[k]] = 1
        mask[t.discard] = count == 0 or t.voluntary_discard
    elif phase != FINISHED:
        for slot in range(line):
            mask[t.discard + 1 + slot] = g.draft[i, CLAIMS, slot] < 0
    return count


@jit
def observe(s, g, i, t, observer, board, features, mask, work):
    """Write game ``i`` seen by ``observer`` into ``board`` (C, cells), ``features`` (V) and ``mask`` (A).

    ``work`` is room for the placements. ``board`` and ``features`` may be empty arrays: then only the mask
    is written."""
    count = write_mask(g, i, t, mask, work)
    if board.shape[0] == 0:
        return
    n, per = t.num_players, t.planes[0]
    c, draft = g.counters[i], g.draft[i]
    phase, acting = c[PHASE], c[KING]
    for k in range(n):
        board[k * per : (k + 1) * per] = s.planes[i, (observer + k) % n]
    board[n * per :] = 0.0
    for k in range(count):
        board[n * per + (work[k] & 3), work[k] >> 2] = 1.0
    features[:] = 0.0
    at = t.starts
    width = t.domino_features.shape[1]
    for k in range(t.kings):
        base = at[CURRENT_LINE] + k * (width + n + 2)
        features[base : base + width] = t.domino_features[draft[HELD, k]]
        features[base + width + (draft[QUEUE, k] - observer) % n] = 1.0
        if phase == FINISHED or k < acting:
            features[base + width + n] = 1.0
        elif k == acting:
            features[base + width + n + 1] = 1.0
    for k in range(c[LINE]):
        base = at[NEXT_LINE] + k * (width + n)
        features[base : base + width] = t.domino_features[draft[NEXT, k]]
        if draft[CLAIMS, k] >= 0:
            features[base + width + (draft[CLAIMS, k] - observer) % n] = 1.0
    if phase == PLACING:
        features[at[HELD_DOMINO] : at[HELD_DOMINO] + width] = t.domino_features[held_domino(g, i)]
        features[at[DECISION] + 1] = 1.0
    elif phase != FINISHED:
        features[at[DECISION]] = 1.0
    features[at[ROUND_FEATURE]] = c[ROUND] / t.rounds
    for k in range(n):
        features[at[SCORES] + k] = s.scores[i, (observer + k) % n] / t.score_scale
    for k in range(c[DRAWN], g.deck.shape[1]):
        features[at[UNSEEN] + g.deck[i, k] - 1] = 1.0
    if t.gains:
        observe_gains(s, g, i, t, observer, count, work, board, features)


@jit
def observe_gains(s, g, i, t, observer, count, work, board, features):
    """Write the gain planes of the ``count`` placements in ``work`` and the next line's gains in every
    kingdom, as ``ObservationEncoder(gains=True)`` does: from the properties of :func:`redraw`, and each
    seat's line gains kept until its kingdom changes or a new line is drawn."""
    n, draft, line = t.num_players, g.draft[i], g.counters[i, LINE]
    acting, at = draft[QUEUE, g.counters[i, KING]], t.starts[GAINS]
    if count:
        first, number = n * t.planes[0] + 4, held_domino(g, i)
        own = s.properties[i, acting]  # the acting seat's labels, squares and crowns
        placement_gains(g.terrain[i, acting], own[0], own[1], own[2], t, number, work, count, s.spots)
        for k in range(count):
            board[first + (work[k] & 3), work[k] >> 2] = s.spots[k] / t.gain_scale
    for j in range(n):
        p = (observer + j) % n
        known = s.line_gains[i, p]
        if not same_line(known[0], draft[NEXT], line):
            terrain, reach = g.terrain[i, p], g.reach[i, p]
            labels, sizes, crs = s.properties[i, p, 0], s.properties[i, p, 1], s.properties[i, p, 2]
            joins(terrain, reach, g.box[i, p], labels, sizes, crs, t, s.joins)
            for k in range(line):
                number = draft[NEXT, k]
                known[0, k], known[1, k] = number, 0
                if number:
                    known[1, k] = best_gain(terrain, reach, labels, sizes, crs, s.joins, t, number)
        for k in range(line):
            features[at + k * n + j] = known[1, k] / t.gain_scale


@jit(inline=True)
def same_line(seen_line, next_line, line):
    """Whether the first ``line`` dominoes seen are those of the next line (a line's dominoes are drawn once a
    game, so they tell its round)."""
    for k in range(line):  # noqa: SIM110 (numba compiles loops, not generators)
        if seen_line[k] != next_line[k]:
            return False
    return True
