"""The 48 dominoes and the six terrains, exactly as numbered in the rules (RULES.md)."""

from __future__ import annotations

from typing import NamedTuple

TERRAINS: tuple[str, ...] = ("wheat", "forest", "lake", "grassland", "swamp", "mine")
TERRAIN_LETTERS: str = "WFLGSM"
WHEAT, FOREST, LAKE, GRASSLAND, SWAMP, MINE = range(6)
NUM_TERRAINS = 6
NUM_DOMINOES = 48
MAX_CROWNS = 3


class Half(NamedTuple):
    """One half of a domino: a terrain index (0..5) and 0..3 crowns."""

    terrain: int
    crowns: int

    def __str__(self) -> str:
        return TERRAIN_LETTERS[self.terrain] + (str(self.crowns) if self.crowns else "")


class Domino(NamedTuple):
    """A numbered domino with half A and half B (the order used by encodings and records)."""

    number: int
    a: Half
    b: Half

    @property
    def crowns(self) -> int:
        return self.a.crowns + self.b.crowns

    def __str__(self) -> str:
        return f"#{self.number} {self.a}|{self.b}"


def parse_half(text: str) -> Half:
    """Read a half written as in RULES.md: a terrain letter and an optional crown digit (`F1`)."""
    letter, digits = text[0].upper(), text[1:]
    if letter not in TERRAIN_LETTERS or (digits and (not digits.isdigit() or int(digits) > MAX_CROWNS)):
        raise ValueError(f"bad half {text!r}: expected one of {TERRAIN_LETTERS} and 0-{MAX_CROWNS} crowns")
    return Half(TERRAIN_LETTERS.index(letter), int(digits) if digits else 0)


_TABLE = """
W W   W W   F F   F F   F F   F F   L L   L L   L L   G G   G G   S S
W F   W L   W G   W S   F L   F G   W1 F  W1 L  W1 G  W1 S  W1 M  F1 W
F1 W  F1 W  F1 W  F1 L  F1 G  L1 W  L1 W  L1 F  L1 F  L1 F  L1 F  W G1
L G1  W S1  G S1  M1 W  W G2  L G2  W S2  G S2  M2 W  S M2  S M2  W M3
"""


def _build() -> tuple[Domino, ...]:
    halves = _TABLE.split()
    pairs = zip(halves[0::2], halves[1::2], strict=True)
    return tuple(Domino(n, parse_half(a), parse_half(b)) for n, (a, b) in enumerate(pairs, start=1))


DOMINOES: tuple[Domino, ...] = _build()
"""DOMINOES[n - 1] is domino number n."""


def domino(number: int) -> Domino:
    """The domino with this number (1..48)."""
    if not 1 <= number <= NUM_DOMINOES:
        raise ValueError(f"no domino numbered {number}: dominoes are numbered 1..{NUM_DOMINOES}")
    return DOMINOES[number - 1]
