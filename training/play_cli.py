"""``kdenv play``: a person against agents, in the terminal (:mod:`agents.play.terminal`) or, with ``--web``, in
the browser (:mod:`agents.play.web.server`); the game record is saved at the end."""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from agents.base import Player
from agents.game_loop import seat_players
from agents.play.terminal import Person, final_report, play
from kdenv.errors import KingdominoError
from kdenv.files import open_unlinked
from kdenv.game import Game
from kdenv.rules import Rules

WEB_RECORDS = "runs/web"  # where --web saves the records of finished games


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
        os.close(open_unlinked(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT))  # as the record will be: no link
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
