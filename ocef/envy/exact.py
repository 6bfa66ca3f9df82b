"""Exact envy measures (Do et al. 2022: Def. 3.1, eq. (3), (5), (6), Sec. 6).

Everything derives from the utility matrix U[m, n] = u^m(π^n) (eq. (1)):

- individual envy of m: max(max_n U[m, n] − U[m, m], 0)  (Def. 3.1);
- u^m(π_k^m) = Σ_{n∈g_k} γ_{m,n} U[m, n] for a matching policy (eq. (4), linearity of u^m);
- μ_k^i = mean_{m∈g_i} u^m(π_k^m)  (eq. (5)),  μ^i = mean_{m∈g_i} U[m, m]  (eq. (3));
- group envy Δ^i = max(max_k μ_k^i − μ_i^i, 0)  (Sec. 6);
- average envy (1/G) Σ_i Δ^i and proportion of ε-envious (1/G) Σ_i 1{Δ^i > ε} (Sec. 6),
  with the same definitions for individuals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ocef.validation import check_in_interval
from ocef.envy.groups import check_group_names, check_partition
from ocef.envy.matching import MixtureWeights, mixture_weights
from ocef.policies.utility import check_rho_probs
from ocef.results import Result, column_records, jsonable, presents
from ocef.validation import Options, Real, validate_params
from ocef._progress import PROGRESS
from ocef.errors import ParameterError, ParameterTypeError

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is built
    import pandas as pd

#: the columns of :attr:`EnvySummary.groups`, in order
GROUP_COLUMNS = ("group", "name", "size", "envy", "envious", "utility", "best_group", "best_name", "best_utility")


#: Policies with at most this fraction of non-zero probabilities use a sparse product.
SPARSE_DENSITY = 0.02


def utility_matrix(rho, probs, context_probs=None, *, dtype=np.float64) -> np.ndarray:
    """U[m, n] = u^m(π^n) = Σ_x q^m(x) Σ_a ρ^m(a|x) π^n(a|x) (eq. (1)) for all pairs of users, in one
    matrix product (``dtype=np.float32``: about 3x faster, errors of order 1e-6).

    Parameters
    ----------
    rho : array_like
        Users x items (or users x contexts x items).
    probs : array_like or Policy
        Of the same shape.
    context_probs : array_like, optional
        q^m(x), for contextual policies.
    dtype : numpy dtype
        Precision of the product.

    Returns
    -------
    numpy.ndarray
        Users x users.

    Examples
    --------
    >>> utility_matrix(np.array([[0.9, 0.1], [0.2, 0.7]]), np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
    [[0.1, 0.9], [0.7, 0.2]]
    """
    r, p, q = check_rho_probs(rho, probs, context_probs)
    if r.shape[0] != p.shape[0]:
        raise ParameterError(f"rho and probs must have the same number of users, got {r.shape[0]} and {p.shape[0]}")
    if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ParameterError(f"dtype must be float64 or float32, got {dtype!r}")
    m = r.shape[0]
    left = r if q is None else (q[:, :, None] * r)
    left = left.reshape(m, -1).astype(dtype, copy=False)
    right = p.reshape(m, -1)
    if np.count_nonzero(right) <= SPARSE_DENSITY * right.size:
        # argmax, ranking, exposure-constrained policies have a few non-zeros per row:
        # the same product as a sparse x dense one, O(M * nnz) instead of O(M^2 * A)
        from scipy import sparse

        return np.asarray(sparse.csr_matrix(right.astype(dtype, copy=False)) @ left.T).T.astype(np.float64, copy=False)
    return (left @ right.astype(dtype, copy=False).T).astype(np.float64, copy=False)


def check_utility_matrix(U) -> np.ndarray:
    """A finite square M x M matrix U[m, n] = u^m(π^n)."""
    arr = np.asarray(U, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ParameterError(f"U must be a square users x users matrix, got shape {arr.shape}")
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ParameterError("U must be non-empty and finite")
    return arr


def individual_envy(U) -> np.ndarray:
    """Envy of each user: max(max_n u^m(π^n) − u^m(π^m), 0) (Def. 3.1, Sec. 6).

    Parameters
    ----------
    U : array_like, shape (M, M)
        :func:`utility_matrix`.

    Returns
    -------
    numpy.ndarray, shape (M,)

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> individual_envy(utility_matrix(*make_toy_envy()[:2])).round(6).tolist()
    [0.8, 0.6, 0.8, 0.5]
    """
    arr = check_utility_matrix(U)
    return np.maximum(arr.max(axis=1) - np.diag(arr), 0.0)


def own_group_utilities(U, labels) -> np.ndarray:
    """Utility of each group under its own recommendations, μ^i = (1/|g_i|) Σ_{m∈g_i} u^m(π^m) (eq. (3)).

    Parameters
    ----------
    U : array_like, shape (M, M)
        The utility matrix U[m, n] = u^m(π^n).
    labels : array_like, shape (M,)
        :func:`ocef.envy.groups.check_partition`.

    Returns
    -------
    numpy.ndarray, shape (G,)

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> rho, probs, labels = make_toy_envy()
    >>> own_group_utilities(utility_matrix(rho, probs), labels).round(6).tolist()
    [0.15, 0.15]
    """
    arr = check_utility_matrix(U)
    lab = check_partition(labels, arr.shape[0])
    return np.bincount(lab, weights=np.diag(arr)) / np.bincount(lab)


def _check_weights(weights: MixtureWeights, labels: np.ndarray) -> None:
    if not isinstance(weights, MixtureWeights):
        raise ParameterTypeError(f"weights must be a MixtureWeights (see ocef.envy.matching.mixture_weights), "
                        f"got {type(weights).__name__}")
    if weights.labels.shape != labels.shape or not np.array_equal(weights.labels, labels):
        raise ParameterError("weights were computed for a different partition than labels")


def transported_user_utilities(U, labels, weights: MixtureWeights) -> np.ndarray:
    """Each user's utility under each group's matching policy, T[m, k] = u^m(π_k^m) (eq. (4)): by
    linearity of u^m (eq. (1)), U averaged with the mixture weights.

    Parameters
    ----------
    U : array_like, shape (M, M)
        The utility matrix U[m, n] = u^m(π^n).
    labels : array_like, shape (M,)
        The partition into G groups.
    weights : MixtureWeights
        :func:`ocef.envy.matching.mixture_weights`.

    Returns
    -------
    numpy.ndarray, shape (M, G)

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> rho, probs, labels = make_toy_envy()
    >>> transported_user_utilities(utility_matrix(rho, probs), labels, mixture_weights(probs, labels))[0].tolist()
    [0.1, 0.9]
    """
    arr = check_utility_matrix(U)
    lab = check_partition(labels, arr.shape[0])
    _check_weights(weights, lab)
    members = weights.members
    if weights.matching == "average" and not weights.blocks:     # uniform γ: one matrix product
        onehot = np.zeros((lab.size, len(members)))
        onehot[np.arange(lab.size), lab] = 1.0
        return (arr @ onehot) / np.bincount(lab)
    out = np.empty((lab.size, len(members)))
    for i, g_i in enumerate(members):
        rows = arr[g_i]
        for k, g_k in enumerate(members):
            out[g_i, k] = np.einsum("mn,mn->m", rows[:, g_k], weights[i, k])
    return out


def group_utilities(U, labels, weights: MixtureWeights) -> np.ndarray:
    """Utility of group g_i under g_k's matching policies, mu[i, k] = μ_k^i = (1/|g_i|) Σ_{m∈g_i}
    u^m(π_k^m) (eq. (5), Def. 4.1); :func:`group_envy` reads the envy off it.

    Parameters
    ----------
    U : array_like, shape (M, M)
        The utility matrix U[m, n] = u^m(π^n).
    labels : array_like, shape (M,)
        The partition into G groups.
    weights : MixtureWeights
        γ for this partition (:func:`ocef.envy.matching.mixture_weights`).

    Returns
    -------
    numpy.ndarray, shape (G, G)

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> rho, probs, labels = make_toy_envy()
    >>> group_utilities(utility_matrix(rho, probs), labels, mixture_weights(probs, labels)).round(2).tolist()
    [[0.15, 0.85], [0.8, 0.15]]
    """
    lab = check_partition(labels, np.shape(U)[0])
    T = transported_user_utilities(U, lab, weights)
    onehot = np.zeros((lab.size, T.shape[1]))
    onehot[np.arange(lab.size), lab] = 1.0
    return (onehot.T @ T) / np.bincount(lab)[:, None]


def group_envy(mu) -> np.ndarray:
    """Δ^i = max(max_k μ_k^i − μ_i^i, 0) (Sec. 6) from the G x G matrix mu[i, k] = μ_k^i.

    Parameters
    ----------
    mu : array_like
        G x G: mu[i, k] is group i's utility under group k's (transported) policies.

    Returns
    -------
    numpy.ndarray
        The envy of each group (0 when its own policies are best for it).

    Examples
    --------
    >>> group_envy(np.array([[0.5, 0.8], [0.6, 0.4]]))
    array([0.3, 0.2])
    """
    arr = np.asarray(mu, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.size == 0:
        raise ParameterError(f"mu must be a square groups x groups matrix, got shape {arr.shape}")
    return np.maximum(arr.max(axis=1) - np.diag(arr), 0.0)


def average_envy(envy) -> float:
    """Average envy (1/G) Σ_i Δ^i, one of the two envy measures of Sec. 6.

    Parameters
    ----------
    envy : array_like, shape (G,)
        The envy of each group (:func:`group_envy`) or user (:func:`individual_envy`).

    Returns
    -------
    float
        The mean envy.

    Examples
    --------
    >>> average_envy([0.5, 0.25, 0.0, 0.25])
    0.25
    """
    return float(np.mean(envy))


def proportion_envious(envy, epsilon: float) -> float:
    """Proportion of ε-envious groups (or users), (1/G) Σ_i 1{Δ^i > ε} (Sec. 6); envy equal to ε is not counted.

    Parameters
    ----------
    envy : array_like, shape (G,)
        The envy of each group or user.
    epsilon : float
        The tolerance ε in [0, 1]; envy equal to ε is not counted.

    Returns
    -------
    float

    Examples
    --------
    >>> proportion_envious([0.7, 0.65, 0.0, 0.05], epsilon=0.05)
    0.5
    """
    eps = check_in_interval("epsilon", epsilon, 0.0, 1.0, low_open=False)
    return float(np.mean(np.asarray(envy) > eps))


@dataclass(frozen=True)
class EnvySummary(Result):
    """Envy measures of a recommender system for individuals and for one partition (Sec. 6).

    Exact values from the ground truth (no sampling, so no interval); group fields are None when
    only individual envy was computed.

    Attributes
    ----------
    epsilon : float
        The tolerance ε.
    individual_envy : numpy.ndarray, shape (M,)
        Def. 3.1.
    individual_average_envy, individual_prop_envious : float
        Average envy and share of ε-envious users (Sec. 6).
    matching : {"transport", "average"} or None
        How groups were compared.
    mu : numpy.ndarray, shape (G, G), optional
        mu[i, k] = μ_k^i (eq. (5)).
    group_envy : numpy.ndarray, shape (G,), optional
        Δ^i of each group.
    group_average_envy, group_prop_envious : float, optional
        Average envy and share of ε-envious groups.
    columns : mapping of str to sequence, optional
        ``group, name, size, envy, envious, utility, best_group, best_name, best_utility``.
    groups : pandas.DataFrame
        ``columns`` as a DataFrame, built when first read (``to_dict`` needs no pandas).

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> envy_report(*make_toy_envy()).group_prop_envious
    1.0
    """

    epsilon: float
    individual_envy: np.ndarray = field(repr=False)
    individual_average_envy: float
    individual_prop_envious: float
    matching: str | None = None
    mu: np.ndarray | None = field(default=None, repr=False)
    group_envy: np.ndarray | None = field(default=None, repr=False)
    group_average_envy: float | None = None
    group_prop_envious: float | None = None
    columns: Mapping[str, Any] | None = field(default=None, repr=False)

    @cached_property
    def groups(self) -> pd.DataFrame:
        """The per-group table (see the class docstring); no rows without groups."""
        import pandas as pd

        return pd.DataFrame(columns=list(GROUP_COLUMNS)) if self.columns is None else pd.DataFrame(self.columns)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per group (a copy of ``groups``): its size, envy Δ^i and best other group.

        Columns ``group`` (index), ``name``, ``size`` (|g_i|), ``envy`` (Δ^i), ``envious``
        (Δ^i > ε), ``utility`` (μ_i^i of eq. (5)), ``best_group`` and ``best_name`` (argmax_k
        μ_k^i) and ``best_utility`` (max_k μ_k^i); no rows without groups.
        """
        return self.groups.copy()

    @presents
    def to_dict(self) -> dict:
        """The strict-JSON record of ``ocef envy --json`` (which adds ``source``); ``as_dict`` is the same method.

        Keys ``epsilon``, ``matching``, ``n_users``, ``n_groups``, ``individual`` (a dict with
        ``average_envy`` and ``prop_envious``), ``group_average_envy``,
        ``group_prop_envious`` and ``groups`` (the rows of :meth:`to_frame` as records).
        """
        return jsonable({
            "epsilon": self.epsilon,
            "matching": self.matching,
            "n_users": int(self.individual_envy.size),
            "n_groups": 0 if self.columns is None else len(self.columns["group"]),
            "individual": {"average_envy": self.individual_average_envy,
                           "prop_envious": self.individual_prop_envious},
            "group_average_envy": self.group_average_envy,
            "group_prop_envious": self.group_prop_envious,
            "groups": [] if self.columns is None else column_records(self.columns),
        })

    as_dict = to_dict


def envy_summary(U, labels=None, weights: MixtureWeights | None = None, *,
                 epsilon: float = 0.05, group_names=None) -> EnvySummary:
    """Average envy and proportion of ε-envious, for individuals and groups (Sec. 6), from U
    (:func:`envy_report` computes U and the weights).

    Parameters
    ----------
    U : array_like, shape (M, M)
        The utility matrix U[m, n] = u^m(π^n) (eq. (1)).
    labels : array_like, shape (M,), optional
        Without it only individual envy is computed.
    weights : MixtureWeights, optional
        γ for ``labels`` (required with ``labels``, refused without).
    epsilon : float
        The tolerance ε in [0, 1] of the proportion of envious.
    group_names : sequence of str, optional
        One name per group.

    Returns
    -------
    EnvySummary

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> envy_summary(utility_matrix(*make_toy_envy()[:2]), epsilon=0.7).individual_prop_envious
    0.5
    """
    eps = check_in_interval("epsilon", epsilon, 0.0, 1.0, low_open=False)
    ind = individual_envy(U)
    individual = dict(epsilon=eps, individual_envy=ind, individual_average_envy=average_envy(ind),
                      individual_prop_envious=proportion_envious(ind, eps))
    if labels is None:
        if weights is not None:
            raise ParameterError("weights given without labels")
        return EnvySummary(**individual)
    if weights is None:
        raise ParameterError("labels given without weights: compute them with ocef.envy.matching.mixture_weights")
    lab = check_partition(labels, ind.size)
    mu = group_utilities(U, lab, weights)
    delta = group_envy(mu)
    n_groups = mu.shape[0]
    names = check_group_names(group_names, n_groups)
    best = mu.argmax(axis=1)
    columns = {
        "group": np.arange(n_groups),
        "name": names,
        "size": np.bincount(lab),
        "envy": delta,
        "envious": delta > eps,
        "utility": np.diag(mu),
        "best_group": best,
        "best_name": [names[b] for b in best],
        "best_utility": mu[np.arange(n_groups), best],
    }
    return EnvySummary(**individual, matching=weights.matching, mu=mu, group_envy=delta,
                       group_average_envy=average_envy(delta), group_prop_envious=proportion_envious(delta, eps),
                       columns=columns)


@validate_params(matching=Options("transport", "average"), epsilon=Real(0, 1), progress=PROGRESS)
def envy_report(rho, probs, labels=None, *, matching: str = "transport", epsilon: float = 0.05,
                context_probs=None, dtype=np.float64, group_names=None, progress=False) -> EnvySummary:
    """Exact envy of a system from the ground truth ρ and its policies: U, γ, then :func:`envy_summary`.

    Parameters
    ----------
    rho, probs, context_probs, dtype
        As in :func:`utility_matrix`.
    labels : array_like, optional
        Group of each user; without it only individual envy is computed.
    matching : {"transport", "average"}
        Optimal transport (Def. 4.2) or uniform.
    epsilon, group_names
        As in :func:`envy_summary`.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    EnvySummary

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> envy_report(*make_toy_envy()).groups["envy"].round(2).tolist()
    [0.7, 0.65]
    """
    from ocef._progress import progress_bar

    with progress_bar(progress, total=3, desc="envy: utilities, matching, summary", unit="stage") as bar:
        U = utility_matrix(rho, probs, context_probs, dtype=dtype)
        bar.update()
        weights = None
        if labels is not None:
            weights = mixture_weights(probs, labels, matching)
            if weights.n_groups < 2:
                # group envy compares a group with the others: with one group it was reported as 0
                raise ParameterError("labels put every user in one group: group envy needs at least 2 groups "
                                     "(give labels=None for individual envy only)")
        bar.update()
        summary = envy_summary(U, labels, weights, epsilon=epsilon, group_names=group_names)
        bar.update()
    return summary


__all__ = [
    "utility_matrix", "individual_envy", "own_group_utilities", "transported_user_utilities",
    "group_utilities", "group_envy", "average_envy", "proportion_envious", "EnvySummary",
    "envy_summary", "envy_report",
]
