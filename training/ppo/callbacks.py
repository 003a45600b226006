"""The duties of a training run, each a small Stable-Baselines3 callback composed with ``CallbackList``.

:class:`LeagueCallback` keeps the opponent sampler up to date (curriculum stage, snapshots, the learner's
latest weights) and records the league's games; :class:`EvaluationCallback` plays the evaluation games
and keeps ``best.zip``; :class:`CheckpointCallback` writes ``last.zip`` with the :class:`RunState` inside;
:class:`ProgressCallback` shows the bar and stops at the run's time budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from agents.checkpoint import CheckpointSettings, save_model
from agents.specs import checkpoint_of
from training.arena.training_eval import EVAL_SEED, evaluate_policy, to_entry
from training.backends.base import Backend
from training.ppo.config import Stage, TrainConfig
from training.ppo.league import League, OpponentSampler
from training.progress import ProgressBar, log_line
from training.runs.directory import BEST, LAST, RunDirectory


@dataclass
class RunState:
    """What a resumed run needs besides the weights: the league and the evaluation bookkeeping."""

    league: League
    best_margin: float = -math.inf
    evaluations: int = 0
    last_eval_step: int = -1
    latest_info: str = ""  # the last evaluation, shown beside the progress bar

    def to_dict(self, step: int) -> dict[str, Any]:
        return {
            "step": step,
            "league": self.league.to_dict(),
            "best_margin": self.best_margin,
            "evaluations": self.evaluations,
            "last_eval_step": self.last_eval_step,
            "latest_info": self.latest_info,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], league: League) -> RunState:
        if "league" in data:
            league = League.from_dict(data["league"])
        return cls(
            league,
            data.get("best_margin", -math.inf),
            data.get("evaluations", 0),
            data.get("last_eval_step", -1),
            data.get("latest_info", ""),
        )


def crossed(callback: BaseCallback, every: int) -> bool:
    """Whether the step just taken (``num_envs`` learner steps) crossed a multiple of ``every``."""
    n = callback.training_env.num_envs
    return every > 0 and callback.num_timesteps // every > (callback.num_timesteps - n) // every


def _snapshot(name: str) -> str | None:
    """The checkpoint file that a league name plays (a snapshot's: ``ppo:runs/x/snapshots/step-000250112.zip``),
    read as every spec is (:func:`agents.specs.checkpoint_of`); None for any other name."""
    played = checkpoint_of(name)
    return played.path if played is not None and played.path.endswith(".zip") else None


def _short(name: str) -> str:
    """A league name for ratings and TensorBoard: ``ppo:runs/x/snapshots/step-000250112.zip`` -> ``step-000250112``."""
    path = _snapshot(name)
    return name if path is None else Path(path).stem


def league_results(info: dict) -> list[tuple[str, float]]:
    """(opponent name, the learner's share against it) for each opponent of a finished game's info."""
    placings, seat, agents = info["placings"], info["seat"], info["agents"]
    mine = placings[seat]
    return [
        (name, 1.0 if mine < placings[p] else 0.5 if mine == placings[p] else 0.0)
        for p, name in enumerate(agents)
        if p != seat
    ]


class LeagueCallback(BaseCallback):
    """Feeds the sampler the stage's opponent mix, the snapshot weights and the latest weights; adds snapshots
    to the pool; records every finished game against a snapshot."""

    def __init__(self, config: TrainConfig, state: RunState, sampler: OpponentSampler, run: RunDirectory,
                 settings: CheckpointSettings) -> None:  # fmt: skip
        super().__init__()
        self.config, self.state, self.sampler, self.run, self.settings = config, state, sampler, run, settings
        self.stage: Stage | None = None
        self.snapshots = any("snapshot" in stage.opponents for stage in config.curriculum)

    def push(self, latest: bool = True) -> None:
        stage = self.config.stage(self.num_timesteps)
        payload: dict[str, Any] = {"mix": stage.opponents, "snapshots": self.state.league.weights()}
        if latest and "latest" in stage.opponents:
            payload["latest"] = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
        self.sampler.update(**payload)
        self.stage = stage

    def _on_training_start(self) -> None:
        self.push()

    def _on_rollout_start(self) -> None:
        self.push()

    def _on_rollout_end(self) -> None:
        """Log the league's ratings (OpenSkill ordinal, mu - 3 sigma) with the rollout."""
        for name, (mu, sigma) in self.state.league.ratings.items():
            self.logger.record(f"league/{name}", mu - 3 * sigma)

    def _on_step(self) -> bool:
        league = self.state.league
        for info in self.locals.get("infos", []):
            if "placings" in info:
                self.logger.record_mean("rollout/learner_score", info["scores"][info["seat"]])
                self.logger.record_mean("rollout/learner_win", float(info["placings"][info["seat"]] == 0))
                for name, share in league_results(info):
                    played = _snapshot(name)
                    if played is not None:
                        league.record(played, share)
                league.rate([_short(name) for name in info["agents"]], list(info["placings"]))
        if self.config.stage(self.num_timesteps) is not self.stage:
            self.push(latest=False)
        if self.snapshots and crossed(self, self.config.league.snapshot_every):
            path = self.run.snapshots.resolve() / f"step-{self.num_timesteps:09d}.zip"
            save_model(self.model, path, self.settings)
            self.state.league.add(str(path), self.num_timesteps)
            self.push(latest=False)
        return True


class EvaluationCallback(BaseCallback):
    """Plays ``eval.games`` games against each evaluation opponent every ``eval.every`` steps and at the end;
    logs them to eval.jsonl and TensorBoard, and keeps best.zip by margin against the first opponent."""

    def __init__(self, config: TrainConfig, state: RunState, run: RunDirectory, settings: CheckpointSettings,
                 progress: ProgressCallback | None = None) -> None:  # fmt: skip
        super().__init__()
        self.config, self.state, self.run, self.settings = config, state, run, settings
        self.progress = progress
        self.backend = config.eval.games_backend()

    def _on_step(self) -> bool:
        if crossed(self, self.config.eval.every):
            self.evaluate()
        return True

    def _on_training_end(self) -> None:
        if self.state.last_eval_step != self.num_timesteps:
            self.evaluate()

    def evaluate(self) -> None:
        if not self.config.eval.games:
            return
        weights = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
        record = run_evaluation(self.config, self.settings, weights, self.num_timesteps, self.backend)
        record["league"] = {name: round(mu - 3 * sigma, 3) for name, (mu, sigma) in self.state.league.ratings.items()}
        self.state.evaluations += 1
        self.state.last_eval_step = self.num_timesteps
        self.run.log_eval(record)
        for name, result in record["results"].items():
            for key in ("win_rate", "mean_margin", "mean_score"):
                self.logger.record(f"eval/{name}/{key}", result[key])
        self.logger.dump(self.num_timesteps)
        self.state.latest_info = ", ".join(
            f"{name} {r['win_rate']:.0%} {r['mean_margin']:+.1f}" for name, r in record["results"].items()
        )
        bar = self.progress.bar if self.progress is not None else None
        log_line(f"evaluation at step {self.num_timesteps}: {self.state.latest_info}", bar.console if bar else None)
        first = record["results"][self.config.eval.opponents[0]]
        if first["mean_margin"] > self.state.best_margin:
            self.state.best_margin = first["mean_margin"]
            save_model(self.model, self.run.path / BEST, self.settings, self.state.to_dict(self.num_timesteps))


def run_evaluation(
    config: TrainConfig, settings: CheckpointSettings, weights: dict, step: int, backend: Backend
) -> dict:
    """One evaluation: ``eval.games`` games against each opponent, a tournament's on ``backend``; the eval.jsonl
    record."""
    started = time.monotonic()
    results = {}
    for opponent in config.eval.opponents:
        result = evaluate_policy(settings, weights, opponent, config.eval.games, config.rules(), EVAL_SEED,
                                 config.eval.deterministic, backend)  # fmt: skip
        results[opponent] = to_entry(result)
    return {
        "step": step,
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.monotonic() - started, 1),
        "results": results,
    }


class CheckpointCallback(BaseCallback):
    """Writes last.zip (weights, optimizer and the run state) every ``checkpoint_every`` steps and at the end."""

    def __init__(self, config: TrainConfig, state: RunState, run: RunDirectory, settings: CheckpointSettings) -> None:
        super().__init__()
        self.config, self.state, self.run, self.settings = config, state, run, settings

    def save(self) -> None:
        """last.zip at the model's step (the callback's own count is the model's only once training has started)."""
        save_model(self.model, self.run.path / LAST, self.settings, self.state.to_dict(self.model.num_timesteps))

    def _on_step(self) -> bool:
        if crossed(self, self.config.checkpoint_every):
            self.save()
        return True

    def _on_training_end(self) -> None:
        self.save()


class ProgressCallback(BaseCallback):
    """The progress bar (steps, rate, the last evaluation), and the stop at ``max_minutes`` or on a signal."""

    def __init__(self, config: TrainConfig, state: RunState, run: RunDirectory) -> None:
        super().__init__()
        self.config, self.state, self.run = config, state, run
        self.bar: ProgressBar | None = None  # made when training starts (an evaluation before it reads None)
        self.deadline: float | None = None
        self.interrupted = False  # set by a signal: stop after this step

    def _on_training_start(self) -> None:
        self.bar = ProgressBar(self.run.path.name, self.config.ppo.total_timesteps, self.num_timesteps)
        if self.config.max_minutes is not None:
            self.deadline = time.monotonic() + 60 * self.config.max_minutes

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.num_timesteps, self.state.latest_info)
        return not self.interrupted and (self.deadline is None or time.monotonic() < self.deadline)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.stop()
