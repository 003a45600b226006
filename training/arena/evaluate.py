"""Evaluation of a policy at a full table: one learner against copies of one opponent (the study's protocol).

Against players that play in the vector env (``random``, ``gprd``, ``fg``, ``ppo:PATH``) the games run there,
the learner's policy batched over 64 games, dealt from ``seed`` (the same deals at every evaluation, so
checkpoints compare paired), the learner's seat drawn per game. Against any other player (``mce``...),
games are dealt from seeds ``seed + i`` with the learner in seat ``i % num_players`` and spread over
worker processes, each running torch on one thread. A shared victory counts as a fraction of a win
(1 / number of winners).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kdenv.files import append_jsonl, read_jsonl
from kdenv.game import Game
from kdenv.rules import Rules
from training.arena.pool import worker_pool
from training.arena.stats import Z95, seat_outcome, wilson


@dataclass
class EvalResult:
    """Outcome of ``games`` games of the learner against copies of ``opponent``."""

    opponent: str
    games: int
    wins: float  # shared victories count as a fraction
    mean_margin: float  # learner's score minus the best other score
    mean_score: float
    margin_sd: float = 0.0  # standard deviation of the margin over games

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """Wilson 95% confidence interval of the win rate (games are independent deals)."""
        return wilson(self.wins, self.games)

    def margin_half_width(self) -> float:
        """Half-width of the normal 95% confidence interval of the mean margin."""
        return Z95 * self.margin_sd / math.sqrt(self.games) if self.games > 1 else math.inf

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {**asdict(self), "win_rate": self.win_rate, "ci95": [low, high], "margin_ci95": self.margin_half_width()}

    def __str__(self) -> str:
        low, high = self.interval()
        return (
            f"vs {self.opponent}: {self.win_rate:.1%} wins [{low:.1%}, {high:.1%}] in {self.games} games, "
            f"margin {self.mean_margin:+.1f} ± {self.margin_half_width():.1f}, score {self.mean_score:.1f}"
        )


def _play(settings: dict, state: dict, opponent: str, seeds: list[int], rules: dict, deterministic: bool) -> list:
    """Worker: play the games of ``seeds``; returns (win share, margin, score) per game."""
    import torch

    from agents.arena import play_game
    from agents.ppo_player import PPOPlayer, build_policy
    from agents.registry import make_player

    torch.set_num_threads(1)
    learner = PPOPlayer.from_policy(settings, build_policy(settings, state), sample=not deterministic)
    n = int(settings["num_players"])
    opponents = [make_player(opponent) for _ in range(n - 1)]
    outcomes = []
    for seed in seeds:
        seat = seed % n
        players = opponents[:seat] + [learner] + opponents[seat:]
        game = play_game(players, Game(n, Rules.from_dict(rules), seed=seed), seed=seed)
        scores = game.scores()
        outcomes.append((*seat_outcome(scores, game.winners(), seat), scores[seat]))
    for player in opponents:
        player.close()
    return outcomes


def evaluation_pool(workers: int) -> Executor:
    """Worker processes for evaluation games against players that do not play in the vector env (none start
    before the first game is submitted; see :mod:`training.arena.pool`)."""
    return worker_pool(workers)


def batched(opponent: str) -> bool:
    """Whether ``opponent`` plays in the vector env (compiled, or a checkpoint), so no worker is needed."""
    from agents.vector import COMPILED

    return opponent.strip().lower() in COMPILED or opponent.strip().lower().startswith("ppo:")


def evaluate(
    settings: dict,
    state: dict,
    opponent: str,
    games: int,
    rules: Rules,
    pool: Executor | None,
    seed: int = 0,
    deterministic: bool = True,
    chunk: int = 4,
    on_game: Callable[[int], None] | None = None,
) -> EvalResult:
    """Play ``games`` games of the policy (``settings`` + ``state``) against copies of ``opponent``: in the
    vector env when the opponent plays there (:func:`batched`), else in the ``pool``'s workers."""
    if batched(opponent):
        outcomes = _play_batched(settings, state, opponent, games, rules, seed, deterministic)
        if on_game is not None:
            on_game(len(outcomes))
        return _result(opponent, outcomes)
    seeds = list(range(seed, seed + games))
    chunks = [seeds[i : i + chunk] for i in range(0, games, chunk)]
    futures = [pool.submit(_play, settings, state, opponent, c, rules.to_dict(), deterministic) for c in chunks]
    outcomes = []
    for future in futures:
        done = future.result()
        outcomes.extend(done)
        if on_game is not None:
            on_game(len(done))
    return _result(opponent, outcomes)


def _play_batched(
    settings: dict, state: dict, opponent: str, games: int, rules: Rules, seed: int, deterministic: bool
) -> list[tuple[float, float, int]]:
    """(win share, margin, score) of ``games`` games in the learner's vector view, the policy batched."""
    import numpy as np

    from agents.ppo_player import BatchedPolicy, build_policy
    from agents.vector import LearnerVectorEnv

    n = int(settings["num_players"])
    learner = BatchedPolicy(build_policy(settings, state), "learner", sample=not deterministic, seed=seed)
    gains = bool(settings.get("gains", False))
    venv = LearnerVectorEnv(min(games, 64), n, opponents=[opponent] * (n - 1), rules=rules, gains=gains, copy=False)
    obs, _ = venv.reset(seed=seed)
    outcomes: list[tuple[float, float, int]] = []
    while len(outcomes) < games:
        obs, _, terminated, _, info = venv.step(learner(obs, venv.action_masks()))
        for i in np.flatnonzero(terminated).tolist():
            final = info["final_info"]
            scores, placings, seat = final["scores"][i].tolist(), final["placings"][i], int(final["seat"][i])
            winners = [p for p in range(n) if placings[p] == placings.min()]
            outcomes.append((*seat_outcome(scores, winners, seat), scores[seat]))
    venv.close()
    return outcomes[:games]


def _result(opponent: str, outcomes: list[tuple[float, float, int]]) -> EvalResult:
    n = max(len(outcomes), 1)
    margins = [o[1] for o in outcomes]
    return EvalResult(
        opponent=opponent,
        games=len(outcomes),
        wins=sum(o[0] for o in outcomes),
        mean_margin=sum(margins) / n,
        mean_score=sum(o[2] for o in outcomes) / n,
        margin_sd=statistics.stdev(margins) if len(margins) > 1 else 0.0,
    )


def read_evaluations(path: str | Path) -> list[dict]:
    """The records of a run's eval.jsonl."""
    return list(read_jsonl(path))


def plot_learning_curve(runs: list[str | Path], out: str | Path, title: str = "", players: int = 4) -> None:
    """Win rate (with 95% CI) and mean margin against each evaluation opponent, by learner step, as a PNG.

    ``runs`` are run directories (or eval.jsonl files) in training order: a run started from another's
    checkpoint (``init``) continues its curve, its steps offset by the steps already trained.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float, float, float, float]]] = {}
    offset = 0
    for run in runs:
        path = Path(run)
        records = read_evaluations(path / "eval.jsonl" if path.is_dir() else path)
        for record in records:
            for name, r in record["results"].items():
                low, high = r["ci95"]
                point = (offset + record["step"], r["win_rate"], low, high, r["mean_margin"])
                series.setdefault(name, []).append(point)
        offset += max((r["step"] for r in records), default=0)
    fig, (wins, margin) = plt.subplots(1, 2, figsize=(11, 4))
    for name, points in series.items():
        steps, rate, low, high, mean_margin = (list(column) for column in zip(*points, strict=True))
        wins.plot(steps, rate, marker="o", label=f"vs {players - 1} x {name}")
        wins.fill_between(steps, low, high, alpha=0.2)
        margin.plot(steps, mean_margin, marker="o", label=f"vs {players - 1} x {name}")
    wins.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label=f"parity ({1 / players:.0%})")
    wins.set(xlabel="learner steps (PPO)", ylabel="win rate (95% CI)", ylim=(0, 1))
    margin.axhline(0, color="grey", linestyle="--", linewidth=1)
    margin.set(xlabel="learner steps (PPO)", ylabel="mean margin (own - best other)")
    wins.legend()
    margin.legend()
    fig.suptitle(title or f"evaluation during training ({players} players)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_league(run: str | Path, out: str | Path, title: str = "") -> None:
    """The league's OpenSkill ratings (ordinal, mu - 3 sigma) at each evaluation of a run, as a PNG: the
    learner, the scripted players, and each snapshot of the learner from when it joined the pool. Ratings
    are drawn relative to ``fg``'s when it plays in the league (every rating drifts up as its sigma shrinks)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(run)
    records = [r for r in read_evaluations(path / "eval.jsonl" if path.is_dir() else path) if r.get("league")]
    names = sorted({name for r in records for name in r["league"]}, key=lambda n: (n.startswith("step-"), n))
    fig, axis = plt.subplots(figsize=(8, 4.5))
    anchor = "fg" if "fg" in names else None
    for name in names:
        if name == anchor:
            continue
        raw = [(r["step"], r["league"][name], r["league"].get(anchor, 0.0) if anchor else 0.0)
               for r in records if name in r["league"]]  # fmt: skip
        if name.startswith("step-"):  # a snapshot's rating stops changing once it has left the pool
            last = max(k for k in range(len(raw)) if k == 0 or raw[k][1] != raw[k - 1][1])
            raw = raw[: last + 1]
        points = [(step, value - base) for step, value, base in raw]
        steps, ordinals = zip(*points, strict=True)
        snapshot = name.startswith("step-")
        axis.plot(
            steps,
            ordinals,
            color="grey" if snapshot else None,
            alpha=0.5 if snapshot else 1.0,
            linewidth=1 if snapshot else 2,
            label=None if snapshot else name,
            marker=None if snapshot else "o",
        )
    axis.plot([], [], color="grey", alpha=0.5, label="snapshots of the learner")
    if anchor:
        axis.axhline(0, color="black", linestyle="--", linewidth=1, label="fg")
    axis.set(xlabel="learner steps (PPO)", ylabel="OpenSkill ordinal (mu - 3 sigma)" + (" - fg's" if anchor else ""))
    axis.legend()
    axis.set_title(title or "league ratings from the league's own games")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.arena.evaluate CHECKPOINT [--opponent fg] [--games 200]``: strength of a checkpoint."""
    import argparse

    from agents.checkpoint import read_checkpoint
    from agents.ppo_player import DEFAULT_CHECKPOINT

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("checkpoint", help="a checkpoint .zip, or 'default' for the shipped one")
    parser.add_argument("--opponent", action="append", help="opponent spec (repeatable; default fg and random)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", action="store_true", help="sample moves instead of the most probable one")
    parser.add_argument("--out", help="append the results as one JSON line to this file")
    args = parser.parse_args(argv)
    path = DEFAULT_CHECKPOINT if args.checkpoint == "default" else Path(args.checkpoint)
    settings, state = read_checkpoint(path)
    rules = Rules.from_dict(settings["rules"])
    with evaluation_pool(0 if all(batched(o) for o in args.opponent or ["fg"]) else args.workers) as pool:
        for opponent in args.opponent or ["fg", "random"]:
            started = time.monotonic()
            result = evaluate(settings, state, opponent, args.games, rules, pool, args.seed, not args.sample)
            print(f"{path}: {result} ({time.monotonic() - started:.0f} s)", flush=True)
            if args.out:
                append_jsonl(args.out, {"checkpoint": str(path), **result.to_dict()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
