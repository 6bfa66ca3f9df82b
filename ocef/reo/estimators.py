"""Point estimates of REO (eq. 1-7) and their delta-method intervals (Algorithm 1), on arrays and on logs.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import numpy as np

from ocef.backends import _missing, frame_label_indicator, label_columns
from ocef.reo.groups import _plain_key, resolve_groups
from ocef.results import Result, column_records, jsonable, presents
from ocef.validation import check_in_interval
from ocef.errors import ParameterError, ParameterTypeError

if TYPE_CHECKING:                      # pandas is imported where a DataFrame is made or read
    import pandas as pd

# --------------------------------------------------------------------------------------------
# Pure formulas
# --------------------------------------------------------------------------------------------

def rtpr_utilities(P, Q) -> np.ndarray:
    """RTPR utilities ``U_k = Q_k / P_k`` of the K item groups (eq. 4 and 6).

    ``U_k = P(R=1 | Y=1, S=s_k)`` (eq. 1) is, by Bayes' rule, ``P(R=1) Q_k / P_k`` with
    ``P_k = P(Y=1, S=s_k)`` and ``Q_k = P(Y=1, S=s_k | R=1)`` (eq. 5). The common factor
    ``P(R=1)`` is dropped: ``delta_U_k`` and ``Delta_REO`` (eq. 2, 3) do not depend on it.

    Parameters
    ----------
    P : array_like, shape (..., K)
        ``P_k``, joint rates of a positive label and group k in the random traffic, in [0, 1].
    Q : array_like, shape (..., K)
        ``Q_k``, the same rates in the default traffic, in [0, 1]; broadcast against ``P``.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        ``Q / P``. A ``P_k = 0`` gives ``inf`` or ``nan`` without a warning; the log entry points
        (:func:`estimate_reo`, :func:`reo_result_from_counts`) refuse such input with a named error.

    See Also
    --------
    reo_point_estimates : ``U``, ``delta_U`` and the penalty in one call.

    Examples
    --------
    >>> rtpr_utilities([0.2, 0.1], [0.1, 0.15]).round(4).tolist()
    [0.5, 1.5]
    """
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return Q / P


def relative_group_utilities(U) -> np.ndarray:
    """Relative utilities ``delta_U_k = U_k / mean(U_1..U_K) - 1`` (eq. 3 and 7).

    Positive for a group the default strategy favours among relevant items, negative for one it
    disfavours; they sum to 0 over the groups and are invariant to rescaling ``U``.

    Parameters
    ----------
    U : array_like, shape (..., K)
        Utilities of the K groups (:func:`rtpr_utilities`), >= 0, over the last axis.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        ``delta_U``; ``nan`` (no warning) where ``mean(U) = 0``.

    Examples
    --------
    >>> relative_group_utilities([0.5, 1.5]).tolist()
    [-0.5, 0.5]
    """
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U / U.mean(axis=-1, keepdims=True) - 1.0


def reo_penalty(U) -> np.ndarray:
    """The REO penalty ``Delta_REO = std(U) / mean(U)`` (eq. 2 and 6).

    The standard deviation is the *population* one (divisor K), as the gradient
    ``H_j = delta_U_j / (K Delta_REO)`` of App. F and the 11.1% threshold of Sec. 4.3
    (``U_1 = 0.8 U_2`` gives 1/9) require. It equals ``sqrt(mean(delta_U_k^2))`` (eq. 19): 0 when
    every group has the same utility.

    Parameters
    ----------
    U : array_like, shape (..., K)
        Utilities of the K groups, >= 0; the statistic is taken over the last axis.

    Returns
    -------
    numpy.ndarray, shape (...)
        The penalty (a 0-d array for one vector of utilities); ``nan`` where ``mean(U) = 0``.

    Examples
    --------
    >>> float(reo_penalty([0.5, 1.5]))
    0.5
    >>> reo_penalty([[1.0, 1.0], [0.8, 1.0]]).round(4).tolist()   # equal; the 80% rule's 1/9
    [0.0, 0.1111]
    """
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U.std(axis=-1) / U.mean(axis=-1)


def reo_point_estimates(P, Q) -> "ReoPoint":
    """Point estimates ``(U_k, delta_U_k, Delta_REO)`` from ``P_k``, ``Q_k`` (eq. 4, 6 and 7).

    Parameters
    ----------
    P : array_like, shape (..., K)
        ``P_k = P(Y=1, S=s_k)`` estimated on the random traffic (eq. 5), in [0, 1].
    Q : array_like, shape (..., K)
        ``Q_k = P(Y=1, S=s_k | R=1)`` estimated on the default traffic (eq. 5), in [0, 1].

    Returns
    -------
    ReoPoint
        ``U`` (..., K) from :func:`rtpr_utilities`, ``delta_U`` (..., K) from
        :func:`relative_group_utilities` and ``penalty`` (...) from :func:`reo_penalty`.

    Examples
    --------
    >>> pt = reo_point_estimates([0.2, 0.1], [0.1, 0.15])
    >>> pt.U.round(4).tolist(), pt.delta_U.round(4).tolist(), round(float(pt.penalty), 4)
    ([0.5, 1.5], [-0.5, 0.5], 0.5)
    """
    U = rtpr_utilities(P, Q)
    return ReoPoint(U, relative_group_utilities(U), reo_penalty(U))


def normal_quantile(confidence: float) -> float:
    """The normal quantile ``z(delta/2)`` of the intervals of Algorithm 1 (App. D).

    The upper ``(1 - confidence)/2`` quantile of N(0, 1), so that ``estimate +- z SE`` has
    two-sided level ``confidence``. Computed from the lower tail, which keeps its precision up
    to ``confidence = 1 - 1e-16``.

    Parameters
    ----------
    confidence : float
        Two-sided level, in the open interval (0, 1).

    Returns
    -------
    float
        ``z > 0``.

    Examples
    --------
    >>> round(normal_quantile(0.95), 4)
    1.96
    """
    c = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    from statistics import NormalDist     # the standard library's quantile: no scipy import at start-up

    # the lower tail (1 - c)/2 keeps its precision up to c = 1 - 1e-16, where 0.5 + c/2 rounds to 1
    # and inv_cdf(1) raised StatisticsError
    return float(-NormalDist().inv_cdf((1.0 - c) / 2.0))


class ReoPoint(NamedTuple):
    """Point estimates of REO (eq. 4, 6 and 7), the output of :func:`reo_point_estimates`.

    Parameters
    ----------
    U : numpy.ndarray, shape (..., K)
        Utilities ``U_k = Q_k / P_k``.
    delta_U : numpy.ndarray, shape (..., K)
        Relative utilities ``U_k / mean(U) - 1`` (eq. 3).
    penalty : numpy.ndarray, shape (...)
        ``Delta_REO = std(U) / mean(U)`` (eq. 2).

    Examples
    --------
    >>> ReoPoint(*reo_point_estimates([0.2, 0.1], [0.1, 0.15])).delta_U.round(4).tolist()
    [-0.5, 0.5]
    """

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray


class ReoJacobians(NamedTuple):
    """Jacobians of the delta method of Algorithm 1 (App. F), the output of :func:`reo_jacobians`.

    Parameters
    ----------
    G : numpy.ndarray, shape (..., K, K)
        ``G[..., j, k] = d delta_U_k / d U_j``.
    H : numpy.ndarray, shape (..., K)
        ``H[..., j] = d Delta_REO / d delta_U_j`` (NaN where the penalty is 0).

    Examples
    --------
    >>> J = reo_jacobians([0.5, 1.5])
    >>> isinstance(J, ReoJacobians), J.H.tolist()
    (True, [-0.5, 0.5])
    """

    G: np.ndarray
    H: np.ndarray


#: Delta-method covariances of the U_k: ``"diagonal"`` is Algorithm 1 as printed, ``"full"``
#: keeps the multinomial covariances of the Q_k (one default log) and of the P_k (one random log).
COVARIANCES = ("full", "diagonal")


class ReoArrays(NamedTuple):
    """Algorithm 1 on arrays (App. D, App. F), the output of :func:`delta_method_reo`.

    Every field keeps the leading batch shape ``(...)`` of the input, so one call processes many
    replicates or days. :meth:`ci_delta_U` and :meth:`ci_penalty` give the intervals
    ``estimate +- z SE``.

    Parameters
    ----------
    U, delta_U : numpy.ndarray, shape (..., K)
        Utilities ``U_k = Q_k / P_k`` (eq. 6) and relative utilities (eq. 7).
    penalty : numpy.ndarray, shape (...)
        ``Delta_REO`` (eq. 6).
    gamma : numpy.ndarray, shape (..., K)
        Diagonal of ``Gamma = Cov(U_hat)`` (the same for both covariances).
    sigma : numpy.ndarray, shape (..., K, K)
        ``Sigma = G^T Gamma G``, the covariance of ``delta_U``.
    xi : numpy.ndarray, shape (...)
        ``Xi = H^T Sigma H``, the variance of the penalty.
    se_delta_U : numpy.ndarray, shape (..., K)
        ``sqrt(diag Sigma)``.
    se_penalty : numpy.ndarray, shape (...)
        ``sqrt(Xi)``; NaN where the penalty is 0 (not differentiable there).
    z : float
        ``z(delta/2)`` of the requested confidence (:func:`normal_quantile`).
    covariance : {"diagonal", "full"}
        ``"diagonal"``: Algorithm 1 as printed; ``"full"``: the multinomial covariances kept
        (:func:`utility_covariance`). Default ``"diagonal"``.

    Examples
    --------
    >>> arr = delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000)
    >>> [round(float(v), 4) for v in arr.ci_penalty()]
    [0.3777, 0.6223]
    """

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray
    gamma: np.ndarray       # diagonal of Gamma = Cov(U), (..., K) (the same for both covariances)
    sigma: np.ndarray       # Sigma = G^T Gamma G = Cov(delta_U), (..., K, K)
    xi: np.ndarray          # Xi = H^T Sigma H = Var(penalty), (...)
    se_delta_U: np.ndarray  # sqrt(diag Sigma), (..., K)
    se_penalty: np.ndarray  # sqrt(Xi), (...); NaN where penalty == 0
    z: float                # z(delta/2)
    covariance: str = "diagonal"   # "diagonal" (Algorithm 1) or "full"

    def ci_delta_U(self) -> tuple[np.ndarray, np.ndarray]:
        """The normal intervals ``delta_U_k +- z SE(delta_U_k)`` of the relative utilities (eq. 7, Algorithm 1).

        ``SE(delta_U_k) = sqrt(Sigma_kk)`` (``se_delta_U``) and ``z = z(delta/2)`` of the
        confidence given to :func:`delta_method_reo`.

        Returns
        -------
        ci_low, ci_high : numpy.ndarray, shape (..., K)
            Lower and upper bounds per group, with the batch shape of the input.

        Examples
        --------
        >>> arr = delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000)      # P, Q, |D_rec|, |D_rand|
        >>> lo, hi = arr.ci_delta_U()
        >>> arr.delta_U.round(4).tolist(), lo.round(4).tolist(), hi.round(4).tolist()
        ([-0.5, 0.5], [-0.6223, 0.3777], [-0.3777, 0.6223])
        """
        return self.delta_U - self.z * self.se_delta_U, self.delta_U + self.z * self.se_delta_U

    def ci_penalty(self) -> tuple[np.ndarray, np.ndarray]:
        """The normal interval ``Delta_REO +- z sqrt(Xi)`` of the penalty (eq. 6, Algorithm 1).

        Where the penalty is exactly 0 its standard error is undefined (the penalty is not
        differentiable there) and both bounds are NaN. The interval may reach below 0 on small
        logs; the delta method is then unreliable (see :class:`ReoResult`).

        Returns
        -------
        ci_low, ci_high : numpy.ndarray, shape (...)
            Lower and upper bounds, with the batch shape of the input (0-d for one estimate).

        Examples
        --------
        Two replicates in one call; in the second the utilities are equal, so the penalty is 0:

        >>> arr = delta_method_reo([[0.2, 0.1], [0.2, 0.2]], [[0.1, 0.15], [0.1, 0.1]], 1000, 1000)
        >>> lo, hi = arr.ci_penalty()
        >>> arr.penalty.round(4).tolist(), lo.round(4).tolist(), hi.round(4).tolist()
        ([0.5, 0.0], [0.3777, nan], [0.6223, nan])
        """
        return self.penalty - self.z * self.se_penalty, self.penalty + self.z * self.se_penalty


def utility_covariance_diagonal(P, Q, n_default, n_random) -> np.ndarray:
    """Diagonal of ``Gamma = Cov(U_hat)`` as Algorithm 1 prints it (App. D, App. F).

    ``Gamma_kk = U_k^2 ((1-Q_k) / (Q_k n_default) + (1-P_k) / (P_k n_random))``, the delta-method
    variance of ``U_hat_k = Q_hat_k / P_hat_k`` with independent binomial ``Q_hat_k`` and
    ``P_hat_k``. It is computed as ``(Q_k (1-Q_k)/n_default + Q_k^2 (1-P_k)/(P_k n_random)) / P_k^2``,
    algebraically identical and finite when ``Q_k = 0`` (then ``U_k = 0`` and ``Gamma_kk = 0``).

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        ``P_k`` (random traffic) and ``Q_k`` (default traffic), eq. (5).
    n_default, n_random : int or array_like, shape (...)
        Sizes ``|D_rec|`` and ``|D_rand|`` of the two logs (> 0; ``inf`` drops that log's term).

    Returns
    -------
    numpy.ndarray, shape (..., K)
        ``Gamma_kk``; ``inf``/``nan`` where ``P_k = 0``.

    Examples
    --------
    >>> utility_covariance_diagonal([0.2, 0.1], [0.1, 0.15], 1000, 1000).round(5).tolist()
    [0.00325, 0.033]
    """
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    nd = np.asarray(n_default, dtype=float)[..., None]
    nr = np.asarray(n_random, dtype=float)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (Q * (1.0 - Q) / nd + Q * Q * (1.0 - P) / (P * nr)) / (P * P)


def utility_covariance(P, Q, n_default, n_random) -> np.ndarray:
    """Full delta-method covariance ``Gamma = Cov(U_hat)`` from the multinomial logs (App. F, corrected).

    The ``Q_hat_k`` are the cell shares of one multinomial default log,
    ``Cov(Q_hat_j, Q_hat_k) = (delta_jk Q_k - Q_j Q_k) / n_default``, and likewise the
    ``P_hat_k`` of the random log; with ``dU_k/dQ_k = 1/P_k`` and ``dU_k/dP_k = -U_k/P_k`` the
    delta method gives::

        Gamma_jk = delta_jk (Q_k / (P_k^2 n_default) + Q_k^2 / (P_k^3 n_random))
                   - U_j U_k (1/n_default + 1/n_random).

    Its diagonal is Algorithm 1's Gamma (:func:`utility_covariance_diagonal`); Algorithm 1 drops
    the off-diagonal terms. Since ``delta_U`` and ``Delta_REO`` are invariant to rescaling U,
    ``G^T U = 0`` and the rank-one term cancels in ``G^T Gamma G``: the full Sigma is larger than
    Algorithm 1's by ``(1/n_d + 1/n_r) G^T diag(U^2) G``, a relative ``~ (Q_k + P_k)/2`` that
    matters when positive labels are common. This is the covariance of ``interval="delta-full"``,
    the default of :func:`estimate_reo`.

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        ``P_k`` (random traffic) and ``Q_k`` (default traffic), eq. (5).
    n_default, n_random : int or array_like, shape (...)
        Sizes ``|D_rec|`` and ``|D_rand|`` of the two logs (> 0; ``inf`` drops that log's term).

    Returns
    -------
    numpy.ndarray, shape (..., K, K)
        ``Gamma``, symmetric.

    Examples
    --------
    >>> utility_covariance([0.2, 0.1], [0.1, 0.15], 1000, 1000).round(5).tolist()
    [[0.00325, -0.0015], [-0.0015, 0.033]]
    """
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    nd = np.asarray(n_default, dtype=float)[..., None]
    nr = np.asarray(n_random, dtype=float)[..., None]
    K = P.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        U = Q / P
        diag = Q / (P * P * nd) + Q * Q / (P * P * P * nr)
        rank_one = U[..., :, None] * U[..., None, :] * (1.0 / nd + 1.0 / nr)[..., None]
    return diag[..., None] * np.eye(K) - rank_one


def reo_jacobians(U) -> ReoJacobians:
    """Jacobians ``(G, H)`` of the delta method of Algorithm 1 at utilities ``U`` (App. F).

    ``G[..., j, k] = d delta_U_k / d U_j = K (delta_jk sum_i U_i - U_k) / (sum_i U_i)^2`` (the
    gradient of eq. 10) and ``H[..., j] = d Delta_REO / d delta_U_j = delta_U_j / (K Delta_REO)``
    (the gradient of eq. 19). ``G @ H`` is the gradient of the penalty with respect to U.

    Parameters
    ----------
    U : array_like, shape (..., K)
        Utilities of the K groups, with a positive sum.

    Returns
    -------
    ReoJacobians
        ``G`` (..., K, K) and ``H`` (..., K); ``H`` is NaN where the penalty is 0, where
        ``Delta_REO`` is not differentiable.

    Examples
    --------
    >>> G, H = reo_jacobians([0.5, 1.5])
    >>> G.tolist(), H.tolist()
    ([[0.75, -0.75], [-0.25, 0.25]], [-0.5, 0.5])
    """
    U = np.asarray(U, dtype=float)
    K = U.shape[-1]
    dU, pen = relative_group_utilities(U), reo_penalty(U)
    total = U.sum(axis=-1)[..., None, None]                            # (..., 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        G = K * (np.eye(K) * total - U[..., None, :]) / total ** 2      # G[..., j, k]
        H = dU / (K * pen[..., None])
    H = np.where(pen[..., None] > 0, H, np.nan)
    return ReoJacobians(G, H)


def delta_method_reo(P, Q, n_default, n_random, *, confidence: float = 0.95,
                     covariance: str = "diagonal") -> ReoArrays:
    """Standard errors of ``delta_U_k`` and ``Delta_REO`` by the delta method: Algorithm 1 (App. D, App. F).

    With ``U = Q / P`` (eq. 6) and the Jacobians of :func:`reo_jacobians`:

    * ``Gamma = diag(U_k^2 ((1-Q_k)/(Q_k |D_rec|) + (1-P_k)/(P_k |D_rand|)))`` (Algorithm 1,
      ``covariance="diagonal"``, the default here) or the full multinomial covariance
      (``covariance="full"``, :func:`utility_covariance`; the default of :func:`estimate_reo`);
    * ``Sigma = G^T Gamma G`` (eq. 11), ``Xi = H^T Sigma H`` (eq. 20);
      ``SE(delta_U_k) = sqrt(Sigma_kk)``, ``SE(Delta_REO) = sqrt(Xi)``.

    Vectorized over the leading axes, so many replicates (simulations, days) are processed in one
    call. ``H`` is undefined where ``Delta_REO = 0``: ``se_penalty`` is NaN there, and near 0 the
    symmetric interval is unreliable (see :mod:`ocef.reo`).

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        ``P_k`` (random traffic) and ``Q_k`` (default traffic), eq. (5), in [0, 1].
    n_default, n_random : int or array_like, shape (...)
        ``|D_rec|`` and ``|D_rand|``, > 0.
    confidence : float, default 0.95
        Two-sided level of the intervals, in (0, 1).
    covariance : {"diagonal", "full"}, default "diagonal"
        ``Gamma`` of Algorithm 1 as printed, or the full multinomial one (:data:`COVARIANCES`).

    Returns
    -------
    ReoArrays
        Estimates, ``gamma``, ``sigma``, ``xi``, standard errors and ``z``; intervals by
        :meth:`ReoArrays.ci_delta_U` and :meth:`ReoArrays.ci_penalty`.

    Examples
    --------
    >>> arr = delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000)
    >>> round(float(arr.penalty), 4), round(float(arr.se_penalty), 4)
    (0.5, 0.0624)
    >>> round(float(delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000, covariance="full").se_penalty), 4)
    0.0667
    """
    if covariance not in COVARIANCES:
        raise ParameterError(f"covariance must be one of {COVARIANCES}, got {covariance!r}")
    z = normal_quantile(confidence)
    U, dU, pen = reo_point_estimates(P, Q)
    gamma = utility_covariance_diagonal(P, Q, n_default, n_random)
    G, H = reo_jacobians(U)
    if covariance == "diagonal":
        sigma = np.einsum("...jk,...j,...jl->...kl", G, gamma, G)
    else:
        sigma = np.einsum("...jk,...jm,...ml->...kl", G, utility_covariance(P, Q, n_default, n_random), G)
    xi = np.einsum("...k,...kl,...l->...", H, sigma, H)
    se_dU = np.sqrt(np.clip(np.diagonal(sigma, axis1=-2, axis2=-1), 0.0, None))
    se_pen = np.sqrt(np.clip(xi, 0.0, None))
    return ReoArrays(U, dU, pen, gamma, sigma, xi, se_dU, se_pen, z, covariance)


def reo_from_counts(pos_default, n_default, pos_random, n_random, *,
                    confidence: float = 0.95, covariance: str = "diagonal") -> ReoArrays:
    """Algorithm 1 from per-group positive counts and log sizes (eq. 5, App. D).

    ``Q_k = pos_default[..., k] / n_default`` and ``P_k = pos_random[..., k] / n_random``
    (eq. 5), then :func:`delta_method_reo`.

    Parameters
    ----------
    pos_default, n_default, pos_random, n_random
        As in :func:`reo_result_from_counts`, with leading batch axes ``(...)``.
    confidence, covariance
        As in :func:`delta_method_reo`.

    Returns
    -------
    ReoArrays

    Examples
    --------
    >>> arr = reo_from_counts([[100, 150], [90, 160]], [1000, 1000], [[200, 100], [190, 110]], [1000, 1000])
    >>> arr.penalty.round(4).tolist()
    [0.5, 0.5087]
    """
    nd = np.asarray(n_default, dtype=float)
    nr = np.asarray(n_random, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = np.asarray(pos_default, dtype=float) / nd[..., None]
        P = np.asarray(pos_random, dtype=float) / nr[..., None]
    return delta_method_reo(P, Q, nd, nr, confidence=confidence, covariance=covariance)


# --------------------------------------------------------------------------------------------
# Logs
# --------------------------------------------------------------------------------------------

def _check_columns(log: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    import pandas as pd

    if not isinstance(log, pd.DataFrame):
        raise ParameterTypeError(f"{name} must be a pandas DataFrame, got {type(log).__name__}")
    _missing(columns, log.columns, name, None)


def label_indicator(log: pd.DataFrame, label: str | Sequence[str] = "Y", *, name: str = "log") -> np.ndarray:
    """Boolean label ``Y`` per row of a log: one 0/1 column, or the OR of several.

    Parameters
    ----------
    log : pandas.DataFrame
        The log.
    label : str or sequence of str, default "Y"
        The 0/1 label column(s). Values must be 0 or 1 (bools accepted); anything else, NaN
        included, is refused.
    name : str, default "log"
        The log's name in error messages.

    Returns
    -------
    numpy.ndarray of bool, shape (len(log),)

    Raises
    ------
    ValueError
        For label values other than 0 and 1.

    Examples
    --------
    >>> log = pd.DataFrame({"click": [0, 1, 0], "like": [0, 0, 1]})
    >>> label_indicator(log, ["click", "like"]).tolist()
    [False, True, True]
    """
    labels = label_columns(label)
    _check_columns(log, labels, name)
    return frame_label_indicator(log, labels, name)


def _resolve_groups(logs: Sequence[pd.DataFrame], group: str, groups) -> list:
    import pandas as pd

    return resolve_groups([pd.unique(log[group]) for log in logs], group, groups)


class PositiveCounts(NamedTuple):
    """Numerators and denominator of eq. (5) for one log, the output of :func:`positive_counts`.

    Parameters
    ----------
    positives : numpy.ndarray of int64, shape (K,)
        ``#{Y=1, S=s_k}`` per group, in the order of the groups asked for.
    n : int
        Number of rows of the log.

    Examples
    --------
    >>> pc = PositiveCounts(positives=np.array([1, 3]), n=6)
    >>> (pc.positives / pc.n).round(4).tolist()          # P_k or Q_k of eq. (5)
    [0.1667, 0.5]
    """

    positives: np.ndarray
    n: int


def positive_counts(log: pd.DataFrame, *, label: str | Sequence[str] = "Y", group: str = "S",
                    groups: Sequence, name: str = "log") -> PositiveCounts:
    """Per-group positive counts and the size of one log: the numerators and denominator of eq. (5).

    Parameters
    ----------
    log : pandas.DataFrame
        A log with the label and group columns.
    label : str or sequence of str, default "Y"
        The 0/1 label column(s) (:func:`label_indicator`).
    group : str, default "S"
        The item-group column.
    groups : sequence
        The K groups, in the order of the output; rows of other groups are not counted.
    name : str, default "log"
        The log's name in error messages.

    Returns
    -------
    PositiveCounts
        ``positives`` (K,) = ``#{Y=1, S=s_k}`` and ``n = len(log)``.

    Raises
    ------
    ocef.errors.ParameterError, ValueError
        As :func:`label_indicator`.

    Examples
    --------
    >>> d = pd.DataFrame({"Y": [1, 0, 1, 1, 0, 1], "S": ["a", "a", "b", "b", "a", "b"]})
    >>> positive_counts(d, groups=["a", "b"])
    PositiveCounts(positives=array([1, 3]), n=6)
    """
    import pandas as pd

    y = label_indicator(log, label, name=name)
    codes = pd.Categorical(log[group], categories=list(groups)).codes
    counts = np.bincount(codes[y & (codes >= 0)], minlength=len(groups))
    return PositiveCounts(counts.astype(np.int64), len(log))


def _check_log(log, label, group: str, name: str) -> None:
    _check_columns(log, label_columns(label) + [group], name)
    if len(log) == 0:
        raise ParameterError(f"{name} log is empty: REO needs at least one row")


#: Interval methods of :func:`estimate_reo`: ``"delta-full"`` (full multinomial covariance, the
#: default) and ``"delta"`` (Algorithm 1 as printed, diagonal Gamma).
INTERVALS = ("delta-full", "delta")
_COVARIANCE_OF = {"delta-full": "full", "delta": "diagonal"}
#: the columns of :attr:`ReoResult.groups`, in order
GROUP_COLUMNS = ("group", "P", "Q", "U", "delta_U", "se", "ci_low", "ci_high")


@dataclass(frozen=True, eq=False)
class ReoResult(Result):
    """REO estimates with standard errors and intervals (eq. 5-7, Algorithm 1 or the bootstrap).

    The output of :func:`estimate_reo` and :func:`reo_result_from_counts`; ``groups`` is ``columns``
    as a DataFrame. Read the penalty interval only when ``delta_method_reliable`` is True.

    Parameters
    ----------
    columns : mapping of str to sequence
        The per-group table as columns, keys exactly ``group, P, Q, U, delta_U, se, ci_low,
        ci_high``, each of length K.
    penalty : float
        ``Delta_REO`` (eq. 6).
    penalty_se : float
        Its standard error (NaN where undefined: a penalty of exactly 0, or the naive estimator).
    penalty_ci : tuple of float
        ``(low, high)`` of its interval.
    n_default, n_random : int
        ``|D_rec|`` and ``|D_rand|``.
    confidence : float, default 0.95
        Two-sided level of the intervals.
    sigma : numpy.ndarray, shape (K, K), optional
        Covariance of ``delta_U`` (delta method only).
    method : str, default "delta-full"
        The interval: ``"delta-full"``, ``"delta"`` (Algorithm 1), ``"bootstrap-<interval>"`` or
        ``"naive"``.
    delta_method_reliable : bool, default False
        True only where the delta method's measured coverage holds (:func:`reo_result_from_counts`).
    notes : tuple of str, default ()
        Why an interval is unreliable (a group without positives, ...).

    Examples
    --------
    >>> res = reo_result_from_counts(["a", "b"], [1, 3], 6, [2, 2], 6, small_counts="delta")
    >>> res.penalty, res.delta_method_reliable       # 6 rows per log: the interval reaches below 0
    (0.5, False)
    """

    columns: Mapping[str, Any] = field(repr=False)
    penalty: float
    penalty_se: float
    penalty_ci: tuple[float, float]
    n_default: int
    n_random: int
    confidence: float = 0.95
    sigma: np.ndarray | None = field(default=None, repr=False)
    method: str = "delta-full"
    #: False when the *delta-method* penalty interval reaches 0 or below, its SE is undefined
    #: (penalty exactly 0), or a group has no positive label in the default log (SE 0 there):
    #: the delta method is then unreliable (module docstring). Bootstrap results carry the
    #: flag of the delta interval too.
    delta_method_reliable: bool = False
    notes: tuple[str, ...] = ()

    def __post_init__(self):
        if set(self.columns) != set(GROUP_COLUMNS):
            raise ParameterError(f"columns must be {list(GROUP_COLUMNS)}, got {list(self.columns)}")
        cols = {"group": tuple(_plain_key(g) for g in self.columns["group"])}
        cols.update({c: np.asarray(self.columns[c], dtype=float) for c in GROUP_COLUMNS[1:]})
        object.__setattr__(self, "columns", cols)

    @cached_property
    def groups(self) -> pd.DataFrame:
        """The per-group table (see the class docstring)."""
        import pandas as pd

        return pd.DataFrame({c: list(v) if c == "group" else v for c, v in self.columns.items()})

    def group_records(self) -> list[dict]:
        """The per-group table as strict-JSON records, made from ``columns`` without pandas.

        Returns
        -------
        list of dict
            One dict per group, in order, with keys ``group, P, Q, U, delta_U, se, ci_low,
            ci_high`` (the columns of ``groups``); NaN becomes None (JSON null).

        Examples
        --------
        >>> res = reo_result_from_counts(["a", "b"], [1, 3], 6, [2, 2], 6, small_counts="delta")
        >>> rec = res.group_records()[0]
        >>> list(rec)
        ['group', 'P', 'Q', 'U', 'delta_U', 'se', 'ci_low', 'ci_high']
        >>> rec["group"], rec["U"], rec["delta_U"], round(rec["se"], 4)
        ('a', 0.5, -0.5, 0.5728)
        """
        return column_records(self.columns)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The estimate as one tidy table: the ``groups`` table with the penalty fields repeated on every row.

        One row per group with columns ``group, P, Q, U, delta_U, se, ci_low, ci_high``
        (eq. 5-7; ``se`` and the interval are those of ``delta_U``), then ``penalty``
        (``Delta_REO``, eq. 6), ``penalty_se``, ``penalty_ci_low``, ``penalty_ci_high``,
        ``n_default``, ``n_random``, ``confidence``, ``method`` and
        ``delta_method_reliable``.
        """
        return self.groups.assign(
            penalty=self.penalty, penalty_se=self.penalty_se, penalty_ci_low=self.penalty_ci[0],
            penalty_ci_high=self.penalty_ci[1], n_default=self.n_default, n_random=self.n_random,
            confidence=self.confidence, method=self.method, delta_method_reliable=self.delta_method_reliable)

    @presents
    def to_dict(self) -> dict:
        """The estimate as strict-JSON data (what ``to_json`` and ``ocef reo --json`` print).

        Keys ``groups`` (the records of :meth:`group_records`), ``penalty``, ``penalty_se``,
        ``penalty_ci`` (``[low, high]``), ``n_default``, ``n_random``, ``confidence``,
        ``method``, ``delta_method_reliable`` and ``notes`` (list of str). Undefined numbers
        (NaN) become None (JSON null); ``sigma`` is left out.
        """
        return jsonable({
            "groups": self.group_records(), "penalty": self.penalty, "penalty_se": self.penalty_se,
            "penalty_ci": list(self.penalty_ci), "n_default": self.n_default, "n_random": self.n_random,
            "confidence": self.confidence, "method": self.method,
            "delta_method_reliable": self.delta_method_reliable, "notes": list(self.notes),
        })


def _result_from_arrays(groups: list, P, Q, arr: ReoArrays, n_default: int, n_random: int,
                        confidence: float, method: str, notes: Sequence[str] = ()) -> ReoResult:
    lo, hi = arr.ci_delta_U()
    plo, phi = arr.ci_penalty()
    table = {"group": groups, "P": P, "Q": Q, "U": arr.U, "delta_U": arr.delta_U,
             "se": arr.se_delta_U, "ci_low": lo, "ci_high": hi}
    reliable = bool(np.isfinite(arr.se_penalty) and plo > 0.0) and not notes
    return ReoResult(table, float(arr.penalty), float(arr.se_penalty), (float(plo), float(phi)),
                     int(n_default), int(n_random), float(confidence), arr.sigma, method, reliable, tuple(notes))


def estimability_problems(groups: Sequence, pos_default, pos_random) -> list[str]:
    """Why REO is undefined for these positive counts; empty when it is defined.

    ``U_k = Q_k / P_k`` needs ``P_k > 0`` for every group and the penalty ``mean(U) > 0`` (eq. 2-6).

    Parameters
    ----------
    groups : sequence
        The K group names, used in the messages.
    pos_default, pos_random : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in the default and in the random log.

    Returns
    -------
    list of str
        One message per problem, naming the groups.

    Examples
    --------
    >>> len(estimability_problems(["a", "b"], [3, 0], [2, 0]))
    1
    """
    problems = []
    no_pos = [g for g, c in zip(groups, np.asarray(pos_random)) if c == 0]
    if no_pos:
        problems.append(f"group(s) {no_pos} have no positive label in the random traffic: P_k = 0, so "
                        f"U_k = Q_k / P_k is undefined; collect more random traffic or merge groups")
    if np.asarray(pos_default).sum() == 0:
        problems.append("the default traffic has no positive label in any group: mean(U) = 0, "
                        "so delta_U and the REO penalty are undefined")
    return problems


def _check_estimable(groups: list, pos_default: np.ndarray, pos_random: np.ndarray) -> None:
    problems = estimability_problems(groups, pos_default, pos_random)
    if problems:
        raise ParameterError(problems[0])


def zero_default_notes(groups: Sequence, pos_default) -> list[str]:
    """Notes for groups without a positive label in the default log.

    Parameters
    ----------
    groups : sequence
        The K group names.
    pos_default : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in the default log.

    Returns
    -------
    list of str
        One note per such group (empty when every group has a positive).

    Examples
    --------
    >>> zero_default_notes(["a", "b"], [3, 0])[0][:46]
    "group 'b' has no positive label in the default"
    """
    return [f"group {g!r} has no positive label in the default log (Q_k = 0): U_k = 0 with delta-method "
            f"SE 0, an unreliable interval; collect more default traffic or use a bootstrap interval"
            for g, c in zip(groups, np.asarray(pos_default)) if c == 0]


def check_interval(interval: str) -> str:
    """``interval`` checked against the delta-method interval names :data:`INTERVALS`.

    Parameters
    ----------
    interval : str
        ``"delta-full"`` (full multinomial covariance) or ``"delta"`` (Algorithm 1 as printed).

    Returns
    -------
    str
        ``interval`` unchanged.

    Examples
    --------
    >>> check_interval("delta")
    'delta'
    """
    if interval not in INTERVALS:
        raise ParameterError(f"interval must be one of {INTERVALS}, got {interval!r}")
    return interval


#: Fewest positive labels of any group in either log at which the delta-method interval is printed
#: (issue 28). Measured by benchmarks/reo_few_positives.py (coverage table in docs/guide/reo.md): the
#: delta-method penalty interval covered 0.86-0.93 at 1-4 positives and 0.91 at 16-20 (K = 3), the
#: count percentile bootstrap 0.93-1.00 from 3 positives up; above 30 both held 0.92-0.96.
MIN_POSITIVES_DELTA = 31
#: Below this many positives of a group in either log no interval is printed (null + note): at 1-2
#: positives the delta method covered 0.86-0.93 and the bootstrap 0.90-0.91.
MIN_POSITIVES_ANY = 3
#: The interval that replaces the delta method below :data:`MIN_POSITIVES_DELTA` (count bootstrap,
#: :func:`ocef.reo.bootstrap_reo_ci`), and its resamples.
SMALL_COUNT_INTERVAL = "percentile"
SMALL_COUNT_RESAMPLES = 999
#: What :func:`reo_result_from_counts` does below :data:`MIN_POSITIVES_DELTA`: switch to the bootstrap
#: (default) or keep the delta-method interval (flagged unreliable, with a note).
SMALL_COUNTS = ("bootstrap", "delta")


def small_count_note(pos_default, pos_random) -> str:
    """The note for counts below :data:`MIN_POSITIVES_DELTA` ("" when every group has enough positives).

    Parameters
    ----------
    pos_default, pos_random : array_like of int, shape (K,)
        Positive counts per group in the default and in the random log.

    Returns
    -------
    str

    Examples
    --------
    >>> small_count_note([100, 200], [5, 60])[:40]
    'a group has only 5 positive labels in on'
    """
    low = int(min(np.min(pos_default), np.min(pos_random)))
    if low >= MIN_POSITIVES_DELTA:
        return ""
    if low < MIN_POSITIVES_ANY:
        return (f"a group has only {low} positive label(s) in one log, fewer than {MIN_POSITIVES_ANY}: no interval "
                f"(the delta method and the bootstrap both covered at most 0.93 there, docs/guide/reo.md)")
    return (f"a group has only {low} positive labels in one log, fewer than {MIN_POSITIVES_DELTA}: there the "
            f"delta-method interval under-covers (measured, docs/guide/reo.md)")


def _reo_stat_from_counts(counts_default: np.ndarray, counts_random: np.ndarray) -> np.ndarray:
    """``(delta_U_1..delta_U_K, penalty)`` from category counts ``(..., K+1)`` of D_rec, D_rand;
    NaN (no warning) where a log is empty, e.g. a partition fold (callers refuse non-finite values)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = counts_default[..., :-1] / counts_default.sum(axis=-1, keepdims=True)
        P = counts_random[..., :-1] / counts_random.sum(axis=-1, keepdims=True)
    _, dU, pen = reo_point_estimates(P, Q)
    return np.concatenate([dU, pen[..., None]], axis=-1)



def _multinomial_resamples(rng: np.random.Generator, counts: np.ndarray, n_resamples: int) -> np.ndarray:
    n = int(counts.sum())
    return rng.multinomial(n, counts / n, size=n_resamples)



def percentile_bounds(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval: the ``(1 − confidence)/2`` and ``(1 + confidence)/2`` quantiles of
    the replicates over axis 0, NaN replicates ignored (an all-NaN column gives NaN quietly).

    Parameters
    ----------
    replicates : numpy.ndarray, shape (B, d)
        Bootstrap replicates (NaN where undefined).
    confidence : float
        Two-sided level.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends, shape (d,).

    Examples
    --------
    >>> lo, hi = percentile_bounds(np.arange(101.0)[:, None], 0.9)
    >>> round(float(lo[0]), 9), round(float(hi[0]), 9)
    (5.0, 95.0)
    """
    import warnings

    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(replicates, alpha, axis=0), np.nanquantile(replicates, 1 - alpha, axis=0)


def _small_count_bootstrap(cd: np.ndarray, cr: np.ndarray, confidence: float, rng):
    """``(se, low, high)`` of ``delta_U_1..delta_U_K, penalty`` by the count percentile bootstrap
    (:data:`SMALL_COUNT_RESAMPLES` multinomial resamples of both logs' category counts, as
    :func:`ocef.reo.bootstrap_reo_ci` with ``interval="percentile"``)."""
    import warnings

    from ocef.validation import as_generator

    gen = as_generator(rng)
    reps = _reo_stat_from_counts(_multinomial_resamples(gen, cd, SMALL_COUNT_RESAMPLES),
                                 _multinomial_resamples(gen, cr, SMALL_COUNT_RESAMPLES))
    masked = np.where(np.isfinite(reps), reps, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(masked, axis=0, ddof=1)
    low, high = percentile_bounds(masked, confidence)
    return se, low, high


def reo_result_from_counts(groups: Sequence, pos_default, n_default: int, pos_random, n_random: int, *,
                           confidence: float = 0.95, interval: str = "delta-full", small_counts: str = "bootstrap",
                           rng=None) -> ReoResult:
    """The full :class:`ReoResult` from per-group positive counts and log sizes.

    Eq. (5)-(7) and the delta method (Algorithm 1): the one estimator every data path ends in.

    Parameters
    ----------
    groups : sequence
        The K group names, in the order of the counts.
    pos_default : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in the default log D_rec.
    n_default : int
        ``|D_rec|``, > 0.
    pos_random : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in the random log D_rand.
    n_random : int
        ``|D_rand|``, > 0.
    confidence : float, default 0.95
        Two-sided level, in (0, 1).
    interval : {"delta-full", "delta"}, default "delta-full"
        Full multinomial covariance, or Algorithm 1's diagonal ``Gamma``.
    small_counts : {"bootstrap", "delta"}, default "bootstrap"
        When a group has fewer than :data:`MIN_POSITIVES_DELTA` positive labels in either log (the
        delta method's measured floor): ``"bootstrap"`` replaces the intervals (groups and penalty)
        by the count bootstrap (:data:`SMALL_COUNT_INTERVAL`, :data:`SMALL_COUNT_RESAMPLES`
        resamples; ``method`` says ``"bootstrap-percentile"`` and a note why), and below
        :data:`MIN_POSITIVES_ANY` prints none (NaN, ``method="none"``, a note); ``"delta"`` keeps the
        delta-method interval. Either way ``delta_method_reliable`` is False there.
    rng : None, int, SeedSequence or Generator
        Randomness of that bootstrap (None: seed 0, so that the same counts give the same interval).

    Returns
    -------
    ReoResult
        ``method`` is ``interval`` (or the bootstrap's, see ``small_counts``). ``delta_method_reliable``
        is True only where the delta method's measured coverage holds: every group with at least
        :data:`MIN_POSITIVES_DELTA` positives in both logs, a penalty interval above 0.

    Examples
    --------
    >>> res = reo_result_from_counts(["a", "b"], [100, 150], 1000, [200, 100], 1000)
    >>> round(res.penalty, 4), [round(v, 4) for v in res.penalty_ci]
    (0.5, [0.3692, 0.6308])
    """
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    covariance = _COVARIANCE_OF[check_interval(interval)]
    groups = list(groups)
    pos_d, pos_r = np.asarray(pos_default, dtype=np.int64), np.asarray(pos_random, dtype=np.int64)
    for n, name in ((n_default, "default"), (n_random, "random")):
        if n == 0:
            raise ParameterError(f"{name} log is empty: REO needs at least one row")
    _check_estimable(groups, pos_d, pos_r)
    Q = pos_d / n_default
    P = pos_r / n_random
    if small_counts not in SMALL_COUNTS:
        raise ParameterError(f"small_counts must be one of {list(SMALL_COUNTS)}, got {small_counts!r}")
    arr = delta_method_reo(P, Q, n_default, n_random, confidence=confidence,
                           covariance=covariance)
    notes = zero_default_notes(groups, pos_d)
    few = small_count_note(pos_d, pos_r)
    if few and small_counts == "delta":
        notes.append(few + "; read it with care or use a bootstrap interval")
    result = _result_from_arrays(groups, P, Q, arr, n_default, n_random, confidence, interval, notes)
    if not few or small_counts == "delta":
        return result
    if int(min(pos_d.min(), pos_r.min())) < MIN_POSITIVES_ANY:
        nan = np.full(len(groups), np.nan)
        table = {**result.columns, "se": nan, "ci_low": nan, "ci_high": nan}
        notes.append(few)
        return ReoResult(table, result.penalty, float("nan"), (float("nan"), float("nan")), result.n_default,
                         result.n_random, result.confidence, None, "none", False, tuple(notes))
    cd = np.append(pos_d, n_default - pos_d.sum())
    cr = np.append(pos_r, n_random - pos_r.sum())
    se, low, high = _small_count_bootstrap(cd, cr, confidence, 0 if rng is None else rng)
    table = {**result.columns, "se": se[:-1], "ci_low": low[:-1], "ci_high": high[:-1]}
    notes.append(few + f"; the intervals are the count bootstrap's ({SMALL_COUNT_INTERVAL}, "
                       f"{SMALL_COUNT_RESAMPLES} resamples) instead of the {interval} interval")
    return ReoResult(table, result.penalty, float(se[-1]), (float(low[-1]), float(high[-1])),
                     result.n_default, result.n_random, result.confidence, None,
                     f"bootstrap-{SMALL_COUNT_INTERVAL}", False, tuple(notes))


def naive_reo(default: pd.DataFrame, random: pd.DataFrame | None = None, *,
              label: str | Sequence[str] = "Y", group: str = "S", recommended: str = "R",
              groups: Sequence | None = None) -> ReoResult:
    """REO by the estimator that treats every missing label as negative, for comparison (Sec. 1, Table 1).

    Every pair of the pair space whose label was not logged counts as ``Y = 0``; only logged rows
    can then be positive, and eq. (1) on that data gives::

        U_k^naive = #{logged, R=1, Y=1, S=s_k} / #{logged, Y=1, S=s_k}

    where default-traffic rows have ``R = 1`` and random-traffic rows take ``R`` from the
    ``recommended`` column when present (else 0). Without random traffic every ``U_k`` is 1 and
    the penalty is 0 whatever the system does (Table 1: data sets A and B look the same); with
    some random traffic the result depends on the logging volumes, not on the system, so the
    estimator is inconsistent. Point estimates only.

    Parameters
    ----------
    default : pandas.DataFrame
        The default log D_rec.
    random : pandas.DataFrame, optional
        The random log D_rand (default: none).
    label : str or sequence of str, default "Y"
        The 0/1 label column(s) (:func:`label_indicator`).
    group : str, default "S"
        The item-group column.
    recommended : str, default "R"
        The 0/1 column of the random log saying whether the default strategy recommends the pair.
    groups : sequence, optional
        The groups and their order (default: the sorted values found).

    Returns
    -------
    ReoResult
        ``method="naive"``; ``se``, the intervals, ``penalty_se`` and ``confidence`` are NaN.

    Examples
    --------
    >>> d = pd.DataFrame({"Y": [1, 0, 1, 1, 0, 1], "S": ["a", "a", "b", "b", "a", "b"]})
    >>> r = pd.DataFrame({"Y": [1, 1, 0, 1, 1, 0], "S": ["a", "b", "a", "b", "a", "b"],
    ...                   "R": [0, 1, 0, 0, 0, 1]})
    >>> naive_reo(d).penalty                       # no random traffic: always 0
    0.0
    >>> round(naive_reo(d, r).penalty, 4)
    0.4118
    """
    import pandas as pd

    _check_log(default, label, group, "default")
    logs = [default]
    if random is not None:
        _check_log(random, label, group, "random")
        logs.append(random)
    groups = _resolve_groups(logs, group, groups)
    pos_rec, n_d = positive_counts(default, label=label, group=group, groups=groups, name="default")
    pos_all = pos_rec.astype(float).copy()
    n_r = 0
    if random is not None:
        n_r = len(random)
        # the recommendation flag must be 0/1 like a label (NaN or 2 are refused, not read as True)
        r = (label_indicator(random, recommended, name="random") if recommended in random.columns
             else np.zeros(len(random), dtype=bool))
        y = label_indicator(random, label, name="random")
        codes = pd.Categorical(random[group], categories=groups).codes
        pos_all += np.bincount(codes[y], minlength=len(groups))
        pos_rec = pos_rec + np.bincount(codes[y & r], minlength=len(groups))
    if (pos_all == 0).any():
        empty = [g for g, c in zip(groups, pos_all) if c == 0]
        raise ParameterError(f"group(s) {empty} have no logged positive label: the naive U_k is undefined")
    U = pos_rec / pos_all
    nan = np.full(len(groups), np.nan)
    table = {"group": groups, "P": pos_all / (n_d + n_r), "Q": pos_rec / (n_d + n_r),
             "U": U, "delta_U": relative_group_utilities(U), "se": nan, "ci_low": nan, "ci_high": nan}
    return ReoResult(table, float(reo_penalty(U)), float("nan"), (float("nan"), float("nan")),
                     int(n_d), int(n_r), float("nan"), None, "naive")
