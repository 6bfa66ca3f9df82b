"""FA*IR: fair top-k ranking with a ranked group fairness test (Zehlike et al., CIKM 2017).

Equal, on identical inputs, to ``fairsearchcore`` 1.0.4 (fair-search/fairsearch-fair-python @a92a3d6,
the authors' code), which differs from the paper's pseudo-code in the α adjustment; the tests
compare both on a grid of (k, p, α) and on random instances (``tests/ocef/mitigate/test_fair.py``).

- **m-table** (the ranked group fairness table, paper Sec. 3): the minimum number of protected
  candidates in the top ``i``,

      m_{α,p}(i) = F^{-1}(α; i, p),   i = 1..k                                         (m-table)

  the α-quantile of Binomial(i, p) (scipy's ``binom.ppf``: the smallest m with CDF(m) ≥ α), floored
  at 0.
- **fail probability** (paper Sec. 4, "model adjustment"): the probability that a ranking drawn
  with i.i.d. Bernoulli(p) protected labels fails the m-table at some prefix. As fairsearchcore,
  the m-table's increments at positions 1..k−1 cut it into blocks b_1..b_J; the probability of
  success is the recursion over blocks

      S_j(c) = Σ_{x = max(0, j − c)}^{b_j} Binom(x; b_j, p) · S_{j+1}(c + x),   S_{J+1} ≡ 1   (recursion)

  (c: protected candidates placed so far) and the fail probability is 1 − S_1(0) (0 when S is 0).
- **adjusted α** (``adjust_alpha``): the bisection of fairsearchcore on a ∈ [0, α] for the m-table
  whose fail probability is closest to α (its exact stopping rules are in :func:`adjusted_mtable`).
- **re-ranking** (paper Algorithm FA*IR): two queues (protected / other) in score order; at
  position i the protected head is taken when fewer than m(i) protected are placed, else the better
  head (ties go to the protected candidate).

m-tables are cached (:func:`functools.lru_cache`): every user sharing (k, p, α) reuses one.
"""
from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange
from scipy.stats import binom

from ocef.errors import ParameterError
from ocef.mitigate._select import top_m
from ocef.mitigate.lottery import Lottery, check_candidate_matrix, check_candidates, deterministic
from ocef.validation import Integer, Real, Rng, validate_params

__all__ = ["fair_rerank", "fair_batch", "mtable", "fail_probability", "adjusted_mtable", "is_fair"]

#: the references' ranges: p in [0, 1], α in [0.001, 0.5] (fairsearchcore raises outside them and
#: warns outside its tested ranges p in [0.02, 0.98], α in [0.01, 0.15], k in [10, 400]).
P = Real(0, 1)
ALPHA = Real(0.001, 0.5)
EPS = 1e-16           # fairsearchcore's fail_prob.EPS: the bisection stops when the α bracket is this narrow


@functools.lru_cache(maxsize=4096)
def _mtable(k: int, p: float, alpha: float) -> tuple[int, ...]:
    m = binom.ppf(alpha, np.arange(1, k + 1), p)
    return tuple(int(v) for v in np.where(m < 0, 0, m))


@validate_params(k=Integer(1), p=P, alpha=Real(0, 1))
def mtable(k, p, alpha) -> np.ndarray:
    """The unadjusted m-table: m(i) = F^{-1}(α; i, p) for i = 1..k, floored at 0 (eq. m-table).

    Parameters
    ----------
    k : int
        Ranking length.
    p : float
        Minimum share of protected candidates, in [0, 1].
    alpha : float
        Significance level of each prefix test, in [0, 1].

    Returns
    -------
    numpy.ndarray of int, shape (k,)
        ``m[i-1]``: the minimum number of protected candidates in the top i.

    Examples
    --------
    >>> mtable(10, 0.5, 0.1)
    array([0, 0, 0, 1, 1, 1, 2, 2, 3, 3])
    """
    return np.array(_mtable(k, p, alpha), dtype=np.int64)


def _blocks(m: tuple[int, ...]) -> list[int]:
    """Block sizes of an m-table from positions 1..k−1 (fairsearchcore's ``compute_aux_mtable``)."""
    out, last_m, last_pos = [], 0, 0
    for pos in range(1, len(m)):
        if m[pos - 1] == last_m + 1:
            last_m += 1
            out.append(pos - last_pos)
            last_pos = pos
        elif m[pos - 1] != last_m:
            raise ParameterError(f"the m-table increases by more than 1 at position {pos}: inconsistent m-table")
    return out


@functools.lru_cache(maxsize=4096)
def _fail_probability(m: tuple[int, ...], p: float) -> float:
    blocks = _blocks(m)
    n = sum(blocks)
    suffix = np.ones(n + 1)                     # S_{J+1}(c) = 1 for every count c = 0..n
    for j in range(len(blocks), 0, -1):         # blocks are numbered 1..J
        b = blocks[j - 1]
        pmf = binom.pmf(np.arange(b + 1), b, p)
        c = np.arange(n + 1)
        acc = np.zeros(n + 1)
        for x in range(b + 1):                  # x ascending, as the reference's sum
            ok = (x >= j - c) & (c + x <= n)
            acc = acc + np.where(ok, pmf[x] * suffix[np.minimum(c + x, n)], 0.0)
        suffix = acc
    success = suffix[0] if blocks else 1.0
    return 0.0 if success == 0 else float(1 - success)


def fail_probability(m, p) -> float:
    """Probability that a Bernoulli(p) ranking fails the m-table at some prefix (eq. recursion).

    As fairsearchcore's ``RecursiveNumericFailProbabilityCalculator.calculate_fail_probability``:
    blocks from positions 1..k−1, success by the recursion over blocks, fail = 1 − success (0 when
    the success probability is 0).

    Parameters
    ----------
    m : array-like of int, shape (k,)
        An m-table (non-decreasing, steps of at most 1).
    p : float
        The protected share of the null model, in [0, 1].

    Returns
    -------
    float

    Raises
    ------
    ocef.errors.ParameterError
        An m-table with a step larger than 1, or ``p`` outside [0, 1].

    Examples
    --------
    >>> round(fail_probability([0, 0, 0, 1, 1, 1, 2, 2, 3, 3], 0.5), 12)
    0.12890625
    """
    p = P.check("p", p)
    return _fail_probability(tuple(int(v) for v in np.asarray(m).ravel()), p)


@functools.lru_cache(maxsize=4096)
def _adjusted(k: int, p: float, alpha: float) -> tuple[float, tuple[int, ...]]:
    def boundary(a):
        m = _mtable(k, p, a)
        return a, _fail_probability(m, p), m, sum(m)

    a_min, a_max = 0, alpha
    a_mid = (a_min + a_max) / 2
    minb, maxb, midb = boundary(a_min), boundary(a_max), boundary(a_mid)
    while minb[3] < maxb[3] and midb[1] != alpha:
        if midb[1] < alpha:
            a_min = a_mid
            minb = boundary(a_min)
        elif midb[1] > alpha:
            a_max = a_mid
            maxb = boundary(a_max)
        a_mid = (a_min + a_max) / 2
        midb = boundary(a_mid)
        if maxb[3] - minb[3] == 1 or maxb[0] - minb[0] <= EPS:
            best = minb if abs(minb[1] - alpha) <= abs(maxb[1] - alpha) else maxb
            return best[0], best[2]
        if maxb[3] - midb[3] == 1 and midb[3] - minb[3] == 1:
            d_min, d_max, d_mid = (abs(b[1] - alpha) for b in (minb, maxb, midb))
            if d_mid <= d_max and d_mid <= d_min:
                return midb[0], midb[2]
            if d_min <= d_mid and d_min <= d_max:
                return minb[0], minb[2]
            return maxb[0], maxb[2]
    return midb[0], midb[2]


@validate_params(k=Integer(2), p=P, alpha=ALPHA)
def adjusted_mtable(k, p, alpha) -> tuple[float, np.ndarray]:
    """The adjusted significance α_c and its m-table (fairsearchcore's ``adjust_alpha``).

    Bisection on a ∈ [0, α] with midpoint (lo + hi) / 2; each a gives the m-table of
    :func:`mtable` and its :func:`fail_probability` f(a). While mass(lo) < mass(hi) (mass: the
    m-table's sum) and f(mid) ≠ α: lo ← mid if f(mid) < α, hi ← mid if f(mid) > α; then if the
    masses of hi and lo differ by 1 or hi − lo ≤ 1e-16, return whichever of lo, hi has f closer to
    α (lo on ties); if mid is one above lo and one below hi, return the closest of mid, lo, hi
    (in that order on ties). A loop that ends otherwise returns mid.

    Parameters
    ----------
    k : int
        Ranking length (>= 2).
    p : float
        Minimum protected share, in [0, 1].
    alpha : float
        Target family-wise significance, in [0.001, 0.5].

    Returns
    -------
    (float, numpy.ndarray of int)
        α_c and the m-table at α_c.

    Examples
    --------
    >>> a, m = adjusted_mtable(10, 0.5, 0.1)
    >>> round(a, 6), m
    (0.075, array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3]))
    """
    a, m = _adjusted(k, p, alpha)
    return a, np.array(m, dtype=np.int64)


@validate_params(k=Integer(2), p=P, alpha=ALPHA)
def is_fair(protected_flags, k, p, alpha) -> bool:
    """Whether a ranking passes the adjusted m-table at every prefix (fairsearchcore's ``is_fair``).

    Parameters
    ----------
    protected_flags : array-like of bool, shape (k,)
        Whether the candidate at each position (1..k) is protected.
    k : int
        The ranking length (must equal ``len(protected_flags)``).
    p, alpha : float
        As :func:`adjusted_mtable`.

    Returns
    -------
    bool

    Raises
    ------
    ocef.errors.ParameterError
        A ranking whose length is not ``k``.

    Examples
    --------
    >>> is_fair([0, 0, 0, 0, 1, 0, 0, 0, 1, 0], 10, 0.5, 0.1)
    False
    >>> is_fair([0, 0, 0, 1, 0, 0, 1, 0, 0, 1], 10, 0.5, 0.1)
    True
    """
    flags = np.asarray(protected_flags).astype(bool)
    if flags.shape != (k,):
        raise ParameterError(f"protected_flags must have length k={k}, got shape {flags.shape}")
    _, m = _adjusted(k, p, alpha)
    return bool(np.all(np.cumsum(flags) >= np.asarray(m)))


@njit(parallel=True, cache=True)
def _fair_rows(s, prot, k, m):                                              # pragma: no cover (compiled)
    n_users, n = s.shape
    out = np.empty((n_users, k), np.int64)
    for u in prange(n_users):
        qp = np.empty(k, np.int64)                                    # each queue's best k, in score
        qn = np.empty(k, np.int64)                                    # order (ties: input order)
        n_p = top_m(s[u], prot[u], k, qp)
        n_n = top_m(s[u], ~prot[u], k, qn)
        ip = 0
        inp = 0
        for i in range(k):
            if ip >= n_p:
                take_p = False
            elif inp >= n_n:
                take_p = True
            elif ip < m[i]:
                take_p = True
            else:
                take_p = s[u, qp[ip]] >= s[u, qn[inp]]
            if take_p:
                out[u, i] = qp[ip]
                ip += 1
            else:
                out[u, i] = qn[inp]
                inp += 1
    return out


def _fair_top_k(s: np.ndarray, prot: np.ndarray, k: int, m: tuple[int, ...]) -> np.ndarray:
    """FA*IR's merge of the two queues (paper Algorithm FA*IR) for every row (compiled, in parallel).

    Each row is sorted by score, descending and stable (the reference's score-ordered input), then
    split into the protected and the other queue; position i takes the protected head when fewer
    than m(i) protected are placed, else the better head (ties: protected), as fairsearchcore's
    ``fair_top_k`` (both queues non-empty: k <= n).
    """
    return _fair_rows(np.ascontiguousarray(s), np.ascontiguousarray(prot), k, np.asarray(m, dtype=np.int64))


@validate_params(k=Integer(2), rng=Rng(), protected=Integer(0), p=P, alpha=ALPHA)
def fair_rerank(scores, groups, k, *, rng=None, protected=1, p=0.5, alpha=0.1) -> Lottery:
    """FA*IR re-ranking of one user's candidates (paper Algorithm FA*IR, adjusted m-table).

    Equals ``fairsearchcore.Fair(k, p, alpha).re_rank`` on the candidates sorted by score
    (descending; ties keep the input order), with ``is_protected = (groups == protected)``.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
    groups : array-like of int, shape (n_candidates,)
    k : int
        2 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (deterministic); part of the common interface.
    protected : int, default 1
        The group code of the protected group.
    p : float, default 0.5
        Minimum share of protected candidates in every prefix, in [0, 1].
    alpha : float, default 0.1
        Family-wise significance, in [0.001, 0.5] (adjusted by :func:`adjusted_mtable`).

    Returns
    -------
    Lottery
        One ranking with probability 1.

    Examples
    --------
    >>> groups = np.isin(np.arange(1, 21), [5, 9, 12, 14, 15, 16, 17, 18, 19, 20]).astype(int)
    >>> fair_rerank(np.arange(20, 0, -1), groups, 10, p=0.5, alpha=0.1).rankings + 1
    array([[ 1,  2,  3,  5,  4,  6,  9,  7,  8, 12]])
    """
    s, g, k = check_candidates(scores, groups, k)
    return deterministic(_fair_top_k(s[None, :], (g == protected)[None, :], k, _adjusted(k, p, alpha)[1])[0])


@validate_params(k=Integer(2), protected=Integer(0), p=P, alpha=ALPHA)
def fair_batch(scores, groups, k, *, protected=1, p=0.5, alpha=0.1) -> np.ndarray:
    """:func:`fair_rerank` for many users at once (one m-table, the merge vectorized over users).

    Parameters
    ----------
    scores, groups : array-like, shape (n_users, n_candidates)
        One row per user; otherwise as in :func:`fair_rerank`.
    k, protected, p, alpha
        As in :func:`fair_rerank`.

    Returns
    -------
    numpy.ndarray of int, shape (n_users, k)

    Examples
    --------
    >>> fair_batch([[4., 3., 2., 1.], [4., 3., 2., 1.]], [[0, 0, 0, 1], [1, 0, 0, 0]], 2, p=0.9, alpha=0.1)
    array([[0, 3],
           [0, 1]])
    """
    s, g, k = check_candidate_matrix(scores, groups, k)
    return _fair_top_k(s, g == protected, k, _adjusted(k, p, alpha)[1])
