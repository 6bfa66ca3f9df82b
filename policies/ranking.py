"""Top-k ranking policies whose utility is the DCG of App. B.1 (Do et al. 2022).

App. B.1 evaluates a top-10 ranking (a_1^π, ..., a_k^π) by

    DCG^m(π) = Σ_{j=1}^{k} ρ^m(a_j^π) / log2(1 + j).

To fit eq. (1) (u^m(π) = Σ_a π(a) ρ^m(a)) and all of the envy machinery, a ranking is
represented by its *position-weighted exposure*: item a_j gets probability
w_j / W with w_j = 1 / log2(1 + j) and W = Σ_{j=1}^{k} w_j. Then

    u^m(π) = Σ_a π(a) ρ^m(a) = DCG^m(π) / W,

the DCG normalised by the DCG of a ranking of items of value 1, so that utilities stay
in [0, 1] (as OCEF's rewards must). Envy in the paper's unnormalised DCG units is W
times the envy computed here (:func:`dcg_normalizer` gives W). Sampling from this
policy draws the examined item of a position-based user model (position j examined with
probability w_j / W), whose expected reward is the normalised DCG, so an audit observes
rewards with the right means. The base of the logarithm is 2 (Järvelin & Kekäläinen's
DCG); any other base only rescales W and leaves the normalised utility unchanged.
"""
from __future__ import annotations

import numpy as np

from ocef.validation import check_positive_int
from ocef.policies.base import ArrayPolicy
from ocef.policies.standard import check_scores
from ocef.errors import ParameterError, ParameterTypeError


def dcg_weights(k: int) -> np.ndarray:
    """w_j = 1 / log2(1 + j) for positions j = 1..k (App. B.1).

    Parameters
    ----------
    k : int
        The list length.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> dcg_weights(3).round(3).tolist()
    [1.0, 0.631, 0.5]
    """
    k = check_positive_int("k", k)
    return 1.0 / np.log2(1.0 + np.arange(1, k + 1))


def dcg_normalizer(k: int) -> float:
    """The DCG of an ideal top-k list, W = Σ_{j=1}^{k} 1 / log2(1 + j) (Do et al. 2022, App. B.1);
    multiply a utility or an envy by W for the paper's DCG units.

    Parameters
    ----------
    k : int
        The paper: 10.

    Returns
    -------
    float

    Examples
    --------
    >>> round(dcg_normalizer(10), 4)
    4.5436
    """
    return float(dcg_weights(k).sum())


def topk_rankings(scores: np.ndarray, k: int) -> np.ndarray:
    """The top-k items of each row of a score table, best first, ties by lowest index (App. B.1).

    Parameters
    ----------
    scores : numpy.ndarray
        Items on the last axis.
    k : int
        All items if ``k`` exceeds them.

    Returns
    -------
    numpy.ndarray
        Shape ``scores.shape[:-1] + (k,)``.

    Examples
    --------
    >>> topk_rankings(np.array([[0.1, 0.9, 0.5, 0.9]]), 3)
    array([[1, 3, 2]])
    """
    order = np.argsort(-scores, axis=-1, kind="stable")
    return order[..., :k]


class RankingPolicy(ArrayPolicy):
    """A deterministic top-k ranking per user, as position-weighted exposure (App. B.1): item a_j gets
    w_j / W (module docstring). Built by :func:`topk_ranking_policy` or from rankings.

    Parameters
    ----------
    rankings : array_like of int
        Users x k (or users x contexts x k) distinct item indices, best first.
    n_items : int
        |A| >= k.

    Attributes
    ----------
    rankings : numpy.ndarray
        The lists (read-only).
    k : int
        List length.
    weights : numpy.ndarray
        w_1..w_k (:func:`dcg_weights`).
    probs : numpy.ndarray
        The position-weighted exposure, users x items.

    Examples
    --------
    >>> RankingPolicy(np.array([[2, 0]]), n_items=3).probs.round(3).tolist()     # w_j / W
    [[0.387, 0.0, 0.613]]
    """

    def __init__(self, rankings, n_items: int):
        ranks = np.asarray(rankings)
        n_items = check_positive_int("n_items", n_items)
        if ranks.ndim not in (2, 3) or ranks.shape[-1] < 1:
            raise ParameterError(f"rankings must be users x k (or users x contexts x k), got shape {ranks.shape}")
        if not np.issubdtype(ranks.dtype, np.integer):
            raise ParameterTypeError(f"rankings must hold integer item indices, got dtype {ranks.dtype}")
        if ranks.min() < 0 or ranks.max() >= n_items:
            raise ParameterError(f"rankings must hold item indices in [0, {n_items - 1}]")
        k = ranks.shape[-1]
        if k > n_items:
            raise ParameterError(f"ranking length k={k} exceeds the number of items {n_items}")
        if np.any(np.diff(np.sort(ranks, axis=-1), axis=-1) == 0):
            raise ParameterError("each ranking must list distinct items")
        weights = dcg_weights(k)
        probs = np.zeros(ranks.shape[:-1] + (n_items,))
        np.put_along_axis(probs, ranks, np.broadcast_to(weights / weights.sum(), ranks.shape), axis=-1)
        super().__init__(probs)
        self.k = k
        self.weights = weights
        self.rankings = ranks.copy()
        self.rankings.setflags(write=False)


def topk_ranking_policy(scores, *, k: int = 10) -> RankingPolicy:
    """The *ranking* policy of App. B.1: top-k items by estimated score (k = 10 in the paper).

    Parameters
    ----------
    scores : array_like
        Users x items (or users x contexts x items).
    k : int
        Capped at the number of items.

    Returns
    -------
    RankingPolicy

    Examples
    --------
    >>> topk_ranking_policy(np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.7]]), k=2).rankings.tolist()
    [[0, 2], [1, 2]]
    """
    s = check_scores(scores)
    k = min(check_positive_int("k", k), s.shape[-1])
    return RankingPolicy(topk_rankings(s, k), s.shape[-1])
