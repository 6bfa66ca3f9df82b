"""The score-boost baseline: add a constant to the scores of one group's items, then take the top k.

The simplest intervention (the baseline every fair re-ranking paper compares with): the boosted
score of candidate ``i`` is

    s'_i = s_i + amount · [g_i = protected]                                    (boost)

and the list is the ``k`` candidates of largest ``s'`` (ties: the candidate given first). ``amount``
is in the units of the scores.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ocef.mitigate._select import top_m
from ocef.mitigate.lottery import Lottery, check_candidate_matrix, check_candidates, deterministic
from ocef.validation import Integer, Real, Rng, validate_params

__all__ = ["boost_rerank", "boost_batch", "boosted_scores", "top_k"]

AMOUNT = Real(0, math.inf, closed="left")


def boosted_scores(scores: np.ndarray, groups: np.ndarray, protected: int, amount: float) -> np.ndarray:
    """``s + amount · [g = protected]`` (eq. boost), for one user (n,) or many (n_users, n).

    Parameters
    ----------
    scores : numpy.ndarray of float
    groups : numpy.ndarray of int, the shape of ``scores``
    protected : int
        The group code whose candidates are boosted.
    amount : float
        The constant added.

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> boosted_scores(np.array([0.9, 0.5]), np.array([0, 1]), 1, 0.5)
    array([0.9, 1. ])
    """
    return scores + amount * (groups == protected)


@njit(parallel=True, cache=True)
def _top_k_rows(scores, k):                                                  # pragma: no cover (compiled)
    out = np.empty((scores.shape[0], k), np.int64)
    select = np.ones(scores.shape[1], np.bool_)
    for u in prange(scores.shape[0]):
        top_m(scores[u], select, k, out[u])
    return out


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores along the last axis, best first; ties keep input order.

    The first k of a stable descending sort of each row (compiled insertion buffer, rows in parallel).

    Parameters
    ----------
    scores : numpy.ndarray of float, shape (n,) or (n_users, n)
    k : int

    Returns
    -------
    numpy.ndarray of int, shape (k,) or (n_users, k)

    Examples
    --------
    >>> top_k(np.array([0.2, 0.9, 0.2, 0.5]), 3)
    array([1, 3, 0])
    """
    s = np.asarray(scores, dtype=float)
    rows = np.ascontiguousarray(s.reshape(-1, s.shape[-1]))
    out = _top_k_rows(rows, k)
    return out[0] if s.ndim == 1 else out


@validate_params(k=Integer(1), rng=Rng(), protected=Integer(0), amount=AMOUNT)
def boost_rerank(scores, groups, k, *, rng=None, protected=1, amount=0.1) -> Lottery:
    """Re-rank one user's candidates by boosting the scores of the ``protected`` group (eq. boost).

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        The recommender's scores, higher is better; finite.
    groups : array-like of int, shape (n_candidates,)
        Group code of each candidate (>= 0).
    k : int
        Length of the list, 1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (the method is deterministic); part of the common re-ranker interface.
    protected : int, default 1
        The group code whose candidates get the boost.
    amount : float, default 0.1
        The constant added to their scores (>= 0, in score units).

    Returns
    -------
    Lottery
        One ranking of ``k`` candidate indices with probability 1.

    Raises
    ------
    ocef.errors.DataError, ocef.errors.ParameterError
        NaN scores, ``k`` > n_candidates, a negative ``amount``.

    Examples
    --------
    >>> boost_rerank([0.9, 0.8, 0.75, 0.1], [0, 0, 1, 1], 2, amount=0.2).rankings
    array([[2, 0]])
    """
    s, g, k = check_candidates(scores, groups, k)
    return deterministic(top_k(boosted_scores(s, g, protected, amount), k))


@validate_params(k=Integer(1), protected=Integer(0), amount=AMOUNT)
def boost_batch(scores, groups, k, *, protected=1, amount=0.1) -> np.ndarray:
    """:func:`boost_rerank` for many users at once: one row of candidates per user.

    Parameters
    ----------
    scores, groups : array-like, shape (n_users, n_candidates)
        One row per user; otherwise as in :func:`boost_rerank`.
    k, protected, amount
        As in :func:`boost_rerank`.

    Returns
    -------
    numpy.ndarray of int, shape (n_users, k)
        Each row the candidate indices of that user's list, best first.

    Examples
    --------
    >>> boost_batch([[0.9, 0.8, 0.75], [0.3, 0.2, 0.1]], [[0, 0, 1], [1, 0, 0]], 2, amount=0.2)
    array([[2, 0],
           [0, 1]])
    """
    s, g, k = check_candidate_matrix(scores, groups, k)
    return top_k(boosted_scores(s, g, protected, amount), k)
