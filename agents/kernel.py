"""Playouts compiled with numba: the hot loop of Monte Carlo search.

The kernel plays a game from any state to the end with a playout policy of ``agents.playout``
(random, Full Greedy, epsilon-greedy or player-greedy) and returns every player's standing (score,
largest property, crowns). Random moves are uniform over the legal ones, as ``Game.playout``;
greedy ones are those of ``agents.greedy.FullGreedy``. The compiled code is in ``agents/compiled.py``;
its rules come from the engine, and ``tests/agents/test_kernel.py`` checks the
kernel against the engine move for move (every move legal there, the same final standings, the
greedy moves among Full Greedy's best).

A :class:`Snapshot` holds the public state of a game, its unseen dominoes sorted (never in draw
order); each playout shuffles the unseen dominoes itself, as ``determinize`` does.
"""

from __future__ import annotations

import random

import numpy as np

from agents import compiled
from agents.compiled import (
    CASTLE,
    EMPTY,
    EPSILON_GREEDY,
    FINISHED,
    GREEDY,
    PICKING,
    PLACING,
    PLAYER_GREEDY,
    RANDOM,
    geometry,
)
from kdenv.frame import frame
from kdenv.game import OVER, PLACE, Game
from kdenv.view import PublicView

POLICY_CODES = {"random": RANDOM, "fg": GREEDY, "eg": EPSILON_GREEDY, "pg": PLAYER_GREEDY}


class Snapshot:
    """The arrays the kernel starts from: kingdoms, the draft, and the unseen dominoes (sorted)."""

    __slots__ = ("args", "num_players")

    def __init__(self, game: Game | PublicView) -> None:
        """Only public information is read: a view is enough."""
        rules, n, f = game.rules, game.num_players, frame(game.rules.kingdom_size)
        terrain = np.full((n, f.cells), EMPTY, dtype=np.int64)
        crowns = np.zeros((n, f.cells), dtype=np.int64)
        for p, kingdom in enumerate(game.kingdoms):
            _fill(terrain[p], f.castle_bit, CASTLE)
            for t, squares in enumerate(kingdom.terrain):
                _fill(terrain[p], squares, t)
            for k in (1, 2, 3):
                _fill(crowns[p], kingdom.crowns[k], k)
        k = game.line_size
        draft = np.zeros((4, k), dtype=np.int64)  # kings acting this round, their dominoes, next line, claims
        draft[0], draft[1] = game.queue, game.held
        draft[2, : len(game.line)], draft[3, : len(game.claims)] = game.line, game.claims
        phase = {OVER: FINISHED, PLACE: PLACING}.get(game.phase, PICKING)
        counters = np.array([game.king, phase, len(game.line), game.round], dtype=np.int64)
        undrawn = rules.setup(n)[1] - (game.round + 1) * k if game.line else 0  # a line drawn per round so far
        unseen = np.array(game.unseen(), dtype=np.int64)
        flags = np.array([rules.voluntary_discard, rules.middle_kingdom, rules.harmony], dtype=np.int64)
        discards = np.array([kingdom.discards for kingdom in game.kingdoms], dtype=np.int64)
        self.args = (terrain, crowns, discards, draft, counters, unseen, undrawn, flags, geometry(rules.kingdom_size))
        self.num_players = n

    def playout(
        self, rng: random.Random, policy: int = RANDOM, seat: int = 0, first: tuple[int, ...] = (), epsilon: float = 0
    ) -> np.ndarray:
        """Play the actions ``first`` (legal ones: unchecked), then ``policy``'s moves (a POLICY_CODES value;
        ``seat`` is the searching player, ``epsilon`` eg's chance of a random move) to the end, with the
        unseen dominoes shuffled; every player's (score, largest property, crowns)."""
        return self.play(rng.getrandbits(32), policy, seat, first, epsilon, record=False)[0]

    def play(
        self,
        seed: int,
        policy: int = RANDOM,
        seat: int = 0,
        first: tuple[int, ...] = (),
        epsilon: float = 0,
        record: bool = True,
        shuffle: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(standings, moves) of a playout with numba's generator seeded by ``seed``: ``moves`` holds
        (player, action, domino) rows when ``record``; ``shuffle=False`` draws the unseen in number order."""
        moves = np.zeros((200 if record else 0, 3), dtype=np.int64)
        out = np.zeros((self.num_players, 3), dtype=np.int64)
        options = (policy, seat, epsilon, seed, shuffle)
        count = compiled.play(*self.args, np.array(first, dtype=np.int64), options, moves, out)
        return out, moves[:count]

    def placements(self, player: int, number: int) -> list[int]:
        """The kernel's legal placement actions of domino ``number`` in ``player``'s kingdom, sorted."""
        terrain, geo = self.args[0], self.args[-1]
        reach, box = compiled.prepare(terrain, geo)
        out = np.zeros(4 * terrain.shape[1], dtype=np.int64)
        count = compiled.placements(terrain[player], reach[player], box[player], geo, number, out)
        return sorted(out[:count].tolist())

    def greedy_choices(self) -> set[tuple[int, int]]:
        """The kernel's Full Greedy's best choices for the acting king: (placement, slot) pairs when placing
        (slot -1 in the last round), (-1, slot) when picking."""
        terrain, crowns, discards, draft, counters, _, _, flags, geo = self.args
        found, best = compiled.greedy_choices(terrain, crowns, discards, draft, counters, flags, geo)
        return {(int(action), int(slot)) for action, slot in best[:found]}


def _fill(row: np.ndarray, bits: int, value: int) -> None:
    """Set ``row`` to ``value`` on the cells of a frame bitboard."""
    while bits:
        low = bits & -bits
        row[low.bit_length() - 1] = value
        bits ^= low
