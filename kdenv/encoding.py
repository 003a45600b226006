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
    10P + 4 + d      with ``gains=True`` only: the property score that placement would add / 10
                     (``Kingdom.gain``); zero where it is illegal and when picking.

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

    gains          L * P             230:246     with ``gains=True`` only: per next-line slot, per kingdom
                                                 (relative order), the most property score its domino could
                                                 add there / 10 (``Kingdom.best_gain``; zero for no domino)

V = 230 at 4 players, 221 at 3, 212 at 2 (246, 233 and 220 with gains).

The gains are what a greedy player computes before it moves; observing them spares a network from learning
to flood-fill properties, which a small convolution does poorly. They cost a placement search per next-line
domino and kingdom, once per round and kingdom change, so they are an option (``gains``) of the encoder and
of the envs; checkpoints record which observation they were trained on.

``action_mask(state)`` is the int8 mask over the action codec of :mod:`kdenv.actions`, equal to
``state.legal_actions()``.

Observations are built incrementally: the encoder keeps every seat's planes and updates only the cells
whose bits changed since it last saw that kingdom (two squares and the cells that left the window, once
per placement), keeps the scores until a kingdom changes, and the line and unseen features until a new
line is drawn (the engine replaces its line lists at each draw, never edits them, so their identity marks
a round). An observation is then two copies and a few dozen feature writes.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from gymnasium import spaces

from kdenv.actions import MAX_LINE, discard_action, num_actions
from kdenv.frame import frame
from kdenv.game import OVER, PICK, PLACE
from kdenv.kingdom import HALVES, Kingdom, max_score
from kdenv.rules import HARMONY_BONUS, MIDDLE_KINGDOM_BONUS, Rules
from kdenv.tiles import MAX_CROWNS, NUM_DOMINOES, NUM_TERRAINS

PLANES_PER_KINGDOM = 10
CROWN_PLANE, CASTLE_PLANE, EMPTY_PLANE, WINDOW_PLANE = 6, 7, 8, 9
PLACEMENT_PLANES = 4
DOMINO_WIDTH = 2 * (NUM_TERRAINS + 1) + 1
SCORE_SCALE = 100.0
GAIN_SCALE = 10.0

BITBOARD_PLANES: tuple[tuple[int, float, float], ...] = (
    *((t, 1.0, 0.0) for t in range(NUM_TERRAINS)),
    *((CROWN_PLANE, k / MAX_CROWNS, 0.0) for k in range(1, MAX_CROWNS + 1)),
    (EMPTY_PLANE, 0.0, 1.0),
    (WINDOW_PLANE, 1.0, 0.0),
)
"""For each bitboard of :func:`kingdom_bitboards`: the plane it draws, the value of a cell where its bit is
set, and where it is not (a square has one number of crowns, so the crown boards share a plane). The
castle plane never changes."""


def kingdom_bitboards(kingdom: Kingdom) -> tuple[int, ...]:
    """The bitboards the planes are made of: terrain 0..5, crowns 1..3, occupied, window."""
    crowns = kingdom.crowns
    return (*kingdom.terrain, crowns[1], crowns[2], crowns[3], kingdom.occupied, kingdom.window)


def num_planes(num_players: int, gains: bool = False) -> int:
    """C, the number of board planes."""
    return PLANES_PER_KINGDOM * num_players + PLACEMENT_PLANES * (2 if gains else 1)


def num_features(num_players: int, gains: bool = False) -> int:
    """V, the length of the features vector."""
    return max(block.stop for block in feature_layout(num_players, gains).values())


def table_of(board_planes: int) -> tuple[int, bool]:
    """(players, gains) of an observation with ``board_planes`` planes (the inverse of :func:`num_planes`)."""
    players, extra = divmod(board_planes - PLACEMENT_PLANES, PLANES_PER_KINGDOM)
    return players, extra == PLACEMENT_PLANES


def feature_layout(num_players: int, gains: bool = False) -> dict[str, slice]:
    """The slices of the features vector by name (see the module docstring)."""
    widths = {
        "current_line": MAX_LINE * (DOMINO_WIDTH + num_players + 2),
        "next_line": MAX_LINE * (DOMINO_WIDTH + num_players),
        "held": DOMINO_WIDTH,
        "decision": 2,
        "round": 1,
        "scores": num_players,
        "unseen": NUM_DOMINOES,
        **({"gains": MAX_LINE * num_players} if gains else {}),
    }
    layout, start = {}, 0
    for name, width in widths.items():
        layout[name] = slice(start, start + width)
        start += width
    return layout


def observation_space(num_players: int, kingdom_size: int = 5, gains: bool = False) -> spaces.Dict:
    """The space of one observation: ``board`` (C, F, F) and ``features`` (V,), float32, every bound finite: 1,
    but for the scores (:func:`~kdenv.kingdom.max_score` and the variants' bonuses, / 100) and the gains
    (``max_score`` / 10), which normalizing wrappers and SuperSuit read."""
    width, gain = frame(kingdom_size).width, max_score(kingdom_size) / GAIN_SCALE
    board = np.ones((num_planes(num_players, gains), width, width), np.float32)
    board[num_planes(num_players) :] = gain  # the gain planes
    features = np.ones(num_features(num_players, gains), np.float32)
    layout = feature_layout(num_players, gains)
    features[layout["scores"]] = (max_score(kingdom_size) + MIDDLE_KINGDOM_BONUS + HARMONY_BONUS) / SCORE_SCALE
    if gains:
        features[layout["gains"]] = gain
    return spaces.Dict(
        {
            "board": spaces.Box(np.zeros_like(board), board, dtype=np.float32),
            "features": spaces.Box(np.zeros_like(features), features, dtype=np.float32),
        }
    )


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


def _unpack(boards: tuple[int, ...], cells: int) -> np.ndarray:
    """Bitboards as a (len(boards), cells) uint8 array of 0/1."""
    size = (cells + 7) // 8
    raw = np.frombuffer(b"".join([board.to_bytes(size, "little") for board in boards]), np.uint8)
    return np.unpackbits(raw.reshape(len(boards), size), axis=1, count=cells, bitorder="little")


@lru_cache(maxsize=256)
def _placement(masks: tuple[int, int, int, int], size: int, voluntary_discard: bool) -> tuple[np.ndarray, array]:
    """(action mask, flat placement planes) of a placement decision (shared: callers copy, never modify)."""
    cells = frame(size).cells
    mask = bytearray(num_actions(size))
    planes = array("f", bytes(4 * PLACEMENT_PLANES * cells))
    for d, bits in enumerate(masks):
        while bits:
            low = bits & -bits
            bits ^= low
            cell = low.bit_length() - 1
            mask[4 * cell + d] = 1
            planes[d * cells + cell] = 1.0
    mask[discard_action(size)] = voluntary_discard or not any(masks)
    return np.frombuffer(bytes(mask), np.int8), planes


def action_mask(state) -> np.ndarray:
    """The int8 legal-action mask of ``state`` (a Game or PublicView), equal to its legal_actions()."""
    rules = state.rules
    phase = state.phase
    if phase == PLACE:
        return _placement(state.placement_masks(), rules.kingdom_size, rules.voluntary_discard)[0].copy()
    mask = np.zeros(num_actions(rules.kingdom_size), np.int8)
    if phase == PICK:
        first = discard_action(rules.kingdom_size) + 1
        for i, owner in enumerate(state.claims):
            if owner < 0:
                mask[first + i] = 1
    return mask


@dataclass(slots=True)
class DrawnKingdom:
    """A seat's kingdom as last drawn into the encoder's planes. Squares are only ever added, so the same kingdom
    object with as many squares and discards, under the same rules, is unchanged since."""

    kingdom: Kingdom | None = None
    occupied: int = -1
    discards: int = -1
    rules: Rules | None = None
    bitboards: tuple[int, ...] = ()
    score: int = 0

    def shows(self, kingdom: Kingdom, rules: Rules) -> bool:
        """Whether the planes drawn show ``kingdom`` under ``rules`` as it is now."""
        return (
            self.kingdom is kingdom
            and self.occupied == kingdom.occupied
            and self.discards == kingdom.discards
            and self.rules is rules
        )


class RoundFeatures(NamedTuple):
    """The features that change only between rounds, for the lines they were written from (the engine replaces
    its line lists at each draw, never edits them, so their identity marks a round)."""

    held: list[int] | None
    line: list[int] | None
    features: array


class LineGains(NamedTuple):
    """The best gain / 10 of each next-line domino in a seat's kingdom, for the kingdom and line they were found in."""

    kingdom: Kingdom | None
    occupied: int
    line: list[int] | None
    gains: tuple[float, ...]


class ObservationEncoder:
    """Encodes public game states for one table size, incrementally (see the module docstring)."""

    def __init__(self, num_players: int, kingdom_size: int = 5, gains: bool = False) -> None:
        rules = Rules(kingdom_size=kingdom_size)
        kings_each, in_play = rules.setup(num_players)
        self.num_players = num_players
        self.kingdom_size = kingdom_size
        self.gains = gains
        self.num_actions = num_actions(kingdom_size)
        self.rounds = in_play // (kings_each * num_players)
        f = frame(kingdom_size)
        self.width = f.width
        self.num_planes = num_planes(num_players, gains)
        self.layout = feature_layout(num_players, gains)
        self.space = observation_space(num_players, kingdom_size, gains)
        self.num_features = self.space["features"].shape[0]
        self._board_shape = (self.num_planes, f.width, f.width)
        self._cells = f.cells
        # A kingdom's planes = weights @ (its bitboards as 0/1 rows) + blank (the planes of no bit set).
        self._weights = np.zeros((PLANES_PER_KINGDOM, len(BITBOARD_PLANES)), np.float32)
        self._blank = np.zeros((PLANES_PER_KINGDOM, f.cells), np.float32)
        self._blank[CASTLE_PLANE, f.castle_index] = 1.0
        for j, (plane, on, off) in enumerate(BITBOARD_PLANES):
            self._weights[plane, j] = on - off
            self._blank[plane] = off
        # Each seat's planes (flat), in seat order and then once more, so that the kingdoms seen from any
        # observer (the observer's first, then the others by seat) are one slice.
        self._planes = array("f", np.tile(self._blank.ravel(), 2 * num_players).tobytes())
        self._drawn = [DrawnKingdom() for _ in range(num_players)]
        self._scores = array("f", bytes(4 * 2 * num_players))  # score / 100 by seat, twice over like the planes
        self._no_placement = array("f", bytes(4 * PLACEMENT_PLANES * f.cells))
        self._round = RoundFeatures(None, None, array("f"))  # of the last round seen
        self._known_gains = [LineGains(None, -1, None, ())] * num_players
        self._gains_at = self.layout["gains"].start if gains else 0
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

    def _refresh(self, state, seat: int) -> None:
        """Bring a seat's planes and score up to date with its kingdom, if it changed."""
        k, drawn = state.kingdoms[seat], self._drawn[seat]
        if drawn.shows(k, state.rules):
            return
        bits = kingdom_bitboards(k)
        if drawn.kingdom is k:
            self._redraw(seat, drawn.bitboards, bits)
        else:
            self._draw(seat, bits)
        drawn.kingdom, drawn.occupied, drawn.discards, drawn.rules = k, k.occupied, k.discards, state.rules
        drawn.bitboards, drawn.score = bits, state.score(seat)
        self._scores[seat] = self._scores[seat + self.num_players] = drawn.score / SCORE_SCALE

    def _draw(self, seat: int, bits: tuple[int, ...]) -> None:
        """Draw a seat's planes whole (another kingdom: a new game, a copy), vectorised."""
        drawn = (self._weights @ _unpack(bits, self._cells).astype(np.float32) + self._blank).ravel()
        first = drawn.size * seat
        twin = drawn.size * (seat + self.num_players)
        view = np.frombuffer(self._planes, np.float32)
        view[first : first + drawn.size] = view[twin : twin + drawn.size] = drawn

    def _redraw(self, seat: int, old: tuple[int, ...], bits: tuple[int, ...]) -> None:
        """Redraw the cells of a seat's planes whose bits changed from ``old`` to ``bits`` (the kingdom grew)."""
        planes, cells = self._planes, self._cells
        first = PLANES_PER_KINGDOM * cells * seat
        twin = first + PLANES_PER_KINGDOM * cells * self.num_players
        changed = [j for j in range(len(bits)) if bits[j] != old[j]]
        for setting in (False, True):  # unset bits first: the crown boards share a plane
            for j in changed:
                plane, on, off = BITBOARD_PLANES[j]
                x = bits[j] & ~old[j] if setting else old[j] & ~bits[j]
                value = on if setting else off
                while x:
                    low = x & -x
                    x ^= low
                    cell = plane * cells + low.bit_length() - 1
                    planes[first + cell] = planes[twin + cell] = value

    def score(self, state, seat: int) -> int:
        """The score of a seat, variant bonuses included (kept until its kingdom changes)."""
        self._refresh(state, seat)
        return self._drawn[seat].score

    def _round_features(self, state) -> array:
        """A new features vector holding what changes only between rounds, whoever observes: the dominoes
        of both lines and the unseen dominoes (kept while the engine's line lists stay the same objects)."""
        held, line = state.held, state.line
        if self._round.held is not held or self._round.line is not line:
            features = array("f", bytes(4 * self.num_features))
            for number in state.unseen():
                features[self._unseen_at + number] = 1.0
            for i, number in enumerate(held):
                for at, value in zip(self._cur_index[i][number], self._values[number], strict=True):
                    features[at] = value
            for i, number in enumerate(line):
                for at, value in zip(self._next_index[i][number], self._values[number], strict=True):
                    features[at] = value
            self._round = RoundFeatures(held, line, features)
        return self._round.features[:]

    def encode(self, state, player: int) -> dict[str, np.ndarray]:
        """The observation of ``state`` (Game or PublicView) from ``player``'s point of view."""
        n = self.num_players
        rules = state.rules
        if state.num_players != n or rules.kingdom_size != self.kingdom_size:
            raise ValueError(
                f"encoder for {n} players at size {self.kingdom_size} got a {state.num_players}-player game "
                f"at size {rules.kingdom_size}"
            )
        phase, acting = state.phase, state.king
        features = self._round_features(state)
        for seat in range(n):
            self._refresh(state, seat)
        features[self._score_at : self._score_at + n] = self._scores[player : player + n]
        owner_at = self._cur_owner_at
        for i, owner in enumerate(state.queue):
            at = owner_at[i]
            features[at + (owner - player) % n] = 1.0
            if phase == OVER or i < acting:
                features[at + n] = 1.0
            elif i == acting:
                features[at + n + 1] = 1.0
        claim_at = self._next_claim_at
        for i, owner in enumerate(state.claims):
            if owner >= 0:
                features[claim_at[i] + (owner - player) % n] = 1.0
        if phase == PLACE:
            number = state.held_domino
            for at, value in zip(self._held_index[number], self._values[number], strict=True):
                features[at] = value
            features[self._decision_at + 1] = 1.0
            placement = _placement(state.placement_masks(), self.kingdom_size, rules.voluntary_discard)[1]
        else:
            placement = self._no_placement
            if phase == PICK:
                features[self._decision_at] = 1.0
        features[self._round_at] = state.round / self.rounds
        block = PLANES_PER_KINGDOM * self._cells
        board = self._planes[block * player : block * (player + n)]
        board += placement
        if self.gains:
            board += self._placement_gains(state) if phase == PLACE else self._no_placement
            for j in range(n):
                for slot, gain in enumerate(self._line_gains(state, (player + j) % n)):
                    features[self._gains_at + slot * n + j] = gain
        return {
            "board": np.frombuffer(board, np.float32).reshape(self._board_shape),
            "features": np.frombuffer(features, np.float32),
        }

    def _placement_gains(self, state) -> array:
        """The gain planes of a placement decision: each legal placement's added property score / 10."""
        cells = self._cells
        kingdom, number = state.kingdoms[state.current_player], state.held_domino
        planes = array("f", bytes(4 * PLACEMENT_PLANES * cells))
        for action, gain in kingdom.gains(number).items():
            planes[(action & 3) * cells + (action >> 2)] = gain / GAIN_SCALE
        return planes

    def _line_gains(self, state, seat: int) -> tuple[float, ...]:
        """The best gain / 10 of each next-line domino in ``seat``'s kingdom (kept until either changes)."""
        kingdom: Kingdom = state.kingdoms[seat]
        line, known = state.line, self._known_gains[seat]
        if known.kingdom is not kingdom or known.occupied != kingdom.occupied or known.line is not line:
            gains = tuple(kingdom.best_gain(number) / GAIN_SCALE if number else 0.0 for number in line)
            known = self._known_gains[seat] = LineGains(kingdom, kingdom.occupied, line, gains)
        return known.gains


def _indices(at: int) -> list[tuple[int, ...]]:
    """For each domino number, the feature indices of its non-zero numbers in a block starting at ``at``."""
    return [tuple(at + off for off, _ in entries) for entries in DOMINO_ENTRIES]
