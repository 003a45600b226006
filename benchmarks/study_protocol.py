"""The reference study's protocol: one test player against three Full-Greedy players.

Gedda et al. (2018): 4 players, all 48 dominoes, Middle Kingdom and Harmony on. Each deal is played
four times with the test player rotated through the seats (game g: deal g // 4, seat g % 4). Prints
the test player's win rate (shared wins split) with a 95% CI, its mean score and its mean margin
(own score - best opponent's) with 95% CIs; intervals treat the deal as the unit (cluster-robust).

    python benchmarks/study_protocol.py --agent mce:policy=fg,eval=r,seconds=1 --games 200
    python benchmarks/study_protocol.py --agent fg --opponent random --games 400 --out runs/fg_vs_random.jsonl

With --out, each game is appended to a JSON Lines file as it ends and a rerun resumes from it.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
from pathlib import Path

from rich.progress import Progress

from agents import make_player
from agents.arena import play_game
from kdenv.errors import KingdominoError
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from training.arena.stats import clustered_mean, seat_outcome, t95, wilson

SEATS = 4
_players: dict[tuple[str, str], list] = {}  # per process: the players of each (agent, opponent) pair


def play_one(agent: str, opponent: str, seed: int, index: int) -> dict:
    """Game ``index`` of the protocol: deal ``seed + index // 4``, test player in seat ``index % 4``."""
    key = (agent, opponent)
    if key not in _players:
        _players[key] = [make_player(agent)] + [make_player(opponent) for _ in range(SEATS - 1)]
    test, *others = _players[key]
    seat = index % SEATS
    players = others[:seat] + [test] + others[seat:]
    deal = seed + index // SEATS
    game = play_game(players, Game(SEATS, STUDY_RULES, seed=deal), seed=seed * 1_000_003 + index)
    scores = game.scores()
    win, margin = seat_outcome(scores, game.winners(), seat)
    return {
        "game": index,
        "deal": deal,
        "seat": seat,
        "win": win,
        "score": scores[seat],
        "margin": margin,
        "scores": scores,
    }


def _play_star(job: tuple) -> dict:
    return play_one(*job)


def summarize(rows: list[dict]) -> dict:
    """Win rate, mean score and mean margin with 95% CIs, the deal as the unit."""
    n = len(rows)
    deals = [r["deal"] for r in rows]
    wins = [r["win"] for r in rows]
    rate, se = clustered_mean(wins, deals)
    iid = math.sqrt(rate * (1 - rate) / n) if n else 0.0
    design = (se / iid) ** 2 if iid and not math.isnan(se) else 1.0
    low, high = wilson(sum(wins) / max(1.0, design), n / max(1.0, design))
    out = {"games": n, "deals": len(set(deals)), "win_rate": rate, "win_ci": (low, high)}
    for name in ("score", "margin"):
        mean, se = clustered_mean([r[name] for r in rows], deals)
        half = t95(len(set(deals)) - 1) * se if len(set(deals)) > 1 else math.nan
        out[name] = mean
        out[name + "_ci"] = half
    return out


def _read(path: Path | None) -> dict[int, dict]:
    if path is None or not path.exists():
        return {}
    done = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            done[row["game"]] = row
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default="fg", help="spec of the test player (default fg)")
    parser.add_argument("--opponent", default="fg", help="spec of the three opponents (default fg, as the study)")
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200; a multiple of 4)")
    parser.add_argument("--seed", type=int, default=0, help="first deal's seed")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--out", type=Path, help="JSON Lines file of games: written as they end, resumed from")
    args = parser.parse_args(argv)
    try:
        for spec in (args.agent, args.opponent):
            make_player(spec).close()
    except KingdominoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    done = _read(args.out)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
    todo = [(args.agent, args.opponent, args.seed, i) for i in range(args.games) if i not in done]
    rows = [done[i] for i in range(args.games) if i in done]
    with Progress() as progress:
        task = progress.add_task(f"{args.agent} vs 3 {args.opponent}", total=args.games, completed=len(rows))
        if args.workers > 1:
            pool = multiprocessing.Pool(args.workers)
            results = pool.imap_unordered(_play_star, todo)
        else:
            pool, results = None, map(_play_star, todo)
        with open(args.out if args.out else os.devnull, "a") as sink:
            for row in results:
                rows.append(row)
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                progress.advance(task)
        if pool is not None:
            pool.close()
            pool.join()
    s = summarize(rows)
    low, high = s["win_ci"]
    print(f"{args.agent} vs 3x {args.opponent}: {s['games']} games ({s['deals']} deals, seats rotated), study rules")
    print(f"win rate   {100 * s['win_rate']:5.1f}%  (95% CI {100 * low:.1f}-{100 * high:.1f}%)")
    print(f"mean score {s['score']:6.2f}  (+/- {s['score_ci']:.2f})")
    print(f"mean margin {s['margin']:+6.2f}  (+/- {s['margin_ci']:.2f})  own - best opponent")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
