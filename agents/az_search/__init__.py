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
* **Modules**, split as mctx splits its Gumbel MuZero: :mod:`~agents.az_search.tree` (the nodes and the records of
  a walk), :mod:`~agents.az_search.selection` (PUCT, chance lines), :mod:`~agents.az_search.qtransforms` (completed
  Q, sigma, the improved policy), :mod:`~agents.az_search.halving` (the Gumbel root), :mod:`~agents.az_search.batching`
  (leaves to the network), :mod:`~agents.az_search.clock` and :mod:`~agents.az_search.search` (the driver).
"""

from agents.az_search.batching import Batch, Evaluate, drive
from agents.az_search.clock import Clock
from agents.az_search.qtransforms import completed_q, improved_policy, tilted_policy
from agents.az_search.search import ROLLOUTS, Result, Search
from agents.az_search.tree import MAX_DEPTH, Leaf, Node

__all__ = ["MAX_DEPTH", "ROLLOUTS", "Batch", "Clock", "Evaluate", "Leaf", "Node", "Result", "Search", "completed_q",
           "drive", "improved_policy", "tilted_policy"]  # fmt: skip
