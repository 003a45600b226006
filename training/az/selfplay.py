"""Self-play with the search: many games stepped at once, every seat searching with one network, every
searched decision labelled with the search's improved policy and, once its game ends, every seat's outcome.

The games are rows of one :class:`~kdenv.vector.VectorEnv`, or, with an ``opponent`` (a league of one compiled
player), of a :class:`~training.envs.one_learner.OneLearnerVectorEnv` in which one seat a game (drawn at each
deal) searches and the opponent plays the others inside the compiled core. At each step every game whose mover
has more than one legal action is searched (:class:`agents.az_search.Search`, one per game, a Gumbel root with
sampling for exploration); :func:`agents.az_search.drive` runs the searches side by side, so each round of leaves is one
forward pass of the network for all the games. A search starts from the game as it is: its simulations deal
the unseen dominoes afresh (the deck's order beyond the drawn ones is never used), so it sees what the mover
may see. A decision with one legal action is played without a search and is no target.

A position is the mover's observation (``board``, ``features``, ``mask``, as the network reads it), the improved
policy over the whole action space (``policy``; with a ``target_temperature``, the prior tilted by the Q-values
instead, :func:`agents.az_search.tilted_policy`, less moved by the rollouts' noise), and each seat's rank reward
relative to the mover (``values``: entry j is seat (mover + j) % P, the order of the per-seat value head).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from agents.az_search import Search, drive, tilted_policy
from agents.checkpoint import CheckpointSettings
from agents.evaluator import Evaluator
from agents.search_settings import Settings as SearchSettings
from kdenv.batched.machine import copy_game, games
from kdenv.vector import VectorEnv
from training.envs.one_learner import OneLearnerVectorEnv

FIELDS = ("board", "features", "mask", "policy", "values")


@dataclass
class Positions:
    """Labelled decisions, one row each (see the module docstring); ``board`` and ``features`` are float16."""

    board: np.ndarray
    features: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return int(self.policy.shape[0])

    @classmethod
    def concat(cls, parts: list[Positions]) -> Positions:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


@dataclass
class Timing:
    """Where self-play spent its time: the search's Python and compiled steps, the network, the env."""

    search: float = 0.0
    network: float = 0.0
    env: float = 0.0
    decisions: int = 0  # searched decisions
    moves: int = 0  # every move played, searched or not
    games: int = 0

    def add(self, other: Timing) -> None:
        for name in ("search", "network", "env", "decisions", "moves", "games"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class _Pending:
    """The labelled decisions of one game in progress: (observation rows, policy, mover)."""

    rows: list = field(default_factory=list)


class SelfPlay:
    """``parallel`` games at one table, played by the search with ``network`` (an Evaluator's policy); with an
    ``opponent`` (random, gprd, fg, fgt), one seat a game searches and that compiled player holds the others."""

    def __init__(self, settings: CheckpointSettings, policy, parallel: int, simulations: int, search: SearchSettings,
                 seed: int = 0, opponent: str = "none", target_temperature: float | None = None) -> None:  # fmt: skip
        self.settings, self.simulations = settings, simulations
        n = self.num_players = settings.num_players
        self.driver: VectorEnv | OneLearnerVectorEnv  # what is stepped; self.env holds the games
        if opponent == "none":
            self.driver = self.env = VectorEnv(parallel, n, copy=False, rules=settings.rules, gains=settings.gains)
        else:
            self.driver = OneLearnerVectorEnv(parallel, n, [opponent] * (n - 1), copy=False, rules=settings.rules,
                                              gains=settings.gains)  # fmt: skip
            self.env = self.driver.env
        self.temperature = target_temperature
        self.tables = self.env.tables
        self.evaluator = Evaluator(settings, policy, "seats", prior_only=search.rolled_only)
        self.searches = [Search(self.tables, self.evaluator.views, search) for _ in range(parallel)]
        self.roots = [games(1, self.tables) for _ in range(parallel)]
        self.rng = np.random.default_rng(seed)
        self.driver.reset(seed=seed)
        self.obs, self.movers = self.env.observation(), self.env.movers()
        self.pending = [_Pending() for _ in range(parallel)]
        self.timing = Timing()

    def set_weights(self, state: dict) -> None:
        """The network's new weights (the learner's), for the moves from now on."""
        self.evaluator.policy.load_state_dict(state)

    def play(self, games_wanted: int, stop: Callable[[], bool] | None = None) -> Positions | None:
        """Step the games until ``games_wanted`` have ended since this call began; their labelled decisions (the
        games still in progress carry theirs over to the next call). None if ``stop()`` turns true first."""
        finished: list[Positions] = []
        ended = 0
        while ended < games_wanted:
            if stop is not None and stop():
                return None
            done = self.step()
            ended += len(done)
            finished.extend(done)
        if not finished:
            return _empty(self.tables)
        return Positions.concat(finished)

    def step(self) -> list[Positions]:
        """One move in every game (searched where it is a choice); the positions of the games that ended."""
        t, n = self.tables, self.num_players
        mask = self.obs["action_mask"]
        legal = mask.sum(axis=1)
        actions = np.argmax(mask, axis=1).astype(np.int64)  # the only legal action where there is one
        chosen = np.flatnonzero(legal > 1)
        if chosen.size:
            started = time.perf_counter()
            network = self.timing.network
            for i in chosen.tolist():
                copy_game(self.env.games, i, self.roots[i], 0)
            searches = [self.searches[i].steps(self.roots[i], self.rng, self.simulations) for i in chosen.tolist()]
            results = drive(searches, self._timed)
            board, features = self.obs["board"][chosen], self.obs["features"][chosen]
            for k, (i, result) in enumerate(zip(chosen.tolist(), results, strict=True)):
                actions[i] = int(result.root.actions[result.chosen])
                policy = np.zeros(t.num_actions, np.float32)
                policy[result.root.actions] = (
                    result.policy if self.temperature is None else tilted_policy(result.root, self.temperature)
                )
                self.pending[i].rows.append((board[k].astype(np.float16), features[k].astype(np.float16),
                                             mask[i].copy(), policy, int(self.movers[i])))  # fmt: skip
            self.timing.search += time.perf_counter() - started - (self.timing.network - network)
            self.timing.decisions += chosen.size
        started = time.perf_counter()
        _, _, terminated, _, info = self.driver.step(actions)
        self.obs, self.movers = self.env.observation(), self.env.movers()
        self.timing.env += time.perf_counter() - started
        self.timing.moves += actions.size
        done = []
        for i in np.flatnonzero(terminated).tolist():
            places = info["final_info"]["placings"][i]
            reward = 1.0 - 2.0 * places / (n - 1)
            done.append(self._labelled(self.pending[i], reward))
            self.pending[i] = _Pending()
            self.timing.games += 1
        return done

    def _timed(self, board, features, mask, movers):
        started = time.perf_counter()
        out = self.evaluator(board, features, mask, movers)
        self.timing.network += time.perf_counter() - started
        return out

    def _labelled(self, pending: _Pending, reward: np.ndarray) -> Positions:
        """A finished game's decisions with every seat's reward, relative to each decision's mover."""
        n = self.num_players
        if not pending.rows:
            return _empty(self.tables)
        board, features, mask, policy, movers = (np.stack(column) for column in zip(*pending.rows, strict=True))
        seats = (movers[:, None] + np.arange(n)[None, :]) % n
        return Positions(board, features, mask, policy, reward[seats].astype(np.float32))


def _empty(t) -> Positions:
    return Positions(
        np.zeros((0, t.num_planes, t.width, t.width), np.float16),
        np.zeros((0, t.num_features), np.float16),
        np.zeros((0, t.num_actions), np.int8),
        np.zeros((0, t.num_actions), np.float32),
        np.zeros((0, t.num_players), np.float32),
    )
