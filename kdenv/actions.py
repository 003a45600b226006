"""The action codec: every decision of the game as one integer.

With kingdom size S the frame is F = 2S - 1 cells wide, castle in its centre:

* ``place(r, c, d) = 4 * (r * F + c) + d`` puts half A on frame cell (r, c) and half B one
  step in direction d (0 east, 1 south, 2 west, 3 north);
* ``discard = 4 * F * F`` discards the held domino;
* ``pick(i) = 4 * F * F + 1 + i`` claims slot i (0-based, lowest number first) of the next line.

That is 329 actions at S = 5 and 681 at S = 7 (Mighty Duel). Frame cells here are 0-based
frame coordinates; :func:`decode` also gives the castle-relative cells used by records.
"""

from __future__ import annotations

from typing import NamedTuple

from kdenv.frame import DIRECTIONS

MAX_LINE = 4


def num_actions(size: int = 5) -> int:
    """Size of the discrete action space for kingdom size ``size``."""
    width = 2 * size - 1
    return 4 * width * width + 1 + MAX_LINE


def discard_action(size: int = 5) -> int:
    """The action that discards the held domino."""
    width = 2 * size - 1
    return 4 * width * width


def pick_action(slot: int, size: int = 5) -> int:
    """The action that claims slot ``slot`` of the next line."""
    if not 0 <= slot < MAX_LINE:
        raise ValueError(f"slot {slot} is not a line slot (0..{MAX_LINE - 1})")
    return discard_action(size) + 1 + slot


def pick_slot(action: int, size: int = 5) -> int:
    """The slot of the next line that pick action ``action`` claims (inverse of :func:`pick_action`)."""
    slot = action - pick_action(0, size)
    if not 0 <= slot < MAX_LINE:
        raise ValueError(f"action {action} is not a pick")
    return slot


def place_action(cell_a: tuple[int, int], cell_b: tuple[int, int], size: int = 5) -> int:
    """The action placing half A on castle-relative ``cell_a`` and half B on ``cell_b``."""
    step = (cell_b[0] - cell_a[0], cell_b[1] - cell_a[1])
    if step not in DIRECTIONS:
        raise ValueError(f"cells {cell_a} and {cell_b} are not orthogonally adjacent")
    width, centre = 2 * size - 1, size - 1
    fr, fc = cell_a[0] + centre, cell_a[1] + centre
    if not (0 <= fr < width and 0 <= fc < width):
        raise ValueError(f"cell {cell_a} is off the {width}x{width} frame")
    return 4 * (fr * width + fc) + DIRECTIONS.index(step)


class Move(NamedTuple):
    """A decoded action: kind is "place", "discard" or "pick"; cells are castle-relative."""

    kind: str
    cells: tuple[tuple[int, int], tuple[int, int]] | None = None
    slot: int | None = None

    def __str__(self) -> str:
        if self.cells is not None:
            (ra, ca), (rb, cb) = self.cells
            return f"place A@({ra},{ca}) B@({rb},{cb})"
        return "discard" if self.kind == "discard" else f"pick slot {self.slot}"


def shown(action: object) -> str:
    """An action as errors name it: its repr on one line (an array's spans several), cut past 60 characters."""
    text = " ".join(repr(action).split())
    return text if len(text) <= 60 else text[:57] + "..."


def decode(action: int, size: int = 5) -> Move:
    """Turn an action integer into a :class:`Move`; raises ValueError outside the space."""
    width, centre = 2 * size - 1, size - 1
    discard = 4 * width * width
    if not isinstance(action, int) or isinstance(action, bool):
        try:
            action = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action {shown(action)} is not an integer") from None
    if 0 <= action < discard:
        cell, d = divmod(action, 4)
        fr, fc = divmod(cell, width)
        a = (fr - centre, fc - centre)
        dr, dc = DIRECTIONS[d]
        return Move("place", (a, (a[0] + dr, a[1] + dc)))
    if action == discard:
        return Move("discard")
    if discard < action < discard + 1 + MAX_LINE:
        return Move("pick", slot=action - discard - 1)
    raise ValueError(f"action {action} is outside the action space 0..{discard + MAX_LINE}")


def encode(move: Move, size: int = 5) -> int:
    """Inverse of :func:`decode`."""
    if move.kind == "place" and move.cells is not None:
        return place_action(move.cells[0], move.cells[1], size)
    if move.kind == "discard":
        return discard_action(size)
    if move.kind == "pick" and move.slot is not None:
        return pick_action(move.slot, size)
    raise ValueError(f"{move!r} is no move: a place with cells, a discard, or a pick with a slot")
