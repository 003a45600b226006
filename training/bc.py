"""Behaviour cloning: a warm start for PPO by imitating a scripted teacher (``fg``) in its self-play games.

A worker process plays teacher-only games and encodes every decision (observation from the acting
seat, legal mask, the teacher's choices, and that seat's return under the run's reward); the trainer
keeps the latest chunks in a small buffer and fits the policy by cross-entropy on masked logits, with
the value head regressed on the return so that PPO starts with a critic that fits its actor. Games
stream in while the network trains, so memory stays small however many games are imitated.

Full Greedy breaks ties at random, and ties are the rule when placing (6.6 equally good placements on
average, measured over 20 games; a unique best in only 26% of them), so with ``fg`` as teacher the
target is the whole set of its best moves (the loss is minus the log of their total probability) and
accuracy counts a move in that set; other teachers give their one move.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

import numpy as np
import torch

from kdenv.actions import discard_action, pick_action
from kdenv.encoding import SCORE_SCALE, ObservationEncoder, action_mask
from kdenv.env import terminal_rewards
from kdenv.game import OVER, PICK, Game
from kdenv.rules import Rules
from kdenv.view import PublicView

BOARD_LEVELS = 3  # board planes take values k/3 (crowns); stored as uint8 k


def fg_choices(fg, game: Game) -> list[int]:
    """Every action Full Greedy rates best now (it plays one of them at random)."""
    size = game.rules.kingdom_size
    if game.phase == PICK:
        options = fg.pick_options(game)
        best = max(value for value, _ in options)
        return [pick_action(slot, size) for value, slot in options if value == best]
    if game.must_discard():
        return [discard_action(size)]
    return sorted({action for action, _ in fg.best_turns(game)})


def record_decisions(
    teacher: str,
    num_players: int,
    rules: dict,
    reward: str,
    seeds: list[int],
    student: tuple[dict, dict] | None = None,
    student_share: float = 0.0,
) -> dict:
    """Worker: play teacher games for each seed; every decision, labelled by the teacher, as compact arrays.

    With a ``student`` (checkpoint settings, weights), each seat is played by the student's most probable
    move with probability ``student_share`` (DAgger: the states the student reaches, the teacher's labels).
    """
    from agents.greedy import FullGreedy
    from agents.ppo_player import PPOPlayer, build_policy
    from agents.registry import make_player

    torch.set_num_threads(1)
    rules_ = Rules.from_dict(rules)
    encoder = ObservationEncoder(num_players, rules_.kingdom_size)
    teachers = [make_player(teacher) for _ in range(num_players)]
    judge = FullGreedy() if teacher == "fg" else None
    students = []
    if student is not None:
        policy = build_policy(student[0], student[1])
        students = [PPOPlayer.from_policy(student[0], policy) for _ in range(num_players)]
    boards, features, masks, targets, values = [], [], [], [], []
    for seed in seeds:
        game = Game(num_players, rules_, seed=seed)
        seat_rng = np.random.default_rng(seed)
        players = [
            students[seat] if students and seat_rng.random() < student_share else teachers[seat]
            for seat in range(num_players)
        ]
        for seat, player in enumerate(players):
            player.reset(seat, seed * 7919 + seat)
        view = PublicView(game)
        seats, before = [], []
        while game.phase != OVER:
            seat = game.current_player
            obs = encoder.encode(game, seat)
            boards.append(np.rint(obs["board"] * BOARD_LEVELS).astype(np.uint8))
            features.append(obs["features"])
            mask = action_mask(game).astype(bool)
            masks.append(mask)
            seats.append(seat)
            before.append(encoder.score(game, seat) if reward == "score" else 0)
            action = players[seat].act(view)
            target = np.zeros_like(mask)
            if judge is not None:
                target[fg_choices(judge, game)] = True
            else:
                target[teachers[seat].act(view) if players[seat] is not teachers[seat] else action] = True
            targets.append(target)
            game.step(action, seat)
        final = terminal_rewards(game, reward)
        scores = game.scores()
        for seat, score in zip(seats, before, strict=True):
            dense = (scores[seat] - score) / SCORE_SCALE if reward == "score" else 0.0
            values.append(final[seat] + dense)
    return {
        "board": np.stack(boards),
        "features": np.stack(features),
        "mask": np.stack(masks),
        "target": np.stack(targets),
        "value": np.asarray(values, np.float32),
        "games": len(seeds),
    }


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
    """One gradient step of imitation (+ value regression); (policy loss, accuracy, value loss)."""
    features = policy.features_extractor(obs)
    policy_loss, accuracy = imitation_loss(policy.mlp_extractor.forward_actor(features), mask, target)
    predicted = policy.value_net(policy.mlp_extractor.forward_critic(features)).squeeze(1)
    value_loss = torch.nn.functional.mse_loss(predicted, value)
    optimizer.zero_grad()
    (policy_loss + value_weight * value_loss).backward()
    torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
    optimizer.step()
    return policy_loss.item(), accuracy.item(), value_loss.item()


def behaviour_clone(
    policy,
    pool,
    *,
    teacher: str,
    games: int,
    num_players: int,
    rules: Rules,
    reward: str,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_weight: float,
    seed: int = 0,
    chunk_games: int = 40,
    buffer_chunks: int = 8,
    max_seconds: float | None = None,
    dagger: float = 0.0,
    settings: dict | None = None,
    log: Callable[[dict[str, float], int], None] | None = None,
    on_games: Callable[[int], None] | None = None,
) -> dict[str, float]:
    """Fit ``policy`` to ``games`` teacher games played in ``pool``; each decision is used ``epochs`` times on average.

    With ``dagger`` > 0 that share of the seats is played by the policy being trained (as last sent to the
    workers; ``settings`` describe its network). Stops early after ``max_seconds``. Returns the mean policy
    loss, accuracy and value loss over the last chunk's steps, and the number of games imitated.
    """
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    rng = np.random.default_rng(seed)
    seeds = list(range(10_000_000 + seed * 100_000, 10_000_000 + seed * 100_000 + games))
    chunks = [seeds[i : i + chunk_games] for i in range(0, games, chunk_games)]

    def submit(c: list[int]) -> Future:
        student = None
        if dagger > 0:
            student = (settings, {k: v.detach().clone() for k, v in policy.state_dict().items()})
        return pool.submit(record_decisions, teacher, num_players, rules.to_dict(), reward, c, student, dagger)

    pending = deque(submit(c) for c in chunks[:2])
    buffer: deque[dict] = deque(maxlen=buffer_chunks)
    next_chunk, decisions, summary, imitated = 2, 0, {}, 0
    while pending:
        chunk = pending.popleft().result()
        imitated += int(chunk["games"])
        if deadline is not None and time.monotonic() > deadline:
            for future in pending:
                future.cancel()
            pending.clear()
        elif next_chunk < len(chunks):
            pending.append(submit(chunks[next_chunk]))
            next_chunk += 1
        buffer.append(chunk)
        sizes = np.array([len(c["value"]) for c in buffer])
        decisions += int(sizes[-1])
        steps = max(1, round(epochs * sizes[-1] / batch_size))
        done = imitated / games
        if deadline is not None:
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
    policy.set_training_mode(False)
    return summary
