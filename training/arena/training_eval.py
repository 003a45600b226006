"""Evaluation of a policy at a full table: one learner against copies of one opponent (the study's protocol).

Against players that play in the vector env (``random``, ``gprd``, ``fg``, ``ppo:PATH``) the games run there,
the learner's policy batched over 64 games, dealt from ``seed`` (the same deals at every evaluation, so
checkpoints compare paired), the learner's seat drawn per game. Against any other player (``mce``...) the
policy is written to a player checkpoint and a :class:`~training.arena.tournament.Tournament` plays it: each
deal in every seating, in the tournament's worker pool. Either way the learner's win rate (a shared victory
counts 1 / number of winners), margin and score come with their 95% CIs from :func:`training.arena.stats.summarize`,
the deal as the unit.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.checkpoint import CheckpointSettings, write_player
from agents.specs import plays_batched
from kdenv.files import append_jsonl
from kdenv.rules import Rules
from training.arena.report import no_nan, win_summary
from training.arena.stats import AgentResult, summarize
from training.arena.tournament import Tournament
from training.backends.base import Backend

EVAL_SEED = 1_000_000  # every evaluation of every trainer plays the same deals: checkpoints and runs compare paired
LEARNER_NAME = "learner"  # the learner's name in the results (agents.batched.policy.Policy.LEARNER is its seat code)


def evaluate_policy(
    settings: CheckpointSettings,
    state: dict,
    opponent: str,
    games: int,
    rules: Rules,
    seed: int = 0,
    deterministic: bool = True,
    backend: Backend | None = None,
) -> AgentResult:
    """The learner's line after ``games`` games of the policy (``settings`` + ``state``) against copies of
    ``opponent``: in the vector env when the opponent plays there (:func:`agents.specs.plays_batched`), else as a
    tournament on ``backend`` (by default this machine's, as :meth:`Tournament.run`'s; its games rounded up to
    whole rounds of seatings)."""
    if plays_batched(opponent):
        return summarize(_play_batched(settings, state, opponent, games, rules, seed, deterministic)).agent(
            LEARNER_NAME
        )
    n = settings.num_players
    with tempfile.TemporaryDirectory(prefix="kdenv-eval-") as folder:
        path = Path(folder) / "learner.zip"
        write_player(path, settings, state)
        spec = f"ppo:{path}" + ("" if deterministic else ",sample=true")
        results = Tournament([spec] + [opponent] * (n - 1), n, games, rules, seed).run(backend, progress=False)
    return replace(results.agent(spec), agent=LEARNER_NAME)


def _play_batched(
    settings: CheckpointSettings, state: dict, opponent: str, games: int, rules: Rules, seed: int, deterministic: bool
) -> list[dict]:
    """Tournament records (each game its own deal) of ``games`` games in the learner's vector view."""
    import numpy as np

    from agents.ppo_player import BatchedPolicy, build_policy
    from training.envs.one_learner import OneLearnerVectorEnv

    n = settings.num_players
    learner = BatchedPolicy(build_policy(settings, state), LEARNER_NAME, sample=not deterministic, seed=seed)
    venv = OneLearnerVectorEnv(
        min(games, 64), n, opponents=[opponent] * (n - 1), rules=rules, gains=settings.gains, copy=False
    )
    obs, _ = venv.reset(seed=seed)
    records: list[dict] = []
    while len(records) < games:
        obs, _, terminated, _, info = venv.step(learner(obs, venv.action_masks()))
        final = info.get("final_info", {})
        for i in np.flatnonzero(terminated).tolist():
            placings = final["placings"][i].tolist()
            winners = [p for p in range(n) if placings[p] == min(placings)]
            game = len(records)
            records.append(
                {
                    "agents": list(final["agents"][i]),
                    "final": {"scores": final["scores"][i].tolist(), "winners": winners},
                    "tournament": {"game_id": game, "deal": game, "placings": placings},
                }
            )
    venv.close()
    return records[:games]


def to_entry(result: AgentResult) -> dict[str, Any]:
    """The learner's line as eval.jsonl keeps it (undefined intervals as null)."""
    return no_nan(
        {
            "games": result.games,
            "wins": result.wins,
            "win_rate": result.win_rate,
            "ci95": [result.win_low, result.win_high],
            "mean_margin": result.margin,
            "margin_ci95": result.margin_ci,
            "mean_score": result.score,
            "score_ci95": result.score_ci,
        }
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m training.arena.training_eval CHECKPOINT [--opponent fg] [--games 200]``: strength of a checkpoint."""
    import argparse

    from agents.checkpoint import read_checkpoint
    from agents.ppo_player import checkpoint_path
    from training.backends.choose import add_backend_arguments, backend_of

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("checkpoint", help="a checkpoint .zip, or a shipped one's name ('default', 'v1')")
    parser.add_argument("--opponent", action="append", help="opponent spec (repeatable; default fg and random)")
    parser.add_argument("--games", type=int, default=200)
    add_backend_arguments(parser, "worker processes of the tournaments (default: all cores; 1 = none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", action="store_true", help="sample moves instead of the most probable one")
    parser.add_argument("--out", help="append the results as one JSON line to this file")
    args = parser.parse_args(argv)
    backend = backend_of(args)
    path = Path(checkpoint_path(args.checkpoint))
    settings, state = read_checkpoint(path)
    rules = settings.rules
    for opponent in args.opponent or ["fg", "random"]:
        started = time.monotonic()
        result = evaluate_policy(settings, state, opponent, args.games, rules, args.seed, not args.sample, backend)
        took = time.monotonic() - started
        print(f"{path}: vs {opponent}, {result.games} games: {win_summary(result)} ({took:.0f} s)", flush=True)
        if args.out:
            append_jsonl(args.out, {"checkpoint": str(path), "opponent": opponent, **to_entry(result)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
