"""The search of the ``az`` player: a network-guided max^n tree search over the compiled core.

* **States.** The tree is Python; the states are rows of the compiled core (:mod:`kdenv.batched.branch`). Each
  simulation deals a deck (the root's unseen dominoes reshuffled, as ``view.determinize`` does; the true deck
  is never read: the root is built from a :class:`~kdenv.view.PublicView`), walks the tree, and its leaf's
  state is the root's game with the path played. The n-th simulation of every root action deals the same deck
  (common random numbers), so the root's Q-values differ by the moves more than by the draws.
* **Chance.** Within a round every decision is deterministic. The last move of a round draws the next line from
  the simulation's deck, so the children of such a move are keyed by the line drawn (as ``uct`` does). With
  ``lines=K`` a chance node keeps at most K lines: once it has K, a simulation draws one of them at random (its
  deck rearranged to deal it), so the tree below a round's end is revisited and grows (sampled chance children,
  as in Stochastic MuZero's and cardboard-kitchen's searches; K=0 keeps every line drawn).
* **Several players.** Every edge keeps each seat's summed value; each player maximises its own (max^n). With
  ``others`` a compiled policy, the other seats' nodes follow that policy's move instead (an opponent model).
* **Selection.** Below the root, PUCT with the network's priors. At the root, Gumbel AlphaZero's sampling
  without replacement and sequential halving (``root="gumbel"``, Danihelka et al. 2022), or PUCT
  (``root="puct"``). The output is the improved policy, softmax(logits + sigma(completed Q)), with Q
  completed by the mixed value and sigma as in mctx's ``qtransform_completed_by_mix_value``.
* **Rollouts.** Optionally (``rollout=fg``), each leaf is also played out to the end by a compiled policy, and
  its value mixes the network's and the rollout's (AlphaGo's lambda, ``mix``). With ``rollout=network`` the
  searcher's seat plays the network's favourite moves in the rollout (one forward pass a move for the batch's
  rows) and the other seats Full Greedy's: a better player of the searcher's future, at about four times the
  cost. A finished game values each seat by ``evaluation``: its rank reward, or its score's share against the best
  other (``r``, the study's R, which tells apart endings of one rank, so a rollout says more).
* **Batches.** Leaves of ``batch`` simulations (kept apart by a virtual loss) are stepped, observed and
  evaluated together, in one compiled call and one forward pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from agents.batched_policies import Policy, advance, finish_rows, policy_moves, workspace
from agents.search_settings import Settings
from kdenv.batched.batch import play_rows
from kdenv.batched.branch import branch, observe_seats
from kdenv.batched.machine import DRAWN, KING, PHASE, PICKING, QUEUE, RANK, SHARE, games
from kdenv.batched.observe import redraw_rows, seen
from kdenv.batched.rng import draw_states
from kdenv.batched.step import Step
from kdenv.batched.tables import Tables

VIRTUAL_LOSS = 1.0  # subtracted from the mover's value of an edge while a simulation through it waits
MAX_DEPTH = 96  # the longest game (2 moves a domino, 48 dominoes)
ROLLOUTS = {p.name.lower(): int(p) for p in (Policy.RANDOM, Policy.GPRD, Policy.FG, Policy.FGT)}  # their codes: the
# compiled policies of Rollout and Others
EVALUATIONS = {"rank": RANK, "r": SHARE}  # the Evaluation codes (kdenv.batched.machine.outcomes)


class Node:
    """A decision: who moves, its legal actions, their priors, visits and summed values per seat, children."""

    __slots__ = ("mover", "actions", "logits", "prior", "visits", "totals", "children", "value", "chance", "drawn",
                 "forced", "plan")  # fmt: skip

    def __init__(self, mover: int, actions: np.ndarray, logits: np.ndarray, value: np.ndarray, chance: bool,
                 drawn: int) -> None:  # fmt: skip
        self.mover, self.actions, self.logits, self.value = mover, actions, logits, value
        self.chance, self.drawn = chance, drawn
        prior = np.exp(logits - logits.max())
        self.prior = prior / prior.sum()
        self.visits = np.zeros(actions.size, np.int64)
        self.totals = np.zeros((actions.size, value.size), np.float64)
        self.children: list = [None] * actions.size  # Node, Leaf, or {line drawn: Node | Leaf} where chance
        self.forced = -1  # the index of the only action searched here (another seat moved by a policy), or -1
        self.plan = -1  # that policy's slot planned with its placement, for its pick


class Leaf:
    """A finished game in the tree: every seat's value of it (the search's ``evaluation``)."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray) -> None:
        self.value = value


@dataclass
class Result:
    """What a search found at the root: its node, the action chosen, the improved policy over its actions."""

    root: Node
    chosen: int  # index into root.actions
    policy: np.ndarray  # the improved policy, by root action
    q: np.ndarray  # the completed Q-values of the root's mover, by root action
    simulations: int
    leaves: int  # the new leaves the simulations made and evaluated: fewer where simulations of one batch met at a
    # leaf still waiting for its value (it is evaluated once and backed up by each)


class Batch(NamedTuple):
    """Leaves waiting for the network: ``views`` observation rows each (the mover's first), and their movers."""

    board: np.ndarray  # (rows, C, F, F)
    features: np.ndarray  # (rows, V)
    mask: np.ndarray  # (rows, A)
    movers: np.ndarray  # (leaves,)


class Evaluate(Protocol):
    """What evaluates leaves: an :class:`agents.evaluator.Evaluator`, or anything with its call and ``views``."""

    views: int  # observation rows per leaf

    def __call__(
        self, board: np.ndarray, features: np.ndarray, mask: np.ndarray, movers: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(logits (L, A), values (L, P)) of L leaves: see :class:`agents.evaluator.Evaluator`."""


class Search:
    """Searches positions of one table; :meth:`steps` yields its leaves in batches, :meth:`run` evaluates them."""

    def __init__(self, tables: Tables, views: int, settings: Settings) -> None:
        """``views``: the observation rows the evaluator reads per leaf (its ``views``)."""
        self.t, self.views, self.settings = tables, views, settings
        rows = settings.batch
        self.g = games(rows, tables)
        self.seen = seen(rows, tables)
        self.board = np.zeros((rows * views, tables.num_planes, tables.cells), np.float32)
        self.features = np.zeros((rows * views, tables.num_features), np.float32)
        self.mask = np.zeros((rows * views, tables.num_actions), np.int8)
        self.work = np.zeros(4 * tables.cells, np.int64)
        self.paths = np.zeros((rows, MAX_DEPTH), np.int64)
        self.offsets = np.arange(views, dtype=np.int64)

    # ----- one search --------------------------------------------------------------------------------
    def run(self, evaluate: Evaluate, root_games, rng: np.random.Generator, simulations: int,
            until: Clock | None = None) -> Result:  # fmt: skip
        """Search game 0 of ``root_games`` (public: its unseen dominoes in any order) with ``simulations``
        simulations, or, with ``until``, until it says the time is up (at least one batch)."""
        return drive([self.steps(root_games, rng, simulations, until)], evaluate)[0]

    def steps(self, root_games, rng: np.random.Generator, simulations: int, until: Clock | None = None
              ) -> Generator[Batch, tuple[np.ndarray, np.ndarray], Result]:  # fmt: skip
        """The search of :meth:`run` as a generator: it yields each batch of leaves and is sent their
        (logits, values); it returns the :class:`Result`. :func:`drive` runs several at once."""
        self.root_games, self.rng = root_games, rng
        self.draws = draw_states(rng, self.settings.batch)  # the rollouts' generators, one per leaf row
        drawn = int(root_games.counters[0, DRAWN])
        self.deck, self.drawn = root_games.deck[0].copy(), drawn
        self.deals: list[np.ndarray] = []
        self.me = int(root_games.draft[0, QUEUE, root_games.counters[0, KING]])  # the searching seat
        self.leaves = 0
        root = (yield from self._evaluate([(None, [], None)]))[0]
        assert isinstance(root, Node), "the search starts from an unfinished game"
        if self.settings.root == "gumbel":
            done = yield from self._root_gumbel(root, simulations, until)
        else:
            done = yield from self._spend(root, simulations, until, lambda: None)
        return self._result(root, done)

    def _root_gumbel(self, root: Node, simulations: int, until):
        """Sequential halving over the root's top actions by (Gumbel noise +) logits; the simulations done."""
        s = self.settings
        size = root.actions.size
        self.gumbel = self.rng.gumbel(size=size) if s.sample else np.zeros(size)
        m = min(s.considered, size, simulations) if not until else min(s.considered, size)
        alive = list(np.argsort(-(self.gumbel + root.logits), kind="stable")[: max(m, 1)])
        phases = max(1, math.ceil(math.log2(len(alive))))
        done = 0
        if until is None:  # mctx's schedule: each phase gives every action alive an equal share, at least one
            while done < simulations:
                each = max(1, simulations // (phases * len(alive)))
                order = (alive * each)[: simulations - done]
                done += yield from self._spend(root, len(order), None, iter(order).__next__)
                if done < simulations:
                    alive = self._halved(root, alive, keep=max(min(2, len(alive)), len(alive) // 2))
        else:  # the phases share the clock equally
            for phase in range(phases):
                cycle = _cycle(alive)
                done += yield from self._spend(root, 0, _phase_clock(until, phases, phase), cycle.__next__,
                                               least=len(alive))  # fmt: skip
                alive = self._halved(root, alive, keep=max(1, len(alive) // 2) if phase < phases - 1 else len(alive))
        self.survivors = alive
        return done

    def _halved(self, root: Node, alive: list, keep: int) -> list:
        """The ``keep`` best of the root actions ``alive`` by their Gumbel score, best first."""
        score = self._gumbel_score(root)
        return sorted(alive, key=lambda a: -score[a])[:keep]

    def _spend(self, root: Node, count: int, until, forced: Callable, least: int = 0):
        """Run ``count`` simulations (or, with ``until``, batches until it is true and at least ``least`` are
        done), the root action of each from ``forced()`` (None: PUCT); the number run."""
        done, batch = 0, self.settings.batch
        while (done < count) if until is None else (done < max(least, 1) or not until()):
            size = batch if until is not None else min(batch, count - done)
            pending = [self._descend(root, forced()) for _ in range(size)]
            yield from self._expand(pending)
            done += size
        return done

    # ----- one simulation ----------------------------------------------------------------------------
    def _descend(self, root: Node, first: int | None) -> tuple:
        """Walk down from the root with this simulation's deck: (where the new node goes, the path of (node,
        index) pairs, the deck), the path already counted as visited with the virtual loss."""
        node, path = root, []
        while True:
            a = first if node is root and first is not None else self._select(node)
            if node is root:
                deck = self._deal(int(root.visits[a]))
            path.append((node, a))
            node.visits[a] += 1
            node.totals[a, node.mover] -= VIRTUAL_LOSS
            child = node.children[a]
            key = None
            if node.chance:
                if child is None:
                    child = node.children[a] = {}
                key = self._line(deck, node.drawn, child)
                child = child.get(key)
            if child is None:
                return (node, a, key), path, deck
            if isinstance(child, Leaf):
                return child, path, deck
            node = child

    def _deal(self, n: int) -> np.ndarray:
        """The deck of a root action's ``n``-th simulation: the root's unseen dominoes in the n-th order drawn this
        search. Every root action's n-th simulation deals the same (common random numbers), so two actions' Q
        differ by their moves more than by their luck."""
        while len(self.deals) <= n:
            deck = self.deck.copy()
            deck[self.drawn :] = self.rng.permutation(deck[self.drawn :])
            self.deals.append(deck)
        return self.deals[n].copy()  # a copy: a chance node with ``lines`` rearranges it

    def _line(self, deck: np.ndarray, drawn: int, lines: dict) -> tuple:
        """The line (sorted) this simulation draws at a chance node that holds ``lines``: its deck's next (held
        at once, its node to come), or, once the node holds ``settings.lines`` of them, one of those at random,
        moved to the deck's front."""
        kings, most = self.t.kings, self.settings.lines
        if not most or len(lines) < most:
            line = tuple(sorted(deck[drawn : drawn + kings].tolist()))
            lines.setdefault(line, None)  # counted before the batch's leaves are made
            return line
        keys = list(lines)
        line = keys[int(self.rng.integers(len(keys)))]
        for k, domino in enumerate(line):
            j = drawn + k + int(np.flatnonzero(deck[drawn + k :] == domino)[0])
            deck[drawn + k], deck[j] = deck[j], deck[drawn + k]
        return line

    def _select(self, node: Node) -> int:
        """PUCT: the action of the best Q (the mover's; unvisited: the node's value) plus exploration."""
        visits = node.visits
        if visits.size == 1:
            return 0
        if node.forced >= 0:
            return node.forced
        q = np.where(visits > 0, node.totals[:, node.mover] / np.maximum(visits, 1), node.value[node.mover])
        u = self.settings.c_puct * node.prior * math.sqrt(visits.sum() + 1) / (1 + visits)
        return int(np.argmax(q + u))

    def _expand(self, pending: list):
        """Step, observe and evaluate the new leaves of ``pending`` simulations, add them to the tree, and back up
        every simulation's value (a leaf reached by several simulations is evaluated once)."""
        made: dict = {}  # (parent, action, line drawn) -> row of the new leaf
        rows: list = []
        for where, path, deck in pending:
            if isinstance(where, tuple) and _spot(where) not in made:
                made[_spot(where)] = len(rows)
                rows.append((where, path, deck))
        nodes = (yield from self._evaluate(rows)) if rows else []
        self.leaves += len(rows)
        for where, path, _ in pending:
            value = where.value if isinstance(where, Leaf) else nodes[made[_spot(where)]].value
            for node, a in path:
                node.totals[a] += value
                node.totals[a, node.mover] += VIRTUAL_LOSS

    def _evaluate(self, rows: list):
        """Make the nodes of new leaves (one per row: (where, path, deck)), attached where they belong."""
        t, g, views = self.t, self.g, self.views
        count = len(rows)
        index = np.arange(count, dtype=np.int64)
        decks = np.stack([deck if deck is not None else self.deck for _, _, deck in rows])
        lengths = np.array([len(path) for _, path, _ in rows], np.int64)
        for k, (_, path, _) in enumerate(rows):
            self.paths[k, : len(path)] = [node.actions[a] for node, a in path]
        over = np.zeros(count, np.bool_)
        finals = np.zeros((count, t.num_players), np.float64)
        how = EVALUATIONS[self.settings.outcome]
        branch(self.root_games, 0, g, t, index, decks, self.paths, lengths, over, finals, how)
        live = np.flatnonzero(~over)
        nodes: list = [Leaf(finals[k]) for k in range(count)]
        if live.size:
            redraw_rows(self.seen, g, live, t)
            movers = g.draft[live, QUEUE, g.counters[live, KING]]
            seats = ((movers[:, None] + self.offsets[None, :]) % t.num_players).ravel()
            m = live.size * views
            observe_seats(self.seen, g, t, np.repeat(live, views), seats, self.board[:m], self.features[:m],
                          self.mask[:m], self.work)  # fmt: skip
            board = self.board[:m].reshape(m, t.num_planes, t.width, t.width)
            c = g.counters[live]  # read before any rollout plays the rows on
            chance = (c[:, KING] == t.kings - 1) & (c[:, PHASE] == PICKING) & (c[:, DRAWN] < t.in_play)
            moved = self._others_moves(rows, live, movers)  # read before any rollout plays the rows on
            logits, values = yield Batch(board, self.features[:m], self.mask[:m], movers)
            legal = [np.flatnonzero(row) for row in self.mask[:m:views]]  # before a rollout observes in its place
            if self.settings.rollout != "none":
                values = yield from self._rolled_out(live, values, how)
            for j, k in enumerate(live.tolist()):
                nodes[k] = node = Node(int(movers[j]), legal[j], logits[j, legal[j]], values[j], bool(chance[j]),
                                       int(c[j, DRAWN]))  # fmt: skip
                if j in moved:
                    action, node.plan = moved[j]
                    node.forced = int(np.searchsorted(legal[j], action))
        for (where, _, _), node in zip(rows, nodes, strict=True):
            if where is not None:
                _attach(where, node)
        return nodes

    def _rolled_out(self, live: np.ndarray, values: np.ndarray, how: int):
        """The network's ``values`` of the leaves of ``live`` mixed with their rollouts' (``mix`` of the rollout's)."""
        if self.settings.rollout == "network":
            rolled = yield from self._network_rollouts(live, how)
        else:
            rolled = np.zeros_like(values)
            policy = ROLLOUTS[self.settings.rollout]
            seats = np.full(self.t.num_players, Policy.FG if policy == Policy.FGT else policy, np.int64)
            seats[self.me] = policy
            finish_rows(self.g, self.t, live, seats, self.draws, rolled, how)
        return (1.0 - self.settings.mix) * values + self.settings.mix * rolled

    def _network_rollouts(self, live: np.ndarray, how: int):
        """Play the games of ``live`` to their ends, the searcher's seat by the network's favourite move (its rows
        batched into one forward pass a move), the others by Full Greedy; each seat's value of each end."""
        t, g, views = self.t, self.g, self.views
        n = g.counters.shape[0]
        seats = np.full((n, t.num_players), int(Policy.FG), np.int64)
        seats[:, self.me] = Policy.LEARNER
        paid = np.zeros((n, t.num_players), np.float64)
        rewards = np.zeros((n, t.num_players), np.float64)
        ended = np.zeros(n, np.bool_)
        plans = np.full(n, -1, np.int64)
        waiting = np.empty(n, np.int64)
        actions = np.zeros(n, np.int64)
        mask = np.zeros((n, t.num_actions), np.int8)
        work = workspace(t.cells)
        rows = live
        while True:
            advance(self.seen, g, t, Step(rows, how, paid, rewards, ended), seats, plans, waiting, work, self.draws)
            rows = rows[waiting[rows] == Policy.LEARNER]
            if not rows.size:
                return rewards[live]
            m = rows.size * views
            observe_seats(self.seen, g, t, np.repeat(rows, views), np.full(m, self.me, np.int64), self.board[:m],
                          self.features[:m], self.mask[:m], self.work)  # fmt: skip
            board = self.board[:m].reshape(m, t.num_planes, t.width, t.width)
            logits, _ = yield Batch(board, self.features[:m], self.mask[:m], np.full(rows.size, self.me))
            actions[rows] = np.argmax(logits, axis=1)
            mask[rows] = self.mask[:m:views]
            if play_rows(self.seen, g, t, actions, Step(rows, how, paid, rewards, ended), mask) >= 0:  # else none moves
                raise ValueError("an illegal move in a rollout: the evaluator's logits must be -inf where mask is 0")

    def _others_moves(self, rows: list, live: np.ndarray, movers: np.ndarray) -> dict[int, tuple[int, int]]:
        """With ``others`` a policy: {j: (its action, its planned slot)} at each live leaf j of another seat, a pick
        following the slot its placement planned in the parent node; empty when the others are searched."""
        if self.settings.others == "search":
            return {}
        others = np.flatnonzero(movers != self.me)
        plans = np.array([_plan(rows[live[j]][0], movers[j]) for j in others.tolist()], np.int64)
        actions = np.empty(others.size, np.int64)
        policy_moves(self.g, self.t, live[others], ROLLOUTS[self.settings.others], plans, self.draws, actions)
        return dict(zip(others.tolist(), zip(actions.tolist(), plans.tolist(), strict=True), strict=True))

    # ----- the root's output -------------------------------------------------------------------------
    def _gumbel_score(self, root: Node) -> np.ndarray:
        return self.gumbel + root.logits + sigma(root, completed_q(root), self.settings)

    def _result(self, root: Node, done: int) -> Result:
        q = completed_q(root)
        if self.settings.root == "gumbel":
            score = self._gumbel_score(root)
            chosen = max(self.survivors, key=lambda a: score[a])
        elif self.settings.sample:
            chosen = int(self.rng.choice(root.actions.size, p=root.visits / root.visits.sum()))
        else:
            chosen = int(np.lexsort((-q, -root.visits))[0])
        return Result(root, int(chosen), improved_policy(root, self.settings), q, done, self.leaves)


def _plan(where: tuple | None, mover: int) -> int:
    """The slot that ``mover``'s placement, just made in the parent node of ``where``, planned for this pick."""
    return where[0].plan if where is not None and where[0].mover == mover else -1


def _attach(where: tuple, node: Node | Leaf) -> None:
    """Put a new node where it goes: its parent's child by the action, and by the line drawn at a chance node."""
    parent, a, key = where
    if key is None:
        parent.children[a] = node
    else:
        parent.children[a][key] = node


def _spot(where: tuple) -> tuple:
    """Where a new leaf goes, as a key: its parent node, the action's index, the line drawn (or None)."""
    parent, a, key = where
    return id(parent), a, key


def drive(
    searches: list[Generator[Batch, tuple[np.ndarray, np.ndarray], Any]],
    evaluate: Callable[..., tuple[np.ndarray, np.ndarray]],  # an Evaluate's call: its views are not read here
) -> list:
    """Run searches (:meth:`Search.steps`) side by side, their leaves evaluated together in one call per round;
    their results, in order."""
    results: list = [None] * len(searches)
    batches = {k: next(search) for k, search in enumerate(searches)}
    while batches:
        keys = list(batches)
        parts = [batches[k] for k in keys]
        logits, values = evaluate(*(np.concatenate([getattr(b, f) for b in parts]) for f in Batch._fields))
        start = 0
        for k, part in zip(keys, parts, strict=True):
            leaves = part.movers.shape[0]
            reply = logits[start : start + leaves], values[start : start + leaves]
            start += leaves
            try:
                batches[k] = searches[k].send(reply)
            except StopIteration as stop:
                results[k] = stop.value
                del batches[k]
    return results


def completed_q(node: Node) -> np.ndarray:
    """The mover's Q of each action, the unvisited completed by the mixed value (mctx's rule: the node's value
    and the prior-weighted mean Q of the visited actions, weighted 1 and their visits)."""
    visits, mover = node.visits, node.mover
    q = node.totals[:, mover] / np.maximum(visits, 1)
    visited = visits > 0
    total = visits.sum()
    mixed = node.value[mover]
    if total:
        weights = node.prior[visited]
        mixed = (mixed + total * (weights * q[visited]).sum() / weights.sum()) / (total + 1)
    return np.where(visited, q, mixed)


def sigma(node: Node, q: np.ndarray, settings: Settings) -> np.ndarray:
    """sigma(q): ``q`` rescaled to [0, 1] over the node's actions, times (c_visit + max visits) * c_scale."""
    low, high = q.min(), q.max()
    scaled = (q - low) / max(high - low, 1e-8)
    return (settings.c_visit + node.visits.max()) * settings.c_scale * scaled


def improved_policy(node: Node, settings: Settings) -> np.ndarray:
    """softmax(logits + sigma(completed Q)): the policy the search improves the prior into."""
    return _softmax(node.logits + sigma(node, completed_q(node), settings))


def tilted_policy(node: Node, temperature: float) -> np.ndarray:
    """softmax(logits + completed Q / temperature): the prior tilted by the Q-values on the evaluation's own scale
    (rank: +1 first ... -1 last).
    Unlike sigma's rescaling to [0, 1], the tilt grows with how far the Q-values differ, so a few rollouts'
    noise between near-equal actions moves it little (a target for learning, as in MPO's and AWR's)."""
    return _softmax(node.logits + completed_q(node) / temperature)


def _softmax(logits: np.ndarray) -> np.ndarray:
    policy = np.exp(logits - logits.max())
    return policy / policy.sum()


class Clock:
    """A thinking budget in seconds of ``now`` (a clock function), from the moment it is made: true once spent."""

    def __init__(self, now: Callable[[], float], seconds: float) -> None:
        self.now, self.start, self.seconds = now, now(), seconds

    def __call__(self) -> bool:
        return self.now() >= self.start + self.seconds

    def share(self, fraction: float) -> Callable[[], bool]:
        """A clock that is spent once ``fraction`` of this one's seconds have passed."""
        end = self.start + self.seconds * fraction
        return lambda: self.now() >= end


def _phase_clock(until: Callable[[], bool], phases: int, phase: int) -> Callable[[], bool]:
    """The clock of one phase of sequential halving: the phases share a :class:`Clock` equally."""
    return until.share((phase + 1) / phases) if isinstance(until, Clock) else until


def _cycle(items: list):
    """An endless round-robin over ``items``."""
    while True:
        yield from items
