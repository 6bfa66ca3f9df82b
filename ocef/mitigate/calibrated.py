"""Calibrated recommendations (Steck, RecSys 2018): greedy re-ranking towards the user's genre mix.

Equal, on identical inputs, to librec-auto's ``cali_rerank.py`` + ``reranker.py`` at @26022e2
(that-recsys-lab/librec-auto; at its HEAD the file holds other code, see the spec), which differs
from the paper in four ways the tests pin down: p(g|u) is not renormalized (a multi-genre item counts
1 in each genre), relevance is min-max scaled per user, α = 0.01 is fixed, and the KL uses log base 2.

With p the user's target genre distribution restricted to genres with p(g) > 0, at step s (c = s
items chosen, T the sum of their scaled relevance r) each remaining candidate i gets

    q(g)   = count_g(chosen ∪ {i}) / (c + 1)                         (Steck eq. 2, candidate list)
    q̃(g)   = (1 − α) q(g) + α p(g),  α = 0.01                        (Steck eq. 5)
    KL_i   = Σ_g p(g) log2(p(g) / q̃(g))                              (Steck eq. 3)
    obj_i  = (1 − λ) (r_i + T) / (c + 1) − λ KL_i                    (Steck eq. 6, relevance averaged)

and the first candidate (in input order among the remaining) of largest obj is appended.
"""
from __future__ import annotations

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.mitigate.lottery import Lottery, check_candidates, deterministic
from ocef.validation import Either, Integer, OneOrMore, Options, Real, Rng, validate_params

__all__ = ["calibrated_rerank", "calibrated_greedy", "minmax_scale", "genre_distribution"]

ALPHA = 0.01          # librec-auto's hard-coded mixing weight (its --alpha argument is not used)


def minmax_scale(x: np.ndarray) -> np.ndarray:
    """Min-max scaling to [0, 1] as scikit-learn's ``MinMaxScaler`` (a constant vector gives 0).

    Parameters
    ----------
    x : numpy.ndarray of float, shape (n,)

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> minmax_scale(np.array([4.5, 4.4, 2.0])).round(2), minmax_scale(np.array([3.0, 3.0]))
    (array([1.  , 0.96, 0.  ]), array([0., 0.]))
    """
    lo, hi = x.min(), x.max()
    rng = hi - lo
    scale = 1.0 / (rng if rng != 0 else 1.0)
    return x * scale + (0.0 - lo * scale)


def genre_distribution(features) -> np.ndarray:
    """p(g|u): the genre counts of a user's profile rows over the number of rows (librec-auto).

    Parameters
    ----------
    features : array-like, shape (n_rows, n_genres)
        One row per profile entry (an item the user interacted with, duplicates kept), the item's
        genre counts (1 per genre it belongs to).

    Returns
    -------
    numpy.ndarray of float, shape (n_genres,)
        Column sums / n_rows (sums above 1 when items have several genres).

    Raises
    ------
    ocef.errors.DataError
        An empty profile.

    Examples
    --------
    >>> genre_distribution([[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 1]])
    array([0.75, 0.25, 0.25])
    """
    f = np.asarray(features, dtype=float)
    if f.ndim != 2 or f.shape[0] == 0:
        raise DataError(f"features must be a non-empty (n_rows, n_genres) array, got shape {f.shape}")
    return np.divide(f.sum(axis=0), f.shape[0])


def calibrated_greedy(relevance, features, target, k: int, lam: float, *, return_objective: bool = False):
    """The greedy calibrated list (eqs. 2, 3, 5, 6 above) from candidate genre counts.

    Parameters
    ----------
    relevance : array-like of float, shape (n,)
        The candidates' predicted relevance, in input order (min-max scaled inside).
    features : array-like, shape (n, n_genres)
        Each candidate's genre counts.
    target : array-like of float, shape (n_genres,)
        p(g|u); genres with p = 0 are ignored.
    k : int
        List length, 1 <= k <= n.
    lam : float
        λ in [0, 1]: 0 ranks by relevance, 1 by calibration only.
    return_objective : bool, default False
        Also return the objective value of each pick (librec-auto outputs them min-max scaled).

    Returns
    -------
    numpy.ndarray of int, shape (k,)
        Candidate indices in the order chosen; with ``return_objective``, a pair
        ``(indices, objective values)``.

    Raises
    ------
    ocef.errors.DataError
        A target with no positive entry.

    Examples
    --------
    >>> f = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]])
    >>> calibrated_greedy([4.5, 4.4, 4.3, 3.0, 2.5, 2.0], f, [0.75, 0.25, 0.25], 4, 0.5)
    array([0, 5, 1, 2])
    """
    r = minmax_scale(np.asarray(relevance, dtype=float))
    feats = np.asarray(features, dtype=float)
    p_all = np.asarray(target, dtype=float)
    keep = np.where(p_all != 0)[0]
    if keep.size == 0:
        raise DataError("target must have a positive entry (the user's genre distribution is empty)")
    p = p_all[keep]
    f = feats[:, keep]
    remaining = list(range(r.size))
    chosen_counts = np.zeros(keep.size)
    total = 0.0
    out, picked_obj = [], []
    for step in range(k):
        c = step + 1.0
        q = chosen_counts[None, :] + f[remaining]
        np.divide(q, c, out=q)
        q = (1 - ALPHA) * q + ALPHA * np.tile(p, (len(remaining), 1))
        kl = np.sum(p * np.log2(p / q), axis=1)
        obj = (1 - lam) * (r[remaining] + total) / c - lam * kl
        best = int(np.argmax(obj))
        pick = remaining.pop(best)
        out.append(pick)
        picked_obj.append(obj[best])
        chosen_counts = chosen_counts + f[pick]
        total += r[pick]
    if return_objective:
        return np.asarray(out, dtype=np.int64), np.asarray(picked_obj)
    return np.asarray(out, dtype=np.int64)


TARGET = Either(Options(None), OneOrMore(Real(0, np.inf, closed="left")))


@validate_params(k=Integer(1), rng=Rng(), lam=Real(0, 1), target=TARGET)
def calibrated_rerank(scores, groups, k, *, rng=None, lam=0.5, target=None) -> Lottery:
    """Calibrated re-ranking of one user's candidates (Steck 2018, as librec-auto @26022e2).

    Each candidate belongs to the one genre ``groups[i]``; use :func:`calibrated_greedy` for
    candidates with several genres.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        Predicted relevance (min-max scaled inside, per user).
    groups : array-like of int, shape (n_candidates,)
        Genre code of each candidate.
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (deterministic); part of the common interface.
    lam : float, default 0.5
        λ in [0, 1], the weight of calibration (librec-auto's ``--lambda``).
    target : sequence of float or None, default None
        p(g|u) over the genre codes 0..G−1 (e.g. :func:`genre_distribution` of the user's training
        rows); None: the genre shares among the candidates themselves.

    Returns
    -------
    Lottery
        One ranking with probability 1.

    Examples
    --------
    >>> calibrated_rerank([0.9, 0.8, 0.7, 0.2], [0, 0, 0, 1], 2, lam=0.9, target=[0.5, 0.5]).rankings
    array([[0, 3]])
    """
    s, g, k = check_candidates(scores, groups, k)
    n_groups = int(g.max()) + 1
    if target is None:
        p = genre_distribution(np.eye(n_groups)[g])
    else:
        p = np.atleast_1d(np.asarray(target, dtype=float))
        if p.size < n_groups:
            raise DataError(f"target has {p.size} entries but the candidates have genre code {n_groups - 1}")
    if p.ndim != 1:
        raise ParameterError(f"target must be 1-d, got shape {p.shape}")
    features = np.eye(p.size)[g]
    return deterministic(calibrated_greedy(s, features, p, k, lam))
