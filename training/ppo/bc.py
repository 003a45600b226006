"""Behaviour cloning: a warm start for PPO by imitating a scripted teacher (``fg``) in its self-play games.

The vector env plays teacher-only games with the compiled teacher (``agents.batched.policy.teacher_moves``, the
same moves as the Python players) and encodes every decision (observation from the acting seat, legal
mask, the teacher's best moves, and that seat's return under the run's reward); the trainer keeps the
latest chunks in a small buffer and fits the policy by cross-entropy on masked logits, with the value
head regressed on the return so that PPO starts with a critic that fits its actor. Games stream in
while the network trains, so memory stays small however many games are imitated.

Full Greedy breaks ties at random, and ties are the rule when placing (a unique best placement is rare;
measured: benchmarks/RESULTS.md, section "`fgt`: Full Greedy with its ties broken as the network breaks them"),
so with ``fg`` as teacher the target is the whole set of its best moves (the loss is minus the log of their total
probability) and accuracy counts a move in that set; ``gprd``'s set is its best placements, and every free slot
when it picks (at random).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from agents.batched.policy import teacher_moves
from agents.batched.workspace import workspace
from agents.policy_network import heads
from agents.ppo_player import masked_logits
from agents.specs import compiled_policy
from kdenv.batched.rng import draw_states
from kdenv.encoding import SCORE_SCALE, table_of
from kdenv.rules import Rules
from kdenv.table import Reward, Table
from kdenv.vector import VectorEnv
from training.ppo.config import BCConfig

BOARD_LEVELS = 3  # board planes take values k/3 (crowns); stored as uint8 k


def teacher_decisions(
    teacher: str,
    num_players: int,
    rules: Rules,
    reward: Reward,
    games: int,
    seed: int = 0,
    num_envs: int = 64,
    chunk_games: int = 64,
    student=None,
    student_share: float = 0.0,
    records: list | None = None,
    gains: bool = False,
) -> Iterator[dict]:
    """Chunks of about ``chunk_games`` teacher games played in the vector env, every decision labelled by the
    compiled teacher: the observation from the acting seat, the legal mask, the teacher's best-move set, and
    that seat's return under ``reward``. With a ``student`` policy, each seat of a game is played by its most
    probable move with probability ``student_share`` (DAgger: the states the student reaches, the teacher's
    labels). The games' records are appended to ``records`` if given. ``gains``: observations with gains."""
    venv = VectorEnv(num_envs, num_players, rules=rules, reward=reward, gains=gains, copy=False)
    t = venv.tables
    obs, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    draws = draw_states(rng, num_envs)  # the teacher's generators, one per game
    rows, plans, work = np.arange(num_envs), np.full(num_envs, -1, np.int64), workspace(t.cells)
    targets = np.zeros((num_envs, t.num_actions), np.bool_)
    actions = np.zeros(num_envs, np.int64)
    students = rng.random((num_envs, num_players)) < student_share
    game_of = np.arange(num_envs)  # the id of the game each row plays
    returns: dict[int, np.ndarray] = {}  # game id -> each seat's return, once the game is over
    steps: list[dict] = []
    finished = emitted = 0
    while emitted < games:
        movers = info["current_player"]
        teacher_moves(venv.games, t, rows, int(compiled_policy(teacher)), plans, work, targets, actions, draws)
        if student is not None and students[rows, movers].any():
            played = np.flatnonzero(students[rows, movers])
            sub = {key: obs[key][played] for key in ("board", "features")}
            actions[played] = masked_logits(student, sub, obs["action_mask"][played]).argmax(axis=1)
            plans[played] = -1
        before = venv.seen.scores[rows, movers] if reward == "score" else np.zeros(num_envs, np.int64)
        steps.append(
            {
                "board": np.rint(obs["board"] * BOARD_LEVELS).astype(np.uint8),
                "features": obs["features"].copy(),
                "mask": obs["action_mask"].astype(bool),
                "target": targets.copy(),
                "game": game_of.copy(),
                "seat": movers.copy(),
                "before": before.astype(np.float64),
            }
        )
        obs, rewards, terminated, _, info = venv.step(actions)
        for i in np.flatnonzero(terminated).tolist():
            scores = info["final_info"]["scores"][i]
            returns[int(game_of[i])] = scores / SCORE_SCALE if reward == "score" else rewards[i].copy()
            game_of[i] = num_envs + finished
            students[i] = rng.random(num_players) < student_share
            plans[i] = -1
            finished += 1
        if finished - emitted >= min(chunk_games, games - emitted):
            chunk, steps = _finished_decisions(steps, returns, reward, games - emitted)
            emitted += chunk["games"]
            if records is not None:
                records.extend(venv.records()[: chunk["games"]])
            yield chunk


def _finished_decisions(
    steps: list[dict], returns: dict[int, np.ndarray], reward: Reward, most: int
) -> tuple[dict, list[dict]]:
    """(the decisions of the first ``most`` games that finished, as one chunk; the others kept as one step block
    for later): a last chunk stops at the games asked for, though the envs finish more at once."""
    block = {key: np.concatenate([step[key] for step in steps]) for key in steps[0]}
    done = np.isin(block["game"], list(returns)[:most])
    games, seats = block["game"].tolist(), block["seat"].tolist()
    final = np.array([returns[g][seat] if d else 0.0 for g, seat, d in zip(games, seats, done, strict=True)])
    value = final - block["before"] / SCORE_SCALE if reward == "score" else final
    chunk: dict[str, Any] = {key: block[key][done] for key in ("board", "features", "mask", "target")}
    chunk["value"] = value[done].astype(np.float32)
    chunk["games"] = len(set(block["game"][done].tolist()))
    for game in set(block["game"][done].tolist()):
        del returns[game]
    return chunk, [{key: value[~done] for key, value in block.items()}]


def _tensors(chunk: dict, index: np.ndarray) -> tuple[dict, torch.Tensor, torch.Tensor, torch.Tensor]:
    board = torch.from_numpy(chunk["board"][index]).float() / BOARD_LEVELS
    obs = {"board": board, "features": torch.from_numpy(chunk["features"][index])}
    mask = torch.from_numpy(chunk["mask"][index])
    return obs, mask, torch.from_numpy(chunk["target"][index]), torch.from_numpy(chunk["value"][index])


def imitation_loss(logits: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(minus the log of the probability of the target set under the masked policy, accuracy of the argmax)."""
    logits = logits.masked_fill(~mask, -1e9)
    loss = (logits.logsumexp(1) - logits.masked_fill(~target, -1e9).logsumexp(1)).mean()
    accuracy = target.gather(1, logits.argmax(1, keepdim=True)).float().mean()
    return loss, accuracy


def clone_step(policy, optimizer, obs: dict, mask, target, value, value_weight: float) -> tuple[float, float, float]:
    """One gradient step of imitation (+ value regression) on the policy's device; (policy loss, accuracy, value
    loss)."""
    obs = {key: tensor.to(policy.device) for key, tensor in obs.items()}
    mask, target, value = (tensor.to(policy.device) for tensor in (mask, target, value))
    logits, values = heads(policy, obs)
    policy_loss, accuracy = imitation_loss(logits, mask, target)
    predicted = values.squeeze(1)
    value_loss = torch.nn.functional.mse_loss(predicted, value)
    optimizer.zero_grad()
    (policy_loss + value_weight * value_loss).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    optimizer.step()
    return policy_loss.item(), accuracy.item(), value_loss.item()


def behaviour_clone(
    policy,
    bc: BCConfig,
    table: Table,
    seed: int = 0,
    *,
    chunk_games: int = 64,
    buffer_chunks: int = 8,
    log: Callable[[dict[str, float], int], None] | None = None,
    on_games: Callable[[int], None] | None = None,
) -> dict[str, float]:
    """Fit ``policy`` to ``bc.games`` games of ``bc.teacher`` at ``table``; each decision is used ``bc.epochs``
    times on average.

    With ``bc.dagger`` > 0 that share of the seats is played by the policy being trained. Stops early after
    ``bc.max_minutes``. Returns the mean policy loss, accuracy and value loss over the last chunk's steps, and
    the number of games imitated.
    """
    teacher, games, epochs, batch_size = bc.teacher, bc.games, bc.epochs, bc.batch_size
    learning_rate, value_weight, dagger = bc.learning_rate, bc.value_weight, bc.dagger
    num_players, rules, reward = table.num_players, table.rules, table.reward
    max_seconds = None if bc.max_minutes is None else 60 * bc.max_minutes
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    rng = np.random.default_rng(seed)
    chunk_games = min(chunk_games, games)  # and no more games at once: none played only to be left out
    chunks = teacher_decisions(
        teacher, num_players, rules, reward, games, seed=10_000_000 + seed, num_envs=chunk_games,
        chunk_games=chunk_games,
        student=policy if dagger > 0 else None, student_share=dagger,
        gains=table_of(policy.observation_space["board"].shape[0])[1],
    )  # fmt: skip
    buffer: deque[dict] = deque(maxlen=buffer_chunks)
    decisions, summary, imitated = 0, {}, 0
    for chunk in chunks:
        imitated += int(chunk["games"])
        buffer.append(chunk)
        sizes = np.array([len(c["value"]) for c in buffer])
        decisions += int(sizes[-1])
        steps = max(1, round(epochs * sizes[-1] / batch_size))
        done = imitated / games
        if deadline is not None and max_seconds is not None:
            done = max(done, 1.0 - (deadline - time.monotonic()) / max_seconds)
        for group in optimizer.param_groups:  # linear decay to a tenth over the games (or the time allowed)
            group["lr"] = learning_rate * (1.0 - 0.9 * min(done, 1.0))
        totals = np.zeros(3)
        for _ in range(steps):
            which = rng.choice(len(buffer), size=batch_size, p=sizes / sizes.sum())
            parts = [_tensors(buffer[b], rng.integers(sizes[b], size=int((which == b).sum()))) for b in set(which)]
            obs = {key: torch.cat([p[0][key] for p in parts]) for key in ("board", "features")}
            mask, target, value = (torch.cat([p[i] for p in parts]) for i in (1, 2, 3))
            totals += clone_step(policy, optimizer, obs, mask, target, value, value_weight)
        summary = dict(zip(("bc/policy_loss", "bc/accuracy", "bc/value_loss"), totals / steps, strict=True))
        summary["bc/games"] = imitated
        if on_games is not None:
            on_games(int(chunk["games"]))
        if log is not None:
            log(summary, decisions)
        if deadline is not None and time.monotonic() > deadline:
            break
    policy.set_training_mode(False)
    return summary
