"""Exposure-fair stochastic rankings by linear programming (Singh & Joachims, KDD 2018).

A stochastic ranking is a doubly stochastic matrix P (rows: candidates, columns: positions),
P_ij = probability that candidate i is shown at position j. As Fair-PGRank's ``fair_rank`` (the
authors' code, ashudeep/Fair-PGRank @5602aa7, ``baselines.py``) the LP is::

    max_P  Σ_ij u_i v_j P_ij − λ Σ_ab ξ_ab                                        (S&J eq. 6, objective)
    s.t.   P 1 = 1,  1ᵀ P = 1ᵀ,  0 ≤ P ≤ 1                                        (doubly stochastic)
           Σ_i (|G_a|/R_a [i ∈ a] − |G_b|/R_b [i ∈ b]) Σ_j v_j P_ij ≤ ξ_ab,  ξ ≥ 0  (disparate treatment)

with u the scores (relevance, ≥ 0), v_j = 1/log2(1 + j) the position weights, R_g = max(Σ_{i∈g} u_i,
0.01) and one soft constraint for each ordered pair of groups (a, b) with R_a/|G_a| ≥ R_b/|G_b|
(exposure proportional to merit: S&J eq. 9 with the slack of their Sec. 4 "disparate treatment").
Differences with ``fair_rank``: any number of groups (``fair_rank`` takes two), positions after k get
no exposure (v_j = 0: a top-k list; with k = n this is ``fair_rank``'s LP), and the solver is scipy's
HiGHS (``fair_rank`` calls ``method="interior-point"``, removed from scipy in 1.11).

The optimal P is turned into a lottery of rankings by a Birkhoff–von Neumann decomposition
(S&J Sec. 3.2): P = Σ_m θ_m Π_m, permutation matrices Π_m, θ ≥ 0, Σ θ = 1.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment, linprog

from ocef.errors import DataError
from ocef.mitigate.lottery import Lottery, check_candidates, lottery_from_rankings
from ocef.validation import Integer, Real, Rng, validate_params

__all__ = ["lp_rerank", "fair_ranking_lp", "birkhoff_von_neumann", "position_bias"]


def position_bias(n: int, k: int) -> np.ndarray:
    """v_j = 1/log2(1 + j) for positions j = 1..k, 0 after (Fair-PGRank's ``vvector``, cut at k).

    Parameters
    ----------
    n : int
        Number of positions.
    k : int
        Positions that get exposure.

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> position_bias(4, 3).round(4)
    array([1.    , 0.6309, 0.5   , 0.    ])
    """
    v = 1.0 / np.log2(2 + np.arange(n))
    v[k:] = 0.0
    return v


def fair_ranking_lp(relevance, groups, k: int, lam: float = 1.0) -> tuple[np.ndarray, float]:
    """Solve the LP above (HiGHS): the optimal doubly stochastic matrix and the objective value.

    Parameters
    ----------
    relevance : array-like of float, shape (n,)
        u_i ≥ 0.
    groups : array-like of int, shape (n,)
        Group codes.
    k : int
        Positions with exposure (1..k).
    lam : float, default 1.0
        λ, the price of a unit of violation of each fairness constraint.

    Returns
    -------
    (numpy.ndarray, float)
        P (n, n), rows: candidates, columns: positions; and the minimised objective
        −Σ u v P + λ Σ ξ (Fair-PGRank's ``res.fun``).

    Raises
    ------
    ocef.errors.DataError
        When HiGHS does not report an optimal solution.

    Examples
    --------
    >>> P, obj = fair_ranking_lp([0.9, 0.8, 0.5, 0.3, 0.1], [0, 0, 1, 1, 1], 5)
    >>> np.allclose(P, np.eye(5)), round(obj, 6)
    (True, -1.822632)
    """
    u = np.asarray(relevance, dtype=float)
    g = np.asarray(groups)
    n = u.size
    v = position_bias(n, k)
    codes = np.unique(g)
    members = [g == c for c in codes]
    sizes = np.array([m.sum() for m in members], dtype=float)
    merit = np.array([max(u[m].sum(), 0.01) for m in members])
    pairs = [(a, b) for a in range(codes.size) for b in range(codes.size) if a != b]
    n_slack = len(pairs)
    c = np.concatenate([-(u[:, None] * v[None, :]).ravel(), np.full(n_slack, lam)])
    a_eq = np.zeros((2 * n, n * n + n_slack))
    for i in range(n):
        a_eq[i, i * n:(i + 1) * n] = 1.0                 # row sums
        a_eq[n + i, i:n * n:n] = 1.0                     # column sums
    a_ub = np.zeros((max(n_slack, 1), n * n + n_slack))
    for row, (a, b) in enumerate(pairs):
        if merit[a] / sizes[a] >= merit[b] / sizes[b]:
            w = sizes[a] / merit[a] * members[a] - sizes[b] / merit[b] * members[b]
            a_ub[row, :n * n] = (w[:, None] * v[None, :]).ravel()
            a_ub[row, n * n + row] = -1.0
    bounds = [(0, 1)] * (n * n) + [(0, None)] * n_slack
    res = linprog(c, A_ub=a_ub if n_slack else None, b_ub=np.zeros(n_slack) if n_slack else None,
                  A_eq=a_eq, b_eq=np.ones(2 * n), bounds=bounds, method="highs")
    if res.status != 0:
        raise DataError(f"the fair ranking LP has no optimal solution: {res.message}")
    return res.x[:n * n].reshape(n, n), float(res.fun)


def birkhoff_von_neumann(matrix, *, tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """Decompose a doubly stochastic matrix into a convex combination of permutation matrices.

    Repeatedly: a perfect matching inside the support of the residual (entries > ``tol``;
    scipy's ``linear_sum_assignment`` on −log of the entries, so the matching's smallest entry
    tends to be large), its smallest residual entry as the coefficient, subtracted; until the
    residual is below ``tol`` everywhere (at most n² − 2n + 2 steps, Birkhoff). The coefficients
    are then divided by their sum (which differs from 1 by the LP's feasibility tolerance).

    Parameters
    ----------
    matrix : array-like, shape (n, n)
        Doubly stochastic (rows and columns summing to 1, within 1e-6).
    tol : float, default 1e-12
        Entries at or below it count as 0.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``coefficients`` (m,) summing to 1 and ``permutations`` (m, n): row i of permutation m is
        the column (position) of row (candidate) i.

    Raises
    ------
    ocef.errors.DataError
        A matrix that is not doubly stochastic (no perfect matching in the support).

    Examples
    --------
    >>> theta, perms = birkhoff_von_neumann([[0.5, 0.5], [0.5, 0.5]])
    >>> theta, perms
    (array([0.5, 0.5]), array([[0, 1],
           [1, 0]]))
    """
    p = np.array(matrix, dtype=float)
    n = p.shape[0]
    if p.ndim != 2 or p.shape != (n, n) or not (np.allclose(p.sum(0), 1, atol=1e-6) and np.allclose(p.sum(1), 1, atol=1e-6)):
        raise DataError("matrix must be square and doubly stochastic (rows and columns summing to 1)")
    residual = np.where(p > tol, p, 0.0)
    coefficients, permutations = [], []
    rows = np.arange(n)
    for _ in range(n * n - 2 * n + 2 + n):
        support = residual > tol
        if not support.any():
            break
        cost = np.where(support, -np.log(np.where(support, residual, 1.0)), 1e9)
        _, cols = linear_sum_assignment(cost)
        if not support[rows, cols].all():
            if residual.sum() <= 1e-9:                  # leftovers of the LP's tolerance
                break
            raise DataError("no perfect matching in the support: the matrix is not doubly stochastic")
        theta = residual[rows, cols].min()
        coefficients.append(theta)
        permutations.append(cols.copy())
        residual[rows, cols] -= theta
        residual[residual <= tol] = 0.0
    theta = np.asarray(coefficients)
    return theta / theta.sum(), np.asarray(permutations, dtype=np.int64)


@validate_params(k=Integer(1), rng=Rng(), lam=Real(0, np.inf, closed="left"))
def lp_rerank(scores, groups, k, *, rng=None, lam=1.0) -> Lottery:
    """The Singh & Joachims exposure-fair lottery of rankings of one user's candidates.

    Solves :func:`fair_ranking_lp` on the candidates (scores as relevance), decomposes P with
    :func:`birkhoff_von_neumann` and keeps each ranking's top k (rankings with the same top k are
    merged, their probabilities added).

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        Relevance, ≥ 0.
    groups : array-like of int, shape (n_candidates,)
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (the lottery is returned, not drawn); part of the common interface.
    lam : float, default 1.0
        λ ≥ 0, the price of violating the disparate-treatment constraint (large: nearly hard).

    Returns
    -------
    Lottery
        The rankings and their probabilities.

    Raises
    ------
    ocef.errors.DataError
        Negative scores.

    Examples
    --------
    >>> lot = lp_rerank([0.9, 0.8, 0.5, 0.3, 0.1], [0, 0, 1, 1, 1], 3, lam=100.0)
    >>> float(lot.probabilities.sum())
    1.0
    """
    s, g, k = check_candidates(scores, groups, k)
    if s.min() < 0:
        raise DataError(f"scores must be >= 0 for the exposure LP (relevance), got {s.min()!r}")
    P, _ = fair_ranking_lp(s, g, k, lam)
    theta, perms = birkhoff_von_neumann(P)
    rankings = np.argsort(perms, axis=1)[:, :k]       # candidate at each position
    return lottery_from_rankings(rankings, theta)

