"""Both conversions between the engine and the batched games: a game to arrays, and arrays back to a game.

:func:`to_arrays` writes the public state of an engine game (or of a player's view of it) as game 0 of a
one-game :class:`~kdenv.batched.machine.Games`, its unseen dominoes sorted (never in draw order), for the
search players' playouts (``agents.playout.Snapshot``). :func:`to_game` re-plays a batched game's deal and
moves through the engine, for the vector env's records and its one-line errors (:mod:`kdenv.vector`).
"""

from __future__ import annotations

import numpy as np

from kdenv.batched.grid import CASTLE, EMPTY, prepare
from kdenv.batched.machine import DRAWN, FINISHED, KING, LINE, PHASE, PICKING, PLACING, ROUND, Games, games
from kdenv.batched.tables import Tables
from kdenv.frame import frame
from kdenv.game import OVER, PLACE, Game
from kdenv.rules import Rules
from kdenv.view import PublicView


def to_arrays(game: Game | PublicView, t: Tables) -> Games:
    """The public state of ``game`` as game 0 of a one-game ``Games`` at the table of ``t`` (unseen sorted):
    only public information is read, so a view is enough."""
    f = frame(game.rules.kingdom_size)
    g = games(1, t)
    terrain, crowns = g.terrain[0], g.crowns[0]
    terrain[:] = EMPTY
    for p, kingdom in enumerate(game.kingdoms):
        _fill(terrain[p], f.castle_bit, CASTLE)
        for kind, squares in enumerate(kingdom.terrain):
            _fill(terrain[p], squares, kind)
        for k in (1, 2, 3):
            _fill(crowns[p], kingdom.crowns[k], k)
        g.discards[0, p] = kingdom.discards
    g.reach[0], g.box[0] = prepare(terrain, t)
    g.order[0] = game.king_order
    draft = g.draft[0]
    draft[0], draft[1] = game.queue, game.held
    draft[2, : len(game.line)], draft[3, : len(game.claims)] = game.line, game.claims
    unseen = game.unseen()
    drawn = 48 - len(unseen)
    g.deck[0, :drawn] = sorted(set(range(1, 49)) - set(unseen))
    g.deck[0, drawn:] = unseen
    c = g.counters[0]
    c[KING], c[LINE], c[ROUND], c[DRAWN] = game.king, len(game.line), game.round, drawn
    c[PHASE] = {OVER: FINISHED, PLACE: PLACING}.get(game.phase, PICKING)
    return g


def to_game(rules: Rules, t: Tables, deck: np.ndarray, king_order: np.ndarray, moves: np.ndarray) -> Game:
    """The engine's :class:`~kdenv.game.Game` of a batched game's ``deck``, ``king_order`` and ``moves``
    ((player, action, domino) rows), re-played move by move."""
    game = Game.from_deck(t.num_players, rules, deck[: t.in_play].tolist(), king_order.tolist())
    for p, action, _ in moves.tolist():
        game.step(action, p)
    return game


def _fill(row: np.ndarray, bits: int, value: int) -> None:
    """Set ``row`` to ``value`` on the cells of a frame bitboard."""
    while bits:
        low = bits & -bits
        row[low.bit_length() - 1] = value
        bits ^= low
