"""RLlib's vectorized multi-agent env over the compiled core: ``envs_per_runner`` games of
:class:`kdenv.vector.VectorEnv` stepped in one call, for RLlib's ``MultiAgentEnvRunner``.

The games follow :mod:`training.rllib.env`'s conventions (the PettingZoo path, kept as ``rllib.env: pettingzoo``):
each step returns the observation of the agent to act next only; a reward that reaches an agent while others move
waits for its next observation; when a game ends every learning agent gets its last observation and its reward.
With ``opponents`` (``random``, ``gprd``, ``fg``, ``fgt`` compiled, ``ppo:PATH`` batched) each game has one
learning seat, drawn per game, and the others play inside :class:`training.envs.one_learner.OneLearnerVectorEnv`;
without, every seat learns (self-play).

RLlib resets a finished game at the step after its last (its "next step" autoreset), where the compiled env deals
it again in the same step: a game that ended waits one step, its first observation kept, while the others play.
:class:`VectorEnvRunner` is the env runner that makes this env instead of RLlib's synchronous vector of envs.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv

from kdenv.kingdomino_v0 import raw_env
from kdenv.rules import Rules
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv


class _Table(MultiAgentEnv):
    """What RLlib's runner reads of one game: its agents and their spaces (the games step together, above)."""

    def __init__(self, agents: list[str], observation: gym.Space, action: gym.Space) -> None:
        super().__init__()
        self.possible_agents, self.agents = list(agents), list(agents)
        self.observation_spaces = dict.fromkeys(agents, observation)
        self.action_spaces = dict.fromkeys(agents, action)


class KingdominoVectorEnv(VectorMultiAgentEnv):
    """``num_envs`` games of the table in ``config`` (``num_players``, ``rules`` names, ``reward``, ``gains``,
    ``opponents``: one spec per other seat, or none for self-play), see the module docstring."""

    def __init__(self, config: dict[str, Any], num_envs: int) -> None:
        super().__init__()
        self.learners: OneLearnerVectorEnv | None = None  # (before anything that may fail: close reads it)
        n = int(config.get("num_players", 4))
        rules = Rules.from_names(config.get("rules", ""))
        table = {"reward": config.get("reward", "rank"), "gains": bool(config.get("gains")), **rules.to_dict()}
        opponents = list(config.get("opponents") or [])
        if opponents:
            self.learners = OneLearnerVectorEnv(num_envs, n, opponents=opponents, **table)
        self.games = self.learners.env if self.learners else VectorEnv(num_envs, n, **table)
        aec = raw_env(n, **table)
        self.agent_ids = list(aec.possible_agents)
        observation, action = aec.observation_space(self.agent_ids[0]), aec.action_space(self.agent_ids[0])
        self.envs = [_Table(self.agent_ids, observation, action) for _ in range(num_envs)]
        self.single_observation_spaces: dict[str, gym.Space] = dict.fromkeys(self.agent_ids, observation)
        self.single_action_spaces: dict[str, gym.Space] = dict.fromkeys(self.agent_ids, action)
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)
        self.num_envs, self.num_players, self.num_actions = num_envs, n, aec.num_actions
        self.rows = np.arange(num_envs)
        self.waiting = np.zeros(num_envs, np.bool_)  # ended at the last step: RLlib resets them at this one
        self.pending = np.zeros((num_envs, n))  # self-play: rewards not handed out yet, by seat
        self.actions = np.zeros(num_envs, np.int64)
        self.movers = np.zeros(num_envs, np.int64)  # the seat to act in each game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[list[dict], list[dict]]:
        super().reset(seed=seed)
        if self.learners is not None:
            self.learners.reset(seed=seed)
        else:
            self.games.reset(seed=seed)
        self.waiting[:], self.pending[:] = False, 0.0
        self._find_movers()
        return [self._first(i) for i in range(self.num_envs)], [{} for _ in range(self.num_envs)]

    def step(self, actions: list[dict[str, Any]]) -> tuple[list, list, list, list, list]:
        playing = self.rows[~self.waiting]
        for i in playing.tolist():
            self.actions[i] = actions[i][self._mover(i)]
        ended, final = self._play(playing)
        self._find_movers()
        obs: list[dict] = [{} for _ in self.rows]
        rewards: list[dict] = [{} for _ in self.rows]
        done: list[dict] = [{"__all__": False} for _ in self.rows]
        for i in self.rows.tolist():
            if self.waiting[i]:  # RLlib's reset of a game that ended: its first decision, dealt at the last step
                obs[i] = self._first(i)
            elif ended[i]:
                obs[i] = final[i]
                rewards[i] = {agent: float(self.pending[i, self._seat(agent)]) for agent in final[i]}
                done[i] = dict.fromkeys([*final[i], "__all__"], True)
            else:
                agent = self._mover(i)
                p = self._seat(agent)
                obs[i], rewards[i] = {agent: self._observation(i)}, {agent: float(self.pending[i, p])}
                self.pending[i, p] = 0.0
        self.pending[self.waiting] = 0.0
        self.waiting = ended
        self.pending[ended] = 0.0
        return obs, rewards, done, [{"__all__": False} for _ in self.rows], [{} for _ in self.rows]

    # ----- inside a step ---------------------------------------------------------------------------
    def _play(self, rows: np.ndarray) -> tuple[np.ndarray, dict[int, dict]]:
        """Play the learners' actions in the games of ``rows``; which ended, and each ended game's last
        observation of every learning agent, taken before it is dealt again."""
        return self._play_one_learner(rows) if self.learners is not None else self._play_every_seat(rows)

    def _play_one_learner(self, rows: np.ndarray) -> tuple[np.ndarray, dict[int, dict]]:
        assert self.learners is not None
        seats = self.learners.learner.copy()  # a game that ends is dealt again, its learner drawn anew
        _, reward, ended, _, info = self.learners.step(self.actions, rows)
        self.pending[self.rows, seats] += reward
        final = {}
        for i in np.flatnonzero(ended).tolist():
            seen = info["final_obs"]
            last = {"board": seen["board"][i], "features": seen["features"][i]}
            mask = np.zeros(self.num_actions, np.int8)  # nobody moves in a finished game
            final[i] = {self.agent_ids[int(seats[i])]: {"observation": last, "action_mask": mask}}
        return ended, final

    def _play_every_seat(self, rows: np.ndarray) -> tuple[np.ndarray, dict[int, dict]]:
        games = self.games
        games.clear_step()
        games.play(rows, self.actions, "learner")
        for p in range(self.num_players):
            self.pending[:, p] += games.rewards_of(np.full(self.num_envs, p))
        ended = games.ended()
        over = np.flatnonzero(ended)
        final: dict[int, dict] = {i: {} for i in over.tolist()}
        for p, agent in enumerate(self.agent_ids):
            if over.size:
                games.observe(over, np.full(self.num_envs, p))
                for i in over.tolist():
                    final[i][agent] = self._observation(i)
        if over.size:
            games.end_games(over)  # dealt again, their first decisions observed
        going = rows[~ended[rows]]
        games.observe(going, games.movers())
        return ended, final

    def _first(self, i: int) -> dict:
        """The observation of game i's first decision, for its agent to act."""
        return {self._mover(i): self._observation(i)}

    def _find_movers(self) -> None:
        """Who acts next in each game: the learner's seat, or (self-play) the player to move."""
        self.movers[:] = self.learners.learner if self.learners is not None else self.games.movers()

    def _mover(self, i: int) -> str:
        """The agent to act in game i."""
        return self.agent_ids[int(self.movers[i])]

    def _seat(self, agent: str) -> int:
        return self.agent_ids.index(agent)

    def _observation(self, i: int) -> dict:
        """Game i's row of the buffers, as the AEC env's observation (copied: the next step overwrites them)."""
        seen = self.games.buffers()
        return {
            "observation": {"board": seen["board"][i].copy(), "features": seen["features"][i].copy()},
            "action_mask": seen["action_mask"][i].copy(),
        }

    def close_extras(self, **kwargs: Any) -> None:
        if self.learners is not None:
            self.learners.close()


class VectorEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner, stepping :class:`KingdominoVectorEnv` instead of a vector of single envs."""

    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        self.env: Any = KingdominoVectorEnv(dict(self.config.env_config), self.config.num_envs_per_env_runner)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
