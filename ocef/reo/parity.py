"""Other fairness metrics of App. H: ranking statistical parity (H.1) and user-side precision (H.2).

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

from ocef.reo.estimators import (
    _check_log,
    _resolve_groups,
    label_indicator,
    relative_group_utilities,
    reo_penalty,
)
from ocef.errors import ParameterError

# --------------------------------------------------------------------------------------------
# Other metrics (App. H)
# --------------------------------------------------------------------------------------------

class RspResult(NamedTuple):
    """Ranking statistical parity (App. H.1): ``U (..., K)``, ``delta_U (..., K)``, ``penalty (...)``."""

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray


class UserPrecision(NamedTuple):
    """User-side precision utility (App. H.2): per-group ``table`` and the ``disparity`` std/mean."""

    table: pd.DataFrame
    disparity: float


def ranking_statistical_parity(n_recommended, n_candidates) -> RspResult:
    """RSP (App. H.1, eq. 24-26): ``U_k = #{R=1, S=s_k} / #{S=s_k}`` over the pair space,
    ``delta_U_k = U_k - mean(U)`` (absolute, eq. 25), ``Delta_RSP = std(U) / mean(U)``.

    No labels, hence no random traffic needed: ``n_candidates[k]`` is the number of
    (request, item) pairs with an item of group k (requests x items of the group).
    Returns ``(U, delta_U, Delta_RSP)``; vectorized over leading axes.
    """
    rec = np.asarray(n_recommended, dtype=float)
    cand = np.asarray(n_candidates, dtype=float)
    if rec.shape != cand.shape or rec.ndim == 0 or rec.shape[-1] < 2:
        raise ParameterError(f"n_recommended and n_candidates must have the same shape (..., K>=2), "
                         f"got {rec.shape} and {cand.shape}")
    if np.any(cand <= 0) or np.any(rec < 0) or np.any(rec > cand):
        raise ParameterError("need 0 <= n_recommended <= n_candidates and n_candidates > 0 for every group")
    U = rec / cand
    return RspResult(U, U - U.mean(axis=-1, keepdims=True), reo_penalty(U))


def user_precision_utility(default: pd.DataFrame, *, label: str | Sequence[str] = "Y",
                           user_group: str) -> UserPrecision:
    """User-side constrained RTPR = precision@N_show (App. H.2, eq. 27), from D_rec alone:
    ``U_k = #{Y=1, S(u)=s_k} / #{S(u)=s_k}`` over the default traffic.

    Returns a table (group, n, U, delta_U with eq. 3) and the disparity std(U)/mean(U).
    """
    _check_log(default, label, user_group, "default")
    y = label_indicator(default, label, name="default")
    names = _resolve_groups([default], user_group, None)
    codes = pd.Categorical(default[user_group], categories=names).codes
    n = np.bincount(codes, minlength=len(names))
    pos = np.bincount(codes[y], minlength=len(names))
    U = pos / n
    table = pd.DataFrame({"group": names, "n": n, "U": U, "delta_U": relative_group_utilities(U)})
    return UserPrecision(table, float(reo_penalty(U)))
