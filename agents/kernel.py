"""Playouts compiled with numba: the hot loop of Monte Carlo search.

A :class:`Snapshot` holds the public state of a game as one game of the compiled core
(:mod:`kdenv.batched`), its unseen dominoes sorted (never in draw order); each playout shuffles them itself,
as ``determinize`` does, then plays to the end with a compiled policy per seat (``agents.playout`` makes
them from its playout policies: random, Full Greedy, epsilon-greedy or player-greedy) and returns every
player's standing (score, largest property, crowns). Random moves are uniform over the legal ones, as
``Game.playout``; greedy ones are those of ``agents.greedy.FullGreedy``. The policies are in
``agents/batched_policies.py``; ``tests/conformance`` checks the playouts against the engine move for move.
"""

from __future__ import annotations

import random

import numpy as np

from agents import batched_policies
from agents.batched_policies import Policy
from kdenv.batched.grid import CASTLE, EMPTY, placements, prepare
from kdenv.batched.machine import DRAWN, FINISHED, KING, LINE, PHASE, PICKING, PLACING, ROUND, Games, games
from kdenv.batched.tables import tables
from kdenv.frame import frame
from kdenv.game import OVER, PLACE, Game
from kdenv.view import PublicView


class Snapshot:
    """The public state of a game as game 0 of a core :class:`~kdenv.batched.machine.Games` (sorted unseen)."""

    __slots__ = ("games", "num_players", "scratch", "tables")

    def __init__(self, game: Game | PublicView, gains: bool = False) -> None:
        """Only public information is read: a view is enough. ``gains``: tables for observations with gains."""
        rules, n, f = game.rules, game.num_players, frame(game.rules.kingdom_size)
        t = self.tables = tables(n, rules, gains)
        g = self.games = games(1, t)
        self.scratch: Games = games(1, t)
        self.num_players = n
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

    def playout(
        self,
        rng: random.Random,
        policies: np.ndarray | None = None,
        epsilon: float = 0.0,
        first: tuple[int, ...] = (),
    ) -> np.ndarray:
        """Play the actions ``first`` (legal ones: unchecked), then each seat's ``policies`` (scripted
        :class:`~agents.batched_policies.Policy` codes, all RANDOM by default; a greedy move is random with chance
        ``epsilon``) to the end, with the unseen dominoes shuffled; every player's (score, largest property, crowns)."""
        return self._run(rng.getrandbits(32), policies, epsilon, first, True)[0]

    def play(
        self,
        seed: int,
        policies: np.ndarray | None = None,
        epsilon: float = 0.0,
        first: tuple[int, ...] = (),
        shuffle: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(standings, moves) of a playout whose draws come from a generator of its own seeded by ``seed`` (the
        same seed, the same playout; no other stream is read or moved): ``moves`` holds (player, action,
        domino) rows; ``shuffle=False`` draws the unseen in number order."""
        out, count = self._run(seed, policies, epsilon, first, shuffle)
        return out, self.scratch.moves[0, :count].copy()

    def _run(
        self, seed: int, policies: np.ndarray | None, epsilon: float, first: tuple[int, ...], shuffle: bool
    ) -> tuple[np.ndarray, int]:
        """(standings, number of moves) of a playout into the scratch game."""
        if policies is None:
            policies = np.full(self.num_players, Policy.RANDOM, np.int64)
        out = np.zeros((self.num_players, 3), dtype=np.int64)
        count = batched_policies.playout(
            self.games, self.scratch, self.tables, policies, epsilon, np.array(first, dtype=np.int64), seed, shuffle,
            out,
        )  # fmt: skip
        return out, count

    def placements(self, player: int, number: int) -> list[int]:
        """The core's legal placement actions of domino ``number`` in ``player``'s kingdom, sorted."""
        g = self.games
        out = np.zeros(4 * self.tables.cells, dtype=np.int64)
        count = placements(g.terrain[0, player], g.reach[0, player], g.box[0, player], self.tables, number, out)
        return sorted(out[:count].tolist())

    def greedy_choices(self) -> set[tuple[int, int]]:
        """Full Greedy's best choices for the acting king: (placement, slot) pairs when placing (slot -1 in
        the last round), (-1, slot) when picking."""
        work = batched_policies.workspace(self.tables.cells)
        if self.games.counters[0, PHASE] == PLACING:
            found = batched_policies.greedy_turns(self.games, 0, self.tables, work)
        else:
            found = batched_policies.greedy_picks(self.games, 0, self.tables, work)
        return {(int(action), int(slot)) for action, slot in work.best[:found]}


def _fill(row: np.ndarray, bits: int, value: int) -> None:
    """Set ``row`` to ``value`` on the cells of a frame bitboard."""
    while bits:
        low = bits & -bits
        row[low.bit_length() - 1] = value
        bits ^= low
