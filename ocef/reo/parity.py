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
    """Ranking statistical parity of App. H.1, the output of :func:`ranking_statistical_parity`.

    Parameters
    ----------
    U : numpy.ndarray, shape (..., K)
        ``U_k = #{R=1, S=s_k} / #{S=s_k}`` over the pair space (eq. 24).
    delta_U : numpy.ndarray, shape (..., K)
        ``U_k - mean(U)``, absolute rather than relative (eq. 25).
    penalty : numpy.ndarray, shape (...)
        ``Delta_RSP = std(U) / mean(U)`` (eq. 26), population std.

    Examples
    --------
    >>> rsp = ranking_statistical_parity([30, 10], [100, 100])
    >>> isinstance(rsp, RspResult), rsp.U.tolist()
    (True, [0.3, 0.1])
    """

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray


class UserPrecision(NamedTuple):
    """User-side precision utility of App. H.2, the output of :func:`user_precision_utility`.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per user group: ``group, n`` (rows of the default log), ``U`` (precision, eq. 27)
        and ``delta_U`` (eq. 3).
    disparity : float
        ``std(U) / mean(U)`` over the user groups (population std, as eq. 2).

    Examples
    --------
    >>> d = pd.DataFrame({"Y": [1, 0, 1, 1, 0, 0], "A": ["f", "f", "f", "m", "m", "m"]})
    >>> up = user_precision_utility(d, user_group="A")
    >>> isinstance(up, UserPrecision), round(up.disparity, 4)
    (True, 0.3333)
    """

    table: pd.DataFrame
    disparity: float


def ranking_statistical_parity(n_recommended, n_candidates) -> RspResult:
    """Ranking statistical parity RSP over the pair space (App. H.1, eq. 24-26).

    ``U_k = #{R=1, S=s_k} / #{S=s_k}`` (eq. 24), ``delta_U_k = U_k - mean(U)`` (absolute, eq. 25),
    ``Delta_RSP = std(U) / mean(U)`` (eq. 26, population std). No label, so no random traffic
    needed. Vectorized over leading axes.

    Parameters
    ----------
    n_recommended : array_like, shape (..., K)
        ``#{R=1, S=s_k}``: recommended pairs per item group.
    n_candidates : array_like, shape (..., K)
        ``#{S=s_k}``: (request, item) pairs with an item of group k.

    Returns
    -------
    RspResult
        ``U``, ``delta_U`` and ``penalty``.

    Examples
    --------
    >>> round(float(ranking_statistical_parity([30, 10], [100, 100]).penalty), 4)
    0.5
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
    """User-side constrained RTPR, precision@k per user group, from the default log alone (App. H.2, eq. 27).

    ``U_k = #{Y=1, S(u)=s_k} / #{S(u)=s_k}`` over D_rec (every recommended pair is labelled, so no
    random traffic is needed); ``delta_U_k`` as eq. (3), disparity ``std(U) / mean(U)``.

    Parameters
    ----------
    default : pandas.DataFrame
        The default log D_rec, with the label and user-group columns.
    label : str or sequence of str
        :func:`label_indicator`.
    user_group : str
        The user-group column ``S(u)``; at least 2 groups, no missing values.

    Returns
    -------
    UserPrecision
        ``table`` (group, n, U, delta_U) and ``disparity``.

    Examples
    --------
    >>> d = pd.DataFrame({"Y": [1, 0, 1, 1, 0, 0], "A": ["f", "f", "f", "m", "m", "m"]})
    >>> user_precision_utility(d, user_group="A").table["U"].round(4).tolist()
    [0.6667, 0.3333]
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
