"""The search's driver: simulations walk down the tree, their leaves are made, evaluated in batches (kept apart by a
virtual loss) and backed up; the root's result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

import numpy as np

from agents.az_search.batching import Batch, Evaluate, Steps, drive
from agents.az_search.clock import Clock
from agents.az_search.halving import sequential_halving
from agents.az_search.qtransforms import completed_q, improved_policy
from agents.az_search.selection import by_visits, chance_line, puct
from agents.az_search.tree import MAX_DEPTH, Descent, Edge, Leaf, Node, Spot
from agents.batched.policy import Policy, advance, finish_rows, policy_moves
from agents.batched.workspace import workspace
from agents.search_settings import Settings
from agents.specs import COMPILED, compiled_policy
from kdenv.batched.batch import play_rows
from kdenv.batched.branch import branch, observe_seats
from kdenv.batched.machine import DRAWN, KING, PHASE, PICKING, QUEUE, RANK, SHARE, Games, games
from kdenv.batched.observe import redraw_rows, seen
from kdenv.batched.rng import draw_states
from kdenv.batched.step import Step
from kdenv.batched.tables import Tables

VIRTUAL_LOSS = 1.0  # subtracted from the mover's value of an edge while a simulation through it waits
ROLLOUTS = {name: int(compiled_policy(name)) for name in COMPILED}  # their codes: the compiled policies of Rollout
# and Others
EVALUATIONS = {"rank": RANK, "r": SHARE}  # the Evaluation codes (kdenv.batched.machine.outcomes)


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


@dataclass
class Run:
    """One search's own state, made when it starts: its root, generators, the decks dealt, the leaves made."""

    root_games: Games  # game 0 is the root (public: its unseen dominoes in any order)
    rng: np.random.Generator
    draws: np.ndarray  # the rollouts' generators, one per leaf row
    deck: np.ndarray  # the root's deck
    drawn: int  # the dominoes drawn at the root
    me: int  # the searching seat
    deals: list[np.ndarray] = field(default_factory=list)  # the n-th deck dealt to each root action
    leaves: int = 0

    def deal(self, n: int) -> np.ndarray:
        """The deck of a root action's ``n``-th simulation: the root's unseen dominoes in the n-th order drawn this
        search. Every root action's n-th simulation deals the same (common random numbers), so two actions' Q
        differ by their moves more than by their luck."""
        while len(self.deals) <= n:
            deck = self.deck.copy()
            deck[self.drawn :] = self.rng.permutation(deck[self.drawn :])
            self.deals.append(deck)
        return self.deals[n].copy()  # a copy: a chance node with ``lines`` rearranges it


class Move(NamedTuple):
    """Another seat's move at a leaf, by its policy (``others``): the action, and the slot it planned for its pick."""

    action: int
    plan: int


class Search:
    """Searches positions of one table; :meth:`steps` yields its leaves in batches, :meth:`run` evaluates them. Its
    buffers serve every search; a search's own state is its :class:`Run`."""

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
    def run(self, evaluate: Evaluate, root_games: Games, rng: np.random.Generator, simulations: int,
            until: Clock | None = None) -> Result:  # fmt: skip
        """Search game 0 of ``root_games`` (public: its unseen dominoes in any order) with ``simulations``
        simulations, or, with ``until``, until it says the time is up (at least one batch)."""
        return drive([self.steps(root_games, rng, simulations, until)], evaluate)[0]

    def steps(self, root_games: Games, rng: np.random.Generator, simulations: int, until: Clock | None = None
              ) -> Steps[Result]:  # fmt: skip
        """The search of :meth:`run` as a generator: it yields each batch of leaves and is sent their
        (logits, values); it returns the :class:`Result`. :func:`drive` runs several at once."""
        s, counters = self.settings, root_games.counters[0]
        run = Run(root_games, rng, draw_states(rng, s.batch), root_games.deck[0].copy(), int(counters[DRAWN]),
                  int(root_games.draft[0, QUEUE, counters[KING]]))  # fmt: skip
        root = (yield from self._evaluate(run, [Descent(None, [], run.deck)]))[0]
        assert isinstance(root, Node), "the search starts from an unfinished game"
        if s.root == "gumbel":
            spend = partial(self._spend, run, root)
            done, chosen = yield from sequential_halving(root, simulations, until, s, rng, spend)
        else:
            done = yield from self._spend(run, root, simulations, until, lambda: None)
            chosen = by_visits(root, s.sample, rng)
        return Result(root, chosen, improved_policy(root, s), completed_q(root), done, run.leaves)

    def _spend(self, run: Run, root: Node, count: int, until: Callable[[], bool] | None,
               forced: Callable[[], int | None], least: int = 0) -> Steps[int]:  # fmt: skip
        """Run ``count`` simulations (or, with ``until``, batches until it is true and at least ``least`` are
        done), the root action of each from ``forced()`` (None: PUCT); the number run."""
        done, batch = 0, self.settings.batch
        while (done < count) if until is None else (done < max(least, 1) or not until()):
            size = batch if until is not None else min(batch, count - done)
            pending = [self._descend(run, root, forced()) for _ in range(size)]
            yield from self._expand(run, pending)
            done += size
        return done

    # ----- one simulation ----------------------------------------------------------------------------
    def _descend(self, run: Run, root: Node, first: int | None) -> Descent:
        """Walk down from the root with this simulation's deck (the root action ``first``, or None: PUCT's), its
        path counted as visited with the virtual loss."""
        node, path = root, []
        while True:
            a = first if node is root and first is not None else puct(node, self.settings.c_puct)
            if node is root:
                deck = run.deal(int(root.visits[a]))
            path.append(Edge(node, a))
            node.visits[a] += 1
            node.totals[a, node.mover] -= VIRTUAL_LOSS
            child = node.children[a]
            line = None
            if node.chance:
                if child is None:
                    child = node.children[a] = {}
                line = chance_line(deck, node.drawn, child, self.t.kings, self.settings.lines, run.rng)
                child = child.get(line)
            if child is None:
                return Descent(Spot(node, a, line), path, deck)
            if isinstance(child, Leaf):
                return Descent(child, path, deck)
            node = child

    def _expand(self, run: Run, pending: list[Descent]) -> Steps[None]:
        """Step, observe and evaluate the new leaves of ``pending`` simulations, add them to the tree, and back up
        every simulation's value (a leaf reached by several simulations is evaluated once)."""
        made: dict = {}  # the row of the new leaf at each Spot
        rows: list[Descent] = []
        for descent in pending:
            if isinstance(descent.end, Spot) and descent.end not in made:
                made[descent.end] = len(rows)
                rows.append(descent)
        nodes = (yield from self._evaluate(run, rows)) if rows else []
        run.leaves += len(rows)
        for end, path, _ in pending:
            value = end.value if isinstance(end, Leaf) else nodes[made[end]].value
            for node, a in path:
                node.totals[a] += value
                node.totals[a, node.mover] += VIRTUAL_LOSS

    def _evaluate(self, run: Run, rows: list[Descent]) -> Steps[list[Node | Leaf]]:
        """Make the nodes of new leaves (one per simulation of ``rows``), attached where they belong."""
        t, g, views = self.t, self.g, self.views
        count = len(rows)
        index = np.arange(count, dtype=np.int64)
        decks = np.stack([row.deck for row in rows])
        lengths = np.array([len(row.path) for row in rows], np.int64)
        for k, row in enumerate(rows):
            self.paths[k, : len(row.path)] = [node.actions[a] for node, a in row.path]
        over = np.zeros(count, np.bool_)
        finals = np.zeros((count, t.num_players), np.float64)
        how = EVALUATIONS[self.settings.outcome]
        branch(run.root_games, 0, g, t, index, decks, self.paths, lengths, over, finals, how)
        live = np.flatnonzero(~over)
        nodes: list[Node | Leaf] = [Leaf(finals[k]) for k in range(count)]
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
            moved = self._others_moves(run, rows, live, movers)  # read before any rollout plays the rows on
            logits, values = yield Batch(board, self.features[:m], self.mask[:m], movers)
            legal = [np.flatnonzero(row) for row in self.mask[:m:views]]  # before a rollout observes in its place
            if self.settings.rollout != "none":
                values = yield from self._rolled_out(run, live, values, how)
            for j, k in enumerate(live.tolist()):
                nodes[k] = node = Node(int(movers[j]), legal[j], logits[j, legal[j]], values[j], bool(chance[j]),
                                       int(c[j, DRAWN]))  # fmt: skip
                if j in moved:
                    node.plan = moved[j].plan
                    node.forced = int(np.searchsorted(legal[j], moved[j].action))
        for row, made in zip(rows, nodes, strict=True):
            if isinstance(row.end, Spot):
                row.end.attach(made)
        return nodes

    def _rolled_out(self, run: Run, live: np.ndarray, values: np.ndarray, how: int) -> Steps[np.ndarray]:
        """The network's ``values`` of the leaves of ``live`` mixed with their rollouts' (``mix`` of the rollout's)."""
        if self.settings.rollout == "network":
            rolled = yield from self._network_rollouts(run, live, how)
        else:
            rolled = np.zeros_like(values)
            policy = ROLLOUTS[self.settings.rollout]
            seats = np.full(self.t.num_players, Policy.FG if policy == Policy.FGT else policy, np.int64)
            seats[run.me] = policy
            finish_rows(self.g, self.t, live, seats, run.draws, rolled, how)
        return (1.0 - self.settings.mix) * values + self.settings.mix * rolled

    def _network_rollouts(self, run: Run, live: np.ndarray, how: int) -> Steps[np.ndarray]:
        """Play the games of ``live`` to their ends, the searcher's seat by the network's favourite move (its rows
        batched into one forward pass a move), the others by Full Greedy; each seat's value of each end."""
        t, g, views, me = self.t, self.g, self.views, run.me
        n = g.counters.shape[0]
        seats = np.full((n, t.num_players), int(Policy.FG), np.int64)
        seats[:, me] = Policy.LEARNER
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
            advance(self.seen, g, t, Step(rows, how, paid, rewards, ended), seats, plans, waiting, work, run.draws)
            rows = rows[waiting[rows] == Policy.LEARNER]
            if not rows.size:
                return rewards[live]
            m = rows.size * views
            observe_seats(self.seen, g, t, np.repeat(rows, views), np.full(m, me, np.int64), self.board[:m],
                          self.features[:m], self.mask[:m], self.work)  # fmt: skip
            board = self.board[:m].reshape(m, t.num_planes, t.width, t.width)
            logits, _ = yield Batch(board, self.features[:m], self.mask[:m], np.full(rows.size, me))
            actions[rows] = np.argmax(logits, axis=1)
            mask[rows] = self.mask[:m:views]
            if play_rows(self.seen, g, t, actions, Step(rows, how, paid, rewards, ended), mask) >= 0:  # else none moves
                raise ValueError("an illegal move in a rollout: the evaluator's logits must be -inf where mask is 0")

    def _others_moves(self, run: Run, rows: list[Descent], live: np.ndarray, movers: np.ndarray) -> dict[int, Move]:
        """With ``others`` a policy: its :class:`Move` at each live leaf j of another seat, a pick following the slot
        its placement planned in the parent node; empty when the others are searched."""
        if self.settings.others == "search":
            return {}
        others = np.flatnonzero(movers != run.me)
        plans = np.array([rows[live[j]].plan(movers[j]) for j in others.tolist()], np.int64)
        actions = np.empty(others.size, np.int64)
        policy_moves(self.g, self.t, live[others], ROLLOUTS[self.settings.others], plans, run.draws, actions)
        return {j: Move(action, plan) for j, action, plan in zip(others.tolist(), actions.tolist(), plans.tolist(),
                                                                   strict=True)}  # fmt: skip
