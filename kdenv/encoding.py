"""Observation tensors and action masks: what a learning player sees of a game.

``ObservationEncoder(num_players, kingdom_size).encode(state, player)`` turns a :class:`~kdenv.game.Game`
or :class:`~kdenv.view.PublicView` into ``{"board": (C, F, F) float32, "features": (V,) float32}``
seen from ``player`` (the observer). It reads only public state: never ``deck`` nor ``removed``;
the unseen dominoes enter as a sorted multiset, so the order of the undrawn deck cannot leak.

Kingdoms are ordered from the observer: the observer's own kingdom first, then the others by seat
(observer+1, observer+2, ... modulo the number of players). Every "player" one-hot below is in the
same relative order (index 0 = the observer).

Board planes (F = 2S - 1 = 9 at S = 5, 13 in Mighty Duel; C = 10 * num_players + 4)::

    plane            meaning (kingdom k = (observer + k) % num_players, block at 10 * k)
    10k + 0 .. 5     terrain one-hot: wheat, forest, lake, grassland, swamp, mine
    10k + 6          crowns of the square / 3
    10k + 7          the castle
    10k + 8          empty cell
    10k + 9          window: empty cells a square may still take (kingdom stays within S x S)
    10P + d (d<4)    the decision now: cells where half A of the domino being placed may go with
                     half B one step in direction d (0 east, 1 south, 2 west, 3 north), in the
                     acting player's kingdom; all zero when picking. Equals the place part of the mask.

A domino is described by 15 numbers (``DOMINO_WIDTH``): terrain one-hot of half A (6), crowns of A / 3,
terrain one-hot of half B (6), crowns of B / 3, number / 48; all zero for "no domino".
Features (P players, L = 4 line slots; slots past the line size stay zero; :func:`feature_layout` gives
the slices by name)::

    name           width             4 players   meaning
    current_line   L * (15 + P + 2)  0:84        per king acting this round, in acting order: domino (15),
                                                 owner of the king (P, one-hot relative), done (1), acting now (1)
    next_line      L * (15 + P)      84:160      per slot of the next line, lowest number first: domino (15),
                                                 claimed by (P, one-hot relative; all zero while free)
    held           15                160:175     the domino being placed now (zero when picking)
    decision       2                 175:177     one-hot: pick, place (both zero once the game is over)
    round          1                 177         round / number of rounds (0: the set-up picks)
    scores         P                 178:182     scores so far / 100, variant bonuses included (relative order)
    unseen         48                182:230     1 for each domino no player has seen yet, at number - 1

V = 230 at 4 players, 221 at 3, 212 at 2.

``action_mask(state)`` is the int8 mask over the action codec of :mod:`kdenv.actions`, equal to
``state.legal_actions()``. The encoder keeps each seat's planes (rebuilt, vectorised from the bitboards,
only when that kingdom changed: once per placement) and the features that change only between rounds, so
an observation is mostly a copy.
"""

from __future__ import annotations

from array import array
from functools import cache, lru_cache

import numpy as np
from gymnasium import spaces

from kdenv.actions import MAX_LINE, discard_action, num_actions
from kdenv.frame import frame
from kdenv.game import OVER, PICK, PLACE
from kdenv.kingdom import HALVES
from kdenv.rules import Rules
from kdenv.tiles import MAX_CROWNS, NUM_DOMINOES, NUM_TERRAINS

PLANES_PER_KINGDOM = 10
CROWN_PLANE, CASTLE_PLANE, EMPTY_PLANE, WINDOW_PLANE = 6, 7, 8, 9
PLACEMENT_PLANES = 4
DOMINO_WIDTH = 2 * (NUM_TERRAINS + 1) + 1
SCORE_SCALE = 100.0


def num_planes(num_players: int) -> int:
    """C, the number of board planes."""
    return PLANES_PER_KINGDOM * num_players + PLACEMENT_PLANES


def feature_layout(num_players: int) -> dict[str, slice]:
    """The slices of the features vector by name (see the module docstring)."""
    widths = {
        "current_line": MAX_LINE * (DOMINO_WIDTH + num_players + 2),
        "next_line": MAX_LINE * (DOMINO_WIDTH + num_players),
        "held": DOMINO_WIDTH,
        "decision": 2,
        "round": 1,
        "scores": num_players,
        "unseen": NUM_DOMINOES,
    }
    layout, start = {}, 0
    for name, width in widths.items():
        layout[name] = slice(start, start + width)
        start += width
    return layout


def _domino_entries() -> tuple[tuple[tuple[int, float], ...], ...]:
    """For each domino number, its non-zero (offset, value) entries within a DOMINO_WIDTH block."""
    rows: list[tuple[tuple[int, float], ...]] = [()]
    for number in range(1, NUM_DOMINOES + 1):
        ta, ca, tb, cb = HALVES[number]
        b = NUM_TERRAINS + 1
        entries = [(ta, 1.0), (b + tb, 1.0), (2 * b, number / NUM_DOMINOES)]
        entries += [(off, c / MAX_CROWNS) for off, c in ((NUM_TERRAINS, ca), (b + NUM_TERRAINS, cb)) if c]
        rows.append(tuple(entries))
    return tuple(rows)


DOMINO_ENTRIES = _domino_entries()
"""DOMINO_ENTRIES[n]: the non-zero (offset, value) pairs of domino n's 15 numbers (n = 0: none)."""


@cache
def _unpacker(size: int):
    """unpack(boards) -> (len(boards), cells) uint8 0/1 array of Python-int bitboards of a frame size."""
    cells = frame(size).cells
    nbytes = (cells + 7) // 8

    def unpack(boards) -> np.ndarray:
        raw = np.frombuffer(b"".join(b.to_bytes(nbytes, "little") for b in boards), np.uint8)
        return np.unpackbits(raw, bitorder="little").reshape(len(boards), nbytes * 8)[:, :cells]

    return unpack


@lru_cache(maxsize=256)
def _placement_bits(masks: tuple[int, int, int, int], size: int) -> np.ndarray:
    """The four placement bitboards as a (4, cells) 0/1 array (shared: do not modify)."""
    return _unpacker(size)(masks)


@lru_cache(maxsize=256)
def _placement_mask(masks: tuple[int, int, int, int], size: int, voluntary_discard: bool) -> np.ndarray:
    """The action mask of a placement decision (shared: callers copy it)."""
    mask = np.zeros(num_actions(size), np.int8)
    discard = discard_action(size)
    mask[:discard] = _placement_bits(masks, size).T.ravel()
    mask[discard] = voluntary_discard or not any(masks)
    return mask


@lru_cache(maxsize=256)
def _placement_planes(masks: tuple[int, int, int, int], size: int) -> np.ndarray:
    """The placement board planes (4, F, F) float32 of a placement decision (shared: do not modify)."""
    width = frame(size).width
    return _placement_bits(masks, size).astype(np.float32).reshape(PLACEMENT_PLANES, width, width)


def action_mask(state) -> np.ndarray:
    """The int8 legal-action mask of ``state`` (a Game or PublicView), equal to its legal_actions()."""
    rules = state.rules
    phase = state.phase
    if phase == PLACE:
        return _placement_mask(state.placement_masks(), rules.kingdom_size, rules.voluntary_discard).copy()
    mask = np.zeros(num_actions(rules.kingdom_size), np.int8)
    if phase == PICK:
        first = discard_action(rules.kingdom_size) + 1
        for i, owner in enumerate(state.claims):
            if owner < 0:
                mask[first + i] = 1
    return mask


class ObservationEncoder:
    """Encodes public game states for one table size; keeps the planes of unchanged kingdoms."""

    def __init__(self, num_players: int, kingdom_size: int = 5) -> None:
        rules = Rules(kingdom_size=kingdom_size)
        kings_each, in_play = rules.setup(num_players)
        self.num_players = num_players
        self.kingdom_size = kingdom_size
        self.num_actions = num_actions(kingdom_size)
        self.rounds = in_play // (kings_each * num_players)
        f = frame(kingdom_size)
        self.width = f.width
        self.num_planes = num_planes(num_players)
        self.layout = feature_layout(num_players)
        self.num_features = self.layout["unseen"].stop
        self.space = spaces.Dict(
            {
                "board": spaces.Box(0.0, 1.0, (self.num_planes, f.width, f.width), np.float32),
                "features": spaces.Box(0.0, np.inf, (self.num_features,), np.float32),
            }
        )
        # planes = WEIGHTS @ bits + BIAS, bits rows: terrain 0..5, crowns 1..3, occupied, window.
        weights = np.zeros((PLANES_PER_KINGDOM, NUM_TERRAINS + 5), np.float32)
        for t in range(NUM_TERRAINS):
            weights[t, t] = 1.0
        for k in (1, 2, 3):
            weights[CROWN_PLANE, NUM_TERRAINS + k - 1] = k / MAX_CROWNS
        weights[EMPTY_PLANE, NUM_TERRAINS + 3] = -1.0
        weights[WINDOW_PLANE, NUM_TERRAINS + 4] = 1.0
        bias = np.zeros((PLANES_PER_KINGDOM, f.cells), np.float32)
        bias[CASTLE_PLANE, f.castle_bit.bit_length() - 1] = 1.0
        bias[EMPTY_PLANE] = 1.0
        self._weights, self._bias = weights, bias
        self._unpack = _unpacker(kingdom_size)
        self._no_placement = np.zeros((PLACEMENT_PLANES, f.width, f.width), np.float32)
        # per seat: (kingdom, occupied, discards, rules, planes, score) of the last kingdom seen
        self._kingdoms: list[tuple | None] = [None] * num_players
        self._round: tuple[tuple, array] | None = None  # (key, features) of _round_features
        # Feature indices of each domino's non-zero numbers in each place it can appear.
        cur, nxt = self.layout["current_line"].start, self.layout["next_line"].start
        self._cur_at = [cur + i * (DOMINO_WIDTH + num_players + 2) for i in range(MAX_LINE)]
        self._next_at = [nxt + i * (DOMINO_WIDTH + num_players) for i in range(MAX_LINE)]
        self._cur_owner_at = [at + DOMINO_WIDTH for at in self._cur_at]
        self._next_claim_at = [at + DOMINO_WIDTH for at in self._next_at]
        self._score_at = self.layout["scores"].start
        self._decision_at = self.layout["decision"].start
        self._round_at = self.layout["round"].start
        self._unseen_at = self.layout["unseen"].start - 1  # + domino number
        held = self.layout["held"].start
        self._values = [tuple(v for _, v in entries) for entries in DOMINO_ENTRIES]
        self._cur_index = [_indices(at) for at in self._cur_at]
        self._next_index = [_indices(at) for at in self._next_at]
        self._held_index = _indices(held)

    def _kingdom(self, state, seat: int) -> tuple[np.ndarray, int]:
        """(planes (10, F, F), score) of a seat's kingdom, rebuilt only when its content changed."""
        k = state.kingdoms[seat]
        cached = self._kingdoms[seat]
        # Squares are only ever added, so the same kingdom object with the same squares and discards is unchanged.
        if (
            cached is not None and cached[0] is k and cached[1] == k.occupied and cached[2] == k.discards
            and cached[3] is state.rules
        ):  # fmt: skip
            return cached[4], cached[5]
        bits = self._unpack((*k.terrain, k.crowns[1], k.crowns[2], k.crowns[3], k.occupied, k.window))
        planes = (self._weights @ bits.astype(np.float32) + self._bias).reshape(
            PLANES_PER_KINGDOM, self.width, self.width
        )
        score = state.score(seat)
        self._kingdoms[seat] = (k, k.occupied, k.discards, state.rules, planes, score)
        return planes, score

    def score(self, state, seat: int) -> int:
        """The score of a seat, variant bonuses included (shares the cache of the planes)."""
        return self._kingdom(state, seat)[1]

    def _round_features(self, state) -> array:
        """A new features vector holding what changes only between rounds, whoever observes: the dominoes
        of both lines and the unseen dominoes (the last one is cached)."""
        unseen = state.unseen()
        key = (tuple(state.held), tuple(state.line), tuple(unseen))
        if self._round is None or self._round[0] != key:
            features = array("f", bytes(4 * self.num_features))
            for number in unseen:
                features[self._unseen_at + number] = 1.0
            for i, number in enumerate(state.held):
                for at, value in zip(self._cur_index[i][number], self._values[number], strict=True):
                    features[at] = value
            for i, number in enumerate(state.line):
                for at, value in zip(self._next_index[i][number], self._values[number], strict=True):
                    features[at] = value
            self._round = (key, features)
        return self._round[1][:]

    def encode(self, state, player: int) -> dict[str, np.ndarray]:
        """The observation of ``state`` (Game or PublicView) from ``player``'s point of view."""
        n = self.num_players
        if state.num_players != n or state.rules.kingdom_size != self.kingdom_size:
            raise ValueError(
                f"encoder for {n} players at size {self.kingdom_size} got a {state.num_players}-player game "
                f"at size {state.rules.kingdom_size}"
            )
        phase, acting = state.phase, state.king
        features = self._round_features(state)
        planes = []
        score_at = self._score_at
        for rel in range(n):
            kingdom_planes, score = self._kingdom(state, (player + rel) % n)
            planes.append(kingdom_planes)
            features[score_at + rel] = score / SCORE_SCALE
        owner_at = self._cur_owner_at
        for i, owner in enumerate(state.queue):
            features[owner_at[i] + (owner - player) % n] = 1.0
            if phase == OVER or i < acting:
                features[owner_at[i] + n] = 1.0
            elif i == acting:
                features[owner_at[i] + n + 1] = 1.0
        claim_at = self._next_claim_at
        for i, owner in enumerate(state.claims):
            if owner >= 0:
                features[claim_at[i] + (owner - player) % n] = 1.0
        if phase == PLACE:
            number = state.held_domino
            for at, value in zip(self._held_index[number], self._values[number], strict=True):
                features[at] = value
            features[self._decision_at + 1] = 1.0
            planes.append(_placement_planes(state.placement_masks(), self.kingdom_size))
        else:
            planes.append(self._no_placement)
            if phase == PICK:
                features[self._decision_at] = 1.0
        features[self._round_at] = state.round / self.rounds
        return {"board": np.concatenate(planes), "features": np.frombuffer(features, np.float32)}


def _indices(at: int) -> list[tuple[int, ...]]:
    """For each domino number, the feature indices of its non-zero numbers in a block starting at ``at``."""
    return [tuple(at + off for off, _ in entries) for entries in DOMINO_ENTRIES]
