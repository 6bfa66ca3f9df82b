"""DetConstSort (Geyik, Ambler & Kenthapadi, KDD 2019, Algorithm 3) for any number of groups.

Equal, on identical inputs, to FairRankTune 0.0.7's ``DETCONSTSORT`` (KCachel/fairranktune @9dd1550),
the reference the tests compare with. Given target shares p_g (Σ p_g ≤ 1), the list is built
in rounds t = 1, 2, ...: in round t every group g whose placed minimum m_g is below

    need_g(t) = ⌊t · p_g⌋                                                     (Alg. 3, line "tempMinCounts")

(and that still has unplaced candidates) contributes its best unplaced candidate; the round's
candidates are inserted in decreasing score (ties: increasing group code), each at the end of
the list with ``maxIndex = t`` and then swapped left past every entry j that scores strictly less
and may still move down (``maxIndex_j ≥ j + 1``, 0-based j) — the "constrained sort" of
Algorithm 3. Rounds continue while the list holds at most k entries (so the (k+1)-th and later
entries inserted in the last round can move into the top k, as in the reference).

The candidates are first sorted by score, descending (ties keep the input order): the reference
takes its input in that order.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ocef.errors import DataError, ParameterError
from ocef.mitigate._select import top_m
from ocef.mitigate.lottery import Lottery, check_candidate_matrix, check_candidates, deterministic
from ocef.validation import Either, Integer, OneOrMore, Options, Real, Rng, validate_params

__all__ = ["detconstsort_rerank", "detconstsort_batch", "target_shares"]

TARGET = Either(Options("proportional", "equal"), OneOrMore(Real(0, 1)))


def target_shares(groups: np.ndarray, target, n_groups: int) -> np.ndarray:
    """The target share p_g of each group code 0..n_groups−1, per user.

    Parameters
    ----------
    groups : numpy.ndarray of int, shape (n_users, n_candidates)
    target : {"proportional", "equal"} or sequence of float
        ``"proportional"``: each group's share among the user's candidates; ``"equal"``: 1/G over
        the G groups present among the user's candidates; a sequence: ``target[g]`` for group code
        g (the same for every user; Σ ≤ 1).
    n_groups : int
        The number of group codes (max code + 1).

    Returns
    -------
    numpy.ndarray of float, shape (n_users, n_groups)

    Raises
    ------
    ocef.errors.DataError
        A group code with no entry in a ``target`` sequence.
    ocef.errors.ParameterError
        A ``target`` sequence summing to more than 1 or to 0.

    Examples
    --------
    >>> target_shares(np.array([[0, 0, 0, 1]]), "proportional", 2)
    array([[0.75, 0.25]])
    >>> target_shares(np.array([[0, 0, 0, 1]]), "equal", 2)
    array([[0.5, 0.5]])
    """
    counts = np.stack([(groups == c).sum(axis=1) for c in range(n_groups)], axis=1).astype(float)
    if isinstance(target, str):
        if target == "proportional":
            return counts / groups.shape[1]
        present = counts > 0
        return present / present.sum(axis=1, keepdims=True)
    shares = np.atleast_1d(np.asarray(target, dtype=float))
    if not 0 < shares.sum() <= 1 + 1e-9:
        raise ParameterError(f"target shares must sum to a value in (0, 1], got {shares.sum()!r}")
    if n_groups > shares.size:
        raise DataError(f"target has {shares.size} share(s) but the candidates have group code {n_groups - 1}")
    return np.broadcast_to(shares[:n_groups], (groups.shape[0], n_groups)).copy()


@njit(cache=True)
def _detconstsort_one(s, g, shares, k, out):                              # pragma: no cover (compiled)
    """Algorithm 3 on one user's candidates: writes the indices of the top k into ``out``; returns
    0, or 1 when the shares cannot fill the list. Each group's queue holds its best k + 1 (a group
    places at most one candidate per round and rounds stop once k + 1 are placed)."""
    n = s.size
    n_groups = shares.size
    m = k + 1
    size = np.zeros(n_groups, np.int64)                             # |g|
    for i in range(n):
        size[g[i]] += 1
    queue = np.empty((n_groups, m), np.int64)
    for c in range(n_groups):
        if size[c] > 0:
            top_m(s, g == c, m, queue[c])
    placed = np.zeros(n_groups, np.int64)                            # n_g
    minimum = np.zeros(n_groups, np.int64)                           # m_g
    need = np.zeros(n_groups, np.int64)
    cand = np.empty(n_groups, np.int64)
    width = k + n_groups + 1
    item = np.empty(width, np.int64)
    score = np.empty(width)
    max_index = np.empty(width, np.int64)
    filled = 0                                                       # L
    t = 0
    while filled <= k and filled < n:
        t += 1
        n_cand = 0
        for c in range(n_groups):
            need[c] = np.int64(np.floor(t * shares[c]))
            if minimum[c] < need[c] and minimum[c] < size[c]:
                cand[n_cand] = c
                n_cand += 1
        if n_cand == 0:
            alive = False
            for c in range(n_groups):
                if minimum[c] < size[c] and shares[c] > 0:
                    alive = True
            if not alive:
                return 1
            continue
        # the round's candidates by decreasing score; ties keep increasing group code (stable)
        for a in range(1, n_cand):
            j = a
            while j > 0 and s[queue[cand[j - 1], placed[cand[j - 1]]]] < s[queue[cand[j], placed[cand[j]]]]:
                cand[j - 1], cand[j] = cand[j], cand[j - 1]
                j -= 1
        for r in range(n_cand):
            c = cand[r]
            idx = queue[c, placed[c]]
            item[filled] = idx
            score[filled] = s[idx]
            max_index[filled] = t
            at = filled
            while at > 0 and max_index[at - 1] >= at and score[at - 1] < score[at]:
                item[at - 1], item[at] = item[at], item[at - 1]
                score[at - 1], score[at] = score[at], score[at - 1]
                max_index[at - 1], max_index[at] = max_index[at], max_index[at - 1]
                at -= 1
            placed[c] += 1
            filled += 1
        for c in range(n_groups):
            minimum[c] = need[c]
    for i in range(k):
        out[i] = item[i]
    return 0


@njit(parallel=True, cache=True)
def _detconstsort_rows(s, g, shares, k):                              # pragma: no cover (compiled)
    n_users = s.shape[0]
    out = np.full((n_users, k), -1, np.int64)
    status = np.zeros(n_users, np.int64)
    for u in prange(n_users):
        status[u] = _detconstsort_one(s[u], g[u], shares[u], k, out[u])
    return out, status


def _detconstsort(s: np.ndarray, g: np.ndarray, k: int, shares: np.ndarray) -> np.ndarray:
    """Algorithm 3 for every row (a user's candidates), as the reference on the candidates sorted by
    score (descending, stable): the rounds of :func:`_detconstsort_one`, compiled, users in parallel."""
    out, status = _detconstsort_rows(np.ascontiguousarray(s), np.ascontiguousarray(g),
                                     np.ascontiguousarray(shares, dtype=float), k)
    if status.any():
        raise DataError(f"the target shares cannot fill a list of k={k}: every group with candidates left "
                        f"has a target share of 0 (user row {int(np.argmax(status))})")
    return out


def _check_target(g: np.ndarray, target) -> np.ndarray:
    return target_shares(g, target, int(g.max()) + 1 if g.size else 1)


@validate_params(k=Integer(1), rng=Rng(), target=TARGET)
def detconstsort_rerank(scores, groups, k, *, rng=None, target="proportional") -> Lottery:
    """DetConstSort re-ranking of one user's candidates (Geyik et al. 2019, Algorithm 3).

    Equals FairRankTune 0.0.7's ``DETCONSTSORT`` on the candidates sorted by score (descending;
    ties keep the input order) with ``distribution = {g: p_g}``.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
    groups : array-like of int, shape (n_candidates,)
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (deterministic); part of the common interface.
    target : {"proportional", "equal"} or sequence of float, default "proportional"
        The target share of each group (see :func:`target_shares`).

    Returns
    -------
    Lottery
        One ranking with probability 1.

    Raises
    ------
    ocef.errors.DataError
        Shares that cannot fill the list (the reference loops forever there).

    Examples
    --------
    >>> groups = [0, 0, 0, 0, 1, 0, 1, 1, 2, 0, 2, 2]
    >>> detconstsort_rerank(np.arange(12, 0, -1), groups, 8, target=[0.5, 0.25, 0.25]).rankings
    array([[0, 1, 2, 4, 8, 3, 5, 6]])
    """
    s, g, k = check_candidates(scores, groups, k)
    return deterministic(_detconstsort(s[None, :], g[None, :], k, _check_target(g[None, :], target))[0])


@validate_params(k=Integer(1), target=TARGET)
def detconstsort_batch(scores, groups, k, *, target="proportional") -> np.ndarray:
    """:func:`detconstsort_rerank` for many users at once (the rounds vectorized over users).

    Parameters
    ----------
    scores : array-like of float, shape (n_users, n_candidates)
    groups : array-like of int, shape (n_users, n_candidates)
    k : int
    target : {"proportional", "equal"} or sequence of float, default "proportional"

    Returns
    -------
    numpy.ndarray of int, shape (n_users, k)

    Examples
    --------
    >>> detconstsort_batch([[4., 3., 2., 1.]], [[0, 0, 0, 1]], 2, target="equal")
    array([[0, 1]])
    """
    s, g, k = check_candidate_matrix(scores, groups, k)
    return _detconstsort(s, g, k, _check_target(g, target))
