"""The single-agent Gymnasium view of Kingdomino, for Stable-Baselines3 and friends.

:class:`SingleAgentEnv` seats one learner at a table of policies: ``step(action)`` plays the learner's
decision, then lets the opponents play until it is the learner's turn again or the game is over, and
returns the **learner's own** reward (never the reward of whoever moved last, the pitfall of PettingZoo's
SB3 tutorial). ``action_masks()`` gives the boolean mask that sb3_contrib's MaskablePPO asks for.
Observations are the ``{"board", "features"}`` Dict of :mod:`kdenv.encoding`, from the learner's seat, or with
``observation="flat"`` the one float32 vector of :mod:`kdenv.flat` (the observation space its ``Box``); rewards are
those of :mod:`kdenv.kingdomino_v0` (``"rank"``, ``"margin"``, ``"score"``). Other keywords are the table's
(:class:`kdenv.table.TableOptions`: the variants, ``observation``).

An illegal learner action (one the mask forbids) ends the episode with reward ``illegal_reward``
(-1) and ``info["illegal_move"]`` saying why, the convention of ``kdenv.kingdomino_v0.env()`` and PettingZoo's
classic games; ``illegal_reward=None`` raises :class:`~kdenv.errors.IllegalMoveError` instead.

Opponents, one per other seat, ``opponents[i]`` sitting at seat ``(learner + 1 + i) % num_players``: an
object with ``reset(seat, seed)`` and ``act(view)`` (an ``agents.Player``), or a callable
``f(observation, action_mask) -> action`` that gets the same kind of observation (from its own seat) and int8
mask a learner gets, so a frozen copy of a policy can play. Players named by spec strings (``"fg"``,
``"ppo:PATH"``) are made in the learners' package: ``training.envs.single_agent.KingdominoSingleAgentEnv``,
registered with Gymnasium as ``kdenv/Kingdomino-v0``, is this view with specs resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import gymnasium
import numpy as np
from gymnasium import spaces

from kdenv.actions import shown
from kdenv.checks import integer, seed_value
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.game import Game
from kdenv.kingdomino_v0 import action_index, raw_env
from kdenv.rules import Rules, player_count
from kdenv.table import Reward, check_keywords
from kdenv.view import PublicView


@runtime_checkable
class TablePlayer(Protocol):
    """What the view asks of an opponent object (``agents.Player`` has it; a ``spec`` names it in records)."""

    def reset(self, seat: int, seed: int | None = None) -> None: ...

    def act(self, view: PublicView) -> int: ...


PolicyFn = Callable[[Any, np.ndarray], Any]  # (observation: a dict, or flat, action_mask) -> action
Opponent = TablePlayer | PolicyFn


class _PolicyOpponent:
    """Adapts a callable on (observation, action_mask) to the act(view) interface of players."""

    def __init__(self, policy: PolicyFn, env: raw_env) -> None:
        self.policy = policy
        self.env = env
        self.spec = getattr(policy, "spec", getattr(policy, "__name__", type(policy).__name__))

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat

    def act(self, view: PublicView | None = None) -> int:
        """The policy's action from its own observation and mask (it reads no view)."""
        env = self.env
        action = self.policy(env.observation_of(self.seat), env.action_mask())
        index = action_index(action, env.num_actions)
        if index is None:
            raise KingdominoError(
                f"opponent {self.spec!r} in seat {self.seat} returned {shown(action)}, not an action: "
                f"a policy returns one integer of {env.action_space(env.agent_selection)}"
            )
        return index


class SingleAgentEnv(gymnasium.Env):
    """One learner against fixed (or swappable) opponents; a Gymnasium env with action masks."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        num_players: int = 4,
        rules: Rules | None = None,
        opponents: Sequence[Any] = (),
        seat: int | None = None,
        reward: Reward = "rank",
        render_mode: str | None = None,
        illegal_reward: float | None = -1.0,
        gains: bool = False,
        **table: Any,
    ) -> None:
        check_keywords(type(self).__name__, SingleAgentEnv, table)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise KingdominoError(f"unknown render_mode {render_mode!r}; choose from ansi, rgb_array")
        num_players = player_count(num_players)
        if seat is not None:
            seat = integer("seat", seat, 0, num_players - 1)
        self.aec = raw_env(
            num_players,
            reward=reward,
            render_mode=render_mode,
            rules=rules,
            illegal_reward=illegal_reward,
            gains=gains,
            **table,
        )
        self.num_players = num_players
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(self.aec.num_actions)
        self.learner = 0  # the learner's seat in the current episode
        self._view: PublicView | None = None  # the opponent players' view of this episode's game, once needed
        self.set_opponents(opponents)

    def set_opponents(self, opponents: Sequence[Any]) -> None:
        """Use these opponents from the next reset on (one per other seat, in seat order after the learner)."""
        if isinstance(opponents, (str, bytes)) or len(opponents) != self.num_players - 1:
            n = self.num_players
            raise KingdominoError(f"give a list of {n - 1} opponents for a {n}-player game")
        self.opponents = [self.make_opponent(o) for o in opponents]

    def make_opponent(self, opponent: Any) -> TablePlayer:
        """The player object (``reset(seat, seed)``, ``act(view)``, ``spec``) for one opponent."""
        if isinstance(opponent, TablePlayer):
            return opponent
        if isinstance(opponent, str):
            raise KingdominoError(
                f"opponent {opponent!r} is a player spec; make the player first (agents.make_player), "
                "or use training.envs.single_agent.KingdominoSingleAgentEnv, which takes specs"
            )
        if callable(opponent):
            return _PolicyOpponent(opponent, self.aec)
        raise KingdominoError(
            f"opponent {opponent!r} is neither a player (reset, act) nor a callable (observation, mask)"
        )

    @property
    def game(self) -> Game:
        """The game being played (the engine's Game, which the AEC env steps along once read)."""
        return self.aec.dealt

    @property
    def view(self) -> PublicView:
        """What the opponent players see: the public view of :attr:`game`, made when first needed in a game (only
        player objects read it; callables and compiled players leave the engine out)."""
        if self._view is None:
            self._view = PublicView(self.game)
        return self._view

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Deal a new game, choose the learner's seat (random unless fixed), let opponents play first moves."""
        super().reset(seed=seed_value(seed))  # numpy's integers too, which Gymnasium refuses
        n = self.num_players
        self.learner = self.seat if self.seat is not None else int(self.np_random.integers(n))
        self.aec.reset(seed=int(self.np_random.integers(2**62)))
        self._players = {}
        for i, opponent in enumerate(self.opponents):
            seat = (self.learner + 1 + i) % n
            opponent.reset(seat, int(self.np_random.integers(2**62)))
            self._players[seat] = opponent
        self.aec.agent_names = [
            "learner" if p == self.learner else getattr(self._players[p], "spec", "?") for p in range(n)
        ]
        self._view = None
        self._play_opponents()  # no reward for the learner can arise before its first move
        return self._observe()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's action, then the opponents'; the reward is the learner's own."""
        aec = self.aec
        learner = aec.possible_agents[self.learner]
        self._step_learner(action)  # IllegalMoveError if illegal_reward is None
        reward = aec.rewards[learner]
        if aec.terminations[learner] and not aec.core.over:  # ended by an illegal move
            obs, info = self._observe()
            info["illegal_move"] = aec.infos[learner]["illegal_move"]
            return obs, float(reward), True, False, info
        reward += self._play_opponents()
        obs, info = self._observe()
        return obs, float(reward), aec.core.over, False, info

    def _step_learner(self, action: Any) -> None:
        """Play the learner's action (subclasses may let opponents reply in the same call)."""
        self.aec.step(action)

    def _play_opponents(self) -> float:
        """Let opponents act until the learner must act or the game ends; the learner's reward meanwhile."""
        aec, core = self.aec, self.aec.core
        learner = aec.possible_agents[self.learner]
        reward = 0.0
        while not core.over and core.mover != self.learner:
            seat = core.mover
            player = self._players[seat]
            aec.step(player.act() if isinstance(player, _PolicyOpponent) else player.act(self.view))
            if aec.terminations[learner] and not core.over:
                reason = aec.infos[aec.possible_agents[seat]]["illegal_move"]
                name = getattr(self._players[seat], "spec", "?")
                raise IllegalMoveError(f"opponent {name!r} in seat {seat}: {reason}")
            reward += aec.rewards[learner]
        return reward

    def _observe(self) -> tuple[Any, dict]:
        info: dict[str, Any] = {"seat": self.learner}
        if self.aec.core.over:
            info["scores"], info["placings"] = self.aec.core.standings()
        return self.aec.observation_of(self.learner), info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array. Once the game is over, every action: the next step must be a
        reset, which Gymnasium's vector envs (``NEXT_STEP`` autoreset) make in its place, ignoring the action, so a
        client that samples from the mask (CleanRL's loop) still finds one; the reset's mask is the new game's."""
        if self.aec.core.over:
            return np.ones(self.aec.num_actions, bool)
        return self.aec.action_mask().astype(bool)

    def render(self) -> Any:  # an ANSI string or an RGB array; Any, as Gymnasium 1.2 and 1.4 type it apart
        return self.aec.render()

    def record(self) -> dict:
        """The ``kingdomino-replay/1`` record of the episode so far (agents: "learner" and the opponents' specs)."""
        return self.aec.record()

    def close(self) -> None:
        for opponent in self.opponents:
            close = getattr(opponent, "close", None)
            if close is not None:
                close()
