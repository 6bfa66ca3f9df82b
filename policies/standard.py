"""Policies built from estimated preferences: argmax, softmax, uniform (Sec. 3.2, 6.1, App. B.1).

Every builder takes a score matrix (users x items, or users x contexts x items: the
last axis is always items) of *estimated* preferences and returns an
:class:`~ocef.policies.base.ArrayPolicy`.
"""
from __future__ import annotations

import numpy as np

from ocef.validation import check_in_interval, check_positive_int
from ocef.policies.base import ArrayPolicy, check_scores  # noqa: F401  (re-exported)
from ocef.errors import ParameterError


def argmax_probabilities(scores: np.ndarray, ties: str = "first") -> np.ndarray:
    """One-hot rows on the best-scored item (the optimal unconstrained policy π^{m,*}, Sec. 3.2).

    Ties: ``"first"`` puts all mass on the lowest item index among the maxima (numpy's
    ``argmax`` rule); ``"uniform"`` spreads it evenly over all exactly-tied maxima. Both
    are optimal for the scores; "first" is deterministic and the paper's *argmax*.
    """
    if ties not in ("first", "uniform"):
        raise ParameterError(f"ties must be 'first' or 'uniform', got {ties!r}")
    if ties == "uniform":
        is_max = scores == scores.max(axis=-1, keepdims=True)
        return is_max / is_max.sum(axis=-1, keepdims=True)
    out = np.zeros_like(scores, dtype=float)
    np.put_along_axis(out, scores.argmax(axis=-1)[..., None], 1.0, axis=-1)
    return out


def argmax_policy(scores, ties: str = "first") -> ArrayPolicy:
    """The paper's *argmax* policy: recommend the estimated best item (Sec. 3.2, App. B.1).

    Ties are broken by the lowest item index (``ties="first"``, default) or uniformly over
    the tied items (``ties="uniform"``).
    """
    return ArrayPolicy(argmax_probabilities(check_scores(scores), ties))


def softmax_policy(scores, beta: float = 1.0) -> ArrayPolicy:
    """Softmax policy π^m(a|x) ∝ exp(β ŝ^m(a|x)) with inverse temperature β > 0 (Sec. 6.1, App. B.2).

    Computed stably (the row maximum is subtracted before exponentiating).
    """
    beta = check_in_interval("beta", beta, 0.0, np.inf, low_open=True, high_open=True)
    from scipy.special import softmax   # imported here: scipy.special costs start-up time

    arr = check_scores(scores)
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(np.max(arr) - np.min(arr)) * beta
    if not np.isfinite(spread):
        # beta * scores overflows: the message named the scores, which are fine (--beta 1e308)
        raise ParameterError(f"beta={beta:g} times the score range ({float(np.max(arr) - np.min(arr)):g}) overflows; "
                             f"give a smaller beta (beta -> inf is the argmax policy)")
    return ArrayPolicy(softmax(beta * arr, axis=-1))


def uniform_policy(n_users: int, n_items: int, n_contexts: int = 1) -> ArrayPolicy:
    """The uniform policy π^m(a|x) = 1/|A| for every user (non-personalized, hence envy-free)."""
    n_users = check_positive_int("n_users", n_users)
    n_items = check_positive_int("n_items", n_items)
    n_contexts = check_positive_int("n_contexts", n_contexts)
    shape = (n_users, n_items) if n_contexts == 1 else (n_users, n_contexts, n_items)
    return ArrayPolicy(np.full(shape, 1.0 / n_items))
