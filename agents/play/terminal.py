"""``kdenv play``: a person plays Kingdomino against agents in the terminal.

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

import argparse
import random
import re
import time
from collections.abc import Sequence
from pathlib import Path

from agents.arena import play_moves, seat_players
from agents.base import Player
from kdenv.actions import decode, place_action
from kdenv.errors import KingdominoError
from kdenv.game import PLACE, Game
from kdenv.rules import Rules
from kdenv.tiles import TERRAINS, domino
from kdenv.view import PublicView
from kdenv.viewer.state import HUMAN

COLUMNS = "abcdefghijklm"  # the 13 columns of a Mighty Duel frame at most
WEB_RECORDS = "runs/web"  # where --web saves the records of finished games
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponents", default="fg", help="comma-separated player specs, e.g. fg,mce,ppo:default")
    parser.add_argument("--players", type=int, default=4, help="players at the table, 2-4 (default 4)")
    parser.add_argument("--rules", default="", help="rule names, e.g. middle_kingdom,harmony or mighty_duel")
    parser.add_argument("--seed", type=int, help="deals this game again (default: a new deal, printed at the start)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 .. players-1 (default 0)")
    parser.add_argument(
        "--record", help="where to save the game record: a new .json file, or a .jsonl file to append to "
        "(default ./kdenv-game-<time>.json)"
    )  # fmt: skip
    parser.add_argument("--trace", action="store_true", help="keep in the record what the agents thought at each move")
    parser.add_argument(
        "--web", action="store_true", help=f"play in the browser, served on 127.0.0.1 (records saved in {WEB_RECORDS}/)"
    )
    parser.add_argument("--port", type=port_number, default=8000, help="the port of --web, 1-65535 (default 8000)")


def port_number(text: str) -> int:
    """``--port``: a TCP port, 1-65535 (argparse's one-line error otherwise)."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port; give a whole number 1-65535, e.g. 8000")
    return port


# ----- move codes ------------------------------------------------------------------------------------
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
def split_specs(text: str) -> list[str]:
    """``fg,mce:policy=fg,eval=r,random`` -> ``["fg", "mce:policy=fg,eval=r", "random"]``: a ``key=value``
    part continues the spec before it."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        elif part:
            specs.append(part)
    if not specs:
        raise KingdominoError("--opponents needs at least one player spec, e.g. --opponents fg")
    return specs


def make_opponents(text: str, seats: int, rules: Rules) -> list[Player]:
    """One player per opponent seat from the specs (the last spec repeated to fill the table), seated at a
    table of ``seats + 1`` players under ``rules``."""
    from agents.registry import make_player

    specs = split_specs(text)
    if len(specs) > seats:
        raise KingdominoError(f"{len(specs)} opponents given for {seats} opponent seat(s); use --players to seat more")
    specs += specs[-1:] * (seats - len(specs))
    players: list[Player] = []
    try:
        for spec in specs:
            players.append(make_player(spec, seats + 1, rules))
    except KingdominoError:
        for player in players:
            player.close()
        raise
    return players


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


def record_path(given: str | None) -> Path:
    """Where the game record goes, checked before the game starts: ``given`` (a ``.jsonl`` file is appended
    to; any other existing file is refused), or a new ``kdenv-game-<time>.json`` that no game has taken."""
    if given is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path, n = Path(f"kdenv-game-{stamp}.json"), 1
        while path.exists():
            n += 1
            path = Path(f"kdenv-game-{stamp}-{n}.json")
    else:
        path = Path(given)
        if path.is_dir():
            raise KingdominoError(f"--record {path}: is a folder; give a file name, e.g. {path / 'game.json'}")
        if path.exists() and path.suffix != ".jsonl":
            raise KingdominoError(f"--record {path}: the file exists; give a new name, or a .jsonl file to append to")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as err:
        raise KingdominoError(f"--record {path}: cannot be written ({err.strerror}); give a writable path") from None
    if not existed:
        path.unlink()
    return path


def run(args: argparse.Namespace) -> int:
    from kdenv.render import render_ansi
    from kdenv.replay import append_record, to_record, write_record

    rules = Rules.from_names(args.rules)
    rules.setup(args.players)  # a one-line error for an impossible table
    if args.web:
        return serve_web(args, rules)
    if not 0 <= args.seat < args.players:
        raise KingdominoError(f"--seat must be 0..{args.players - 1} at a {args.players}-player table, not {args.seat}")
    opponents = make_opponents(args.opponents, args.players - 1, rules)
    human = args.seat
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000)
    game = Game(args.players, rules, seed)
    seats = [*opponents[:human], Person(game), *opponents[human:]]
    names = [f"P{s} ({'you' if s == human else p.spec})" for s, p in enumerate(seats)]
    agents = [p.spec for p in seats]
    seat_players(seats, seed)
    path = record_path(args.record)
    print(f"Kingdomino, {args.players} players, seed {seed}: you are P{human}. Type ? for help.")
    finished = False
    traces: list[dict | None] | None = [] if args.trace else None
    try:
        finished = play(game, seats, names, traces)
    finally:
        (append_record if path.suffix == ".jsonl" else write_record)(path, to_record(game, agents, traces))
        for player in opponents:
            player.close()
        if finished:
            print(f"\n=== game over ===\n{render_ansi(game, viewer=human)}\n{final_report(game, names)}")
        print(f"game record {'' if finished else '(unfinished) '}saved to {path}")
    return 0


def serve_web(args: argparse.Namespace, rules: Rules) -> int:
    """``--web``: serve the game in the browser, the page proposing ``--opponents`` and ``--players``. Each
    opponent is made once first, so that a bad spec or checkpoint is a one-line error before the server starts;
    the server offers them to its page besides its own list (agents/play/web/offer.py)."""
    try:
        from agents.play.web.server import serve
    except ImportError:
        raise KingdominoError('kdenv play --web needs the web extra: pip install -e ".[web]"') from None
    for player in make_opponents(args.opponents, args.players - 1, rules):
        player.close()
    specs = split_specs(args.opponents)
    specs += specs[-1:] * (args.players - 1 - len(specs))
    defaults = {"opponents": specs[: args.players - 1], "players": args.players, "trace": args.trace}
    serve(args.port, WEB_RECORDS, defaults)
    return 0
