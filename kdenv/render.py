"""Pictures of a game for people: coloured terminal text (``render_ansi``) and RGB images (``render_rgb``).

Both take a :class:`~kdenv.game.Game` or :class:`~kdenv.view.PublicView` (only public state is read) and
show every kingdom (its S x S area around the squares laid so far), the current line (which king is on
which domino, which kings are done, who acts now), the next line with its claims, and the domino in hand.
``render_rgb`` draws with numpy, and the scores' text with Pillow (a few milliseconds a frame), so it suits
video recording.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from kdenv.kingdom import HALVES
from kdenv.tiles import TERRAIN_LETTERS

# ----- shared: the part of the frame to show ---------------------------------------------------------


def _area(kingdom) -> tuple[int, int]:
    """Top-left frame cell of the S x S area shown for a kingdom: its squares, centred, within the frame."""
    f = kingdom.frame
    occupied_rows = [r for r in range(f.width) if kingdom.occupied & f.row_span[r][r]]
    occupied_cols = [c for c in range(f.width) if kingdom.occupied & f.col_span[c][c]]

    def start(lo: int, hi: int) -> int:
        return min(max(lo - (f.size - (hi - lo + 1)) // 2, 0), f.width - f.size)

    return start(occupied_rows[0], occupied_rows[-1]), start(occupied_cols[0], occupied_cols[-1])


def _cell(kingdom, index: int) -> tuple[int, int] | None:
    """(terrain, crowns) of a frame cell; (-1, 0) for the castle; None if empty."""
    bit = 1 << index
    if not kingdom.occupied & bit:
        return None
    for t, board in enumerate(kingdom.terrain):
        if board & bit:
            return t, next((k for k in (1, 2, 3) if kingdom.crowns[k] & bit), 0)
    return -1, 0


def _seats(state, viewer: int | None) -> list[int]:
    n = state.num_players
    first = 0 if viewer is None else viewer
    return [(first + i) % n for i in range(n)]


# ----- ansi ----------------------------------------------------------------------------------------------

_TERRAIN_BG = (178, 28, 32, 113, 101, 240)  # xterm-256 backgrounds: wheat, forest, lake, grassland, swamp, mine
_PLAYER_FG = (196, 33, 165, 220)  # red, blue, magenta, yellow
_RESET = "\x1b[0m"


def paint(text: str, fg: int | None = None, bg: int | None = None, bold: bool = False) -> str:
    """``text`` in 256-colour ANSI codes (foreground, background, bold)."""
    codes = (["1"] if bold else []) + ([f"38;5;{fg}"] if fg is not None else []) + ([f"48;5;{bg}"] if bg else [])
    return f"\x1b[{';'.join(codes)}m{text}{_RESET}" if codes else text


def ansi_half(terrain: int, crowns: int) -> str:
    """One square as two coloured characters: terrain letter and crowns."""
    fg = 16 if _TERRAIN_BG[terrain] in (178, 113) else 231
    return paint(f"{TERRAIN_LETTERS[terrain]}{crowns or ' '}", fg=fg, bg=_TERRAIN_BG[terrain])


def ansi_domino(number: int) -> str:
    """A domino as its number and its two coloured halves."""
    if not number:
        return "  --  "
    ta, ca, tb, cb = HALVES[number]
    return f"{number:2d}" + ansi_half(ta, ca) + ansi_half(tb, cb)


def ansi_castle() -> str:
    """The castle square as two coloured characters."""
    return paint("[]", fg=16, bg=250)


def _ansi_king(player: int) -> str:
    return paint(f"P{player}", fg=_PLAYER_FG[player], bold=True)


def _ansi_kingdom(kingdom) -> list[str]:
    """S rows of S two-character cells: terrain letter and crowns, castle ``[]``, ``·`` still reachable."""
    f = kingdom.frame
    top, left = _area(kingdom)
    rows = []
    for r in range(top, top + f.size):
        row = []
        for c in range(left, left + f.size):
            index = r * f.width + c
            content = _cell(kingdom, index)
            if content is None:
                row.append(" ·" if kingdom.window >> index & 1 else "  ")
            elif content[0] < 0:
                row.append(ansi_castle())
            else:
                row.append(ansi_half(*content))
        rows.append("".join(row))
    return rows


def render_ansi(state, viewer: int | None = None) -> str:
    """The game as coloured terminal text; ``viewer`` (a seat) is shown first and marked "you"."""
    size = state.rules.kingdom_size
    seats = _seats(state, viewer)
    scores = state.scores()
    headers, pictures = [], []
    for p in seats:
        label = f"P{p}{' you' if p == viewer else ''} {scores[p]:3d}"
        headers.append(paint(f"{label:<{2 * size}}", fg=_PLAYER_FG[p], bold=True))
        pictures.append(_ansi_kingdom(state.kingdoms[p]))
    gap = "   "
    lines = [gap.join(headers)]
    lines += [gap.join(picture[r] for picture in pictures) for r in range(size)]
    phase = state.phase
    current = []
    for i, (owner, number) in enumerate(zip(state.queue, state.held, strict=True)):
        mark = "✓" if phase == "over" or i < state.king else ("▶" if i == state.king else " ")
        current.append(f"{mark}{_ansi_king(owner)} {ansi_domino(number)}")
    lines.append(f"round {state.round:2d}  current line: " + "  ".join(current))
    upcoming = [
        f"{_ansi_king(owner) if owner >= 0 else '  '} {ansi_domino(number)}"
        for number, owner in zip(state.line, state.claims, strict=True)
    ]
    lines.append("           next line:    " + ("  ".join(upcoming) if upcoming else "(none: last round)"))
    if phase == "over":
        winners = " and ".join(f"P{p}" for p in state.winners())
        lines.append(f"game over: {winners} win{'s' if len(state.winners()) == 1 else ''}")
    elif phase == "place":
        lines.append(f"{_ansi_king(state.current_player)} places {ansi_domino(state.held_domino)}")
    else:
        lines.append(f"{_ansi_king(state.current_player)} picks a domino of the next line")
    return "\n".join(lines)


# ----- rgb -------------------------------------------------------------------------------------------------

CELL = 32  # pixels per square
_PAD = 10
_BAR = 16  # height of the player bar above a kingdom
_BACKGROUND = np.array((246, 242, 232), np.uint8)
_TERRAIN_RGB = np.array(
    [(232, 196, 62), (36, 112, 52), (52, 124, 204), (136, 196, 84), (132, 120, 92), (88, 78, 76)], np.uint8
)
_REACHABLE, _OUTSIDE = np.array((232, 224, 206), np.uint8), np.array((214, 206, 190), np.uint8)
_PLAYER_RGB = np.array(((214, 40, 40), (36, 100, 210), (176, 60, 176), (232, 150, 20)), np.uint8)
_GOLD, _INK = np.array((255, 214, 0), np.uint8), np.array((40, 32, 24), np.uint8)
_GREY = np.array((170, 160, 150), np.uint8)
_CROWN = np.array([[1, 0, 1, 0, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]], bool)
_TOWER = np.array([[1, 0, 1, 0, 1, 0, 1], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 1, 1, 1],
                   [1, 1, 1, 0, 1, 1, 1]], bool)  # fmt: skip


def _glyph(image: np.ndarray, mask: np.ndarray, y: int, x: int, colour, scale: int = 1) -> None:
    if scale > 1:
        mask = mask.repeat(scale, 0).repeat(scale, 1)
    image[y : y + mask.shape[0], x : x + mask.shape[1]][mask] = colour


_TEXT_SIZE = 14  # pixels: the height of Pillow's default font in the player bars


@cache
def _ink(text: str) -> np.ndarray:
    """How much ink (0 to 1) each pixel of ``text`` takes in Pillow's default font, cropped to the letters."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(_TEXT_SIZE)
    left, top, right, bottom = font.getbbox(text)
    canvas = Image.new("L", (int(right), int(bottom)))
    ImageDraw.Draw(canvas).text((0, 0), text, fill=255, font=font)
    return np.asarray(canvas, np.float32)[int(top) :, int(left) :] / 255


def _text(image: np.ndarray, text: str, y: int, x: int, colour) -> None:
    """Write ``text`` with the top-left corner of its letters at (y, x), blended into the picture."""
    ink = _ink(text)[..., None]
    area = image[y : y + ink.shape[0], x : x + ink.shape[1]]
    area[:] = (area * (1 - ink) + np.asarray(colour, np.float32) * ink).astype(np.uint8)


@cache
def _canvas(height: int, width: int) -> np.ndarray:
    """An empty picture in the background colour (copied for each frame: filling one is slow)."""
    return np.tile(_BACKGROUND, (height, width, 1))


@cache
def _tile(terrain: int | None, crowns: int) -> np.ndarray:
    """A CELL x CELL picture of one square: the terrain's colour, a darker edge, a gold mark per crown;
    terrain -1 is the castle, terrain None an empty cell (crowns 1: still reachable, 0: not)."""
    tile = np.empty((CELL, CELL, 3), np.uint8)
    if terrain is None:
        tile[:] = _REACHABLE if crowns else _OUTSIDE
        tile[:, -1] = tile[-1, :] = _BACKGROUND
        return tile
    if terrain < 0:
        tile[:] = (196, 196, 204)
        _glyph(tile, _TOWER, 6, 2, (110, 110, 124), 4)
        return tile
    colour = _TERRAIN_RGB[terrain]
    tile[:] = (colour * 0.72).astype(np.uint8)
    tile[1:-1, 1:-1] = colour
    for y, x in ((3, 3), (3, 17), (13, 3))[:crowns]:
        tile[y : y + 8, x : x + 12] = _INK
        _glyph(tile, _CROWN, y + 1, x + 1, _GOLD, 2)
    return tile


def _domino(image: np.ndarray, y: int, x: int, number: int) -> None:
    ta, ca, tb, cb = HALVES[number]
    image[y : y + CELL, x : x + CELL] = _tile(ta, ca)
    image[y : y + CELL, x + CELL : x + 2 * CELL] = _tile(tb, cb)


def _king(image: np.ndarray, y: int, x: int, player: int, state: str) -> None:
    """A king's disc in the player's colour: "acting" gets a ring, "done" is faded, "free" is an empty ring."""
    r = CELL // 2 - 2
    yy, xx = np.ogrid[-r : r + 1, -r : r + 1]
    disc, ring = xx * xx + yy * yy <= r * r, (xx * xx + yy * yy <= r * r) & (xx * xx + yy * yy >= (r - 2) ** 2)
    area = image[y + 2 : y + 2 + 2 * r + 1, x + 2 : x + 2 + 2 * r + 1]
    if state == "free":
        area[ring] = _GREY
        return
    colour = _PLAYER_RGB[player].astype(float)
    if state == "done":
        colour = colour * 0.4 + _BACKGROUND * 0.6
    area[disc] = colour.astype(np.uint8)
    if state == "acting":
        area[ring] = _INK


def _kingdom_picture(kingdom) -> np.ndarray:
    f = kingdom.frame
    image = np.empty((f.size * CELL, f.size * CELL, 3), np.uint8)
    top, left = _area(kingdom)
    for r in range(f.size):
        for c in range(f.size):
            index = (top + r) * f.width + left + c
            y, x = r * CELL, c * CELL
            content = _cell(kingdom, index)
            tile = _tile(*content) if content is not None else _tile(None, kingdom.window >> index & 1)
            image[y : y + CELL, x : x + CELL] = tile
    return image


def render_rgb(state, viewer: int | None = None) -> np.ndarray:
    """The game as an RGB image (H, W, 3) uint8: kingdoms with player bars and scores, then both lines."""
    size = state.rules.kingdom_size
    seats = _seats(state, viewer)
    side = size * CELL
    slot = CELL + 2 * CELL + _PAD  # a king, a domino, a gap
    width = max(len(seats) * (side + 2 * _PAD), 2 * _PAD + 4 * slot + 3 * CELL)
    lines_top = _PAD + _BAR + side + 2 * _PAD
    height = lines_top + 2 * (CELL + _PAD) + _PAD
    image = _canvas(height, width).copy()
    scores = state.scores()
    over = state.phase == "over"
    winners = set(state.winners()) if over else set()
    for i, p in enumerate(seats):
        x = _PAD + i * (side + 2 * _PAD)
        image[_PAD : _PAD + _BAR, x : x + side] = _PLAYER_RGB[p]
        _text(image, str(scores[p]), _PAD + 3, x + 4, 255)
        if p in winners:
            _glyph(image, _CROWN, _PAD + 3, x + side - 24, _GOLD, 3)
        image[_PAD + _BAR : _PAD + _BAR + side, x : x + side] = _kingdom_picture(state.kingdoms[p])
    # The current line (left column: kings on their dominoes), the next line (claims).
    for row, y in enumerate((lines_top, lines_top + CELL + _PAD)):
        x0 = _PAD + 3 * CELL
        marker = _CROWN if row == 0 else np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [0, 0, 1, 0, 0]], bool)
        _glyph(image, marker, y + 6, _PAD + 2, _INK, 3)  # a crown: this round; an arrow: the next one
        if row == 0:
            entries = [
                (owner, number, "done" if over or i < state.king else ("acting" if i == state.king else "waiting"))
                for i, (owner, number) in enumerate(zip(state.queue, state.held, strict=True))
            ]
        else:
            entries = [
                (owner, number, "free" if owner < 0 else "waiting")
                for number, owner in zip(state.line, state.claims, strict=True)
            ]
        for i, (owner, number, king) in enumerate(entries):
            x = x0 + i * slot
            _king(image, y, x, owner, king)
            if number:
                if king == "acting" and state.phase == "place":
                    image[y - 3 : y + CELL + 3, x + CELL - 3 : x + 3 * CELL + 3] = _INK
                _domino(image, y, x + CELL, number)
            else:
                image[y + CELL // 2 - 1 : y + CELL // 2 + 1, x + CELL + 4 : x + 3 * CELL - 4] = _GREY
    return image


def palette() -> dict[str, object]:
    """The colours of these pictures as CSS hex strings (terrains in TERRAINS order, players by seat), so that
    other renderers, such as the browser viewer, draw games the same way."""

    def hexes(colours) -> list[str]:
        return ["#" + "".join(f"{int(v):02x}" for v in colour) for colour in colours]

    return {
        "terrains": hexes(_TERRAIN_RGB),
        "players": hexes(_PLAYER_RGB),
        "castle": hexes([(196, 196, 204)])[0],
        "background": hexes([_BACKGROUND])[0],
        "empty": hexes([_REACHABLE])[0],
        "outside": hexes([_OUTSIDE])[0],
        "gold": hexes([_GOLD])[0],
    }
