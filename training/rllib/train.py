"""RLlib's PPO on the compiled vector env (``rllib.env: vector``, :mod:`training.rllib.vector_env`) or on the
PettingZoo env one game at a time (``pettingzoo``, :mod:`training.rllib.env`), with the masking RL module of
``rllib:`` players.

``train_rllib(config)`` joins a Ray cluster (``address``) or starts a local Ray, trains ``rllib.iterations``
iterations, and keeps a run directory like ``kdenv train``'s: ``config.yaml``, ``checkpoint/`` (the latest
algorithm checkpoint, every ``checkpoint_every`` iterations, replaced atomically; ``rllib:RUN_DIR`` plays it),
``metrics.jsonl`` (one line per iteration), ``eval.jsonl`` (tournaments against ``eval.opponents`` on the Ray
backend), ``snapshots/`` (the module each evaluation played, as ``rllib:`` plays it), ``tb/`` (TensorBoard) and
``learning.png``. SIGINT and SIGTERM stop after the current iteration, with a checkpoint; ``--resume RUN_DIR``
goes on from the last checkpoint.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import Any

from agents.rllib_player import POLICY
from agents.rllib_player import RUN_CHECKPOINT as CHECKPOINT  # the run's latest algorithm checkpoint
from kdenv.files import append_jsonl, read_jsonl, write_jsonl
from training.arena.tournament import Tournament
from training.arena.training_eval import EVAL_SEED, to_entry
from training.backends.ray_backend import Ray, connected
from training.progress import ProgressBar
from training.rllib.config import RLlibConfig, init_checkpoint, rllib_config
from training.rllib.env import KingdominoMultiAgentEnv
from training.rllib.vector_env import VectorEnvRunner
from training.runs.config import ConfigError, read_yaml
from training.runs.directory import CONFIG_FILE, RunDirectory
from training.runs.pictures import plot_learning_curve
from training.runs.signals import Interrupted, stop_on_signals

METRICS = "metrics.jsonl"


def algorithm_config(config: RLlibConfig) -> Any:
    """RLlib's PPOConfig for ``config``: one policy for every learning seat, the masking module, no env check
    (RLlib's checker steps random, illegal actions)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_module import KingdomRLModule

    r, env = config.rllib, config.env
    env_config = {"num_players": env.num_players, "rules": env.rules, "reward": env.reward, "gains": env.gains}
    module = RLModuleSpec(module_class=KingdomRLModule, model_config=dict(vars(config.network)))
    return (
        PPOConfig()
        .environment(
            KingdominoMultiAgentEnv, env_config={**env_config, "opponents": r.opponents}, disable_env_checking=True
        )
        .env_runners(
            num_env_runners=r.env_runners,
            num_envs_per_env_runner=r.envs_per_runner,
            **({"env_runner_cls": VectorEnvRunner} if r.env == "vector" else {}),
        )
        .multi_agent(policies={POLICY}, policy_mapping_fn=_same_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: module}))
        .training(
            train_batch_size_per_learner=r.train_batch_size,
            minibatch_size=r.minibatch_size,
            num_epochs=r.epochs,
            lr=r.lr,
            gamma=r.gamma,
            lambda_=r.lambda_,
            clip_param=r.clip_param,
            entropy_coeff=r.entropy_coeff,
            vf_loss_coeff=r.vf_loss_coeff,
            grad_clip=r.grad_clip,
        )
        .learners(num_learners=0)
        .debugging(seed=config.seed, log_level="ERROR")
    )


def validated(algorithm: Any) -> Any:
    """``algorithm`` (a PPOConfig) once RLlib's own checks pass, before a run directory or Ray starts; what RLlib
    refuses is a one-line ConfigError in its words."""
    try:
        algorithm.validate()
    except ValueError as err:
        reason = str(err).strip().splitlines()[0]
        raise ConfigError(f"RLlib refuses the config: {reason}; change it under rllib:") from None
    return algorithm


def start_from(algo: Any, path: str) -> None:
    """Load a ppo checkpoint's weights into the learner's module (its policy alone, the value fresh, where its value
    is not PPO's) and hand them to the env runners."""
    import torch

    from agents.checkpoint import read_checkpoint, starting_weights
    from agents.rllib_module import weights_from_ppo

    weights = weights_from_ppo(starting_weights(*read_checkpoint(path)))

    def load(learner: Any) -> None:
        module = learner.module[POLICY]
        module.load_state_dict(module.state_dict() | {key: torch.as_tensor(value) for key, value in weights.items()})

    algo.learner_group.foreach_learner(load)
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True, timeout_seconds=60.0
    )  # waits: by default the weights are sent fire-and-forget


def _same_policy(agent_id: str, episode: Any, **kwargs: Any) -> str:
    return POLICY


def rllib_run(path: str | Path) -> RunDirectory:
    """The RLlib run directory at ``path``; a one-line error if it holds no checkpoint of one (an sb3 run, say)."""
    path = Path(path)
    if not (path / CHECKPOINT).is_dir():
        raise ConfigError(f"cannot resume {str(path)!r}: it holds no {CHECKPOINT}/ of an RLlib run")
    return RunDirectory(path)


def load_rllib_run_config(path: str | Path, overrides: list[str] | None = None) -> RLlibConfig:
    """The config an RLlib run was started with, plus overrides; a one-line error if it has no checkpoint."""
    return rllib_config(read_yaml(rllib_run(path).path / CONFIG_FILE), overrides)


def train_rllib(config: RLlibConfig, resume: str | Path | None = None) -> Path:
    """Train (or resume) an RLlib run; returns its directory, which this process holds while it trains. The
    directory is checked and locked before Ray starts."""
    # RLlib's notes about its own internals (deprecations inside RLlib, GPU monitoring) are not about this run
    for name in ("ray.rllib", "ray._common.deprecation", "ray.tune"):
        logging.getLogger(name).setLevel(logging.ERROR)
    algorithm = validated(algorithm_config(config))
    with rllib_run(resume).lock() if resume else RunDirectory.create(config) as run, connected(config.address):
        algo = algorithm.build_algo()
        try:
            if resume:
                algo.restore_from_path(str((run.path / CHECKPOINT).absolute()))
                _forget_after(run, algo.iteration)
            elif config.init is not None:
                start_from(algo, init_checkpoint(config))
            _loop(config, algo, run)
        finally:
            algo.stop()
    return run.path


def _loop(config: RLlibConfig, algo: Any, run: RunDirectory) -> None:
    """Iterations until ``rllib.iterations``, with checkpoints, evaluations and metrics; stop on a signal."""
    from torch.utils.tensorboard import SummaryWriter

    total = config.rllib.iterations
    bar = ProgressBar("rllib PPO (iterations)", total, algo.iteration)
    writer = SummaryWriter(str(run.tensorboard))
    stopper = _Stopper()
    backend = Ray(address=config.address)  # the evaluations' tournaments: Ray tasks on the run's Ray
    try:
        with stop_on_signals(stopper):
            while algo.iteration < total and not stopper.interrupted:
                started = time.monotonic()
                metrics = iteration_metrics(algo.train(), time.monotonic() - started)
                append_jsonl(run.path / METRICS, metrics)
                for key, value in metrics.items():
                    writer.add_scalar(f"rllib/{key}", value, metrics["step"])
                bar.update(algo.iteration, f"{metrics['steps_per_s']:.0f} steps/s, entropy {metrics['entropy']:.2f}")
                last = algo.iteration == total
                if last or stopper.interrupted or algo.iteration % config.checkpoint_every == 0:
                    save(algo, run.path / CHECKPOINT)
                every = config.eval.every
                if config.eval.games and (last or (every and algo.iteration % every == 0)):
                    player = run.snapshots / f"step-{metrics['step']}"
                    algo.get_module(POLICY).save_to_path(str(player.absolute()))
                    evaluation = evaluate(config, run, player, int(metrics["step"]), bar, backend)
                    for opponent, entry in evaluation["results"].items():
                        writer.add_scalar(f"eval/win_rate_vs_{opponent}", entry["win_rate"], metrics["step"])
    finally:
        bar.stop()
        writer.close()
    if stopper.interrupted:
        raise Interrupted(run.path, algo.iteration, f"{CHECKPOINT}/", unit="iteration")
    if (run.eval_log).is_file():
        plot_learning_curve([run.path], run.path / "learning.png", config.name, config.env.num_players)


class _Stopper:
    """What stop_on_signals sets when SIGINT or SIGTERM arrives: stop after this iteration."""

    interrupted = False


def iteration_metrics(result: dict, seconds: float) -> dict[str, float]:
    """One metrics.jsonl line from RLlib's result of an iteration."""
    runners, learner = result.get("env_runners", {}), result.get("learners", {}).get(POLICY, {})
    steps = result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0))
    sampled = runners.get("num_env_steps_sampled", 0)
    return {
        "iteration": int(result["training_iteration"]),
        "step": int(steps),
        "return": float(runners.get("module_episode_returns_mean", {}).get(POLICY, 0.0)),
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "policy_loss": float(learner.get("policy_loss", 0.0)),
        "vf_loss": float(learner.get("vf_loss", 0.0)),
        "entropy": float(learner.get("entropy", 0.0)),
        "steps_per_s": float(sampled) / seconds if seconds > 0 else 0.0,
    }


def save(algo: Any, path: Path) -> None:
    """Write the algorithm checkpoint to ``path`` atomically: beside it first, then moved into place, so a kill
    leaves the old checkpoint or the new one, never half of one."""
    fresh, old = path.with_name(path.name + ".new"), path.with_name(path.name + ".old")
    shutil.rmtree(fresh, ignore_errors=True)
    algo.save_to_path(str(fresh.absolute()))
    if path.exists():
        path.rename(old)
    fresh.rename(path)
    shutil.rmtree(old, ignore_errors=True)


def evaluate(config: RLlibConfig, run: RunDirectory, player: Path, step: int, bar: ProgressBar, backend: Ray) -> dict:
    """Tournaments of the ``player`` module (a folder of its own: Ray's workers keep the players they made, by
    spec) against each of ``eval.opponents`` on ``backend``; the eval.jsonl record (the learning curve's)."""
    n, rules = config.env.num_players, config.rules()
    spec = f"rllib:{player.absolute()}"
    results = {}
    for opponent in config.eval.opponents:
        tournament = Tournament([spec] + [opponent] * (n - 1), n, config.eval.games, rules, EVAL_SEED)
        result = tournament.run(backend, progress=False).agent(spec)
        results[opponent] = to_entry(result)
        bar.print(f"step {step}: vs {opponent} {result.win_rate:.1%} of {result.games} games")
    record = {"step": step, "results": results}
    run.log_eval(record)
    return record


def _forget_after(run: RunDirectory, iteration: int) -> None:
    """Drop the metrics and evaluations written after the checkpoint a resumed run starts from."""
    kept = [line for line in read_jsonl(run.path / METRICS) if line["iteration"] <= iteration]
    write_jsonl(run.path / METRICS, kept)
    run.forget_evaluations_after(max((line["step"] for line in kept), default=0))
