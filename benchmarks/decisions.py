"""Decision quality: how good each player's moves are at the same positions, judged by Full-Greedy playouts.

Win rates from tournaments need hundreds of games to tell players a few points apart; the moves themselves
tell them apart sooner. Positions are drawn from games of ``--player`` against three ``fg`` at the study's
rules (a decision of its seat with two legal actions or more, each kept with probability 0.1). At each, every
player of ``--players`` chooses a move, and each move chosen is scored by ``--playouts`` playouts in which every
seat plays ``fg`` (the study's opponents) to the end: the mover's share of the win (``wdl``). The first player is
the reference: each other's mean difference to it is printed with its standard error (positions are the unit),
and how often it chose another move. The oracle knows the opponents' policy: a player that models them as
``fg`` (``mce``) is favoured, as it is in the study's tournaments.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from agents.game_loop import play_game
from agents.playout import Playouts
from agents.registry import make_player
from kdenv.game import Game
from kdenv.replay import replay_steps, to_record
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from training.progress import ProgressBar

PLAYERS = ("ppo:default", "az:default,simulations=128", "mce:playouts=128")
KEEP = 0.1  # the chance that a decision of the player's seat is kept as a position


def positions(player: str, count: int, seed: int) -> list[Game]:
    """``count`` positions (games, the player's seat to move) of games of ``player`` against three ``fg``."""
    rng = random.Random(seed)
    found: list[Game] = []
    game_seed = seed
    while len(found) < count:
        seat = game_seed % 4
        specs = ["fg"] * 4
        specs[seat] = player
        players = [make_player(spec, 4, STUDY_RULES) for spec in specs]
        record = to_record(play_game(players, Game(4, STUDY_RULES, seed=game_seed), seed=game_seed), specs)
        for _, game in zip(record["moves"], replay_steps(record), strict=False):
            if game.current_player == seat and len(game.legal_actions()) > 1 and rng.random() < KEEP:
                found.append(game.clone())
        game_seed += 1
    rng.shuffle(found)
    return found[:count]


def judge(games: list[Game], specs: list[str], playouts: int, seed: int) -> np.ndarray:
    """(positions, players): the oracle's value of each player's move at each position."""
    players = [make_player(spec, 4, STUDY_RULES) for spec in specs]
    rng = random.Random(seed)
    values = np.zeros((len(games), len(specs)))
    bar = ProgressBar("positions", len(games))
    for i, game in enumerate(games):
        seat = game.current_player
        view = PublicView(game)
        chosen = []
        for player in players:
            player.reset(seat, seed=seed + i)
            chosen.append(player.act(view))
        oracle = Playouts(view, "fg", seat, "wdl")
        score = {a: float(np.mean([oracle.values(rng, (a,))[seat] for _ in range(playouts)])) for a in set(chosen)}
        values[i] = [score[a] for a in chosen]
        bar.update(i + 1)
    bar.stop()
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench decisions", description=__doc__)
    parser.add_argument("--players", nargs="+", default=list(PLAYERS), help="player specs; the first is the reference")
    parser.add_argument("--player", default="ppo:default", help="whose games the positions come from")
    parser.add_argument("--positions", type=int, default=150, help="positions judged (default 150)")
    parser.add_argument("--playouts", type=int, default=200, help="fg playouts per move chosen (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.process_time()
    games = positions(args.player, args.positions, args.seed)
    values = judge(games, args.players, args.playouts, args.seed)
    print(f"{len(games)} positions of {args.player} vs 3 fg (study rules), {args.playouts} fg playouts per move "
          f"chosen, {time.process_time() - start:.0f} CPU s")  # fmt: skip
    print(f"{'player':60} {'oracle value':>12} {'vs the first':>18} {'other move':>10}")
    for j, spec in enumerate(args.players):
        difference = values[:, j] - values[:, 0]
        error = difference.std(ddof=1) / np.sqrt(len(games)) if len(games) > 1 else float("nan")
        print(f"{spec:60} {values[:, j].mean():12.4f} {difference.mean():+11.4f} ± {error:.4f} "
              f"{np.mean(difference != 0) if j else 0:10.0%}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
