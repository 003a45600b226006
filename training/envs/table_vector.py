"""``TableVectorEnv``: the learner's vector view for opponents that only play through the engine (a search such as
``mce`` or ``az``, a player of one's own): games of the single-agent view stepped one after another in Python.

It speaks the interface of :class:`training.envs.one_learner.OneLearnerVectorEnv` that the trainers read (``reset``,
``step`` with ``SAME_STEP`` autoreset, ``final_obs``, ``final_info`` with the ``scores``, ``placings``, ``seat`` and
``agents`` of each game that ended, ``action_masks``), so MaskablePPO trains on it unchanged; it is as slow as its
opponents and the engine, where the vector env plays compiled players and networks in batches. Each row's opponents
are drawn at every deal by ``opponent_picker(row)`` (spec strings), each player made once per row and seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.base import Player
from agents.registry import make_player
from kdenv.rules import Rules
from training.envs.single_agent import KingdominoSingleAgentEnv


class TableVectorEnv:
    """``num_envs`` games of :class:`~training.envs.single_agent.KingdominoSingleAgentEnv`, one learner seat each,
    the opponents drawn by ``opponent_picker`` (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        num_players: int,
        opponent_picker: Callable[[int], Sequence[str]],
        rules: Rules | None = None,
        reward: str = "rank",
        gains: bool = False,
    ) -> None:
        self.num_envs, self.num_players, self.rules = num_envs, num_players, rules or Rules()
        self._picker = opponent_picker
        self._players: list[dict[tuple[int, str], Player]] = [{} for _ in range(num_envs)]
        self.games = [
            KingdominoSingleAgentEnv(num_players, self.rules, self._opponents(i), reward=reward, gains=gains)
            for i in range(num_envs)
        ]
        self.single_observation_space = self.games[0].observation_space
        self.single_action_space = self.games[0].action_space

    def _opponents(self, row: int) -> list[Player]:
        """Row ``row``'s opponents for its next deal: the picker's specs, each seat's player made once."""
        made = self._players[row]
        return [
            made.setdefault((j, spec), make_player(spec, self.num_players, self.rules))
            for j, spec in enumerate(self._picker(row))
        ]

    def reset(self, seed: int | None = None) -> tuple[dict, dict]:
        """Deal every game (game ``i`` from ``seed + i``: the same seed, the same games for the same actions)."""
        dealt = [game.reset(seed=None if seed is None else seed + i) for i, game in enumerate(self.games)]
        return _stacked([obs for obs, _ in dealt]), {"seat": np.array([info["seat"] for _, info in dealt])}

    def step(self, actions: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Each game's learner action and its opponents' replies; a game that ends is dealt again at once."""
        n, observed, rewards = self.num_players, [], np.zeros(self.num_envs)
        ended = np.zeros(self.num_envs, bool)
        scores, placings = np.zeros((self.num_envs, n)), np.zeros((self.num_envs, n), np.int64)
        seats, agents = np.zeros(self.num_envs, np.int64), [[""] * n for _ in self.games]
        last: list[Any] = []
        for i, (game, action) in enumerate(zip(self.games, np.asarray(actions).tolist(), strict=True)):
            obs, rewards[i], terminated, truncated, said = game.step(action)
            ended[i] = terminated or truncated
            last.append(obs)
            if ended[i]:
                scores[i], placings[i], seats[i] = said["scores"], said["placings"], said["seat"]
                agents[i] = list(game.aec.agent_names or ())
                game.set_opponents(self._opponents(i))
                obs, _ = game.reset()
            observed.append(obs)
        info: dict[str, Any] = {}
        if ended.any():
            final = {"scores": scores, "placings": placings, "seat": seats, "agents": agents}
            info["final_obs"], info["final_info"], info["_final_info"] = _stacked(last), final, ended
        return _stacked(observed), rewards, ended, np.zeros(self.num_envs, bool), info

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the learner's legal actions in each game."""
        return np.stack([game.action_masks() for game in self.games])

    def close(self) -> None:
        for game in self.games:
            game.close()


def _stacked(observations: list[dict]) -> dict:
    """A batch of dict observations, key by key."""
    return {key: np.stack([obs[key] for obs in observations]) for key in observations[0]}
