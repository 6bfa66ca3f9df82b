"""Top-k ranking policies whose utility is the DCG of App. B.1 (seed 001).

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
    """w_j = 1 / log2(1 + j) for positions j = 1..k (App. B.1)."""
    k = check_positive_int("k", k)
    return 1.0 / np.log2(1.0 + np.arange(1, k + 1))


def dcg_normalizer(k: int) -> float:
    """W = Σ_{j=1}^{k} 1 / log2(1 + j): DCG (App. B.1) = W · normalised utility."""
    return float(dcg_weights(k).sum())


def topk_rankings(scores: np.ndarray, k: int) -> np.ndarray:
    """Item indices of the top-k ranking per row, best first (ties: lowest index first)."""
    order = np.argsort(-scores, axis=-1, kind="stable")
    return order[..., :k]


class RankingPolicy(ArrayPolicy):
    """A deterministic top-k ranking per user, as position-weighted exposure (see module doc).

    Attributes: ``rankings`` (users x k, or users x contexts x k, item indices best first),
    ``k`` and ``weights`` (the DCG position weights w_j).
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


def topk_ranking_policy(scores, k: int = 10) -> RankingPolicy:
    """The *ranking* policy of App. B.1: top-k items by estimated score (k = 10 in the paper).

    Its utility u^m(π) (eq. (1)) is the DCG of App. B.1 divided by W = Σ_j 1/log2(1+j)
    (see the module docstring). ``k`` is capped at the number of items.
    """
    s = check_scores(scores)
    k = min(check_positive_int("k", k), s.shape[-1])
    return RankingPolicy(topk_rankings(s, k), s.shape[-1])
