"""``uct``: UCT tree search over determinized states (C = 0.6 as in the study).

Each iteration deals a fresh ``view.determinize(rng)`` copy and walks the tree from the root: at a node
the actions are the candidate moves of that copy (Full Greedy's filtered placements unless ``prune=0``,
or the free picks). Untried actions come first (at the root in Full Greedy's order, deeper in random
order): the first one is added and the game finished with the playout policy (in the compiled
kernel). Once all are tried, an action is chosen by UCB1, ``mean + C * sqrt(ln N / n)``, from the
point of view of the player making it. The evaluation of every player is backed up along the path.
Where an action ends a round, the next line drawn differs between copies, so the node reached is
keyed by that line too. The move played is the most visited root action (and, when placing, its
most visited pick).

Spec: ``uct:seconds=1`` (options: policy random|fg|eg|pg, eval wdl|p|r, seconds=S or playouts=N per
decision, clock wall|cpu, c=0.6, prune 0|1).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Annotated

from agents.monte_carlo import SearchOptions, SearchPlayer
from agents.options import CONSTANT
from agents.playout import Playouts
from agents.trace import move_text, top
from kdenv.actions import pick_action, pick_slot
from kdenv.game import OVER, PICK, Game
from kdenv.view import PublicView

EXPLORATION = 0.6


class Edge:
    """An action from a node: who plays it, its visits and summed value, the nodes it led to."""

    __slots__ = ("player", "visits", "total", "nodes")

    def __init__(self, player: int) -> None:
        self.player, self.visits, self.total = player, 0, 0.0
        self.nodes: dict = {}


class Node:
    """A decision point: its visits and the edges of the actions tried from it."""

    __slots__ = ("visits", "edges")

    def __init__(self) -> None:
        self.visits = 0
        self.edges: dict[int, Edge] = {}


@dataclass(frozen=True)
class UCTOptions(SearchOptions):
    """``uct``'s options: those of every search player and UCB1's exploration constant."""

    c: Annotated[float, CONSTANT] = EXPLORATION


class UCTPlayer(SearchPlayer):
    """UCT over determinized states (see the module docstring)."""

    Options = UCTOptions

    def __init__(self, options: UCTOptions = UCTOptions()) -> None:
        super().__init__(options)
        self.c = options.c

    def choose_turn(self, view: PublicView) -> tuple[int, int]:
        root = self._search(view)
        action = self._most_visited(root)
        self._trace = functools.partial(_root_trace, view, root, action)
        if not view.line:
            return action, -1
        # placing does not end the round, so the placement's edge leads to one node: the pick
        child = next(iter(root.edges[action].nodes.values()), None)
        if child is None or not child.edges:
            return action, _top(self.fg.pick_options(view))  # never searched further: Full Greedy's pick
        return action, pick_slot(self._most_visited(child), view.rules.kingdom_size)

    def choose_pick(self, view: PublicView) -> int:
        root = self._search(view)
        action = self._most_visited(root)
        self._trace = functools.partial(_root_trace, view, root, action)
        return pick_slot(action, view.rules.kingdom_size)

    def _most_visited(self, node: Node) -> int:
        return max(node.edges, key=lambda a: (node.edges[a].visits, node.edges[a].total))

    # ----- the search -------------------------------------------------------------------------------
    def _candidates(self, game: Game) -> list[int]:
        if game.phase == PICK:
            size = game.rules.kingdom_size
            return [pick_action(i, size) for i, owner in enumerate(game.claims) if owner < 0]
        return self.placements(game)

    def _search(self, view: PublicView) -> Node:
        root = Node()
        order = self._root_order(view)
        budget = self.budget
        until = budget.now() + budget.seconds if budget.seconds else None
        iterations = 0
        while True:
            self._iterate(view.determinize(self.rng), root, order)
            iterations += 1
            if (until is not None and budget.now() >= until) or (until is None and iterations >= budget.count):
                return root

    def _root_order(self, view: PublicView) -> list[int]:
        """The root's actions, best first by Full Greedy's value (ties in random order): the order in which
        the root tries them, so that a budget smaller than the number of moves still sees the likely ones."""
        size = view.rules.kingdom_size
        if view.phase == PICK:
            scored = [(value, pick_action(slot, size)) for value, slot in self.fg.pick_options(view)]
        else:
            masks = self.candidate_masks(view)
            if masks is None:
                return self.placements(view)
            best: dict[int, int] = {}
            for value, action, _ in self.fg.place_options(view, masks):
                best[action] = max(value, best.get(action, value))
            scored = [(value, action) for action, value in best.items()]
        self.rng.shuffle(scored)
        scored.sort(key=lambda pair: -pair[0])
        return [action for _, action in scored]

    def _iterate(self, game: Game, root: Node, order: list[int]) -> None:
        node, path, rng, c = root, [], self.rng, self.c
        while game.phase != OVER:
            actions = order if node is root else self._candidates(game)
            edges = node.edges
            untried = [a for a in actions if a not in edges]
            player = game.current_player
            if untried:
                action = untried[0] if node is root else untried[rng.randrange(len(untried))]
                edge = edges[action] = Edge(player)
                path.append((node, edge))
                game.step(action)
                break
            log_n = math.log(node.visits)
            action = max(
                actions,
                key=lambda a: edges[a].total / edges[a].visits + c * math.sqrt(log_n / edges[a].visits),
            )
            edge = edges[action]
            path.append((node, edge))
            before = game.round
            game.step(action)
            key = tuple(game.line) if game.round != before else None
            child = edge.nodes.get(key)
            if child is None:
                child = edge.nodes[key] = Node()
            node = child
        values = Playouts(game, self.policy, self.seat, self.evaluation).values(rng)
        for node, edge in path:
            node.visits += 1
            edge.visits += 1
            edge.total += values[edge.player]


def _root_trace(view: PublicView, root: Node, chosen: int) -> dict:
    """The trace of a decision: the root's most visited actions with their mean values and visits."""
    candidates = [
        {"action": action, "move": move_text(view, action), "value": edge.total / edge.visits, "visits": edge.visits}
        | ({"chosen": True} if action == chosen else {})
        for action, edge in root.edges.items()
    ]
    return {"kind": "search", "candidates": top(candidates, "visits", "value")}


def _top(options: list[tuple[int, int]]) -> int:
    return max(options)[1]
