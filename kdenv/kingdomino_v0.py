"""
# Kingdomino

A PettingZoo AEC environment for Kingdomino (2-4 players, official variants). Each step is one decision of the
acting king; the draft decides who acts next, so ``agent_selection`` follows the kings on the lines, not a
round-robin. The game steps on the compiled core (:mod:`kdenv.batched.single`: the vector env's kernels on one
game), value for value the exact engine of :mod:`kdenv.game` and the encoder of :mod:`kdenv.encoding`, which stay
the readable reference (``tests/conformance`` plays them side by side); ``env.unwrapped.game`` is the engine's
:class:`~kdenv.game.Game` of the game in play, re-played from the deal when first read in a game and stepped along
from then on (reading it costs an engine step a decision; changing it changes nothing in the env).

| Creation           | `from kdenv import kingdomino_v0; kingdomino_v0.env(num_players=4)`                |
|--------------------|------------------------------------------------------------------------------------|
| Registered         | `pettingzoo.make("aec", "kdenv/kingdomino-v0", ...)` after `import kdenv` (1.27+)  |
| Actions            | Discrete                                                                           |
| Parallel API       | No                                                                                 |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2, 3 or 4                        |
| Action Values      | Discrete(329) (kingdom size 5), Discrete(681) (Mighty Duel, 7x7)                   |
| Observation Shape  | Dict(observation=Dict(board=(C, F, F), features=(V,)), action_mask=(A,))          |
| Observation (flat) | Dict(observation=Box(C * F * F + V,), action_mask=(A,)) with `observation="flat"` |
| Observation Values | board in [0, 1] (gain planes >= 0); features >= 0; action_mask in {0, 1}          |

| players / variant | board (C, F, F) | features V | flat C * F * F + V | actions A |
|-------------------|-----------------|------------|--------------------|-----------|
| 4                 | (44, 9, 9)      | 230        | 3794               | 329       |
| 3                 | (34, 9, 9)      | 221        | 2975               | 329       |
| 2                 | (24, 9, 9)      | 212        | 2156               | 329       |
| 2, Mighty Duel    | (24, 13, 13)    | 212        | 4268               | 681       |

With ``gains=True`` the board has 4 planes more and the features 4 x n more (see below).

## Observation

``observe(agent)`` returns ``{"observation": {"board", "features"}, "action_mask"}`` as in PettingZoo's
classic games. The observation is seen from ``agent``: its own kingdom first, then the others by seat
(agent+1, agent+2, ...); every player one-hot is in that relative order. ``board`` holds 10 planes per
kingdom over the F x F frame around its castle (terrain one-hot x 6, crowns / 3, castle, empty, the
window of cells still reachable within S x S) and 4 planes with the legal half-A cells of the domino
being placed now, one per direction. ``features`` holds the current line (domino, owner of the king,
done, acting now), the next line (domino, claimed by), the domino being placed, the decision type
(pick / place), the round, the scores so far / 100 and the 48 dominoes not yet seen (a multiset: the
order of the undrawn deck never shows). With ``gains=True`` come what a greedy player computes: 4
planes with the property score each legal placement would add / 10, and per next-line slot the most its
domino could add to each kingdom / 10. The exact layout, with index tables, is in
:mod:`kdenv.encoding` (``feature_layout(n, gains)``, the plane constants).

With ``observation="flat"`` the observation is those same numbers as one float32 vector, the one ``Box`` of
PettingZoo's classic games that outside code built on them expects: the board in C order (plane, row, column),
then the features, so ``flat[(c * F + r) * F + col] == board[c, r, col]`` and ``flat[C * F * F + i] ==
features[i]`` (:mod:`kdenv.flat`; ``kdenv.flat.flatten`` turns a dict observation into it).

``action_mask`` (int8) allows exactly the engine's legal actions for the agent to act, and is all zero
for every other agent.

## Action

One integer per decision, the codec of :mod:`kdenv.actions` (``encode``/``decode`` turn it into a
:class:`~kdenv.actions.Move` and back). With F = 2S - 1: ``4 * (r * F + c) + d`` places half A on frame
cell (r, c) and half B one step in direction d (0 east, 1 south, 2 west, 3 north); ``4 * F * F``
discards the domino in hand (legal only when it cannot be placed, or with ``voluntary_discard``);
``4 * F * F + 1 + i`` claims slot i of the next line (lowest number first). With 2 players each player
owns two kings and may act twice in a row.

Illegal moves: ``raw_env.step`` raises :class:`kdenv.errors.IllegalMoveError` naming the move and the reason
(outside the space, masked out, or against the rules), leaving the game unchanged; once the game is over,
``step(None)`` takes each done agent out (PettingZoo's convention; ``last()`` then answers for the last of them) and
any other action raises it too. ``env()`` follows the classic games' convention, that of
``TerminateIllegalWrapper(illegal_reward=-1)``: an illegal move ends
the game with -1 for the offender and 0 for the others (the reason is in ``infos[agent]["illegal_move"]``, and an
:class:`~kdenv.errors.IllegalMoveWarning` names the action and the seat); an action outside the space (a float, a
bool, an array of another shape, an index out of range) raises in both, as AssertOutOfBoundsWrapper asserts. An
action is an int, a numpy integer or an integer array of one element. It is built into
``raw_env(illegal_reward=-1)`` rather than stacked as TerminateIllegalWrapper + AssertOutOfBoundsWrapper, because
every wrapper layer costs microseconds a turn in attribute forwarding; ``env()`` keeps PettingZoo's order checks
with :class:`DirectOrderEnforcingWrapper`, an ``OrderEnforcingWrapper`` that forwards ``last``, ``step`` and the
per-turn attributes straight to ``raw_env``.

## Rewards

Option ``reward=``:

* ``"rank"`` (default): zero-sum, at the end only: ``1 - 2 * place / (n - 1)`` where ``place`` is the
  final placing after tie-breaks (0 first, n-1 last; players still tied share the mean place). So +1 for
  the winner, -1 for the last, 0 in the middle of 3; a shared victory of two splits (0 each at 2 players).
* ``"margin"``: at the end only: (own score - best opponent's score) / 100.
* ``"score"``: dense: after each placement or discard, the change of the mover's own score / 100
  (variant bonuses included when earned or lost; the score before the first placement counts as 0, so
  the Middle Kingdom bonus of the bare castle comes with it), so an episode sums to the final score / 100.

## Variants

Keyword arguments: ``kingdom_size`` (5 or 7), ``mighty_duel`` (7x7, 2 players, all 48 dominoes),
``middle_kingdom`` (+10 when the castle is centred), ``harmony`` (+5 for a complete 5x5 with no discard),
``voluntary_discard`` (house rule), or ``rules=`` a :class:`kdenv.rules.Rules`; each flag is True or False (a string
is refused, not taken as true). ``gains=True`` adds to the
observation the property score each legal placement and each next-line domino would add (see
:mod:`kdenv.encoding`).

## Copies

``copy.deepcopy(env)`` and ``pickle`` keep everything, mid-game included (the game, the agent to act, the
rewards so far), so a search can clone the env and play on the copy; ``env.unwrapped.game.clone()`` copies
the engine's game alone.

## Game record

``env.unwrapped.record()`` is the ``kingdomino-replay/1`` record of the game so far
(:func:`kdenv.replay.to_record`); ``kdenv.replay.replay_record`` re-plays and checks it.

## Version history

* v0: initial release.
"""

from __future__ import annotations

import operator
import random
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import OrderEnforcingWrapper

from kdenv.actions import shown
from kdenv.batched.single import SingleGame, step_one
from kdenv.checks import finite, seed_value
from kdenv.encoding import ObservationEncoder
from kdenv.errors import IllegalMoveError, IllegalMoveWarning, KingdominoError
from kdenv.flat import flat_space
from kdenv.game import Game, shuffled_deal
from kdenv.render import render_ansi, render_rgb
from kdenv.replay import to_record
from kdenv.table import Table, TableOptions, check_keywords

if TYPE_CHECKING:
    from typing_extensions import Unpack


def action_index(action: Any, size: int) -> int | None:
    """``action`` as an index of ``Discrete(size)``: an int, a numpy integer or an integer array of one element;
    None for anything else (a bool, a float, another shape, out of range)."""
    if type(action) is int:  # the common case first
        return action if 0 <= action < size else None
    if isinstance(action, np.ndarray) and action.size == 1 and action.ndim <= 1:
        action = action.reshape(())[()]  # the numpy scalar inside
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    index = int(action)
    return index if 0 <= index < size else None


def env(**kwargs: Any) -> AECEnv:
    """The Kingdomino AEC env as users should get it: illegal moves end the game (-1), order enforced."""
    kwargs.setdefault("illegal_reward", -1.0)
    return DirectOrderEnforcingWrapper(raw_env(**kwargs))


def _after_reset(name: str) -> property:
    """An attribute of the wrapped env, read straight from it, that (as in OrderEnforcingWrapper) exists
    only after reset()."""
    read = operator.attrgetter(name)

    def get(self: DirectOrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return read(self.env)

    return property(get, doc=f"The env's {name} (after reset).")


class DirectOrderEnforcingWrapper(OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with the same checks, but whose per-turn calls (``last``, ``step``
    and the attributes an AEC loop reads) go straight to the env rather than through ``__getattr__``, which
    costs about a microsecond an attribute, several times a turn."""

    agents = _after_reset("agents")
    agent_selection = _after_reset("agent_selection")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    rewards = _after_reset("rewards")
    infos = _after_reset("infos")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)  # the wrapper's error
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # the wrapper's error or warning

    def __str__(self) -> str:
        return str(self.env)  # "kingdomino_v0", as OrderEnforcingWrapper itself shows


class raw_env(AECEnv, EzPickle):
    """Kingdomino as a PettingZoo AEC env; illegal actions raise IllegalMoveError."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "kingdomino_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        illegal_reward: float | None = None,
        **table: Unpack[TableOptions],
    ) -> None:
        EzPickle.__init__(self, num_players, render_mode, illegal_reward, **table)
        super().__init__()
        check_keywords("kingdomino_v0", raw_env, table)
        self.table = Table.of(num_players, **table)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise KingdominoError(
                f"unknown render_mode {render_mode!r}; choose from {', '.join(self.metadata['render_modes'])}"
            )
        self.rules = self.table.rules
        self.num_players = num_players = self.table.num_players
        self.reward = self.table.reward
        self.illegal_reward = None if illegal_reward is None else finite("illegal_reward", illegal_reward)
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(num_players, self.rules.kingdom_size, self.table.gains)  # the reference
        self.core = SingleGame(num_players, self.rules, self.table.gains, self.reward)
        self._dense = self.reward == "score"  # rewards after placements too, not only at the end
        t = self.core.tables
        self._board_size, self._board_end = (t.num_planes, t.width, t.width), t.num_planes * t.cells
        self.possible_agents = [f"player_{p}" for p in range(num_players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        self.num_actions = self.encoder.num_actions
        self.flat = self.table.flat
        self._observation_space = spaces.Dict(
            {
                "observation": flat_space(self.encoder.space) if self.flat else self.encoder.space,
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        self._action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self._seeds = random.Random()
        self.agent_names: list[str] | None = None  # who plays each seat, for records
        self._dealt = False

    def __getstate__(self) -> dict[str, Any]:
        """Pickles and deep copies keep the game in progress, the agent selection and the rewards (EzPickle
        alone would rebuild an env that was never reset): ``copy.deepcopy(env)`` clones an env mid-game."""
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: ``seed`` (an integer 0 or more) deals it (``Game(n, rules, seed)``), None draws one from
        the last seed; ``options={"deck": [...], "king_order": [...]}`` deals that game instead (as a record does)."""
        seed = seed_value(seed)
        if seed is not None:
            self._seeds.seed(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**62)
        if options and "deck" in options:
            king_order = list(options["king_order"])
            game = Game.from_deck(self.num_players, self.rules, list(options["deck"]), king_order, seed)  # checked
            self.core.deal(game.drawn + game.deck + game.removed, king_order, seed)
        else:
            self.core.deal(*shuffled_deal(self.num_players, self.rules, game_seed), game_seed)
        self._dealt = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid_last = False  # whether the last step's rewards are not all zero
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.core.mover]
        if self.render_mode == "human":
            self.render()

    @property
    def game(self) -> Game | None:
        """The game in play as the engine's :class:`~kdenv.game.Game` (None before the first reset): the env plays
        on the compiled core, and this game is re-played from the deal when first read in a game, then stepped
        along with it; changing it changes nothing in the env."""
        return self.core.game if self._dealt else None

    @property
    def dealt(self) -> Game:
        """The game in play (as :attr:`game`); a KingdominoError before the first reset()."""
        if not self._dealt:
            raise KingdominoError("no game yet: call reset() first")
        return self.core.game

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The agent to act's observation, reward since it last acted, termination, truncation and info. Once every
        agent has stepped out of a finished game, the last of them: its final observation, no reward (its last one
        was paid before it stepped out), terminated, no info (PettingZoo's classic games raise a KeyError)."""
        agent = self.agent_selection
        if agent not in self.terminations:
            return self.observe(agent) if observe else None, 0.0, True, False, {}
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat.get(agent)
        if seat is None:
            raise KingdominoError(f"no agent {agent!r} at this table; the agents are {', '.join(self.possible_agents)}")
        observation = self.observation_of(seat)
        core = self.core
        mask = core.mask[0].copy() if seat == core.mover else np.zeros(self.num_actions, np.int8)
        return {"observation": observation, "action_mask": mask}

    def observation_of(self, seat: int) -> Any:
        """What ``observe`` gives the player in ``seat`` under "observation": the dict of board and features, or
        the flat vector (a copy of the core's buffer, which is that vector)."""
        if not self._dealt:
            raise KingdominoError("no game yet: call reset() first")
        flat = self.core.observe(seat).copy()
        if self.flat:
            return flat
        return {"board": flat[: self._board_end].reshape(self._board_size), "features": flat[self._board_end :]}

    def action_mask(self) -> np.ndarray:
        """The legal actions of the decision now (int8; all zero once the game is over), a copy."""
        return self.core.mask[0].copy() if not self.core.over else np.zeros(self.num_actions, np.int8)

    def step(self, action: Any) -> None:
        """Play ``action`` for the agent to act (PettingZoo's step)."""
        self.play_turn(action, step_one)

    def play_turn(self, action: Any, kernel: Callable[..., int], *args: Any) -> None:
        """Play ``action`` for the agent to act as :meth:`step` does, the step made on the core by ``kernel`` (with
        ``args``): one that plays more moves after it, as one step (their rewards summed), e.g. the replies of
        compiled opponents (see :meth:`SingleGame.play`); not PettingZoo's, for the single-agent view."""
        agent = self.agent_selection
        if agent not in self.terminations or self.terminations[agent] or self.truncations[agent]:
            self._step_out(action, agent)
            return
        index = action_index(action, self.num_actions)
        if index is None:  # no action at all, whatever illegal_reward says (as AssertOutOfBoundsWrapper asserts)
            raise IllegalMoveError(
                f"action {shown(action)} by {agent} is outside the action space {self._action_space}: "
                f"give one integer 0..{self.num_actions - 1}"
            )
        if not self.core.play(index, kernel, *args):
            err = self.core.reason(index)  # the engine's reason; the game is unchanged
            if self.illegal_reward is None:
                raise err
            self._end_on_illegal_move(agent, index, err, self.illegal_reward)
            return
        self._cumulative_rewards[agent] = 0.0
        self._moved()
        if self.render_mode == "human":
            self.render()

    def _step_out(self, action: Any, agent: str) -> None:
        """After the game: ``step(None)`` takes a done agent out of ``agents`` (PettingZoo's convention); any
        other action is an IllegalMoveError saying so, instead of PettingZoo's ValueError."""
        if action is not None or agent not in self.terminations:
            done = "every agent has stepped out" if agent not in self.terminations else f"step(None) for {agent}"
            raise IllegalMoveError(
                f"action {shown(action)} by {agent}: the game is over; {done}, or reset() for a new game"
            )
        self._was_dead_step(action)

    def play_compiled(self, kernel: Callable[..., None], *args: Any) -> None:
        """Let a compiled player make the moves that ``kernel`` makes (see :meth:`SingleGame.play_compiled`), as one
        step: ``rewards`` are those moves' summed, then the next agent, or the end of the game."""
        self.core.play_compiled(kernel, *args)
        self._moved()
        if self.render_mode == "human":
            self.render()

    def _moved(self) -> None:
        """After legal moves: their rewards (the core's), then the next agent, or the end of the game."""
        core = self.core
        over = core.over
        if over or self._dense:
            self.rewards = dict(zip(self.possible_agents, core.rewards[0].tolist(), strict=True))
            self._accumulate_rewards()
        elif self._paid_last:  # the last step paid: this one pays nothing
            self.rewards = dict.fromkeys(self.agents, 0.0)
        self._paid_last = over or self._dense
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[core.mover]

    def _end_on_illegal_move(self, agent: str, action: int, err: IllegalMoveError, reward: float) -> None:
        """The classic games' convention: the game ends, the offender gets ``reward``, the others 0; an
        :class:`IllegalMoveWarning` says which move, by whom, and why."""
        warnings.warn(
            f"{agent}'s action {action} was an {err}; the game ends with {reward:g} for {agent} "
            f"(observe({agent!r})['action_mask'] marks the legal actions)",
            IllegalMoveWarning,
            stacklevel=4,
        )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(reward)
        self.infos[agent]["illegal_move"] = str(err)
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """The game as text ("ansi"), an RGB image ("rgb_array"), or printed text ("human")."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return render_rgb(self.game)
        text = render_ansi(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def record(self, agents: list[str] | None = None) -> dict:
        """The ``kingdomino-replay/1`` record of the game so far."""
        return to_record(self.dealt, agents=agents if agents is not None else self.agent_names)

    def close(self) -> None:
        """Nothing to release (rendering keeps no window)."""
