"""A person plays Kingdomino against agents in the terminal (``kdenv play``, :mod:`training.play_cli`).

Each decision of the person shows the table (kdenv.render's coloured text), a map of the person's
kingdom with chess-like coordinates, and every legal move with its code:

* ``p1`` .. ``p4`` picks that domino of the next line (lowest number first);
* ``d5d4`` places the held domino with half A on d5 and half B on d4 (columns are letters, rows
  numbers; the castle is always on the centre square, e5 in a 5x5 game, g7 in Mighty Duel);
* ``d`` discards the held domino (only when it fits nowhere, or with the voluntary_discard rule);
* ``?`` shows the help, ``q`` quits (the record of the unfinished game is saved); Ctrl-C or end of input
  quits too.

Bad input gets a hint and the prompt again. The game record (``kingdomino-replay/1``) is saved at the end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.base import Player
from agents.game_loop import play_moves
from kdenv.actions import decode, place_action
from kdenv.game import PLACE, Game
from kdenv.tiles import TERRAINS, domino
from kdenv.view import PublicView
from kdenv.viewer.state import HUMAN

COLUMNS = "abcdefghijklm"  # the 13 columns of a Mighty Duel frame at most
CELLS = re.compile(r"([a-z])(\d{1,2})([a-z])(\d{1,2})")  # a placement: the cells of half A and half B
QUIT = {"q", "quit", "exit"}
HELP = {"?", "h", "help"}
HELP_TEXT = """\
Codes:
  p1, p2..  pick that domino of the next line (p1 is the lowest number)
  {example:<8}  place the domino you hold: half A (shown first) on the first cell, half B on the second;
            columns are letters and rows numbers, as on the map of your kingdom (castle on {castle})
  d         discard the domino you hold (when it fits nowhere; any time with the voluntary_discard rule)
  ?         this help      q  quit (the unfinished game is saved)
A domino must have a half next to your castle or to a square of the same terrain, and the kingdom
must fit in {size}x{size}. Each property (connected squares of one terrain) scores squares x crowns."""


def cell_code(cell: tuple[int, int], size: int) -> str:
    """The map name of a castle-relative cell: column letter, then row number (the castle is e5 at size 5)."""
    row, col = cell
    return f"{COLUMNS[col + size - 1]}{row + size}"


def move_code(action: int, size: int) -> str:
    """The code a person types for ``action``: ``p2``, ``d``, or the two cells of a placement (``d5d4``)."""
    move = decode(action, size)
    if move.slot is not None:  # a pick
        return f"p{move.slot + 1}"
    if move.cells is None:
        return "d"
    return cell_code(move.cells[0], size) + cell_code(move.cells[1], size)


def sample_placement(size: int) -> str:
    """A placement code to explain the format: the two cells east of the castle (``f5g5`` at size 5)."""
    return cell_code((0, 1), size) + cell_code((0, 2), size)


def legal_codes(game: Game) -> dict[str, int]:
    """Every legal move now, code -> action, in the order listed: picks, placements, discard."""
    size = game.rules.kingdom_size
    actions = sorted(game.legal_actions(), key=lambda action: _listing_order(action, size))
    return {move_code(action, size): action for action in actions}


def _listing_order(action: int, size: int) -> tuple[int, int, int, int]:
    """Picks by slot; placements by the cell of half A (by rows, then columns), then E, S, W, N; discard last."""
    move = decode(action, size)
    if move.cells is not None:  # a placement
        return (1, *move.cells[0], action % 4)
    return (0, move.slot, 0, 0) if move.slot is not None else (2, 0, 0, 0)


def parse_move(text: str, game: Game) -> int:
    """The action that a typed code means now; a ValueError whose message is a hint when it means none."""
    codes = legal_codes(game)
    code = "".join(text.lower().split()).replace(",", "").replace("-", "")
    if code in codes:
        return codes[code]
    raise ValueError(_hint(text.strip(), code, game, codes))


def _hint(text: str, code: str, game: Game, codes: dict[str, int]) -> str:
    """Why ``code`` is no legal move now, and what to type instead."""
    example = next(iter(codes))
    placing = game.phase == PLACE
    held = domino(game.held_domino) if placing else None
    if not code:
        return f"type a move code, e.g. {example} (? for help)"
    if re.fullmatch(r"p\d+", code):
        if placing:
            return f"first place {held} (e.g. {example}); you pick after placing it"
        slot = int(code[1:]) - 1
        if 0 <= slot < len(game.line):
            return f"{code} {domino(game.line[slot])} is taken already; free: {' '.join(codes)}"
        return f"{code} is not a domino of the next line; free: {' '.join(codes)}"
    if code == "d":
        if not placing:
            return f"there is nothing to discard now; pick a domino: {' '.join(codes)}"
        return f"{held} fits in your kingdom, so it must be placed, not discarded (e.g. {example})"
    match = CELLS.fullmatch(code)
    if match is None:
        return f"{text!r} is not a move code; type one of the codes listed above, e.g. {example} (? for help)"
    if not placing:
        return f"now you pick a domino of the next line ({' '.join(codes)}), not place one"
    return _placement_hint(match, game, example)


def _placement_hint(match: re.Match, game: Game, example: str) -> str:
    """Why the two cells of a placement code are no legal placement of the held domino."""
    held = domino(game.held_domino)
    size = game.rules.kingdom_size
    cells = []
    for letter, digits in (match.group(1, 2), match.group(3, 4)):
        row, col = int(digits) - size, COLUMNS.find(letter) - (size - 1)
        if not (-size < row < size and -size < col < size):
            return f"{letter}{digits} is off the map: columns a-{COLUMNS[2 * size - 2]}, rows 1-{2 * size - 1}"
        cells.append((row, col))
    a, b = (cell_code(cell, size) for cell in cells)
    try:
        action = place_action(cells[0], cells[1], size)
    except ValueError:
        return f"{a} and {b} are not side by side: a domino covers two neighbouring cells (e.g. {example})"
    reason = game.kingdoms[game.current_player].why_not(held.number, action) or "not a legal placement now"
    return f"{held} cannot go on {a}+{b}: {reason}"


# ----- what the person sees -----------------------------------------------------------------------
def kingdom_map(game: Game, player: int) -> str:
    """The player's kingdom on its frame with the coordinates of the codes, painted as kdenv.render paints
    kingdoms: every cell a square may still go on (``·``) is shown, so every placement listed is on it."""
    from kdenv.render import ansi_castle, ansi_half

    kingdom = game.kingdoms[player]
    size = game.rules.kingdom_size
    width, centre = 2 * size - 1, size - 1
    area = kingdom.occupied | kingdom.window
    rows = [r for r in range(width) if any(area >> (r * width + c) & 1 for c in range(width))]
    cols = [c for c in range(width) if any(area >> (r * width + c) & 1 for r in range(width))]
    lines = ["    " + " ".join(f"{COLUMNS[c]} " for c in cols).rstrip()]
    for r in rows:
        cells = []
        for c in cols:
            content = kingdom.cell_at(r - centre, c - centre)
            if content is None:
                cells.append("· " if kingdom.window >> (r * width + c) & 1 else "  ")
            elif content[0] < 0:
                cells.append(ansi_castle())
            else:
                cells.append(ansi_half(*content))
        lines.append(f"{r + 1:>3} " + " ".join(cells).rstrip())
    return "\n".join(lines)


def list_moves(game: Game, codes: Sequence[str]) -> str:
    """The legal moves, compactly: picks with their dominoes, placements ten to a line."""
    from kdenv.render import ansi_domino

    if game.phase != PLACE:
        return "pick: " + "   ".join(f"{code} {ansi_domino(game.line[int(code[1:]) - 1])}" for code in codes)
    held = domino(game.held_domino)
    if list(codes) == ["d"]:
        return f"{ansi_domino(held.number)} fits nowhere in your kingdom: d to discard it"
    places = [c for c in codes if c != "d"]
    lines = [
        f"place {ansi_domino(held.number)} ({len(places)} ways): cell of half A ({held.a}), then of half B ({held.b})"
    ]
    lines += ["  " + " ".join(f"{c:<6}" for c in places[i : i + 10]).rstrip() for i in range(0, len(places), 10)]
    if "d" in codes:
        lines.append("  or d to discard it")
    return "\n".join(lines)


def announce(game: Game, names: Sequence[str]) -> str:
    """One line saying what the last move of ``game`` was, by its player (``names[player]``)."""
    player, action, number = game.moves[-1]
    size = game.rules.kingdom_size
    move, piece, name = decode(action, size), domino(number), names[player]
    if move.slot is not None:
        return f"{name} picks {piece}"
    if move.cells is None:
        return f"{name} discards {piece}"
    a, b = (cell_code(cell, size) for cell in move.cells)
    return f"{name} places {piece}: {piece.a} on {a}, {piece.b} on {b}"


def final_report(game: Game, names: Sequence[str]) -> str:
    """Final scores with where they come from, and the winners."""
    lines = ["Final scores:"]
    for player, name in enumerate(names):
        parts = breakdown_text(game, player)
        lines.append(f"  {name:<16} {game.score(player):>3}" + (f" = {parts}" if parts else ""))
    winners = [names[p] for p in game.winners()]
    lines.append(("Winner: " if len(winners) == 1 else "Shared victory: ") + ", ".join(winners))
    return "\n".join(lines)


def breakdown_text(game: Game, player: int) -> str:
    """``forest 6x2 + lake 4x1 + middle kingdom 10``: the scoring properties and bonuses of a kingdom."""
    score = game.breakdown(player)
    parts = [
        f"{TERRAINS[p.terrain]} {p.squares}x{p.crowns}"
        for p in sorted(score.properties, key=lambda p: -p.squares * p.crowns)
        if p.crowns
    ]
    parts += [
        f"{label} {bonus}"
        for label, bonus in (("middle kingdom", score.middle_kingdom), ("harmony", score.harmony))
        if bonus
    ]
    return " + ".join(parts)


# ----- the game ------------------------------------------------------------------------------------
def ask(game: Game, seat: int) -> int | None:
    """Show the table and the legal moves, read codes until one is legal; None when the person quits."""
    from kdenv.render import render_ansi

    codes = legal_codes(game)
    example = next(iter(codes))
    size = game.rules.kingdom_size
    print(f"\n=== round {game.round}: your turn to {game.phase} ===")
    print(render_ansi(game, viewer=seat))
    if game.phase == PLACE:
        print(f"your kingdom (castle on {cell_code((0, 0), size)}):\n{kingdom_map(game, seat)}")
    print(list_moves(game, list(codes)))
    while True:
        try:
            text = input(f"your move (e.g. {example}; ? help, q quit): ")
        except (EOFError, KeyboardInterrupt):  # end of input or Ctrl-C: quit, keeping the game
            print()
            return None
        command = text.strip().lower()
        if command in QUIT:
            return None
        if command in HELP:
            print(
                HELP_TEXT.format(
                    example=example if game.phase == PLACE else sample_placement(size),
                    castle=cell_code((0, 0), size),
                    size=size,
                )
            )
            continue
        try:
            return parse_move(text, game)
        except ValueError as hint:
            print(f"  {hint}")


class Quit(Exception):
    """The person quit the game (q, Ctrl-C or the end of input)."""


class Person(Player):
    """The person's seat: each move read at the terminal (:func:`ask`); quitting raises :class:`Quit`."""

    spec = HUMAN

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game

    def act(self, view: PublicView) -> int:
        action = ask(self.game, self.seat)
        if action is None:
            raise Quit
        return action


def play(game: Game, seats: Sequence[Player], names: Sequence[str], traces: list[dict | None] | None = None) -> bool:
    """Play until the game is over (True) or the person quits (False); every move is announced in one line.
    With a ``traces`` list, what the agent thought at each move (None for the person's) is appended to it."""
    try:
        play_moves(seats, game, traces, on_move=lambda: print(announce(game, names)))
    except Quit:
        return False
    return True
