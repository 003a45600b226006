"""``kdenv tournament``: play a head-to-head tournament, print the ratings table, write the reports.

Examples::

    kdenv tournament --quick                                   # the built-in players, about a minute
    kdenv tournament --agents random gprd fg "mce:seconds=0.2" --players 4 --games 200 --out runs/t1
    kdenv tournament --protocol study --agent ppo:default --games 400   # one agent vs three fg, MK + Harmony
    kdenv tournament --agents fg "mce:seconds=1" --games 1000 --backend ray --address auto   # on a Ray cluster

Re-running a command with the same ``--out`` resumes it; a larger ``--games`` extends it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agents.referee import MOVE_LIMIT
from agents.registry import PLAYERS, known_names, make_player, parse_spec
from agents.specs import slug_of
from kdenv.errors import KingdominoError
from kdenv.rules import STUDY_RULES, Rules
from training.arena.report import print_results, win_summary
from training.arena.stats import Results
from training.backends.choose import add_backend_arguments, backend_of

if TYPE_CHECKING:
    from training.arena.tournament import Tournament

DEFAULT_AGENTS = ("random", "gprd", "fg", "ppo:default")  # those that exist here are used without --agents
QUICK_GAMES = 240  # --quick: games of the built-in players (seconds to a minute on 2 cores)
STUDY_OPPONENT = "fg"  # the study's baseline: one agent against three Full Greedy players


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="SPEC",
        help=f"player specs ({known_names()}); list one twice to seat it twice (default: those of "
        f"{' '.join(DEFAULT_AGENTS)} that exist)",
    )
    parser.add_argument(
        "--players", type=int, metavar="N", help="players per table: 2, 3 or 4 (default: min(4, agents))"
    )
    parser.add_argument(
        "--games", type=int, metavar="N", help="games to play, rounded up to whole rounds (default 100)"
    )
    parser.add_argument(
        "--rules", default="", metavar="NAMES", help="rule names, e.g. middle_kingdom,harmony or mighty_duel"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seeds the deals and the players (default 0)")
    parser.add_argument(
        "--out", metavar="DIR", help="directory for games.jsonl and the reports (default runs/tournament)"
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--quick", action="store_true", help=f"a short tournament of the built-in players ({QUICK_GAMES} games)"
    )
    parser.add_argument(
        "--protocol", choices=["study"], help="study: --agent vs three --opponent (fg), 4 players, MK + Harmony"
    )
    parser.add_argument("--agent", metavar="SPEC", help="the agent measured by --protocol study")
    parser.add_argument(
        "--opponent", metavar="SPEC", help=f"the three opponents of --protocol study (default {STUDY_OPPONENT})"
    )
    parser.add_argument(
        "--trace", action="store_true", help="keep in each move of games.jsonl what its player thought (mce, uct, ppo:)"
    )
    add_move_limit(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_move_limit(parser: argparse.ArgumentParser, default: float | str = MOVE_LIMIT, said: str = "") -> None:
    """``--move-limit SECONDS``: a player that takes longer over a move forfeits its game (``none``: no limit);
    ``default`` may be ``argparse.SUPPRESS`` (no attribute unless given), ``said`` the default in words."""
    parser.add_argument(
        "--move-limit",
        type=move_limit,
        default=default,
        metavar="SECONDS",
        help=f"seconds a move may take before its player forfeits the game (default {said or default}; none: no limit)",
    )


def move_limit(text: str) -> float | None:
    """``--move-limit``'s value: seconds, or ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give seconds or none, not {text!r}") from None


def forfeit_lines(tournament: Tournament, out: str) -> list[str]:
    """One line per agent that forfeited games of this run (each counted as its loss)."""
    by_agent: dict[str, list[str]] = {}
    for game, forfeit in tournament.forfeits:
        by_agent.setdefault(game.agents[forfeit.seat], []).append(forfeit.reason)
    return [
        f"{agent} forfeited {len(reasons)} game(s) ("
        + ", ".join(f"{reason} {reasons.count(reason)}" for reason in dict.fromkeys(reasons))
        + f"), each counted as its loss: see the forfeits in {out}/games.jsonl"
        for agent, reasons in by_agent.items()
    ]


def run(args: argparse.Namespace) -> int:
    from training.arena.tournament import Tournament

    agents, players, games, rules, out = _settings(args)
    backend = backend_of(args)
    tournament = Tournament(agents, players, games, rules, args.seed, out, trace=args.trace, move_limit=args.move_limit)
    announce(tournament, out)
    try:
        results = tournament.run(backend, progress=not args.no_progress)
    except KeyboardInterrupt:
        print(f"{len(tournament.records)} games saved in {out}/games.jsonl; run the same command again to resume")
        raise
    paths = tournament.write_reports(results)  # before printing: a reader that goes away (| head) loses nothing
    print_results(results)
    if args.protocol == "study":
        print(_study_line(results, args.agent, args.opponent or STUDY_OPPONENT))
    for line in forfeit_lines(tournament, out):
        print(line)
    print("wrote " + ", ".join(str(p) for p in [out + "/games.jsonl", *paths]))
    return 0


def announce(tournament: Tournament, out: str) -> None:
    """Print the notes and the schedule (a reader that goes away meets the command line's guarded streams: the
    games are played and written all the same)."""
    done = len(tournament.records)
    for note in tournament.notes:
        print(note)
    print(tournament.schedule.describe() + (f"; {done} already in {out}/games.jsonl" if done else ""))


def _settings(args: argparse.Namespace) -> tuple[list[str], int, int, Rules, str]:
    """(agents, players, games, rules, out) from the options, presets filled in; one-line errors on misuse."""
    if args.protocol == "study":
        if not args.agent:
            raise KingdominoError("--protocol study needs --agent SPEC (the agent to measure against three fg)")
        if args.agents or args.players not in (None, 4) or args.rules or args.quick:
            raise KingdominoError("--protocol study fixes the table (--agent vs 3 fg, 4 players, MK + Harmony)")
        opponent = args.opponent or STUDY_OPPONENT
        name = "-vs-".join(slug_of(spec) for spec in [args.agent] + ([opponent] if args.opponent else []))
        return [args.agent] + [opponent] * 3, 4, _games(args, 100), STUDY_RULES, args.out or f"runs/study-{name}"
    if args.agent or args.opponent:
        raise KingdominoError("--agent is for --protocol study; use --agents SPEC SPEC ... for a tournament")
    agents = args.agents or _default_agents()
    players = args.players or max(2, min(4, len(agents)))
    if args.players is not None and args.players not in (2, 3, 4):
        raise KingdominoError(f"--players must be 2, 3 or 4, not {args.players}")
    games = _games(args, QUICK_GAMES if args.quick else 100)
    out = args.out or ("runs/tournament-quick" if args.quick else "runs/tournament")
    return agents, players, games, Rules.from_names(args.rules), out


def _games(args: argparse.Namespace, default: int) -> int:
    return default if args.games is None else args.games


def _default_agents() -> list[str]:
    """The built-in players that exist in this install (a ppo:default checkpoint may not)."""
    agents = []
    for spec in DEFAULT_AGENTS:
        if parse_spec(spec)[0] not in PLAYERS:
            continue
        try:
            make_player(spec).close()
        except KingdominoError:  # e.g. no trained checkpoint yet
            continue
        agents.append(spec)
    return agents


def _study_line(results: Results, agent: str, opponent: str) -> str:
    """The study's two figures for the measured agent: win rate and margin over the best opponent."""
    a = results.agent(agent)
    table = f"{agent} vs 3 x {opponent} (4 players, Middle Kingdom + Harmony)"
    return f"study protocol: {table}, {a.games} games: {win_summary(a, chance=0.25)}"
