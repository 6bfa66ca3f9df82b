"""What every re-ranker returns and the checks of what every re-ranker takes.

A re-ranker receives ONE user's candidates — ``scores`` (the recommender's scores, higher is
better) and ``groups`` (one non-negative integer code per candidate, the item group) — and a
list length ``k``; it returns a :class:`Lottery`: ``m`` rankings of ``k`` candidate indices with
their probabilities (a deterministic re-ranker returns one ranking with probability 1, a
stochastic one such as the Singh & Joachims LP or the expohedron a distribution over rankings).
:func:`check_candidates` is the one check of those inputs and :func:`check_candidate_matrix` its
batched form (users × candidates).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.results import Result
from ocef.validation import check_positive_int

__all__ = ["Lottery", "check_candidates", "check_candidate_matrix", "deterministic", "lottery_from_rankings"]


@dataclasses.dataclass(frozen=True)
class Lottery(Result):
    """A distribution over rankings of one user's candidates.

    Parameters
    ----------
    rankings : numpy.ndarray of int, shape (m, k)
        Each row a ranking: candidate indices (positions 1..k left to right), no repeats.
    probabilities : numpy.ndarray of float, shape (m,)
        The probability of each ranking; non-negative, summing to 1 (within 1e-9).

    Raises
    ------
    ocef.errors.ParameterError
        Shapes that disagree, a repeated candidate in a ranking, or probabilities that are
        negative or do not sum to 1.

    Examples
    --------
    >>> lot = Lottery(np.array([[2, 0], [0, 2]]), np.array([0.75, 0.25]))
    >>> lot.k, lot.top()
    (2, array([2, 0]))
    >>> lot.to_frame()
       ranking  probability  rank  candidate
    0        0         0.75     1          2
    1        0         0.75     2          0
    2        1         0.25     1          0
    3        1         0.25     2          2
    """

    rankings: np.ndarray
    probabilities: np.ndarray

    def __post_init__(self):
        r = np.asarray(self.rankings)
        p = np.asarray(self.probabilities, dtype=float)
        if r.ndim != 2 or p.ndim != 1 or r.shape[0] != p.shape[0] or r.shape[0] == 0:
            raise ParameterError(f"rankings must be (m, k) and probabilities (m,), m >= 1; got {r.shape} and {p.shape}")
        if not np.issubdtype(r.dtype, np.integer):
            raise ParameterTypeError(f"rankings must hold integer candidate indices, got dtype {r.dtype}")
        srt = np.sort(r, axis=1)
        if r.shape[1] > 1 and np.any(srt[:, 1:] == srt[:, :-1]):
            raise ParameterError("rankings must not repeat a candidate within a ranking")
        if np.any(p < 0) or not abs(p.sum() - 1.0) <= 1e-9:
            raise ParameterError(f"probabilities must be >= 0 and sum to 1, got sum {p.sum()!r}")
        object.__setattr__(self, "rankings", r.astype(np.int64, copy=False))
        object.__setattr__(self, "probabilities", p)

    @property
    def k(self) -> int:
        """The length of each ranking."""
        return int(self.rankings.shape[1])

    def top(self) -> np.ndarray:
        """The most probable ranking (the first one on ties).

        Returns
        -------
        numpy.ndarray of int, shape (k,)

        Examples
        --------
        >>> Lottery(np.array([[1, 0], [0, 1]]), np.array([0.4, 0.6])).top()
        array([0, 1])
        """
        return self.rankings[int(np.argmax(self.probabilities))]

    def to_frame(self) -> pd.DataFrame:
        """One row per (ranking, rank): ``ranking, probability, rank`` (1-based), ``candidate``.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> Lottery(np.array([[1, 0]]), np.array([1.0])).to_frame().shape
        (2, 4)
        """
        m, k = self.rankings.shape
        return pd.DataFrame({"ranking": np.repeat(np.arange(m), k),
                             "probability": np.repeat(self.probabilities, k),
                             "rank": np.tile(np.arange(1, k + 1), m),
                             "candidate": self.rankings.ravel()})


def deterministic(ranking) -> Lottery:
    """The lottery of one ranking with probability 1 (what deterministic re-rankers return).

    Parameters
    ----------
    ranking : array-like of int, shape (k,)

    Returns
    -------
    Lottery

    Examples
    --------
    >>> deterministic([2, 0, 1]).rankings
    array([[2, 0, 1]])
    """
    return Lottery(np.asarray(ranking, dtype=np.int64)[None, :], np.ones(1))


def lottery_from_rankings(rankings, weights) -> Lottery:
    """The lottery of weighted rankings, cut rankings that coincide merged (weights added), most
    probable first, weights divided by their sum.

    Parameters
    ----------
    rankings : array-like of int, shape (m, k)
    weights : array-like of float, shape (m,)
        Non-negative (e.g. Birkhoff–von Neumann or Carathéodory coefficients).

    Returns
    -------
    Lottery

    Examples
    --------
    >>> lottery_from_rankings([[0, 1], [1, 0], [0, 1]], [0.25, 0.5, 0.25]).probabilities
    array([0.5, 0.5])
    """
    uniq, inverse = np.unique(np.asarray(rankings, dtype=np.int64), axis=0, return_inverse=True)
    probs = np.bincount(np.ravel(inverse), weights=np.asarray(weights, dtype=float), minlength=uniq.shape[0])
    order = np.argsort(-probs, kind="stable")
    return Lottery(uniq[order], probs[order] / probs.sum())


def _check_groups(groups, shape) -> np.ndarray:
    g = np.asarray(groups)
    if g.shape != shape:
        raise ParameterError(f"groups must have the shape of scores {shape}, got {g.shape}")
    if g.dtype == bool or not np.issubdtype(g.dtype, np.integer):
        raise ParameterTypeError(f"groups must be integer group codes, got dtype {g.dtype}")
    if g.size and g.min() < 0:
        raise DataError(f"groups must be non-negative integer codes, got {int(g.min())}")
    return g.astype(np.int64, copy=False)


def _check_scores(scores, ndim: int) -> np.ndarray:
    s = np.asarray(scores)
    if s.dtype == bool or not (np.issubdtype(s.dtype, np.integer) or np.issubdtype(s.dtype, np.floating)):
        raise ParameterTypeError(f"scores must be real numbers, got dtype {s.dtype}")
    if s.ndim != ndim:
        raise ParameterError(f"scores must be a {ndim}-d array, got shape {s.shape}")
    s = s.astype(float, copy=False)
    if not np.all(np.isfinite(s)):
        raise DataError(f"scores must be finite, got {int(np.sum(~np.isfinite(s)))} NaN or infinite value(s)")
    return s


def check_candidates(scores, groups, k) -> tuple[np.ndarray, np.ndarray, int]:
    """Check one user's candidates: finite real ``scores`` (n,), integer ``groups`` (n,) >= 0, 1 <= k <= n.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        The recommender's scores (higher is better).
    groups : array-like of int, shape (n_candidates,)
        The group code of each candidate.
    k : int
        The length of the re-ranked list.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, int)
        ``scores`` as float64, ``groups`` as int64, ``k``.

    Raises
    ------
    ocef.errors.DataError
        NaN or infinite scores, negative group codes.
    ocef.errors.ParameterError, ocef.errors.ParameterTypeError
        Wrong shapes or dtypes, ``k`` < 1 or ``k`` > n_candidates.

    Examples
    --------
    >>> check_candidates([0.5, 0.2], [0, 1], 2)
    (array([0.5, 0.2]), array([0, 1]), 2)
    """
    s = _check_scores(scores, 1)
    g = _check_groups(groups, s.shape)
    k = check_positive_int("k", k)
    if k > s.shape[0]:
        raise ParameterError(f"k must be at most the number of candidates ({s.shape[0]}), got {k}")
    return s, g, k


def check_candidate_matrix(scores, groups, k) -> tuple[np.ndarray, np.ndarray, int]:
    """The batched :func:`check_candidates`: ``scores`` and ``groups`` of shape (n_users, n_candidates).

    Parameters
    ----------
    scores : array-like of float, shape (n_users, n_candidates)
    groups : array-like of int, shape (n_users, n_candidates)
    k : int
        1 <= k <= n_candidates.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, int)

    Raises
    ------
    ocef.errors.DataError, ocef.errors.ParameterError, ocef.errors.ParameterTypeError
        As :func:`check_candidates`.

    Examples
    --------
    >>> s, g, k = check_candidate_matrix([[0.5, 0.2]], [[0, 1]], 1)
    >>> s.shape, g.dtype.name, k
    ((1, 2), 'int64', 1)
    """
    s = _check_scores(scores, 2)
    g = _check_groups(groups, s.shape)
    k = check_positive_int("k", k)
    if k > s.shape[1]:
        raise ParameterError(f"k must be at most the number of candidates ({s.shape[1]}), got {k}")
    return s, g, k
