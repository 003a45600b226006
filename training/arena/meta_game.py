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
  grows with how much better it does against them (selection intensity ``alpha``), as in OpenSpiel's
  ``python/egt/alpharank.py`` for single-population constant-sum games. It assumes evolutionary dynamics, not
  rational play: the mass is where the population spends its time.
"""

from __future__ import annotations

import warnings

import numpy as np

ALPHA = 100.0  # selection intensity: large, near the infinite-alpha limit that alpha-Rank's authors rank by
POPULATION = 50  # m, the population of the Moran process (OpenSpiel's default)
FLOOR = 1e-12  # the least weight a strategy is given while the entropy is maximized (log 0 has no gradient)


def antisymmetric(share: np.ndarray) -> np.ndarray:
    """``A[a, b] = (share[a, b] - share[b, a]) / 2``: the zero-sum game of the matrix (its diagonal 0), exactly
    antisymmetric however the shares were rounded."""
    return (share - share.T) / 2


def nash_average(share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the maximum-entropy Nash equilibrium, each agent's payoff against it) of the meta-game of ``share``."""
    from scipy.optimize import minimize

    game = antisymmetric(share)
    n = len(game)

    def negative_entropy(p: np.ndarray) -> float:
        return float(np.sum(p * np.log(np.maximum(p, FLOOR))))

    def gradient(p: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(p, FLOOR)) + 1

    constraints = [
        {"type": "eq", "fun": lambda p: np.sum(p) - 1, "jac": lambda p: np.ones(n)},
        {"type": "ineq", "fun": lambda p: -game @ p, "jac": lambda p: -game},  # no agent gains against p
    ]
    found = minimize(negative_entropy, np.full(n, 1 / n), jac=gradient, bounds=[(0, 1)] * n,
                     constraints=constraints, method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})  # fmt: skip
    p = np.clip(found.x, 0, None)
    p /= p.sum()
    return p, game @ p


def alpha_rank(share: np.ndarray, alpha: float = ALPHA, population: int = POPULATION) -> np.ndarray:
    """alpha-Rank's stationary distribution over the agents of ``share`` (single population, constant sum)."""
    n = len(share)
    if n == 1:
        return np.ones(1)
    chain = np.zeros((n, n))
    for resident in range(n):
        for mutant in range(n):
            if mutant != resident:
                u = alpha * population / (population - 1) * (share[mutant, resident] - 0.5)
                chain[resident, mutant] = _fixation(u, population) / (n - 1)
        chain[resident, resident] = 1 - chain[resident].sum()
    # pi (chain - I) = 0 with sum(pi) = 1, by least squares: the chain is irreducible (every fixation is > 0)
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
