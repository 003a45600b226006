"""MaskablePPO on the single-agent view, top to bottom: run directory, envs, network, warm start, the loop.

A run lives in ``runs/<name>-<time>/``: ``config.yaml`` (the config used), ``tb/`` (TensorBoard),
``last.zip`` (written every ``checkpoint_every`` steps, with the league and counters inside, so that
``--resume`` continues where it stopped), ``best.zip`` (best mean margin against the first evaluation
opponent), ``bc.zip`` (after the warm start), ``snapshots/`` (the league's pool) and ``eval.jsonl``
(one line per evaluation). Every checkpoint is written to a temporary file and moved into place.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import time
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure as configure_logger

from agents.policy_network import KingdomPolicy, policy_kwargs
from agents.ppo_player import CHECKPOINT_FORMAT, SETTINGS_ENTRY, WEIGHTS_ENTRY, read_checkpoint
from training.bc import behaviour_clone
from training.config import ConfigError, TrainConfig, config_from_dict
from training.evaluate import evaluate, evaluation_pool
from training.league import League, OpponentSampler
from training.vec_env import KingdominoVecEnv

CONFIG_FILE = "config.yaml"
LAST, BEST, BC = "last.zip", "best.zip", "bc.zip"


# ----------------------------------------------------------------------------- checkpoints


def checkpoint_settings(config: TrainConfig) -> dict[str, Any]:
    """What a player needs to rebuild the network and its observations (``kdenv.json`` in the zip)."""
    rules = config.rules()
    return {
        "format": CHECKPOINT_FORMAT,
        "num_players": config.env.num_players,
        "kingdom_size": rules.kingdom_size,
        "rules": rules.to_dict(),
        "reward": config.env.reward,
        "network": dataclasses.asdict(config.network),
    }


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, then move it into place."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def save_checkpoint(model: MaskablePPO, path: Path, settings: dict, training: dict | None = None) -> None:
    """The SB3 zip of ``model`` plus ``kdenv.json`` (settings, and the training state for resuming)."""
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(SETTINGS_ENTRY, json.dumps({**settings, "training": training or {}}, indent=1))
    write_atomically(path, buffer.getvalue())


def export_player(source: str | Path, target: str | Path, provenance: dict | None = None) -> None:
    """A player-only copy of a checkpoint (``policy.pth`` + ``kdenv.json``, no optimizer, nothing pickled),
    with its settings and ``provenance`` also written next to it as ``<target>.json``."""
    settings, _ = read_checkpoint(source)  # checks that it loads
    settings = {key: value for key, value in settings.items() if key != "training"}
    settings["provenance"] = provenance or {}
    with zipfile.ZipFile(source) as archive:
        weights = archive.read(WEIGHTS_ENTRY)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(SETTINGS_ENTRY, json.dumps(settings, indent=1))
        archive.writestr(WEIGHTS_ENTRY, weights)
    target = Path(target)
    write_atomically(target, buffer.getvalue())
    write_atomically(target.with_suffix(".json"), (json.dumps(settings, indent=1) + "\n").encode())


def load_optimizer(path: Path) -> dict | None:
    """The optimizer state saved in a checkpoint (loaded as plain tensors, never unpickled code)."""
    with zipfile.ZipFile(path) as archive:
        if "policy.optimizer.pth" not in archive.namelist():
            return None
        return torch.load(io.BytesIO(archive.read("policy.optimizer.pth")), map_location="cpu", weights_only=True)


# ----------------------------------------------------------------------------- environments


def make_env(config: TrainConfig, sampler: OpponentSampler, seed: int) -> KingdominoVecEnv:
    """``ppo.n_envs`` games in one vector env, the learner in a random seat, opponents drawn by ``sampler``."""
    env = KingdominoVecEnv(
        config.ppo.n_envs,
        num_players=config.env.num_players,
        rules=config.rules(),
        reward=config.env.reward,
        opponent_picker=sampler.pick,
    )
    env.seed(seed)
    return env


def league_results(info: dict) -> list[tuple[str, float]]:
    """(opponent name, the learner's share against it) for each opponent of a finished game's info."""
    placings, seat, agents = info["placings"], info["seat"], info["agents"]
    mine = placings[seat]
    return [
        (name, 1.0 if mine < placings[p] else 0.5 if mine == placings[p] else 0.0)
        for p, name in enumerate(agents)
        if p != seat
    ]


# ----------------------------------------------------------------------------- the run


class RunDirectory:
    """Paths of one run; ``create`` makes a fresh one, ``open`` an existing one to resume."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tensorboard = path / "tb"
        self.snapshots = path / "snapshots"
        self.eval_log = path / "eval.jsonl"

    @classmethod
    def create(cls, config: TrainConfig) -> RunDirectory:
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        path = Path(config.runs_dir) / f"{config.name}-{stamp}"
        suffix = 1
        while path.exists():
            suffix += 1
            path = Path(config.runs_dir) / f"{config.name}-{stamp}-{suffix}"
        path.mkdir(parents=True)
        run = cls(path)
        run.snapshots.mkdir()
        write_atomically(path / CONFIG_FILE, yaml.safe_dump(config.to_dict(), sort_keys=False).encode())
        return run

    @classmethod
    def open(cls, path: str | Path) -> RunDirectory:
        path = Path(path)
        if not (path / LAST).is_file() or not (path / CONFIG_FILE).is_file():
            raise ConfigError(f"cannot resume {str(path)!r}: it holds no {CONFIG_FILE} and {LAST} of a run")
        return cls(path)

    def log_eval(self, record: dict) -> None:
        with open(self.eval_log, "a") as handle:
            handle.write(json.dumps(record) + "\n")
            handle.flush()


def log_line(text: str, console: Console | None = None) -> None:
    """Print one time-stamped status line (above the progress bar when there is one)."""
    stamp = datetime.now(timezone.utc).strftime("%H:%M:%S")
    (console or Console()).print(f"[{stamp}] {text}", highlight=False, markup=False)


class ProgressBar:
    """A rich progress bar with steps/s and a status text; when output is not a terminal (nohup, CI), a line
    every ``every`` seconds instead."""

    def __init__(self, description: str, total: int, completed: int = 0, every: float = 60.0) -> None:
        self.console = Console()
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:.0f}/s"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[info]}"),
            console=self.console,
        )
        self.description, self.total, self.every = description, total, every
        self.started = (time.monotonic(), completed)
        self.printed = time.monotonic()
        self.task = self.progress.add_task(description, total=total, completed=completed, rate=0.0, info="")
        self.progress.start()

    def update(self, completed: int, info: str) -> None:
        elapsed = time.monotonic() - self.started[0]
        rate = (completed - self.started[1]) / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=completed, rate=rate, info=info)
        if not self.console.is_terminal and time.monotonic() - self.printed >= self.every:
            self.printed = time.monotonic()
            self.print(f"{self.description}: {completed}/{self.total} ({rate:.0f}/s) {info}")

    def print(self, text: str) -> None:
        log_line(text, self.console)

    def stop(self) -> None:
        self.progress.stop()


class Trainer(BaseCallback):
    """The run's bookkeeping inside ``model.learn``: curriculum, league, checkpoints, evaluation, progress."""

    def __init__(
        self, config: TrainConfig, run: RunDirectory, settings: dict, league: League, sampler: OpponentSampler,
        state: dict, pool,
    ) -> None:  # fmt: skip
        super().__init__()
        self.config, self.run, self.settings, self.league, self.pool = config, run, settings, league, pool
        self.sampler = sampler
        self.best_margin = state.get("best_margin", -float("inf"))
        self.evaluations = state.get("evaluations", 0)
        self.last_eval_step = state.get("last_eval_step", -1)
        self.bar: ProgressBar | None = None
        self.deadline: float | None = None
        self.stage = None
        self.latest_info = state.get("latest_info", "")

    # state saved in last.zip for --resume
    def training_state(self) -> dict:
        return {
            "step": self.num_timesteps,
            "league": self.league.to_dict(),
            "best_margin": self.best_margin,
            "evaluations": self.evaluations,
            "last_eval_step": self.last_eval_step,
            "latest_info": self.latest_info,
        }

    def _push(self, latest: bool = True) -> None:
        """Give the sampler the stage's opponent mix, the snapshot weights and (if used) the latest weights."""
        stage = self.config.stage(self.num_timesteps)
        payload: dict[str, Any] = {"mix": stage.opponents, "snapshots": self.league.weights()}
        if latest and "latest" in stage.opponents:
            payload["latest"] = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
        self.sampler.update(**payload)
        self.stage = stage

    def _on_training_start(self) -> None:
        self.bar = ProgressBar(self.run.path.name, self.config.ppo.total_timesteps, self.num_timesteps)
        if self.config.max_minutes is not None:
            self.deadline = time.monotonic() + 60 * self.config.max_minutes
        self._push()

    def _on_rollout_start(self) -> None:
        self._push()

    def _crossed(self, every: int) -> bool:
        n = self.training_env.num_envs
        return every > 0 and self.num_timesteps // every > (self.num_timesteps - n) // every

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            if "placings" in info:
                self.logger.record_mean("rollout/learner_score", info["scores"][info["seat"]])
                self.logger.record_mean("rollout/learner_win", float(info["placings"][info["seat"]] == 0))
                for name, share in league_results(info):
                    if name.startswith("ppo:") and name.endswith(".zip"):
                        self.league.record(name[len("ppo:") :], share)
        if self.config.stage(self.num_timesteps) is not self.stage:
            self._push(latest=False)
        if self._crossed(self.config.league.snapshot_every) and self._uses_snapshots():
            path = self.run.snapshots.resolve() / f"step-{self.num_timesteps:09d}.zip"
            save_checkpoint(self.model, path, self.settings)
            self.league.add(str(path), self.num_timesteps)
            self._push(latest=False)
        if self._crossed(self.config.eval.every):
            self.evaluate()
        if self._crossed(self.config.checkpoint_every):
            save_checkpoint(self.model, self.run.path / LAST, self.settings, self.training_state())
        self.bar.update(self.num_timesteps, self.latest_info)
        return self.deadline is None or time.monotonic() < self.deadline

    def _uses_snapshots(self) -> bool:
        return any("snapshot" in stage.opponents for stage in self.config.curriculum)

    def _on_training_end(self) -> None:
        if self.last_eval_step != self.num_timesteps:
            self.evaluate()
        save_checkpoint(self.model, self.run.path / LAST, self.settings, self.training_state())
        self.bar.stop()

    def evaluate(self) -> None:
        """Play the evaluation games now; log them, and keep best.zip by margin against the first opponent."""
        if not self.config.eval.games:
            return
        state = {k: v.detach().clone() for k, v in self.model.policy.state_dict().items()}
        record = run_evaluation(self.config, self.settings, state, self.pool, self.num_timesteps)
        self.evaluations += 1
        self.last_eval_step = self.num_timesteps
        self.run.log_eval(record)
        for name, result in record["results"].items():
            for key in ("win_rate", "mean_margin", "mean_score"):
                self.logger.record(f"eval/{name}/{key}", result[key])
        self.logger.dump(self.num_timesteps)
        first = record["results"][self.config.eval.opponents[0]]
        self.latest_info = ", ".join(
            f"{name} {r['win_rate']:.0%} {r['mean_margin']:+.1f}" for name, r in record["results"].items()
        )
        message = f"evaluation at step {self.num_timesteps}: {self.latest_info}"
        log_line(message, self.bar.console if self.bar else None)
        if first["mean_margin"] > self.best_margin:
            self.best_margin = first["mean_margin"]
            save_checkpoint(self.model, self.run.path / BEST, self.settings, self.training_state())


EVAL_SEED = 1_000_000  # every evaluation of a run plays the same deals, so that checkpoints compare paired


def run_evaluation(config: TrainConfig, settings: dict, state: dict, pool, step: int) -> dict:
    """One evaluation: ``eval.games`` games against each opponent; the eval.jsonl record."""
    started = time.monotonic()
    results = {}
    for opponent in config.eval.opponents:
        result = evaluate(
            settings,
            state,
            opponent,
            config.eval.games,
            config.rules(),
            pool,
            seed=EVAL_SEED,
            deterministic=config.eval.deterministic,
        )
        results[opponent] = result.to_dict()
    return {
        "step": step,
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(time.monotonic() - started, 1),
        "results": results,
    }


def build_model(config: TrainConfig, env, seed: int) -> MaskablePPO:
    p = config.ppo
    return MaskablePPO(
        KingdomPolicy,
        env,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
        policy_kwargs=policy_kwargs(config.network.channels, config.network.blocks, config.network.hidden),
        seed=seed,
        device=p.device,
        verbose=0,
    )


def warm_start(config: TrainConfig, model: MaskablePPO, run: RunDirectory, settings: dict) -> None:
    """Behaviour cloning of the teacher before PPO (config ``bc``); writes bc.zip and a step-0 evaluation."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run.tensorboard / "bc"))
    bc = config.bc
    bar = ProgressBar(f"imitating {bc.teacher} (games)", bc.games)
    games = 0

    def log(summary: dict[str, float], decisions: int) -> None:
        for key, value in summary.items():
            writer.add_scalar(key, value, decisions)
        bar.update(games, f"accuracy {summary['bc/accuracy']:.1%}, loss {summary['bc/policy_loss']:.3f}")

    def advance(n: int) -> None:
        nonlocal games
        games += n

    try:
        summary = behaviour_clone(
            model.policy,
            teacher=bc.teacher,
            games=bc.games,
            num_players=config.env.num_players,
            rules=config.rules(),
            reward=config.env.reward,
            epochs=bc.epochs,
            batch_size=bc.batch_size,
            learning_rate=bc.learning_rate,
            value_weight=bc.value_weight,
            seed=config.seed,
            max_seconds=None if bc.max_minutes is None else 60 * bc.max_minutes,
            dagger=bc.dagger,
            log=log,
            on_games=advance,
        )
    finally:
        bar.stop()
        writer.close()
    games, accuracy = int(summary.get("bc/games", 0)), summary.get("bc/accuracy", 0.0)
    bar.print(f"behaviour cloning of {bc.teacher}: {games} games, accuracy (a best move of fg) {accuracy:.1%}")
    save_checkpoint(model, run.path / BC, settings, {"step": 0, "bc": summary})


def train(config: TrainConfig, resume: str | Path | None = None) -> Path:
    """Train (or resume) a run; returns its directory."""
    torch.set_num_threads(config.ppo.threads)
    settings = checkpoint_settings(config)
    if resume is not None:
        run = RunDirectory.open(resume)
        saved, weights = read_checkpoint(run.path / LAST)
        state = saved.get("training", {})
        if saved.get("network") != settings["network"] or saved.get("num_players") != settings["num_players"]:
            raise ConfigError(f"cannot resume {str(run.path)!r} with a different network or table size")
    else:
        run = RunDirectory.create(config)
        state, weights = {}, None
    league = League(config.league.pool_size, config.league.prioritise)
    if "league" in state:
        league = League.from_dict(state["league"])
    step = state.get("step", 0)
    sampler = OpponentSampler(config.env.num_players - 1, config.curriculum[0].opponents, settings, config.seed + step)
    env = make_env(config, sampler, seed=config.seed * 1000 + step)
    pool = evaluation_pool(config.eval.workers)
    try:
        model = build_model(config, env, seed=config.seed + step)
        model.set_logger(configure_logger(str(run.tensorboard / "ppo"), ["tensorboard"]))
        if weights is not None:
            model.policy.load_state_dict(weights)
            optimizer = load_optimizer(run.path / LAST)
            if optimizer is not None:
                model.policy.optimizer.load_state_dict(optimizer)
            model.num_timesteps = int(state.get("step", 0))
        elif config.init:
            init_settings, init_weights = read_checkpoint(config.init)
            if init_settings.get("network") != settings["network"]:
                raise ConfigError(f"config key 'init': {config.init!r} has network {init_settings.get('network')}")
            model.policy.load_state_dict(init_weights)
        if weights is None and config.bc.games:
            warm_start(config, model, run, settings)
        trainer = Trainer(config, run, settings, league, sampler, state, pool)
        trainer.init_callback(model)
        if weights is None and (config.bc.games or config.init):
            trainer.evaluate()  # the starting point of the learning curve
        remaining = config.ppo.total_timesteps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=trainer, reset_num_timesteps=weights is None)
        else:
            save_checkpoint(model, run.path / LAST, settings, trainer.training_state())
    finally:
        env.close()
        pool.shutdown(cancel_futures=True)
    return run.path


def load_run_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """The config a run was started with (its config.yaml), plus overrides."""
    run = RunDirectory.open(path)
    try:
        data = yaml.safe_load((run.path / CONFIG_FILE).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"cannot read {str(run.path / CONFIG_FILE)!r}: {err}") from None
    return config_from_dict(data, overrides)
