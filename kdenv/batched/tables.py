"""The compiled core's tables, built from the engine's own data (``tiles``, ``frame``, ``rules``, ``encoding``).

Every compiled function takes its tables as an argument, so numba's cache never freezes a table: a
change to the dominoes, the frame or the bonuses reaches the compiled code at the next call.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from kdenv.actions import MAX_LINE, discard_action, num_actions
from kdenv.encoding import (
    CASTLE_PLANE,
    CROWN_PLANE,
    DOMINO_ENTRIES,
    DOMINO_WIDTH,
    EMPTY_PLANE,
    GAIN_SCALE,
    PLANES_PER_KINGDOM,
    SCORE_SCALE,
    WINDOW_PLANE,
    feature_layout,
    num_features,
    num_planes,
)
from kdenv.frame import DIRECTIONS, frame
from kdenv.kingdom import HALVES
from kdenv.rules import Rules
from kdenv.tiles import MAX_CROWNS, NUM_DOMINOES

FEATURES = ("current_line", "next_line", "held", "decision", "round", "scores", "unseen", "gains")
"""The feature blocks whose start indices ``Tables.starts`` holds, in this order (no gains: V)."""


class Tables(NamedTuple):
    """What the compiled rules and encoder need to know about one table (players, rules)."""

    halves: np.ndarray  # [number] = (terrain A, crowns A, terrain B, crowns B); row 0 unused
    size: int  # S: kingdoms are S x S
    width: int  # F = 2S - 1: the frame around the castle
    cells: int  # F * F
    castle: int  # the castle's cell
    neighbours: np.ndarray  # [cell, direction] = the next cell that way, -1 off the frame
    steps: np.ndarray  # [direction] = cell step from half A to half B
    middle: np.ndarray  # [cell] = 1 inside the castle-centred S x S (Middle Kingdom)
    voluntary_discard: bool
    middle_bonus: int  # the Middle Kingdom bonus, 0 when the variant is off
    harmony_bonus: int  # the Harmony bonus, 0 when the variant is off
    num_players: int
    kings: int  # kings on a line (dominoes per line)
    in_play: int  # dominoes in play; the others are removed unseen
    rounds: int  # rounds after the set-up
    discard: int  # the discard action; picks follow it
    num_actions: int
    gains: bool  # observations hold the gains (see kdenv.encoding)
    num_planes: int  # C of the board
    num_features: int  # V of the features
    starts: np.ndarray  # start of each FEATURES block in the features
    planes: np.ndarray  # (planes per kingdom, crown plane, castle plane, empty plane, window plane)
    domino_features: np.ndarray  # [number] = the DOMINO_WIDTH numbers describing domino n (float32)
    crown_scale: float  # the crown plane holds crowns / crown_scale
    score_scale: float  # the score features hold scores / score_scale
    gain_scale: float  # the gain planes and features hold property-score gains / gain_scale


@cache
def tables(num_players: int, rules: Rules, gains: bool = False) -> Tables:
    """The tables of a ``num_players`` game under ``rules``, observations with ``gains`` or not (cached: they
    are never modified)."""
    kings_each, in_play = rules.setup(num_players)
    f = frame(rules.kingdom_size)
    neighbours = np.full((f.cells, 4), -1, dtype=np.int64)
    for cell in range(f.cells):
        r, c = divmod(cell, f.width)
        for d, (dr, dc) in enumerate(DIRECTIONS):
            if 0 <= r + dr < f.width and 0 <= c + dc < f.width:
                neighbours[cell, d] = cell + dr * f.width + dc
    domino_features = np.zeros((NUM_DOMINOES + 1, DOMINO_WIDTH), np.float32)
    for number, entries in enumerate(DOMINO_ENTRIES):
        for offset, value in entries:
            domino_features[number, offset] = value
    layout = feature_layout(num_players, gains)
    features = num_features(num_players, gains)
    kings = kings_each * num_players
    assert kings <= MAX_LINE
    return Tables(
        halves=np.array(HALVES, dtype=np.int64),
        size=rules.kingdom_size,
        width=f.width,
        cells=f.cells,
        castle=f.castle_index,
        neighbours=neighbours,
        steps=np.array(f.steps, dtype=np.int64),
        middle=np.array([(f.middle >> cell) & 1 for cell in range(f.cells)], dtype=np.int64),
        voluntary_discard=rules.voluntary_discard,
        middle_bonus=rules.middle_bonus(True),
        harmony_bonus=rules.harmony_bonus(rules.kingdom_size**2, 0),
        num_players=num_players,
        kings=kings,
        in_play=in_play,
        rounds=in_play // kings,
        discard=discard_action(rules.kingdom_size),
        num_actions=num_actions(rules.kingdom_size),
        gains=gains,
        num_planes=num_planes(num_players, gains),
        num_features=features,
        starts=np.array([layout[name].start if name in layout else features for name in FEATURES], np.int64),
        planes=np.array([PLANES_PER_KINGDOM, CROWN_PLANE, CASTLE_PLANE, EMPTY_PLANE, WINDOW_PLANE], dtype=np.int64),
        domino_features=domino_features,
        crown_scale=float(MAX_CROWNS),
        score_scale=SCORE_SCALE,
        gain_scale=GAIN_SCALE,
    )
