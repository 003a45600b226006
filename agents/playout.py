"""Playouts for Monte Carlo players: finish a game with a playout policy, then score it.

Search players run :class:`Playouts` over a :class:`Snapshot`: the game's public state in the batched arrays
(:func:`kdenv.batched.convert.to_arrays`), played out by the batched policies (:mod:`agents.batched`:
random moves uniform over the legal ones, as ``Game.playout``, greedy ones those of ``agents.greedy.FullGreedy``),
the unseen dominoes shuffled at each playout, as ``determinize`` does. :func:`play_out` is the same in pure Python
over the engine: the reference that ``tests/conformance`` checks them against move for move, and the benchmarks too.

Policies (the study's): ``random``; ``fg`` Full Greedy for everyone; ``eg`` epsilon-greedy (each
decision is random with probability 0.75, Full Greedy otherwise); ``pg`` player-greedy (Full Greedy
for the searching player, random for the others). Evaluations of a finished game for one player:
``wdl`` 1 for a win (1/k when k players share it), 0 otherwise; ``p`` the player's score / 100;
``r`` own score / (own + best opponent's) (0.5 when both are 0).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

import numpy as np

from agents.batched import policy as compiled
from agents.batched.policy import Policy
from agents.batched.workspace import workspace
from agents.greedy import FullGreedy
from kdenv.batched.convert import to_arrays
from kdenv.batched.grid import placements
from kdenv.batched.machine import Games, games
from kdenv.batched.tables import tables
from kdenv.game import OVER, Game, winners_of
from kdenv.view import PublicView

PlayoutPolicy = Literal["random", "fg", "eg", "pg"]  # the playout policies (the module docstring)
Evaluation = Literal["wdl", "p", "r"]  # the evaluations of a finished game
EPSILON = 0.75  # eg: chance of a random move at each decision


def seat_policies(policy: PlayoutPolicy, num_players: int, seat: int) -> tuple[np.ndarray, float]:
    """(each seat's compiled :class:`~agents.batched.policy.Policy`, the chance of a random greedy move) of the
    playout ``policy`` searched by ``seat``, as :meth:`Snapshot.playout` takes them."""
    others = Policy.RANDOM if policy in ("random", "pg") else Policy.FG
    policies = np.full(num_players, others, np.int64)
    policies[seat] = Policy.RANDOM if policy == "random" else Policy.FG
    return policies, EPSILON if policy == "eg" else 0.0


def random_move(game: Game, rng: random.Random) -> int:
    """A uniformly random legal action."""
    actions = game.legal_actions()
    return actions[int(rng.random() * len(actions))]


def play_out(game: Game, policy: PlayoutPolicy, seat: int, rng: random.Random, fg: FullGreedy) -> Game:
    """Play ``game`` (a determinized copy) to the end with ``policy``; ``seat`` is the searching player."""
    if policy == "random":
        return game.playout(rng)
    step = game.step
    if policy == "fg":
        while game.phase != OVER:
            step(fg.act(game, rng))
    elif policy == "eg":
        while game.phase != OVER:
            step(random_move(game, rng) if rng.random() < EPSILON else fg.act(game, rng))
    else:  # pg
        while game.phase != OVER:
            step(fg.act(game, rng) if game.current_player == seat else random_move(game, rng))
    return game


class Snapshot:
    """The public state of a game as game 0 of a batched :class:`~kdenv.batched.machine.Games` (sorted unseen),
    played out by the batched policies (:mod:`agents.batched`)."""

    __slots__ = ("games", "num_players", "scratch", "tables")

    def __init__(self, game: Game | PublicView, gains: bool = False) -> None:
        """Only public information is read: a view is enough. ``gains``: tables for observations with gains."""
        self.tables = tables(game.num_players, game.rules, gains)
        self.games = to_arrays(game, self.tables)
        self.scratch: Games = games(1, self.tables)
        self.num_players = game.num_players

    def playout(
        self,
        rng: random.Random,
        policies: np.ndarray | None = None,
        epsilon: float = 0.0,
        first: tuple[int, ...] = (),
    ) -> np.ndarray:
        """Play the actions ``first`` (legal ones: unchecked), then each seat's ``policies`` (scripted
        :class:`~agents.batched.policy.Policy` codes, all RANDOM by default; a greedy move is random with chance
        ``epsilon``) to the end, with the unseen dominoes shuffled; every player's (score, largest property, crowns)."""
        return self._run(rng.getrandbits(32), policies, epsilon, first, True)[0]

    def play(
        self,
        seed: int,
        policies: np.ndarray | None = None,
        epsilon: float = 0.0,
        first: tuple[int, ...] = (),
        shuffle: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(standings, moves) of a playout whose draws come from a generator of its own seeded by ``seed`` (the
        same seed, the same playout; no other stream is read or moved): ``moves`` holds (player, action,
        domino) rows; ``shuffle=False`` draws the unseen in number order."""
        out, count = self._run(seed, policies, epsilon, first, shuffle)
        return out, self.scratch.moves[0, :count].copy()

    def _run(
        self, seed: int, policies: np.ndarray | None, epsilon: float, first: tuple[int, ...], shuffle: bool
    ) -> tuple[np.ndarray, int]:
        """(standings, number of moves) of a playout into the scratch game."""
        if policies is None:
            policies = np.full(self.num_players, Policy.RANDOM, np.int64)
        out = np.zeros((self.num_players, 3), dtype=np.int64)
        count = compiled.playout(
            self.games, self.scratch, self.tables, policies, epsilon, np.array(first, dtype=np.int64), seed, shuffle,
            out,
        )  # fmt: skip
        return out, count

    def placements(self, player: int, number: int) -> list[int]:
        """The core's legal placement actions of domino ``number`` in ``player``'s kingdom, sorted."""
        g = self.games
        out = np.zeros(4 * self.tables.cells, dtype=np.int64)
        count = placements(g.terrain[0, player], g.reach[0, player], g.box[0, player], self.tables, number, out)
        return sorted(out[:count].tolist())

    def greedy_choices(self, tie_break: bool = False) -> set[tuple[int, int]]:
        """Full Greedy's best choices for the acting king: (placement, slot) pairs when placing (slot -1 in
        the last round), (-1, slot) when picking; with ``tie_break``, those ``fgt`` chooses from."""
        work = workspace(self.tables.cells)
        policy = Policy.FGT if tie_break else Policy.FG
        found = compiled.greedy_choices(self.games, 0, self.tables, work, policy)
        return {(int(action), int(slot)) for action, slot in work.best[:found]}


class Playouts:
    """Compiled playouts from one state, for the player in ``seat``: every player's value of the game
    finished with ``policy`` and scored by ``how``. The unseen dominoes are reshuffled at each playout, so
    a public view is enough (a determinized copy also does: its draw order was a random one already)."""

    def __init__(self, game: Game | PublicView, policy: PlayoutPolicy, seat: int, how: Evaluation) -> None:
        self.snapshot = Snapshot(game)
        self.policies, self.epsilon = seat_policies(policy, game.num_players, seat)
        self.how = how

    def values(self, rng: random.Random, first: tuple[int, ...] = ()) -> list[float]:
        """Play the actions ``first``, then the policy to the end: every player's value."""
        standings = self.snapshot.playout(rng, self.policies, self.epsilon, first)
        return values(standings.tolist(), self.how)


def values(standings: Sequence[Sequence[int]], how: Evaluation) -> list[float]:
    """Every player's value by evaluation ``how`` from the final standings: (score, ...) rows, which for
    ``wdl`` must be whole standings (score, largest property, crowns) as they decide the winners."""
    if how == "wdl":
        winners = winners_of(standings)
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(len(standings))]
    scores = [standing[0] for standing in standings]
    if how == "p":
        return [s / 100.0 for s in scores]
    result = []
    for p, own in enumerate(scores):
        best = max(s for q, s in enumerate(scores) if q != p)
        result.append(own / (own + best) if own + best else 0.5)
    return result
