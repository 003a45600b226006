"""The PettingZoo env as RLlib's turn-based MultiAgentEnv, for self-play and for a learner among fixed players.

``reset`` and ``step`` return the observation of the agent to act next only (RLlib's convention for
turn-based games, as in its PettingZoo wrapper); when the game ends every learning agent gets its last
observation and its reward. Unlike RLlib's ``PettingZooEnv``, a reward that reaches an agent while others
move (``reward: score``) is kept for it, not lost, and seats given to fixed players (``opponents``: ``fg``,
``ppo:PATH``...) are played inside ``step``, so RLlib sees only the learner's seat, drawn per game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.registry import make_player
from kdenv.errors import KingdominoError
from kdenv.kingdomino_v0 import raw_env
from kdenv.rules import Rules
from kdenv.view import PublicView


class KingdominoMultiAgentEnv(MultiAgentEnv):
    """``env_config``: ``num_players``, ``rules`` (names), ``reward``, ``gains``, ``opponents`` (specs of the
    fixed players, one per other seat; empty: self-play, every seat learns)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        n = int(config.get("num_players", 4))
        rules = Rules.from_names(config.get("rules", ""))
        self.aec = raw_env(n, reward=config.get("reward", "rank"), rules=rules, gains=bool(config.get("gains")))
        specs = list(config.get("opponents") or [])
        if specs and len(specs) != n - 1:
            raise KingdominoError(f"give {n - 1} opponents for a {n}-player game, or none for self-play")
        self.fixed = [make_player(spec, n, rules) for spec in specs]
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self.rng = np.random.default_rng()
        self.players: dict[int, Any] = {}  # seat -> the fixed player in it this game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        aec, n = self.aec, self.aec.num_players
        aec.reset(seed=int(self.rng.integers(2**62)))
        learner = int(self.rng.integers(n))
        self.players = {}
        for i, player in enumerate(self.fixed):
            seat = (learner + 1 + i) % n
            player.reset(seat, int(self.rng.integers(2**62)))
            self.players[seat] = player
        self.agents = [a for p, a in enumerate(self.possible_agents) if p not in self.players]
        self.pending = dict.fromkeys(self.agents, 0.0)  # rewards not handed out yet
        self.view = PublicView(aec.dealt)
        self._play_fixed()
        agent = aec.agent_selection
        return {agent: aec.observe(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        agent = aec.agent_selection
        if agent not in action_dict:
            raise KingdominoError(f"it is {agent}'s turn, but the actions are for {sorted(action_dict)}")
        aec.step(action_dict[agent])  # IllegalMoveError naming the move and the reason, the game unchanged
        self._collect()
        self._play_fixed()
        if aec.dealt.is_over:
            obs = {a: aec.observe(a) for a in self.agents}
            rewards, self.pending = self.pending, dict.fromkeys(self.agents, 0.0)
            done = dict.fromkeys([*self.agents, "__all__"], True)
            return obs, rewards, done, dict.fromkeys(done, False), {a: {} for a in self.agents}
        agent = aec.agent_selection
        reward, self.pending[agent] = self.pending[agent], 0.0
        return {agent: aec.observe(agent)}, {agent: reward}, {"__all__": False}, {"__all__": False}, {agent: {}}

    def _play_fixed(self) -> None:
        """Let the fixed players move until a learning agent must act or the game is over."""
        aec, game = self.aec, self.aec.dealt
        while not game.is_over and game.current_player in self.players:
            aec.step(self.players[game.current_player].act(self.view))
            self._collect()

    def _collect(self) -> None:
        for agent in self.agents:
            self.pending[agent] += self.aec.rewards[agent]

    def close(self) -> None:
        for player in self.fixed:
            player.close()
