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
    """One-hot rows on the best-scored item (the optimal unconstrained policy π^{m,*}, Sec. 3.2);
    scores not validated (:func:`argmax_policy` does).

    Parameters
    ----------
    scores : numpy.ndarray
        Estimated preferences, items on the last axis.
    ties : {"first", "uniform"}
        As in :func:`argmax_policy`.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> argmax_probabilities(np.array([[0.1, 0.9, 0.9]]), ties="uniform")
    array([[0. , 0.5, 0.5]])
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

    Parameters
    ----------
    scores : array_like
        Users x items (or users x contexts x items).
    ties : {"first", "uniform"}
        All mass on the lowest index among the maxima (the paper's), or spread evenly.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> argmax_policy(np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.8]]), ties="uniform").probs.tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]
    """
    return ArrayPolicy(argmax_probabilities(check_scores(scores), ties))


def softmax_policy(scores, beta: float = 1.0) -> ArrayPolicy:
    """Softmax policy π^m(a|x) ∝ exp(β ŝ^m(a|x)) (Sec. 6.1, App. B.2).

    Parameters
    ----------
    scores : array_like
        Users x items (or users x contexts x items).
    beta : float
        Inverse temperature β > 0: large β approaches argmax, small β uniform.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> softmax_policy(np.array([[0.9, 0.1, 0.5]]), beta=2).probs.round(3).tolist()
    [[0.606, 0.122, 0.272]]
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
    """The uniform policy π^m(a|x) = 1/|A| for every user (non-personalized, hence envy-free).

    Parameters
    ----------
    n_users, n_items : int
        Shape of the policy.
    n_contexts : int
        With more than one, the policy is users x contexts x items.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> uniform_policy(2, 4).probs[0].tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    n_users = check_positive_int("n_users", n_users)
    n_items = check_positive_int("n_items", n_items)
    n_contexts = check_positive_int("n_contexts", n_contexts)
    shape = (n_users, n_items) if n_contexts == 1 else (n_users, n_contexts, n_items)
    return ArrayPolicy(np.full(shape, 1.0 / n_items))
