"""The ``kdenv`` command line: one subcommand per module, imported only when used."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys

from kdenv.errors import KingdominoError
from training.streams import guarded

# subcommand -> (module, one-line help). Each module has add_arguments(parser) and run(args) -> int.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("training.replay_cli", "re-play and check game records (a .json or .jsonl file)"),
    "bench": (
        "training.bench",
        "speed benchmarks (engine, env, playouts, vector, train, ray, search, selfplay) and the soak test",
    ),
    "tournament": ("training.tournament_cli", "head-to-head tournaments: ratings, tables, plots, game records"),
    "evaluate": (
        "training.evaluate_cli",
        "measure a player by a named protocol (evaluation.json, a line to cite), compare two, the leaderboard",
    ),
    "benchmark": (
        "training.benchmark_cli",
        "learning algorithms compared over seeds and tasks: rliable's IQM, curves, profiles (not speed: bench)",
    ),
    "exploit": (
        "training.exploit_cli",
        "how exploitable a strategy is: a best response learned against it, its win rate over learner steps",
    ),
    "train": (
        "training.train_cli",
        "train a player: MaskablePPO, RLlib's PPO or expert iteration (vs scripted opponents or in self-play)",
    ),
    "play": ("training.play_cli", "play a game against the agents in the terminal or, with --web, in the browser"),
    "view": ("training.view_cli", "write a static site to look at game records in a browser (no server needed)"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kdenv", description="Kingdomino RL suite: play, train, evaluate.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(command_module=module)
        importlib.import_module(module).add_arguments(sub_parser)
    return parser


# a file the machine will not let a command write, and what to do about it: told in one line, exit status 1
UNWRITABLE = {
    errno.ENOSPC: "free some space", errno.EDQUOT: "free some space",
    errno.EACCES: "make it writable or give another folder", errno.EPERM: "make it writable or give another folder",
    errno.EROFS: "give a folder on a writable disk",
}  # fmt: skip


class Terminated(KeyboardInterrupt):
    """SIGTERM, met as Ctrl-C is (a tournament says what it saved, a lock is let go), not as a sudden death."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    # players of one's own (MODULE:ATTR) are found in the current directory too, as `python -m` finds them; after
    # the installed packages, so that no file here hides one of them
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    args = build_parser().parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _terminate)  # a trainer puts its own while it learns
    with guarded() as streams:  # a reader that goes away (| head) loses the printing, never the files
        try:
            status = int(importlib.import_module(args.command_module).run(args) or 0)
        except KingdominoError as err:
            print(f"kdenv {args.command}: error: {err}", file=sys.stderr)
            status = 2
        except MemoryError as err:  # past the memory checks: the machine's limits are not all in MemAvailable
            said = f" ({str(err).strip().splitlines()[0]})" if str(err).strip() else ""
            print(f"kdenv {args.command}: error: out of memory{said}; the files written so far are kept: ask for "
                  "less (fewer envs, workers, games or a smaller network)", file=sys.stderr)  # fmt: skip
            status = 2
        except OSError as err:  # a full disk, a read-only folder: past the checks of the input
            if err.errno not in UNWRITABLE:
                raise
            what = f"{err.filename}: {err.strerror}" if err.filename else err.strerror
            print(f"kdenv {args.command}: error: {what}; the games and results written so far are kept: "
                  f"{UNWRITABLE[err.errno]}, then run the same command again", file=sys.stderr)  # fmt: skip
            status = 1
        except KeyboardInterrupt as stop:
            terminated = isinstance(stop, Terminated)
            print(f"kdenv {args.command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
            status = 128 + (signal.SIGTERM if terminated else signal.SIGINT)
        finally:
            signal.signal(signal.SIGTERM, previous)
    return status or int(any(stream.broken for stream in streams))  # 1: Python's own status on a broken pipe


if __name__ == "__main__":
    sys.exit(main())
