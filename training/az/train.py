"""Expert iteration (``kdenv train`` with ``trainer: az``): the search teaches the network, the network guides
the next search.

``train_az(config)`` makes (or reopens, to resume) a run directory, starts from the table's network
(:mod:`training.az.start`: a per-seat value head, fitted to the network's own games), then iterates: self-play
of ``selfplay.games`` games searched with the current network (:mod:`training.az.workers`), their decisions
into the replay buffer (:mod:`training.az.buffer`), supervised updates (:mod:`training.az.learner`), and the
new weights to self-play.

**Versions by schedule.** The learner's network replaces the self-play network after every iteration, with
no gating match: as in AlphaZero (and Gumbel AlphaZero), which dropped AlphaGo Zero's gate. A gate of a few
hundred games per version would cost more than the iteration's self-play itself on two cores and still
could not tell apart versions a point or two apart; the evaluations against ``fg`` show any regression, and
``best.zip`` keeps the best network seen.

The run directory is the PPO runs': ``config.yaml``, ``last.zip`` (the network, the optimizer and the run's
counters: every ``checkpoint_every`` iterations and on a stop), ``buffer/`` (the replay buffer's window, one
chunk per iteration), ``best.zip`` (the best raw network against the first evaluation opponent),
``snapshots/iter-NNNN.zip`` (every network evaluated), ``eval.jsonl``, ``metrics.jsonl`` (one line per
iteration), ``tb/`` (TensorBoard) and ``learning.png`` (drawn at each evaluation). Every checkpoint is a
player: ``ppo:PATH`` plays the raw network, ``az:PATH`` searches with it. SIGINT and SIGTERM stop the
iteration under way and save; ``--resume`` continues from ``last.zip``, dropping what was logged after it.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.checkpoint import load_optimizer, read_checkpoint, write_player
from agents.ppo_player import build_policy
from kdenv.files import append_jsonl, read_jsonl, write_jsonl
from kdenv.symmetry import symmetries
from training.arena.training_eval import EVAL_SEED, evaluate_policy, to_entry
from training.az.buffer import ReplayBuffer, load_window, prune, write_chunk
from training.az.config import AZConfig, az_config
from training.az.learner import Learner, mean
from training.az.selfplay import Timing
from training.az.start import fit_values, network_games, starting_network
from training.az.workers import SelfPlayers
from training.backends.choose import choose_backend
from training.progress import ProgressBar
from training.runs.config import ConfigError, read_yaml
from training.runs.directory import CONFIG_FILE, RunDirectory
from training.runs.pictures import plot_learning_curve
from training.runs.signals import Interrupted, stop_on_signals

LAST, BEST, METRICS, BUFFER = "last.zip", "best.zip", "metrics.jsonl", "buffer"


class _Stopper:
    """What stop_on_signals sets when SIGINT or SIGTERM arrives: stop the iteration under way."""

    interrupted = False


def load_az_run_config(path: str | Path, overrides: list[str] | None = None) -> AZConfig:
    """The config an expert-iteration run was started with (its config.yaml), plus overrides."""
    run = RunDirectory.open(path)
    return az_config(read_yaml(run.path / CONFIG_FILE), overrides)


def train_az(config: AZConfig, resume: str | Path | None = None) -> Path:
    """Train (or resume) an expert-iteration run; returns its directory."""
    torch.set_num_threads(config.threads)
    # one process per run directory: locked (kdenv.files.FolderLock) until the run ends or its process dies
    with RunDirectory.create(config) if resume is None else RunDirectory.open(resume).lock() as run:
        Trainer(config, run, resume is not None).loop()
    return run.path


class Trainer:
    """One run's state: the learner, the buffer, self-play, the counters; :meth:`loop` iterates."""

    def __init__(self, config: AZConfig, run: RunDirectory, resume: bool) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.config, self.run = config, run
        self.eval_backend = config.eval.games_backend()  # where the evaluations' tournaments play
        self.bar = ProgressBar(f"{run.path.name} (iterations)", config.iterations)
        self.writer = SummaryWriter(str(run.tensorboard / "az"))
        self.rng = np.random.default_rng(config.seed)
        if resume:
            self._reopen()
        else:
            self._start()
        self.bar.update(self.state["iteration"], self.state.get("latest_info", ""))

    # ----- starting and resuming ---------------------------------------------------------------------
    def _start(self) -> None:
        c = self.config
        self.settings, policy = starting_network(c, self.bar.print)
        self.state: dict[str, Any] = {"iteration": 0, "positions": 0, "games": 0, "updates": 0,
                                      "best_margin": -math.inf, "latest_info": ""}  # fmt: skip
        if c.warmup.games:
            w = c.warmup
            data = network_games(self.settings, policy, w.games, c.seed, w.positions)
            before, after = fit_values(policy, data, w.epochs, w.batch_size, w.learning_rate, c.seed)
            self.bar.print(f"value fitted to {w.games} games of the network ({len(data.values)} decisions): "
                           f"mean squared error on held-out games {before:.3f} -> {after:.3f}")  # fmt: skip
            self.state["warmup"] = {"games": c.warmup.games, "mse_before": before, "mse_after": after}
        self.learner = self._learner(policy)
        self.buffer = ReplayBuffer(c.buffer.size)
        self.evaluate()  # the starting point of the learning curve
        self.save()

    def _reopen(self) -> None:
        saved, weights = read_checkpoint(self.run.path / LAST)
        self.state = saved.training or {}
        self.settings = dataclasses.replace(saved, training=None)
        if saved.num_players != self.config.env.num_players or saved.gains != self.config.env.gains:
            raise ConfigError(f"cannot resume {str(self.run.path)!r} with a different table size or gains")
        self.learner = self._learner(build_policy(saved, weights, f"{self.run.path / LAST}"))
        optimizer = load_optimizer(self.run.path / LAST)
        if optimizer is not None:
            self.learner.optimizer.load_state_dict(optimizer)
        iteration = self.state["iteration"]
        self.buffer = load_window(self.run.path / BUFFER, self.config.buffer.size, iteration)
        self.run.forget_evaluations_after(iteration)
        kept = [line for line in read_jsonl(self.run.path / METRICS) if line["iteration"] <= iteration]
        write_jsonl(self.run.path / METRICS, kept)
        self.rng = np.random.default_rng([self.config.seed, iteration])
        self.bar.print(f"resumed at iteration {iteration} with {len(self.buffer)} positions in the buffer")

    def _learner(self, policy) -> Learner:
        learn = self.config.learn
        return Learner(policy, learn.learning_rate, learn.weight_decay, learn.value_weight, learn.max_grad_norm,
                       self.config.device)  # fmt: skip

    # ----- the loop ----------------------------------------------------------------------------------
    def loop(self) -> None:
        c, state = self.config, self.state
        stopper = _Stopper()
        deadline = None if c.max_minutes is None else time.monotonic() + 60 * c.max_minutes
        players = None
        try:
            with stop_on_signals(stopper):
                players = self._players()
                while state["iteration"] < c.iterations and not stopper.interrupted:
                    if deadline is not None and time.monotonic() > deadline:
                        break
                    if not self.iterate(players, stopper):
                        break
            if state["last_eval"] != state["iteration"] and not stopper.interrupted:
                self.evaluate()
            self.save()
        finally:
            if players is not None:
                players.close()
            self.bar.stop()
            self.writer.close()
        if stopper.interrupted:
            raise Interrupted(self.run.path, state["iteration"], LAST, unit="iteration")

    def _players(self) -> SelfPlayers:
        """The self-play of the config on its backend, seeded by the iteration (a resumed run plays new games)."""
        c = self.config
        backend = choose_backend(c.selfplay.backend, c.selfplay.workers, c.address)
        seed = c.seed * 1000 + self.state["iteration"]
        return SelfPlayers(backend, self.settings, self.learner.weights(), c.selfplay, seed)

    def iterate(self, players: SelfPlayers, stopper: _Stopper) -> bool:
        """One iteration: self-play, the buffer, the updates, the log; False if a signal stopped it first."""
        c, state = self.config, self.state
        started = time.monotonic()
        played = players.run(c.selfplay.games, self.learner.weights(), lambda: stopper.interrupted)
        if played is None:
            return False
        positions, timing = played
        playing = time.monotonic() - started
        write_chunk(self.run.path / BUFFER, state["iteration"] + 1, positions)
        self.buffer.add(positions)
        learned = time.monotonic()
        losses = self.learn(len(positions))
        learning = time.monotonic() - learned
        state["iteration"] += 1
        state["positions"] += len(positions)
        state["games"] += timing.games
        self.log(len(positions), timing, losses, playing, learning)
        every = c.eval.every
        if (every and state["iteration"] % every == 0) or state["iteration"] == c.iterations:
            self.evaluate()
        if state["iteration"] % c.checkpoint_every == 0 or state["iteration"] == c.iterations:
            self.save()
        return True

    def learn(self, new: int) -> dict[str, float]:
        """``learn.epochs`` samples per new position, in minibatches drawn from the window (none until it holds
        ``learn.min_positions``)."""
        learn = self.config.learn
        if len(self.buffer) < max(learn.min_positions, 1):
            return {}
        updates = max(1, round(learn.epochs * new / learn.batch_size))
        table = self.settings
        images = symmetries(table.num_players, table.kingdom_size, table.gains) if learn.symmetries else ()
        rows = [self.learner.update(self.buffer.sample(self.rng, learn.batch_size, images)) for _ in range(updates)]
        self.state["updates"] += updates
        return mean(rows)

    def log(self, new: int, timing: Timing, losses: dict, playing: float, learning: float) -> None:
        state = self.state
        line = {
            "iteration": state["iteration"],
            "positions": state["positions"],
            "games": state["games"],
            "new_positions": new,
            "buffer": len(self.buffer),
            "updates": state["updates"],
            "decisions_per_s": new / playing if playing > 0 else 0.0,
            "selfplay_s": round(playing, 2),
            "learn_s": round(learning, 2),
            "search_s": round(timing.search, 2),
            "network_s": round(timing.network, 2),
            **losses,
        }
        append_jsonl(self.run.path / METRICS, line)
        for key in ("decisions_per_s", "buffer", *losses):
            self.writer.add_scalar(key if "/" in key else f"selfplay/{key}", line[key], state["iteration"])
        self.writer.flush()
        info = f"{line['decisions_per_s']:.0f} decisions/s"
        if losses:
            info += f", loss {losses['loss/policy']:.3f} + {losses['loss/value']:.3f}"
        state["latest_info"] = f"{info}; {state.get('eval_info', '')}".strip("; ")
        self.bar.update(state["iteration"], state["latest_info"])

    # ----- evaluation, checkpoints, the picture -----------------------------------------------------
    def evaluate(self) -> None:
        """The raw network against each opponent (``ppo:``), and with the search (``az:``) against the first."""
        c, state = self.config, self.state
        iteration = state["iteration"]
        state["last_eval"] = iteration
        if not c.eval.games and not c.eval.search_games:
            return
        weights, rules = self.learner.weights(), c.rules()
        started = time.monotonic()
        results = {}
        for opponent in c.eval.opponents if c.eval.games else []:
            line = evaluate_policy(
                self.settings, weights, opponent, c.eval.games, rules, EVAL_SEED, backend=self.eval_backend
            )
            results[opponent] = to_entry(line)
        path = self.run.snapshots / f"iter-{iteration:04d}.zip"
        if c.keep:
            write_player(path, self.settings, weights)
        if c.eval.search_games:
            results.update(self._search_evaluation(weights, path if c.keep else None))
        record = {
            "step": iteration,
            "positions": state["positions"],
            "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(time.monotonic() - started, 1),
            "results": results,
        }
        self.run.log_eval(record)
        self.picture()  # after every evaluation: a run stopped or killed keeps its curve so far
        for name, result in results.items():
            for key in ("win_rate", "mean_margin"):
                self.writer.add_scalar(f"eval/{name}/{key}", result[key], iteration)
        state["eval_info"] = ", ".join(f"{name} {r['win_rate']:.0%}" for name, r in results.items())
        self.bar.print(f"evaluation at iteration {iteration}: {state['eval_info']}")
        first = results.get(c.eval.opponents[0])
        if first is not None and first["mean_margin"] > state["best_margin"]:
            state["best_margin"] = first["mean_margin"]
            write_player(self.run.path / BEST, dataclasses.replace(self.settings, training=dict(state)), weights)

    def _search_evaluation(self, weights: dict, path: Path | None) -> dict:
        """The az player at ``eval.search_simulations`` against copies of the first opponent (a tournament)."""
        from training.arena.tournament import Tournament

        c = self.config
        n, opponent, simulations = c.env.num_players, c.eval.opponents[0], c.eval.search_simulations
        with tempfile.TemporaryDirectory(prefix="kdenv-az-eval-") as folder:
            if path is None:
                path = Path(folder) / "network.zip"
                write_player(path, self.settings, weights)
            spec = f"az:{path.absolute()},simulations={simulations},eval={c.selfplay.evaluation}"
            tournament = Tournament([spec] + [opponent] * (n - 1), n, c.eval.search_games, c.rules(), EVAL_SEED)
            result = tournament.run(self.eval_backend, progress=False).agent(spec)
        return {f"{opponent} (az, {simulations} simulations)": to_entry(result)}

    def save(self) -> None:
        """last.zip (network, optimizer, counters; the buffer's chunks are already written); then the chunks
        that have left the window go."""
        state = self.state
        settings = dataclasses.replace(self.settings, training=dict(state))
        write_player(self.run.path / LAST, settings, self.learner.weights(), self.learner.optimizer.state_dict())
        prune(self.run.path / BUFFER, state["iteration"], self.config.buffer.size)

    def picture(self) -> None:
        c = self.config
        plot_learning_curve([self.run.path], self.run.path / "learning.png", f"{c.name}: expert iteration",
                            c.env.num_players, xlabel="iterations (expert iteration)")  # fmt: skip
