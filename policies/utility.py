"""The utility u^m(π) of eq. (1), Do et al. 2022 (OCEF): Σ_x q^m(x) Σ_a π(a|x) ρ^m(a|x)."""
from __future__ import annotations

import numpy as np

from ocef.validation import as_real_array, check_unit_array
from ocef.policies.base import ROW_SUM_ATOL, as_probabilities
from ocef.errors import ParameterError


def check_rho(rho, name: str = "rho") -> np.ndarray:
    """Validate a ground truth ρ^m(a|x): expected rewards in [0, 1] (Do et al. 2022, Sec. 3.1).

    Parameters
    ----------
    rho : array_like
        Users x items or users x contexts x items.
    name : str
        The argument's name in error messages.

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> check_rho(np.array([[0.2, 1.3]]))
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: rho must have every entry in [0, 1], found [1.3]
    """
    arr = as_real_array(name, rho)
    if arr.ndim not in (2, 3):
        raise ParameterError(f"{name} must be a 2-d (users x items) or 3-d (users x contexts x items) "
                         f"array, got shape {arr.shape}")
    return check_unit_array(name, arr)


def check_context_probs(context_probs, n_users: int, n_contexts: int) -> np.ndarray:
    """Validate the context distributions q^m(x) of eq. (1) (Do et al. 2022), one row per user.

    Parameters
    ----------
    context_probs : array_like or None
        Shape (X,) (shared by all users) or (M, X), rows summing to 1 within ``ROW_SUM_ATOL``;
        None: uniform.
    n_users, n_contexts : int

    Returns
    -------
    numpy.ndarray
        Shape (M, X) (a read-only broadcast view for a shared row).

    Examples
    --------
    >>> check_context_probs([0.2, 0.8], n_users=3, n_contexts=2).shape
    (3, 2)
    """
    if context_probs is None:
        return np.full((n_users, n_contexts), 1.0 / n_contexts)
    q = np.asarray(context_probs, dtype=float)
    if q.ndim == 1:
        q = np.broadcast_to(q, (n_users, q.shape[0]))
    if q.shape != (n_users, n_contexts):
        raise ParameterError(f"context_probs must have shape ({n_contexts},) or ({n_users}, {n_contexts}), "
                         f"got {np.shape(context_probs)}")
    if not np.all(np.isfinite(q)) or q.min() < 0:
        raise ParameterError("context_probs must be finite and non-negative")
    sums = q.sum(axis=1)
    if np.any(np.abs(sums - 1) > ROW_SUM_ATOL):
        bad = int(np.argmax(np.abs(sums - 1) > ROW_SUM_ATOL))
        raise ParameterError(f"context_probs rows must sum to 1, row {bad} sums to {sums[bad]!r}")
    return q


def check_rho_probs(rho, probs, context_probs=None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate a ground truth ρ and a policy π together, as eq. (1) (Do et al. 2022) combines them.

    Both context-free (2-d) or both contextual (3-d), with the same items (and contexts); the number
    of users may differ (envy evaluates a policy of other users on the rows of ρ).

    Parameters
    ----------
    rho : array_like
        :func:`check_rho`.
    probs : Policy or array_like
        :func:`~ocef.policies.base.as_probabilities`.
    context_probs : array_like, optional
        q^m(x) for contextual inputs (:func:`check_context_probs`; uniform if None).

    Returns
    -------
    rho, probs : numpy.ndarray
    context_probs : numpy.ndarray or None
        Shape (M, X) for contextual inputs.

    Examples
    --------
    >>> check_rho_probs(np.eye(2), np.full((2, 3), 1 / 3))
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: rho and probs must have the same items (and contexts): rho (2, 2), probs (2, 3)
    """
    r = check_rho(rho)
    p = as_probabilities(probs, "probs")
    if r.ndim != p.ndim:
        raise ParameterError(f"rho and probs must both be context-free (2-d) or both contextual (3-d), "
                         f"got shapes {r.shape} and {p.shape}")
    if r.shape[1:] != p.shape[1:]:
        raise ParameterError(f"rho and probs must have the same items (and contexts): rho {r.shape}, probs {p.shape}")
    q = None
    if r.ndim == 3:
        q = check_context_probs(context_probs, r.shape[0], r.shape[1])
    elif context_probs is not None:
        raise ParameterError("context_probs given for context-free rho/probs")
    return r, p, q


def utility(rho, probs, context_probs=None) -> np.ndarray:
    """u^m(π^m) of eq. (1) for every user m: Σ_x q^m(x) Σ_a π^m(a|x) ρ^m(a|x).

    To evaluate one policy π for every user, pass ``probs`` broadcast to rho's shape.

    Parameters
    ----------
    rho : array_like
        ρ^m(a|x) in [0, 1], users x items or users x contexts x items.
    probs : array_like or Policy
        Of the shape of ``rho``.
    context_probs : array_like, optional
        q^m(x), shape (X,) or (M, X); uniform if None.

    Returns
    -------
    numpy.ndarray
        One utility per user.

    Examples
    --------
    >>> utility(np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.2]]), np.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]]))
    array([0.75, 1.  ])
    """
    r, p, q = check_rho_probs(rho, probs, context_probs)
    if r.shape[0] != p.shape[0]:
        raise ParameterError(f"rho and probs must have the same number of users, got {r.shape[0]} and {p.shape[0]}")
    if q is None:
        return np.einsum("ma,ma->m", r, p)
    return np.einsum("mx,mxa,mxa->m", q, r, p)
