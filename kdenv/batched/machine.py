"""The draft and round machine, compiled, for many games held in arrays (:class:`Games`).

Game ``i`` of a :class:`Games` is the engine's :class:`kdenv.game.Game` in arrays: kingdoms as grids
(:mod:`kdenv.batched.grid`), the dominoes in draw order, the kings of this round with their dominoes,
the next line with its claims, and every move made. :func:`start` deals it from a deck and a king
order, :func:`apply` plays a legal action (the legal ones are the mask that :mod:`kdenv.batched.observe`
writes). The engine stays the readable reference: ``tests/conformance`` plays both side by side,
move for move.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kdenv.batched.grid import clear, place, placements, standing
from kdenv.batched.jit import jit
from kdenv.batched.tables import Tables
from kdenv.tiles import NUM_DOMINOES

PICKING, PLACING, FINISHED = 0, 1, 2  # phases
KING, PHASE, LINE, ROUND, DRAWN, MADE = range(6)  # the counters of a game
QUEUE, HELD, NEXT, CLAIMS = range(4)  # the rows of a game's draft
MAX_MOVES = 2 * NUM_DOMINOES  # a placement (or discard) and a pick per domino at most
RANK, MARGIN, SCORE, SHARE = range(4)  # what a game pays: kdenv.table.REWARDS in their order, then the study's R


class Games(NamedTuple):
    """The state of ``n`` games (leading axis): what :class:`kdenv.game.Game` holds, as arrays."""

    terrain: np.ndarray  # (n, players, cells): EMPTY, terrain or CASTLE
    crowns: np.ndarray  # (n, players, cells)
    reach: np.ndarray  # (n, players, terrains, cells) bool: where a half of each terrain connects
    box: np.ndarray  # (n, players, 4): each kingdom's bounding box
    discards: np.ndarray  # (n, players)
    deck: np.ndarray  # (n, 48): the dominoes in play in draw order, then the removed ones
    order: np.ndarray  # (n, kings): the owner of each king in the order the kings were drawn at set-up
    draft: np.ndarray  # (n, 4, kings): owners of the kings acting this round, their dominoes, next line, claims
    counters: np.ndarray  # (n, 6): acting king, phase, next line's size (0: none), round, dominoes drawn, moves
    moves: np.ndarray  # (n, MAX_MOVES, 3): (player, action, domino) in play order


def games(n: int, t: Tables) -> Games:
    """Room for ``n`` games at the table of ``t`` (deal each with :func:`start`)."""
    p, cells, kings = t.num_players, t.cells, t.kings
    return Games(
        terrain=np.zeros((n, p, cells), np.int64),
        crowns=np.zeros((n, p, cells), np.int64),
        reach=np.zeros((n, p, 6, cells), np.bool_),
        box=np.zeros((n, p, 4), np.int64),
        discards=np.zeros((n, p), np.int64),
        deck=np.zeros((n, NUM_DOMINOES), np.int64),
        order=np.zeros((n, kings), np.int64),
        draft=np.zeros((n, 4, kings), np.int64),
        counters=np.zeros((n, 6), np.int64),
        moves=np.zeros((n, MAX_MOVES, 3), np.int64),
    )


@jit
def start(g, i, t, deck, king_order):
    """Deal game ``i``: ``deck`` the 48 dominoes (those in play first, in draw order), ``king_order`` the
    owner of each king in drawing order. The set-up is a round whose kings hold nothing and pick."""
    for p in range(t.num_players):
        clear(g.terrain[i, p], g.crowns[i, p], g.reach[i, p], g.box[i, p], t)
    g.discards[i, :] = 0
    g.deck[i, :] = deck
    g.order[i, :] = king_order
    g.draft[i, QUEUE, :] = king_order
    g.draft[i, HELD, :] = 0
    c = g.counters[i]
    c[KING], c[PHASE], c[ROUND], c[DRAWN], c[MADE] = 0, PICKING, 0, 0, 0
    _draw_line(g, i, t)


@jit
def start_all(g, t, rows, decks, king_orders):
    """Deal game ``rows[k]`` from ``decks[k]`` and ``king_orders[k]`` for every k, as :func:`start`."""
    for k in range(rows.shape[0]):
        start(g, rows[k], t, decks[k], king_orders[k])


@jit
def copy_game(src, i, dst, j):
    """Make game ``j`` of ``dst`` a copy of game ``i`` of ``src`` (its observations' caches stay behind: see
    :func:`kdenv.batched.observe.copy_seen`)."""
    dst.terrain[j] = src.terrain[i]
    dst.crowns[j] = src.crowns[i]
    dst.reach[j] = src.reach[i]
    dst.box[j] = src.box[i]
    dst.discards[j] = src.discards[i]
    dst.deck[j] = src.deck[i]
    dst.order[j] = src.order[i]
    dst.draft[j] = src.draft[i]
    dst.counters[j] = src.counters[i]
    dst.moves[j] = src.moves[i]


@jit
def _draw_line(g, i, t):
    """Draw the next line (sorted) from the deck, or note that none is left."""
    c = g.counters[i]
    if c[DRAWN] < t.in_play:
        g.draft[i, NEXT, :] = np.sort(g.deck[i, c[DRAWN] : c[DRAWN] + t.kings])
        g.draft[i, CLAIMS, :] = -1
        c[DRAWN] += t.kings
        c[LINE] = t.kings
    else:
        c[LINE] = 0


@jit(inline=True)
def player(g, i):
    """The player whose king acts now in game ``i`` (-1 once it is over)."""
    c = g.counters[i]
    return -1 if c[PHASE] == FINISHED else g.draft[i, QUEUE, c[KING]]


@jit
def players(g, out):
    """The player to move in every game into ``out`` (-1 where it is over)."""
    for i in range(out.shape[0]):
        out[i] = player(g, i)


@jit(inline=True)
def held(g, i):
    """The domino the acting king must place now (0 when picking or over)."""
    c = g.counters[i]
    return g.draft[i, HELD, c[KING]] if c[PHASE] == PLACING else 0


@jit
def legal_placements(g, i, t, out):
    """The acting king's legal placements of its domino into ``out``; their count."""
    p = player(g, i)
    return placements(g.terrain[i, p], g.reach[i, p], g.box[i, p], t, held(g, i), out)


@jit
def apply(g, i, t, action):
    """Play ``action`` (assumed legal) for the acting king of game ``i``; returns the domino it concerns.

    Indexes the arrays directly rather than through views of game i: a view costs reference counting."""
    counters, draft = g.counters, g.draft
    king = counters[i, KING]
    p = draft[i, QUEUE, king]
    placing = counters[i, PHASE] == PLACING
    if placing:
        domino = draft[i, HELD, king]
        if action == t.discard:
            g.discards[i, p] += 1
        else:
            place(g.terrain[i, p], g.crowns[i, p], g.reach[i, p], g.box[i, p], t, domino, action)
    else:
        slot = action - t.discard - 1
        domino = draft[i, NEXT, slot]
        draft[i, CLAIMS, slot] = p
    made = counters[i, MADE]
    g.moves[i, made, 0], g.moves[i, made, 1], g.moves[i, made, 2] = p, action, domino
    counters[i, MADE] = made + 1
    if placing and counters[i, LINE]:
        counters[i, PHASE] = PICKING
        return domino
    king += 1
    counters[i, KING] = king
    if king < t.kings:
        counters[i, PHASE] = PLACING if draft[i, HELD, king] else PICKING
    elif not counters[i, LINE]:
        counters[i, PHASE] = FINISHED
    else:
        for k in range(t.kings):
            draft[i, QUEUE, k], draft[i, HELD, k] = draft[i, CLAIMS, k], draft[i, NEXT, k]
        _draw_line(g, i, t)
        counters[i, KING], counters[i, PHASE], counters[i, ROUND] = 0, PLACING, counters[i, ROUND] + 1
    return domino


@jit
def standings(g, i, t, out):
    """Every player's (score with bonuses, largest property, total crowns) in game ``i`` into ``out``."""
    for p in range(t.num_players):
        standing(g.terrain[i, p], g.crowns[i, p], g.discards[i, p], t, out[p])


@jit
def placings(standings, out):
    """Each player's place from the standings, 0 for first; tied players share the mean of their places."""
    n = standings.shape[0]
    for p in range(n):
        better = tied = 0
        for q in range(n):
            cmp = _compare(standings[q], standings[p])
            better += cmp > 0
            tied += cmp == 0
        out[p] = better + (tied - 1) / 2


@jit
def outcomes(standings, how, scale, places, out):
    """Each player's value of a finished game, from its ``standings``, into ``out``: the rank reward (``how`` RANK:
    +1 first ... -1 last), own score minus the best other's, over ``scale`` (MARGIN), or own score's share against
    the best other's, own / (own + best), rescaled to [-1, 1] (SHARE: the study's evaluation R, which tells apart
    endings of one rank). ``places``: work space, one number a player."""
    n = standings.shape[0]
    if how == RANK:
        placings(standings, places)
        for p in range(n):
            out[p] = 1.0 - 2.0 * places[p] / (n - 1)
        return
    for p in range(n):
        best = 0
        for q in range(n):
            if q != p:
                best = max(best, standings[q, 0])
        own = standings[p, 0]
        if how == MARGIN:
            out[p] = (own - best) / scale
        elif how == SHARE:
            out[p] = 2.0 * own / (own + best) - 1.0 if own + best else 0.0
        else:
            raise ValueError("outcomes: how must be RANK, MARGIN or SHARE")


@jit
def _compare(x, y):
    """1, 0 or -1 as standing ``x`` is better than, equal to or worse than ``y`` (lexicographic)."""
    for k in range(x.shape[0]):
        if x[k] != y[k]:
            return 1 if x[k] > y[k] else -1
    return 0
