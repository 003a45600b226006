"""MaskablePPO on the vector env, top to bottom: the config, the envs, the network, the warm start, the loop.

``train(config)`` makes (or reopens, to resume) a run directory (:mod:`training.runs.directory`), seats the learner
in ``ppo.n_envs`` games of one vector env against opponents drawn by the league's sampler, builds the
network, warms it up by imitating Full Greedy, and runs ``model.learn`` with the run's duties as
callbacks (:mod:`training.ppo.callbacks`): league, evaluation, checkpoints, progress.
"""

from __future__ import annotations

from pathlib import Path

import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList
from stable_baselines3.common.logger import configure as configure_logger

from agents.checkpoint import CheckpointSettings, load_optimizer, read_checkpoint, save_model, starting_weights
from agents.policy_network import KingdomPolicy, policy_kwargs
from agents.specs import plays_batched
from kdenv.table import Table
from training.envs.table_vector import TableVectorEnv
from training.ppo.bc import behaviour_clone
from training.ppo.callbacks import (
    CheckpointCallback,
    EvaluationCallback,
    LeagueCallback,
    ProgressCallback,
    RunState,
)
from training.ppo.config import TrainConfig, config_from_dict
from training.ppo.league import League, OpponentSampler
from training.ppo.vec_env import SB3VecEnv
from training.progress import ProgressBar, log_line
from training.runs.config import LEAGUE_OPPONENTS, ConfigError, init_checkpoint
from training.runs.directory import BC, CONFIG_FILE, LAST, RunDirectory, checkpoint_settings
from training.runs.signals import Interrupted, stop_on_signals

__all__ = ["LAST", "load_run_config", "train"]


def train(config: TrainConfig, resume: str | Path | None = None) -> Path:
    """Train (or resume) a run; returns its directory, which this process holds while it trains."""
    torch.set_num_threads(config.ppo.threads)
    with RunDirectory.create(config) if resume is None else RunDirectory.open(resume).lock() as run:
        _train(config, run, resumed=resume is not None)
    return run.path


def _train(config: TrainConfig, run: RunDirectory, resumed: bool) -> None:
    """The run in its directory: the envs, the network, the warm start, the loop."""
    settings = checkpoint_settings(config)
    weights, saved_state = saved_training(run, settings) if resumed else (None, {})
    state = RunState.from_dict(saved_state, League(config.league.pool_size, config.league.prioritise))
    step = saved_state.get("step", 0)

    # the envs: one vector env of ppo.n_envs games, opponents drawn at each deal
    n = config.env.num_players
    sampler = OpponentSampler(n - 1, config.curriculum[0].opponents, settings, config.seed + step)
    env = make_env(config, sampler, seed=config.seed * 1000 + step)
    try:
        # the network, started from the saved weights, an init checkpoint, or imitation of the teacher
        model = build_model(config, env, seed=config.seed + step)
        model.set_logger(configure_logger(str(run.tensorboard / "ppo"), ["tensorboard"]))
        if weights is not None:
            resume_model(model, weights, run, step)
        elif config.init:
            start_from(model, init_checkpoint(config.init, config.env), settings)
        if weights is None and config.bc.games:
            try:
                warm_start(config, model, run, settings)
            except KeyboardInterrupt:  # keep the imitation so far: --resume starts PPO from it
                save_model(model, run.path / LAST, settings, state.to_dict(0))
                raise Interrupted(run.path, 0) from None

        # the loop: model.learn with the run's duties as callbacks
        progress = ProgressCallback(config, state, run)
        evaluation = EvaluationCallback(config, state, run, settings, progress)
        checkpoint = CheckpointCallback(config, state, run, settings)
        callbacks = CallbackList(
            [LeagueCallback(config, state, sampler, run, settings), evaluation, checkpoint, progress]
        )
        callbacks.init_callback(model)
        if weights is None and (config.bc.games or config.init):
            evaluation.evaluate()  # the starting point of the learning curve
        remaining = config.ppo.total_timesteps - model.num_timesteps
        if remaining > 0:
            with stop_on_signals(progress):
                model.learn(remaining, callback=callbacks, reset_num_timesteps=weights is None)
        elif weights is None:
            checkpoint.save()  # a run of no PPO steps (a warm start alone); a resumed one keeps its last.zip as it is
        if progress.interrupted:
            raise Interrupted(run.path, model.num_timesteps)
    finally:
        env.close()


def saved_training(run: RunDirectory, settings: CheckpointSettings) -> tuple[dict, dict]:
    """(the weights, the saved training state) of the run to resume, which must have the same network and table."""
    saved, weights = read_checkpoint(run.path / LAST)
    if (saved.network, saved.num_players, saved.gains) != (settings.network, settings.num_players, settings.gains):
        raise ConfigError(f"cannot resume {str(run.path)!r} with a different network, table size or gains")
    saved_state = saved.training or {}
    run.forget_evaluations_after(saved_state.get("step", 0))
    return weights, saved_state


def resume_model(model: MaskablePPO, weights: dict, run: RunDirectory, step: int) -> None:
    """The weights and optimizer of the run's last.zip, at the step it was saved."""
    model.policy.load_state_dict(weights)
    optimizer = load_optimizer(run.path / LAST)
    if optimizer is not None:
        model.policy.optimizer.load_state_dict(optimizer)
    model.num_timesteps = step


def start_from(model: MaskablePPO, init: str, settings: CheckpointSettings) -> None:
    """The weights of checkpoint ``init`` (config ``init``), which must have the same network size and gains; from
    a checkpoint whose value is not PPO's (expert iteration's), its policy alone, the value starting fresh."""
    init_settings, init_weights = read_checkpoint(init)
    if (init_settings.network.size, init_settings.gains) != (settings.network.size, settings.gains):
        raise ConfigError(
            f"config key 'init': {init!r} has network {init_settings.network.to_dict()} and gains "
            f"{init_settings.gains}; give one of the same network size and observation"
        )
    model.policy.load_state_dict(model.policy.state_dict() | starting_weights(init_settings, init_weights))


def make_env(config: TrainConfig, sampler: OpponentSampler, seed: int) -> SB3VecEnv:
    """``ppo.n_envs`` games in one vector env, the learner in a random seat, opponents drawn by ``sampler``; where an
    opponent of the curriculum only plays through the engine (:func:`engine_only`), games of the single-agent view
    one after another (said in one line: slower)."""
    e, slow, venv = config.env, engine_only(config), None
    if slow:
        log_line(f"opponents {', '.join(slow)} play through the engine, one game at a time in Python: slower than the "
                 "vector env, where compiled players and ppo: networks play in batches")  # fmt: skip
        venv = TableVectorEnv(config.ppo.n_envs, e.num_players, sampler.pick, config.rules(), e.reward, e.gains)
    env = SB3VecEnv(config.ppo.n_envs, venv, num_players=e.num_players, rules=config.rules(), reward=e.reward,
                    gains=e.gains, opponent_picker=sampler.pick)  # fmt: skip
    env.seed(seed)
    return env


def engine_only(config: TrainConfig) -> list[str]:
    """The curriculum's opponents that cannot play in the vector env (neither compiled nor a ``ppo:`` network); a
    curriculum with one of them has none of the league's own networks, which play there alone."""
    names = {name for stage in config.curriculum for name in stage.opponents}
    slow = sorted(name for name in names if name not in LEAGUE_OPPONENTS and not plays_batched(name))
    if slow and names & set(LEAGUE_OPPONENTS):
        raise ConfigError(
            f"config key 'curriculum': {', '.join(slow)} play through the engine, where the league's own networks "
            f"({', '.join(LEAGUE_OPPONENTS)}) cannot; give them in separate runs"
        )
    return slow


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


def warm_start(config: TrainConfig, model: MaskablePPO, run: RunDirectory, settings: CheckpointSettings) -> None:
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
        table = Table(config.env.num_players, config.rules(), config.env.reward)
        summary = behaviour_clone(model.policy, bc, table, config.seed, log=log, on_games=advance)
    finally:
        bar.stop()
        writer.close()
    games, accuracy = int(summary.get("bc/games", 0)), summary.get("bc/accuracy", 0.0)
    bar.print(f"behaviour cloning of {bc.teacher}: {games} games, accuracy (a best move of fg) {accuracy:.1%}")
    save_model(model, run.path / BC, settings, {"step": 0, "bc": summary})


def load_run_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """The config a run was started with (its config.yaml), plus overrides."""
    run = RunDirectory.open(path)
    try:
        data = yaml.safe_load((run.path / CONFIG_FILE).read_text())
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"cannot read {str(run.path / CONFIG_FILE)!r}: {err}") from None
    return config_from_dict(data, overrides)
