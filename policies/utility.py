"""The utility u^m(π) of eq. (1), seed 001: Σ_x q^m(x) Σ_a π(a|x) ρ^m(a|x)."""
from __future__ import annotations

import numpy as np

from ocef.validation import as_real_array, check_unit_array
from ocef.policies.base import ROW_SUM_ATOL, as_probabilities
from ocef.errors import ParameterError


def check_rho(rho, name: str = "rho") -> np.ndarray:
    """Expected rewards ρ^m(a|x) in [0, 1]: users x items or users x contexts x items."""
    arr = as_real_array(name, rho)
    if arr.ndim not in (2, 3):
        raise ParameterError(f"{name} must be a 2-d (users x items) or 3-d (users x contexts x items) "
                         f"array, got shape {arr.shape}")
    return check_unit_array(name, arr)


def check_context_probs(context_probs, n_users: int, n_contexts: int) -> np.ndarray:
    """Context distributions q^m(x): (X,) shared by all users or (M, X); rows sum to 1.

    ``None`` means the uniform distribution over the X contexts.
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
    """Validate ρ and π together: same number of items (and contexts); returns arrays.

    The third value is the (M, X) context distribution for contextual inputs, else None.
    ``probs`` may be a :class:`~ocef.policies.base.Policy` or an array.
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
    """u^m(π^m) of eq. (1) for every user m: row-wise Σ_x q^m(x) Σ_a π^m(a|x) ρ^m(a|x).

    ``rho`` and ``probs`` (array or Policy) have the same shape, users x items or
    users x contexts x items; ``context_probs`` q^m(x) is (X,) or (M, X), uniform if None.
    To evaluate one policy π for every user, pass ``probs`` broadcast to rho's shape.
    """
    r, p, q = check_rho_probs(rho, probs, context_probs)
    if r.shape[0] != p.shape[0]:
        raise ParameterError(f"rho and probs must have the same number of users, got {r.shape[0]} and {p.shape[0]}")
    if q is None:
        return np.einsum("ma,ma->m", r, p)
    return np.einsum("mx,mxa,mxa->m", q, r, p)
