"""``OneLearnerVectorEnv``: one learner seat per game, many games a call, the opponents played in batches.

The single-agent view of :mod:`kdenv.wrappers`, batched over :class:`kdenv.vector.VectorEnv`: each row is
a game in which the learner holds one seat (drawn at each deal, or fixed by ``seat``) and the opponents
hold the others. Scripted opponents (``"random"``, ``"gprd"``, ``"fg"``, ``"fgt"``, in any case) play inside the
compiled kernel (``agents.batched``); a batched opponent is a callable ``(obs_batch, mask_batch) -> actions``
(a ``ppo:PATH`` spec, ``ppo:PATH,sample=true`` too, makes one from a checkpoint, once per env), called once per
opponent decision across all the games waiting on it, never once per game; :mod:`agents.specs` tells which specs
play here, as everywhere else::

    from training.envs.one_learner import OneLearnerVectorEnv
    venv = OneLearnerVectorEnv(256, num_players=4, opponents=["fg"] * 3, middle_kingdom=True, harmony=True)
    obs, info = venv.reset(seed=0)          # obs["board"] (N, C, F, F), obs["features"] (N, V)
    mask = venv.action_masks()              # (N, A) bool, for sb3_contrib.MaskablePPO
    obs, reward, terminated, truncated, info = venv.step(actions)   # reward (N,): the learner's own

It is a Gymnasium ``VectorEnv`` with ``SAME_STEP`` autoreset: a game that ends is dealt again in the
same step, ``info["final_obs"]`` holds the learner's last observation of it and ``info["final_info"]``
its ``scores``, ``placings``, ``seat`` and ``agents`` (the name in each seat), marked by
``info["_final_info"]``. Rewards, observations and illegal actions are those of the vector env, from
the learner's seat; with ``observation="flat"`` an observation is the (N, D) array of :mod:`kdenv.flat`'s vectors
(as in the single-agent view), and a batched callable opponent gets its batch in that format too (a ``ppo:PATH``
one the dict its checkpoint learnt on). ``reset(seed=s)`` replays the same games for the same learner actions;
the compiled opponents draw from generators of this env's own (one per game, seeded from ``s``), and so do the
``ppo:`` ones that sample (one stream each), so other envs and searches in the process never change its games.
``training.ppo.vec_env`` wraps it as a Stable-Baselines3 ``VecEnv``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from agents.batched.policy import FIRST_BATCHED, Policy, advance
from agents.batched.workspace import workspace
from agents.ppo_player import BatchedPolicy as CheckpointPolicy
from agents.ppo_player import PPOOptions, batched_policy
from agents.specs import COMPILED, checkpoint_of, compiled_policy_of
from kdenv.batched.rng import draw_states
from kdenv.checks import flag, integer, seed_value
from kdenv.encoding import observation_space
from kdenv.errors import KingdominoError
from kdenv.flat import Observation, flat_space, flatten
from kdenv.table import TableOptions, check_keywords
from kdenv.vector import VectorEnv

if TYPE_CHECKING:
    from typing_extensions import Unpack

BatchedOpponent = Callable[[dict, np.ndarray], Any]  # (obs batch, mask batch) -> actions
Opponent = str | BatchedOpponent


class OneLearnerVectorEnv(gymnasium.vector.VectorEnv):
    """A learner against compiled or batched opponents in ``num_envs`` games (see the module docstring).

    ``opponents``: one per other seat, ``opponents[j]`` at seat ``(learner + 1 + j) % num_players``; or
    ``opponent_picker(row) -> opponents``, asked at every deal of row ``row`` (a league draws from it).
    Other keywords are the table's (:class:`kdenv.table.TableOptions`).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 4,
        opponents: Sequence[Opponent] | None = None,
        seat: int | None = None,
        opponent_picker: Callable[[int], Sequence[Opponent]] | None = None,
        copy: bool = True,
        **table: Unpack[TableOptions],
    ) -> None:
        self._batched: list[BatchedOpponent] = []  # batched opponents; code FIRST_BATCHED + k is _batched[k] (first:
        # close(), which Gymnasium's __del__ calls, reads it, also when the checks below refuse the env)
        self._reads: list[Observation] = []  # the observation each batched opponent reads, in the same order
        self._checkpoints: dict[str, CheckpointPolicy] = {}  # spec -> the batched policy of each ppo: opponent
        check_keywords("OneLearnerVectorEnv", OneLearnerVectorEnv, table)
        self.env = VectorEnv(num_envs, num_players, copy=False, **table)  # checks num_envs and the table
        num_envs, num_players = self.env.num_envs, self.env.num_players
        if seat is not None:
            seat = integer("seat", seat, 0, num_players - 1)
        self.num_envs, self.num_players, self.seat, self.copy = num_envs, num_players, seat, flag("copy", copy)
        self.rules, self.tables, self.flat = self.env.rules, self.env.tables, self.env.table.flat
        t = self.tables
        self._names: list[str] = list(COMPILED)  # the name of each code, for records
        self._picker = opponent_picker
        self._rng = np.random.default_rng()
        self._draws = draw_states(self._rng, num_envs)  # the compiled opponents' generators, one per game
        self._opponents = np.zeros((num_envs, num_players - 1), np.int64)  # codes of each row's next opponents
        self.set_opponents(["random"] * (num_players - 1) if opponents is None else opponents)
        self._seats = np.zeros((num_envs, num_players), np.int64)  # each game's seat codes
        self.learner = np.zeros(num_envs, np.int64)  # the learner's seat in each game
        self._plans = np.full(num_envs, -1, np.int64)
        self._waiting = np.zeros(num_envs, np.int64)
        self._rows = np.arange(num_envs)
        self._work = workspace(t.cells)
        self._reward = np.zeros(num_envs, np.float64)
        seen_space = observation_space(num_players, t.size, t.gains)
        self.single_observation_space = flat_space(seen_space) if self.flat else seen_space
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(t.num_actions)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, t.num_actions))

    # ----- opponents ---------------------------------------------------------------------------------
    def set_opponents(self, opponents: Sequence[Opponent], rows: Sequence[int] | np.ndarray | None = None) -> None:
        """Use these opponents (one per other seat) in the next deals of ``rows`` (default: every row)."""
        self._opponents[slice(None) if rows is None else np.asarray(rows)] = self._codes(opponents)

    def _codes(self, opponents: Sequence[Opponent]) -> list[int]:
        n = self.num_players
        if isinstance(opponents, (str, bytes)) or len(opponents) != n - 1:
            raise KingdominoError(f"give a list of {n - 1} opponents for a {n}-player game")
        return [self._code(o) for o in opponents]

    def _code(self, opponent: Opponent) -> int:
        """The seat code of an opponent: a compiled policy's, or a batched one's (registered once)."""
        reads: Observation = self.env.table.observation
        if isinstance(opponent, str):
            code = compiled_policy_of(opponent)
            if code is not None:
                return code
            played = checkpoint_of(opponent)
            if played is None:
                raise KingdominoError(
                    f"opponent {opponent!r} cannot play in the vector env; use random, gprd, fg, fgt, ppo:PATH "
                    "or a batched callable (obs_batch, mask_batch) -> actions"
                )
            opponent, reads = self._checkpoint(opponent.strip(), played), "dict"
        if not callable(opponent):
            raise KingdominoError(f"opponent {opponent!r} is neither a player spec nor a batched callable")
        for k, known in enumerate(self._batched):
            if known is opponent:
                return FIRST_BATCHED + k
        self._batched.append(opponent)
        self._reads.append(reads)
        self._names.append(getattr(opponent, "spec", getattr(opponent, "__name__", type(opponent).__name__)))
        return FIRST_BATCHED + len(self._batched) - 1

    def _checkpoint(self, spec: str, played: PPOOptions) -> CheckpointPolicy:
        """The batched policy of a ``ppo:`` spec (its options ``played``), read from its checkpoint once per env (a
        picker names it at every deal), drawing its samples from a stream of this env's generator."""
        if spec not in self._checkpoints:
            policy = batched_policy(spec, played, self.num_players, self.rules.kingdom_size, self.tables.gains)
            policy.rng = self._rng.spawn(1)[0]
            self._checkpoints[spec] = policy
        return self._checkpoints[spec]

    # ----- the Gymnasium vector API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Deal every game afresh and play the opponents up to the learner's first decision. ``seed`` also
        seeds the compiled opponents' generators (this env's own)."""
        seed = seed_value(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._draws = draw_states(self._rng, self.num_envs)
            for policy in self._checkpoints.values():
                policy.rng = self._rng.spawn(1)[0]
        self.env.reset(seed=None if seed is None else int(self._rng.integers(2**62)))
        self._new_games(self._rows)
        self._observe(self._rows)
        return self._obs(), {"seat": self.learner.copy()}

    def step(
        self, actions: Any, rows: np.ndarray | None = None
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play the learner's action in every game (or in those of ``rows`` only: the others wait, their actions
        unread), then the opponents' until the learner is to move again."""
        env = self.env
        actions = env.check_actions(actions)
        rows = self._rows if rows is None else rows
        env.clear_step()
        env.play(rows, actions, "learner")
        self._run_opponents(rows[~env.ended()[rows]])
        reward = env.rewards_of(self.learner)
        terminated = env.ended()
        ended = np.flatnonzero(terminated)
        info: dict[str, Any] = {}
        if ended.size:
            self._observe(ended)
            info["final_obs"] = self._final_obs(ended)
            final = env.end_games(ended)
            final["final_info"]["seat"] = self.learner.copy()
            final["final_info"]["agents"] = list(env.agent_names)
            info.update(final)
            env.clear_step(ended)  # their rewards are read: the new games' opponents play their openings below
            self._new_games(ended)
        self._observe(self._rows)
        info["seat"] = self.learner.copy()
        return self._obs(), reward, terminated, np.zeros(self.num_envs, np.bool_), info

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the learner's legal actions in each game, for sb3_contrib.MaskablePPO."""
        return self.env.buffers()["action_mask"].astype(bool)

    def records(self) -> list[dict]:
        """The records of the games finished since the last call (see :meth:`kdenv.vector.VectorEnv.records`)."""
        return self.env.records()

    def close(self, **kwargs: Any) -> None:
        for policy in self._batched:
            close = getattr(policy, "close", None)
            if close is not None:
                close()

    # ----- inside a step ---------------------------------------------------------------------------
    def _new_games(self, rows: np.ndarray) -> None:
        """Seat the learner and the opponents in the games of ``rows`` (just dealt), and let the opponents
        play up to the learner's first decision."""
        n = self.num_players
        for i in rows.tolist():
            if self._picker is not None:
                self._opponents[i] = self._codes(self._picker(i))
            learner = self.seat if self.seat is not None else int(self._rng.integers(n))
            self.learner[i] = learner
            seats = self._seats[i]
            seats[learner] = Policy.LEARNER
            for j in range(n - 1):
                seats[(learner + 1 + j) % n] = self._opponents[i, j]
            self.env.agent_names[i] = ["learner" if code == Policy.LEARNER else self._names[code] for code in seats]
        self._plans[rows] = -1
        self._run_opponents(rows)

    def _run_opponents(self, rows: np.ndarray) -> None:
        """Play the opponents of the games of ``rows`` until the learner is to move or the game is over."""
        env = self.env
        while rows.size:
            env.play_compiled(advance, rows, self._seats, self._plans, self._waiting, self._work, self._draws)
            waiting = self._waiting[rows]
            rows = rows[waiting >= FIRST_BATCHED]
            movers = env.movers()
            for code in np.unique(waiting[waiting >= FIRST_BATCHED]).tolist():
                batch = rows[self._waiting[rows] == code]
                env.observe(batch, movers)
                seen = env.buffers()
                obs = {"board": seen["board"][batch], "features": seen["features"][batch]}
                actions = np.zeros(self.num_envs, np.int64)
                k = code - FIRST_BATCHED
                shown = flatten(obs) if self._reads[k] == "flat" else obs
                actions[batch] = np.asarray(self._batched[k](shown, seen["action_mask"][batch])).reshape(-1)
                env.play(batch, actions, f"opponent {self._names[code]!r}")

    def _observe(self, rows: np.ndarray) -> None:
        """Observe the games of ``rows`` from the learner's seat into the buffers."""
        self.env.observe(rows, self.learner)

    def _buffers(self) -> dict:
        """The env's own board and feature buffers."""
        seen = self.env.buffers()
        return {"board": seen["board"], "features": seen["features"]}

    def _final_obs(self, rows: np.ndarray) -> Any:
        """Full-size arrays holding the observations of ``rows`` now and zeros elsewhere (Gymnasium's final_obs)."""
        final = {}
        for key, value in self._buffers().items():
            final[key] = np.zeros_like(value)
            final[key][rows] = value[rows]
        return flatten(final) if self.flat else final

    def _obs(self) -> Any:
        """The learner's observations: the buffers (copies unless ``copy=False``), or their flat vectors."""
        buffers = self._buffers()
        if self.flat:
            return flatten(buffers)
        return {k: v.copy() for k, v in buffers.items()} if self.copy else buffers
