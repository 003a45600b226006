"""``SingleGame``: one game on the compiled core, stepped and observed a decision at a time, for the AEC env.

The vector env's kernels (:mod:`kdenv.batched.batch`) on a batch of one: a step checks the action against the
mask, plays it, pays the rewards and writes the next mover's mask and observation, in one compiled call made
without numba's type dispatch (:func:`kdenv.batched.jit.direct`). The observation lives in one float32 buffer,
the board (C, F * F) then the features, which is the flat observation of :mod:`kdenv.flat` as it stands, kept
between steps. The engine stays the readable reference: :attr:`SingleGame.game` is the engine's
:class:`~kdenv.game.Game` of this game, re-played from the deal when first asked for and stepped along from then
on (an engine step a decision, which only callers reading it pay for).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kdenv.batched.batch import observe_all, step_all
from kdenv.batched.jit import direct, jit
from kdenv.batched.machine import FINISHED, KING, MADE, PHASE, QUEUE, games, placings, standings, start_all
from kdenv.batched.observe import redraw_rows, seen
from kdenv.batched.step import Buffers, Step
from kdenv.batched.tables import tables
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.game import Game
from kdenv.rules import Rules
from kdenv.table import REWARDS

REFUSED = -2  # what step_one returns for an action the mask forbids


@jit
def step_one(s, g, t, actions, step, movers, out):
    """:func:`~kdenv.batched.batch.step_all` on the one game of ``step.rows``: the player to move next, -1 once the
    game is over, or ``REFUSED`` (nothing changed) for an action its mask forbids."""
    if step_all(s, g, t, actions, step, movers, out) >= 0:
        return REFUSED
    i = step.rows[0]
    return -1 if step.ended[i] else movers[i]


class SingleGame:
    """One game at a table of ``num_players`` under ``rules``, with observations (``gains`` or not) and the
    rewards of ``reward`` (see :mod:`kdenv.kingdomino_v0`)."""

    def __init__(self, num_players: int, rules: Rules, gains: bool, reward: str) -> None:
        self.rules, self.num_players = rules, num_players
        self.tables = t = tables(num_players, rules, gains)
        self.games, self.seen = games(1, t), seen(1, t)
        board = t.num_planes * t.cells
        self.buffer = np.zeros(board + t.num_features, np.float32)  # the observation: board, then features
        self._board = self.buffer[:board].reshape(1, t.num_planes, t.cells)
        self._features = self.buffer[board:].reshape(1, t.num_features)
        self.mask = np.zeros((1, t.num_actions), np.int8)  # the mover's legal actions, row 0
        self.rewards = np.zeros((1, num_players), np.float64)  # each player's reward from the last step, row 0
        self._reward_kind = REWARDS.index(reward)
        self._paid = np.zeros((1, num_players), np.int64)
        self._ended = np.zeros(1, np.bool_)
        self._movers = np.zeros(1, np.int64)
        self._actions = np.zeros(1, np.int64)
        self._rows = np.zeros(1, np.int64)
        self._work = np.zeros(4 * t.cells, np.int64)
        self.observed = -1  # the seat whose observation the buffer holds (-1: none)
        self.mover = -1  # the player to move (-1 once the game is over)
        self.over = True  # whether the game is over (or not dealt)
        self.seed: int | None = None
        self._deal: tuple[list[int], list[int]] = ([], [])  # all 48 dominoes as dealt, the king order
        self._engine: Game | None = None
        self._bind()

    def _bind(self) -> None:
        """The compiled step and observation, for this object's own arrays (not pickled: rebound on load)."""
        g, s, t = self.games, self.seen, self.tables
        self._bound: dict[Callable, Callable] = {}  # other kernels (play's and play_compiled's), bound when first used
        self._turn = Step(self._rows, self._reward_kind, self._paid, self.rewards, self._ended)
        self._out = Buffers(self._board, self._features, self.mask, self._work)
        self._step = direct(step_one, s, g, t, self._actions, self._turn, self._movers, self._out)
        self._observe = direct(observe_all, s, g, t, self._rows, self._movers, self._out)

    def __getstate__(self) -> dict[str, Any]:
        bound = ("_step", "_observe", "_bound", "_turn", "_out")
        return {k: v for k, v in self.__dict__.items() if k not in bound}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind()

    def deal(self, dominoes: list[int], king_order: list[int], seed: int | None) -> None:
        """Deal the game of ``dominoes`` (all 48, those in play first in draw order) and ``king_order``, observed
        from its first mover; ``seed`` is what the engine's game and records name it by."""
        self._deal, self.seed, self._engine = (list(dominoes), list(king_order)), seed, None
        start_all(self.games, self.tables, self._rows, np.array([dominoes], np.int64), np.array([king_order], np.int64))
        redraw_rows(self.seen, self.games, self._rows, self.tables)
        self._paid[0], self.observed, self.mover, self.over = 0, -1, king_order[0], False
        self.observe(self.mover)

    def play(self, action: int, kernel: Callable[..., int] = step_one, *args: Any) -> bool:
        """Play ``action`` (an index of the action space) if the mask allows it, then observe the next mover;
        False, with nothing changed, if it does not. ``kernel`` makes the step: :func:`step_one`, or one called as it
        is with ``args`` after its own that plays more (the replies of compiled opponents: ``agents.learner_turn``)
        and returns as it does; ``args`` keep their types."""
        self._actions[0] = action
        call = (self.seen, self.games, self.tables, self._actions, self._turn, self._movers, self._out, *args)
        made = int(self.games.counters[0, MADE]) if self._engine is not None else 0
        mover = (self._step if kernel is step_one else self._bound_to(kernel, call))(*call)
        if mover == REFUSED:
            return False
        if self._engine is not None:
            self._follow(made)
        self.observed = self.mover = mover
        self.over = mover < 0
        return True

    def _bound_to(self, kernel: Callable, call: tuple) -> Callable:
        """``kernel`` compiled for the types of ``call``, once."""
        bound = self._bound.get(kernel)
        if bound is None:
            bound = self._bound[kernel] = direct(kernel, *call)
        return bound

    def _follow(self, made: int) -> None:
        """Step the engine's game along with the moves from the ``made``-th on."""
        assert self._engine is not None
        for player, action, _ in self.games.moves[0, made : self.games.counters[0, MADE]].tolist():
            self._engine.step(action, player)

    def play_compiled(self, kernel: Callable[..., None], *args: Any) -> None:
        """Let a compiled player move, called as ``kernel(seen, games, tables, step, *args)`` (``step`` a
        :class:`~kdenv.batched.step.Step`; as :meth:`kdenv.vector.VectorEnv.play_compiled` calls it, e.g.
        ``agents.batched.policy.advance``), the step's rewards summing its moves' (from zero); then observe the
        next mover. ``args`` keep their types."""
        call = (self.seen, self.games, self.tables, self._turn, *args)
        g = self.games
        made = int(g.counters[0, MADE])
        self.rewards[0], self._ended[0] = 0.0, False
        self._bound_to(kernel, call)(*call)
        self.over = bool(g.counters[0, PHASE] == FINISHED)
        self.mover = -1 if self.over else int(g.draft[0, QUEUE, g.counters[0, KING]])
        if self._engine is not None:
            self._follow(made)
        self.observed = -1
        if not self.over:
            self.observe(self.mover)

    def observe(self, seat: int) -> np.ndarray:
        """The buffer holding the game seen by ``seat`` (the observation, flat), written now unless it holds it."""
        if seat != self.observed:
            self._movers[0] = seat
            self._observe(self.seen, self.games, self.tables, self._rows, self._movers, self._out)
            self._movers[0] = self.mover
            self.observed = seat
        return self.buffer

    @property
    def game(self) -> Game:
        """The engine's game of this deal and these moves (re-played on first use, then stepped along)."""
        if self._engine is None:
            dominoes, king_order = self._deal
            in_play = self.tables.in_play
            game = Game.from_deck(self.num_players, self.rules, dominoes[:in_play], king_order, self.seed,
                                  dominoes[in_play:])  # fmt: skip
            for player, action, _ in self.games.moves[0, : self.games.counters[0, MADE]].tolist():
                game.step(action, player)
            self._engine = game
        return self._engine

    def reason(self, action: int) -> IllegalMoveError:
        """Why ``action``, which :meth:`play` refused, is illegal now: the engine's own error, on a copy."""
        try:
            self.game.clone().step(action, self.mover)
        except IllegalMoveError as err:
            return err
        raise KingdominoError(
            f"action {action} is legal in the engine but not in the compiled core (please report this)"
        )

    def standings(self) -> tuple[list[int], list[float]]:
        """Every player's score (bonuses included) and place (0 first; ties share the mean place)."""
        final = np.zeros((self.num_players, 3), np.int64)
        places = np.zeros(self.num_players, np.float64)
        standings(self.games, 0, self.tables, final)
        placings(final, places)
        return final[:, 0].tolist(), places.tolist()
