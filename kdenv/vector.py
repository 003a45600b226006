"""``VectorEnv``: many Kingdomino games stepped in one call, every seat's decisions, on the compiled core.

For trainers that want batches, as pgx and EnvPool give them::

    from kdenv.vector import VectorEnv
    venv = VectorEnv(num_envs=256, num_players=4, middle_kingdom=True, harmony=True, reward="rank")
    obs, info = venv.reset(seed=0)   # obs["board"] (N, C, F, F), obs["features"] (N, V), obs["action_mask"] (N, A)
                                     # info["current_player"] (N,): whose decision each row is
    obs, rewards, terminations, truncations, info = venv.step(actions)   # rewards: (N, num_players)
    venv.records()                   # kingdomino-replay/1 records of the games finished since the last call

Row i is one game, seen by the player to move (``info["current_player"][i]``) in exactly the layout of
:class:`kdenv.encoding.ObservationEncoder`, value for value what the AEC env gives that player; the
action mask is the engine's legal actions. Actions are the codec of :mod:`kdenv.actions`.

* **Rewards** ``(N, num_players)`` float64, each player's reward from the step, under the AEC env's
  options (``"rank"``, ``"margin"``, ``"score"``, see :mod:`kdenv.kingdomino_v0`).
* **Autoreset**: Gymnasium's ``SAME_STEP`` mode. A game that ends in a step is dealt again within that
  step: its row of the observation is the new game's first decision, ``terminations[i]`` is True, and
  ``info["final_info"]`` holds the finished games' ``scores`` and ``placings`` (N, num_players), marked
  by ``info["_final_info"]``. There is no final observation: nobody moves in a finished game.
* **Illegal actions** raise :class:`~kdenv.errors.IllegalMoveError` naming the env index, the action and
  the engine's reason, before any game changes.
* **Seeds**: ``reset(seed=s)`` deals the same games for the same ``s`` (and the same later deals, for the
  same actions). :meth:`VectorEnv.game` gives game i as the engine's ``Game``, and a record carries its deck
  and king order.
* ``observations=False`` gives the action masks alone (``obs["action_mask"]``), for scripted or search
  players that read the state themselves; ``gains=True`` adds the gain planes and features of
  ``ObservationEncoder(gains=True)``; ``copy=False`` returns the env's own buffers, which the next
  step overwrites (faster: no copy of the boards).
* ``observation="flat"`` gives ``{"observation": (N, D), "action_mask": (N, A)}``, each row the flat vector of
  :mod:`kdenv.flat` (the board in C order, then the features; a new array at every step, whatever ``copy``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from kdenv.batched.batch import observe_all, play_rows, step_all
from kdenv.batched.convert import to_game
from kdenv.batched.machine import MADE, Games, games, placings, players, standings, start_all
from kdenv.batched.observe import Seen, redraw_rows, seen
from kdenv.batched.step import Buffers, Step
from kdenv.batched.tables import Tables, tables
from kdenv.checks import flag, integer, seed_value
from kdenv.encoding import observation_space
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.flat import flat_space, flatten
from kdenv.game import Game
from kdenv.memory import check_fits, game_bytes
from kdenv.replay import to_record
from kdenv.table import REWARDS, Table, TableOptions, check_keywords
from kdenv.tiles import NUM_DOMINOES

if TYPE_CHECKING:
    from typing_extensions import Unpack


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games at one table, all seats' decisions, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        num_players: int = 4,
        observations: bool = True,
        copy: bool = True,
        max_records: int = 10_000,
        **table: Unpack[TableOptions],
    ) -> None:
        check_keywords("VectorEnv", VectorEnv, table)
        self.table = Table.of(num_players, **table)
        num_envs = integer("num_envs", num_envs, 1)
        observations, copy = flag("observations", observations), flag("copy", copy)
        self.rules, num_players, gains = self.table.rules, self.table.num_players, self.table.gains
        kings_each = self.rules.setup(num_players)[0]
        self.num_envs, self.num_players, self.reward = num_envs, num_players, self.table.reward
        self.tables: Tables = tables(num_players, self.rules, gains)
        t = self.tables
        check_fits("num_envs", num_envs, game_bytes(t, observations), "a game's state and buffers")
        self.games: Games = games(num_envs, t)
        self.seen: Seen = seen(num_envs, t, planes=observations)
        self.copy = copy
        self._reward_kind = REWARDS.index(self.reward)
        width = t.width
        shape = (t.num_planes, width, width) if observations else (0, 0, 0)
        self._board = np.zeros((num_envs, *shape), np.float32)
        self._board_cells = self._board.reshape(num_envs, shape[0], shape[1] * shape[2])
        self._features = np.zeros((num_envs, t.num_features if observations else 0), np.float32)
        self._mask = np.zeros((num_envs, t.num_actions), np.int8)
        self._work = np.zeros(4 * t.cells, np.int64)
        self._rows = np.arange(num_envs)
        self._movers = np.zeros(num_envs, np.int64)  # the player to move in each game
        self._rewards = np.zeros((num_envs, num_players), np.float64)
        self._ended = np.zeros(num_envs, np.bool_)
        self._paid = np.zeros((num_envs, num_players), np.int64)  # scores already paid by the "score" reward
        self._step = Step(self._rows, self._reward_kind, self._paid, self._rewards, self._ended)  # every game's step
        self._out = Buffers(self._board_cells, self._features, self._mask, self._work)
        self._final = np.zeros((num_envs, num_players, 3), np.int64)
        self._king_order = np.repeat(np.arange(num_players, dtype=np.int64), kings_each)  # shuffled at each deal
        self.agent_names: list[list[str] | None] = [None] * num_envs  # who plays each seat, for records
        self._finished: deque = deque(maxlen=integer("max_records", max_records, 0))
        self._rng = np.random.default_rng()
        self.observations = observations
        mask_space = spaces.Box(0, 1, (t.num_actions,), np.int8)
        single: dict[str, spaces.Space] = {"action_mask": mask_space}
        if observations:
            seen_space = observation_space(num_players, self.rules.kingdom_size, gains)
            parts = {"observation": flat_space(seen_space)} if self.table.flat else dict(seen_space.spaces)
            single = {**parts, **single}
        self.single_observation_space = spaces.Dict(single)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.single_action_space = spaces.Discrete(t.num_actions)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, t.num_actions))

    # ----- the Gymnasium vector API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal every game afresh; ``seed`` (an integer 0 or more) makes the deals (and every later one) repeatable."""
        seed = seed_value(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._deal(self._rows)
        return self.observation(), {"current_player": self._movers.copy()}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action in every game (the player to move's), deal the games that end, observe."""
        actions = self.check_actions(actions)
        bad = step_all(self.seen, self.games, self.tables, actions, self._step, self._movers, self._out)
        if bad >= 0:
            raise self._illegal(bad, int(actions[bad]))
        ended = np.flatnonzero(self._ended)
        info = self.end_games(ended) if ended.size else {}
        info["current_player"] = self._movers.copy()
        return self.observation(), self._rewards.copy(), self._ended.copy(), np.zeros(self.num_envs, np.bool_), info

    def records(self) -> list[dict]:
        """The ``kingdomino-replay/1`` records of the games finished since the last call (the latest
        ``max_records`` of them), each re-played through the engine as it is written."""
        done = list(self._finished)
        self._finished.clear()
        return [to_record(to_game(self.rules, self.tables, *game), agents) for *game, agents in done]

    def close(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # ----- a step in parts, for the one-learner view (training.envs.one_learner) --------------------
    def clear_step(self, rows: np.ndarray | None = None) -> None:
        """Zero the step's rewards and end flags of ``rows`` (default: every game), as :meth:`step` starts."""
        where = slice(None) if rows is None else rows
        self._rewards[where] = 0.0
        self._ended[where] = False

    def play(self, rows: np.ndarray, actions: np.ndarray, who: str = "") -> None:
        """Play ``actions[i]`` in each game i of ``rows``, adding to the step's rewards, observing nothing; an
        action illegal by the mask last observed raises an IllegalMoveError naming ``who``, before any game changes."""
        bad = play_rows(self.seen, self.games, self.tables, actions, self._step._replace(rows=rows), self._mask)
        if bad >= 0:
            raise self._illegal(bad, int(actions[bad]), who)

    def play_compiled(self, kernel: Callable[..., None], rows: np.ndarray, *args: Any) -> None:
        """Let a compiled player move in the games of ``rows`` under the step's reward accounting, called as
        ``kernel(seen, games, tables, step, *args)`` (``step`` a :class:`~kdenv.batched.step.Step` of ``rows``; it
        plays as :func:`kdenv.batched.batch.play` does)."""
        kernel(self.seen, self.games, self.tables, self._step._replace(rows=rows), *args)

    def rewards_of(self, seats: np.ndarray) -> np.ndarray:
        """(N,) each game's reward in this step so far, for the player at ``seats[i]``."""
        return self._rewards[self._rows, seats]

    def ended(self) -> np.ndarray:
        """(N,) bool, a copy: which games ended in this step."""
        return self._ended.copy()

    def movers(self) -> np.ndarray:
        """(N,) the player to move in each game now, a copy."""
        players(self.games, self._movers)
        return self._movers.copy()

    # ----- helpers the single-agent views build on -------------------------------------------------
    def _illegal(self, i: int, action: int, who: str = "") -> IllegalMoveError:
        """The error of an illegal ``action`` in game ``i``, naming who played it (if ``who`` is given)."""
        return IllegalMoveError(f"{who + ' in ' if who else ''}env {i}: {self.reason(i, action)}")

    def reason(self, i: int, action: int) -> str:
        """Why ``action`` is illegal now in game ``i``: the engine's own words, on the game re-played."""
        if not 0 <= action < self.tables.num_actions:
            return f"action {action} is outside the action space Discrete({self.tables.num_actions})"
        game = self.game(i)
        try:
            game.step(action)
        except IllegalMoveError as err:
            return f"action {action}: {err}"
        return f"action {action} is legal in the engine but not in the compiled core (please report this)"

    def game(self, i: int) -> Game:
        """Game ``i`` as the engine's :class:`~kdenv.game.Game`, re-played from its deal and moves."""
        return to_game(self.rules, self.tables, *self._game_arrays(i))

    def _game_arrays(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of game ``i``'s deck, king order and moves made."""
        g = self.games
        return g.deck[i].copy(), g.order[i].copy(), g.moves[i, : g.counters[i, MADE]].copy()

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as int64, one per env; an IllegalMoveError for anything else, and a KingdominoError
        before the first reset (no game is dealt)."""
        if not self.games.deck[0, 0]:  # every deal fills the deck with dominoes 1..48
            raise KingdominoError("no games dealt yet: call reset() before step()")
        array = np.asarray(actions)
        if array.shape != (self.num_envs,) or not np.issubdtype(array.dtype, np.integer):
            raise IllegalMoveError(
                f"actions must be {self.num_envs} integers, one per env, not {array.dtype} of shape {array.shape}"
            )
        if array.dtype == np.uint64:  # values past int64's range would wrap round to negative ones
            past = np.flatnonzero(array > np.iinfo(np.int64).max)
            if past.size:
                raise self._illegal(int(past[0]), int(array[past[0]]))
        return array.astype(np.int64, copy=False)

    def _deal(self, rows: np.ndarray) -> None:
        """Deal the games of ``rows`` afresh (shuffled dominoes and kings from the env's generator), observe them."""
        decks = self._rng.permuted(np.tile(np.arange(1, NUM_DOMINOES + 1, dtype=np.int64), (rows.size, 1)), axis=1)
        orders = self._rng.permuted(np.tile(self._king_order, (rows.size, 1)), axis=1)
        start_all(self.games, self.tables, rows, decks, orders)
        redraw_rows(self.seen, self.games, rows, self.tables)
        self._paid[rows] = 0
        self._movers[rows] = orders[:, 0]
        self.observe(rows, self._movers)

    def end_games(self, ended: np.ndarray) -> dict:
        """Keep the finished games' records and results, and deal them again; the ``final_info``."""
        scores = np.zeros((self.num_envs, self.num_players), np.int64)
        places = np.zeros((self.num_envs, self.num_players), np.float64)
        for i in ended.tolist():
            standings(self.games, i, self.tables, self._final[i])
            placings(self._final[i], places[i])
            scores[i] = self._final[i, :, 0]
            self._finished.append((*self._game_arrays(i), self.agent_names[i]))
        self._deal(ended)
        return {"final_info": {"scores": scores, "placings": places}, "_final_info": self._ended.copy()}

    def observe(self, rows: np.ndarray, observers: np.ndarray) -> None:
        """Observe the games of ``rows`` from ``observers[i]`` into the buffers (:meth:`observation`)."""
        observe_all(self.seen, self.games, self.tables, rows, observers, self._out)

    def buffers(self) -> dict[str, np.ndarray]:
        """The env's own buffers, ``board``, ``features`` (unless ``observations=False``) and ``action_mask``,
        whatever ``observation`` and ``copy`` say: what :meth:`observe` and the next step overwrite."""
        obs: dict[str, np.ndarray] = {"action_mask": self._mask}
        if self.observations:
            obs = {"board": self._board, "features": self._features, **obs}
        return obs

    def observation(self) -> dict:
        """The observation in the buffers (copies unless ``copy=False``), flat with ``observation="flat"``."""
        obs = self.buffers()
        if self.table.flat and self.observations:
            return {"observation": flatten(obs), "action_mask": self._mask.copy() if self.copy else self._mask}
        return {k: v.copy() for k, v in obs.items()} if self.copy else obs
