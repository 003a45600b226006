"""Rankings from the whole head-to-head matrix (the *meta-game* whose strategies are the agents), for when strength
is not one line: a cycle (A beats B, B beats C, C beats A) that a rating averages away, or a pool that copies of
one agent would skew.

The matrix is the tournament's pairwise one: ``share[a][b]``, the share of their meetings in which ``a`` placed
ahead of ``b`` (ties a half), so ``share[a][b] + share[b][a] = 1``, a symmetric constant-sum game.

- **Nash averaging** (Balduzzi et al., *Re-evaluating Evaluation*, NeurIPS 2018): the maximum-entropy Nash
  equilibrium ``p`` of the zero-sum game ``A = share - 1/2``, and each agent's payoff against it, ``(A p)[a]``: 0 for
  the agents in the equilibrium's support, below for the rest. It assumes only the matrix; a copy of an agent
  changes no one's Nash average, since the equilibrium splits its weight between the copies.
- **alpha-Rank** (Omidshafiei et al., *Scientific Reports* 2019): the stationary distribution of a Markov chain in which
  a population of ``m`` agents that all play one strategy is invaded by a mutant that fixes with a probability that
  grows with how much better it does against them (selection intensity ``alpha``). This is OpenSpiel's
  ``python/egt/alpharank.py`` with its defaults for a single population (``alpharank.compute(payoff_tables,
  m=50, alpha=100)``, the local selection model: the mutant's advantage is ``share[mutant][resident] -
  share[resident][mutant]``). It assumes evolutionary dynamics, not rational play: the mass is where the population
  spends its time. Unlike the Nash average it moves with copies: an agent entered twice draws more mass.

Both are read from the matrix's point estimates, without confidence intervals: with few meetings a pair, they move
with the noise of the shares.
"""

from __future__ import annotations

import warnings

import numpy as np

ALPHA = 100.0  # selection intensity: large, near the infinite-alpha limit that alpha-Rank's authors rank by
POPULATION = 50  # m, the population of the Moran process (OpenSpiel's default)
FLOOR = 1e-12  # the least weight a strategy is given while the entropy is maximized (log 0 has no gradient)
TOLERANCE = 1e-6  # the most an agent may gain against a mixture taken for an equilibrium


def antisymmetric(share: np.ndarray) -> np.ndarray:
    """``A[a, b] = (share[a, b] - share[b, a]) / 2``: the zero-sum game of the matrix (its diagonal 0), exactly
    antisymmetric however the shares were rounded."""
    return (share - share.T) / 2


def nash_average(share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the maximum-entropy Nash equilibrium, each agent's payoff against it) of the meta-game of ``share``. The
    entropy is maximized from an equilibrium found by linear programming, which stays the answer (an equilibrium,
    perhaps not the most even one) should the maximization not reach another."""
    from scipy.optimize import minimize

    game = antisymmetric(share)
    n = len(game)
    start = _equilibrium(game)

    def negative_entropy(p: np.ndarray) -> float:
        return float(np.sum(p * np.log(np.maximum(p, FLOOR))))

    def gradient(p: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(p, FLOOR)) + 1

    constraints = [
        {"type": "eq", "fun": lambda p: np.sum(p) - 1, "jac": lambda p: np.ones(n)},
        {"type": "ineq", "fun": lambda p: -game @ p, "jac": lambda p: -game},  # no agent gains against p
    ]
    found = minimize(negative_entropy, start, jac=gradient, bounds=[(0, 1)] * n,
                     constraints=constraints, method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})  # fmt: skip
    p = np.clip(found.x, 0, None)
    p /= p.sum()
    if np.max(game @ p) > TOLERANCE:
        p = start
    return p, game @ p


def _equilibrium(game: np.ndarray) -> np.ndarray:
    """A Nash equilibrium of the symmetric zero-sum ``game`` (its value is 0): a mixture against which no agent
    gains, by linear programming."""
    from scipy.optimize import linprog

    n = len(game)
    found = linprog(np.zeros(n), A_ub=game, b_ub=np.zeros(n), A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0, None)] * n)
    p = np.clip(found.x, 0, None)
    return p / p.sum()


def alpha_rank(share: np.ndarray, alpha: float = ALPHA, population: int = POPULATION) -> np.ndarray:
    """alpha-Rank's stationary distribution over the agents of ``share`` (single population, constant sum)."""
    n = len(share)
    if n == 1:
        return np.ones(1)
    chain = np.zeros((n, n))
    for resident in range(n):
        for mutant in range(n):
            if mutant != resident:
                u = alpha * (share[mutant, resident] - share[resident, mutant])
                chain[resident, mutant] = _fixation(u, population) / (n - 1)
        chain[resident, resident] = 1 - chain[resident].sum()
    # pi (chain - I) = 0 with sum(pi) = 1, by least squares: one solution, as a tournament's chain has one closed
    # class (a fixation may underflow to 0, but of each pair one of the two fixations is at least 1/m)
    system = np.vstack([(chain - np.eye(n)).T, np.ones(n)])
    pi = np.linalg.lstsq(system, np.r_[np.zeros(n), 1.0], rcond=None)[0]
    pi = np.clip(pi, 0, None)
    return pi / pi.sum()


def _fixation(u: float, population: int) -> float:
    """The probability that one mutant whose selective advantage is ``u`` takes over the population."""
    if abs(u) < 1e-12:
        return 1 / population
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(np.expm1(-u) / np.expm1(-population * u))
