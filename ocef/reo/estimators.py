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

    ``U_k = P(R=1 | Y=1, S=s_k)`` (eq. 1) is, by Bayes' rule, ``P(R=1) Q_k / P_k`` (eq. 5); the
    common factor ``P(R=1)`` is dropped: ``delta_U_k`` and ``Delta_REO`` (eq. 2, 3) do not depend on it.

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        ``P_k``, ``Q_k``: joint rates of a positive label and group k in the random and in the
        default traffic; broadcast together.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        A ``P_k = 0`` gives ``inf`` or ``nan`` quietly; the log entry points refuse it by name.

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
    """Relative utilities ``delta_U_k = U_k / mean(U_1..U_K) - 1`` (eq. 3 and 7): positive for a group
    the default strategy favours among relevant items; they sum to 0 and ignore a rescaling of ``U``.

    Parameters
    ----------
    U : array_like, shape (..., K)
        Utilities of the K groups (:func:`rtpr_utilities`), >= 0, over the last axis.

    Returns
    -------
    numpy.ndarray, shape (..., K)
        ``nan`` (quietly) where ``mean(U) = 0``.

    Examples
    --------
    >>> relative_group_utilities([0.5, 1.5]).tolist()
    [-0.5, 0.5]
    """
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U / U.mean(axis=-1, keepdims=True) - 1.0


def reo_penalty(U) -> np.ndarray:
    """The REO penalty ``Delta_REO = std(U) / mean(U)`` (eq. 2 and 6) over the last axis.

    The *population* standard deviation (divisor K), as the gradient ``H_j = delta_U_j / (K
    Delta_REO)`` of App. F and the 11.1% threshold of Sec. 4.3 (``U_1 = 0.8 U_2`` gives 1/9)
    require; it equals ``sqrt(mean(delta_U_k^2))`` (eq. 19).

    Parameters
    ----------
    U : array_like, shape (..., K)
        Utilities of the K groups, >= 0; the statistic is taken over the last axis.

    Returns
    -------
    numpy.ndarray, shape (...)
        ``nan`` where ``mean(U) = 0``.

    Examples
    --------
    >>> reo_penalty([[1.0, 1.0], [0.8, 1.0], [0.5, 1.5]]).round(4).tolist()   # equal; the 80% rule's 1/9
    [0.0, 0.1111, 0.5]
    """
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U.std(axis=-1) / U.mean(axis=-1)


def reo_point_estimates(P, Q) -> "ReoPoint":
    """Point estimates ``(U_k, delta_U_k, Delta_REO)`` from ``P_k``, ``Q_k`` (eq. 4, 6 and 7).

    Parameters
    ----------
    P : array_like, shape (..., K)
        ``P_k = P(Y=1, S=s_k)`` on the random traffic (eq. 5).
    Q : array_like, shape (..., K)
        ``Q_k = P(Y=1, S=s_k | R=1)`` on the default traffic (eq. 5).

    Returns
    -------
    ReoPoint
        ``U``, ``delta_U`` and ``penalty``.

    Examples
    --------
    >>> pt = reo_point_estimates([0.2, 0.1], [0.1, 0.15])
    >>> pt.U.round(4).tolist(), pt.delta_U.round(4).tolist(), round(float(pt.penalty), 4)
    ([0.5, 1.5], [-0.5, 0.5], 0.5)
    """
    U = rtpr_utilities(P, Q)
    return ReoPoint(U, relative_group_utilities(U), reo_penalty(U))


def normal_quantile(confidence: float) -> float:
    """The normal quantile ``z(delta/2)`` of the intervals of Algorithm 1 (App. D), computed from the
    lower tail (precise up to ``confidence = 1 - 1e-16``).

    Parameters
    ----------
    confidence : float
        Two-sided level.

    Returns
    -------
    float

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

    Every field keeps the batch shape ``(...)`` of the input; :meth:`ci_delta_U` and
    :meth:`ci_penalty` give the intervals ``estimate +- z SE``.

    Parameters
    ----------
    U, delta_U : numpy.ndarray, shape (..., K)
        Eq. (6) and (7).
    penalty : numpy.ndarray, shape (...)
        ``Delta_REO`` (eq. 6).
    gamma : numpy.ndarray, shape (..., K)
        Diagonal of ``Gamma = Cov(U_hat)``.
    sigma : numpy.ndarray, shape (..., K, K)
        ``Sigma = G^T Gamma G``, the covariance of ``delta_U``.
    xi : numpy.ndarray, shape (...)
        ``Xi = H^T Sigma H``, the variance of the penalty.
    se_delta_U : numpy.ndarray, shape (..., K)
        ``sqrt(diag Sigma)``.
    se_penalty : numpy.ndarray, shape (...)
        NaN where the penalty is 0 (not differentiable there).
    z : float
        :func:`normal_quantile`.
    covariance : {"diagonal", "full"}
        Algorithm 1 as printed, or the multinomial covariances (:func:`utility_covariance`).

    Examples
    --------
    >>> [round(float(v), 4) for v in delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000).ci_penalty()]
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

        NaN where the penalty is exactly 0 (not differentiable there); on small logs the interval may
        reach below 0 and the delta method is unreliable (:class:`ReoResult`).

        Returns
        -------
        ci_low, ci_high : numpy.ndarray, shape (...)

        Examples
        --------
        >>> arr = delta_method_reo([[0.2, 0.1], [0.2, 0.2]], [[0.1, 0.15], [0.1, 0.1]], 1000, 1000)
        >>> [v.round(4).tolist() for v in arr.ci_penalty()]          # the second penalty is 0
        [[0.3777, nan], [0.6223, nan]]
        """
        return self.penalty - self.z * self.se_penalty, self.penalty + self.z * self.se_penalty


def utility_covariance_diagonal(P, Q, n_default, n_random) -> np.ndarray:
    """Diagonal of ``Gamma = Cov(U_hat)`` as Algorithm 1 prints it (App. D, App. F).

    ``Gamma_kk = U_k^2 ((1-Q_k) / (Q_k n_default) + (1-P_k) / (P_k n_random))`` (independent
    binomial ``Q_hat_k``, ``P_hat_k``), computed as ``(Q_k (1-Q_k)/n_default + Q_k^2 (1-P_k)/(P_k
    n_random)) / P_k^2``: identical, and finite (0) when ``Q_k = 0``.

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        Eq. (5).
    n_default, n_random : int or array_like, shape (...)
        ``|D_rec|`` and ``|D_rand|`` (``inf`` drops that log's term).

    Returns
    -------
    numpy.ndarray, shape (..., K)
        ``inf``/``nan`` where ``P_k = 0``.

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

    With multinomial ``Cov(Q_hat_j, Q_hat_k) = (delta_jk Q_k - Q_j Q_k) / n_default`` (likewise
    ``P_hat``), ``dU_k/dQ_k = 1/P_k`` and ``dU_k/dP_k = -U_k/P_k``::

        Gamma_jk = delta_jk (Q_k / (P_k^2 n_default) + Q_k^2 / (P_k^3 n_random))
                   - U_j U_k (1/n_default + 1/n_random).

    Algorithm 1 keeps only the diagonal (:func:`utility_covariance_diagonal`). As ``G^T U = 0``,
    the rank-one term cancels in ``G^T Gamma G``: the full Sigma exceeds Algorithm 1's by ``(1/n_d
    + 1/n_r) G^T diag(U^2) G``, a relative ``~ (Q_k + P_k)/2`` that matters when positive labels are
    common. The covariance of ``interval="delta-full"``, :func:`estimate_reo`'s default.

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        ``P_k`` (random traffic) and ``Q_k`` (default traffic), eq. (5).
    n_default, n_random : int or array_like, shape (...)
        As in :func:`utility_covariance_diagonal`.

    Returns
    -------
    numpy.ndarray, shape (..., K, K)

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
    (the gradient of eq. 19); ``G @ H`` is the penalty's gradient in U.

    Parameters
    ----------
    U : array_like, shape (..., K)
        With a positive sum.

    Returns
    -------
    ReoJacobians
        ``G`` (..., K, K) and ``H`` (..., K); ``H`` is NaN where the penalty is 0.

    Examples
    --------
    >>> [a.tolist() for a in reo_jacobians([0.5, 1.5])]
    [[[0.75, -0.75], [-0.25, 0.25]], [-0.5, 0.5]]
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
      ``covariance="diagonal"``) or the full multinomial covariance (``"full"``,
      :func:`utility_covariance`; the default of :func:`estimate_reo`);
    * ``Sigma = G^T Gamma G`` (eq. 11), ``Xi = H^T Sigma H`` (eq. 20);
      ``SE(delta_U_k) = sqrt(Sigma_kk)``, ``SE(Delta_REO) = sqrt(Xi)``.

    Vectorized over the leading axes (replicates, days). ``se_penalty`` is NaN where
    ``Delta_REO = 0``, and near 0 the symmetric interval is unreliable (see :mod:`ocef.reo`).

    Parameters
    ----------
    P, Q : array_like, shape (..., K)
        Eq. (5).
    n_default, n_random : int or array_like, shape (...)
        ``|D_rec|`` and ``|D_rand|``.
    confidence : float
        Two-sided level of the intervals, in (0, 1).
    covariance : {"diagonal", "full"}
        :data:`COVARIANCES`.

    Returns
    -------
    ReoArrays

    Examples
    --------
    >>> round(float(delta_method_reo([0.2, 0.1], [0.1, 0.15], 1000, 1000).se_penalty), 4)
    0.0624
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
    """Algorithm 1 from per-group positive counts and log sizes: ``Q_k = pos_default[..., k] /
    n_default``, ``P_k = pos_random[..., k] / n_random`` (eq. 5), then :func:`delta_method_reo`.

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
    >>> reo_from_counts([[100, 150], [90, 160]], [1000, 1000], [[200, 100], [190, 110]], [1000, 1000]).penalty.round(4).tolist()
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
    label : str or sequence of str
        0/1 columns (bools accepted; anything else, NaN included, is refused).
    name : str
        The log's name in error messages.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        For label values other than 0 and 1.

    Examples
    --------
    >>> label_indicator(pd.DataFrame({"click": [0, 1, 0], "like": [0, 0, 1]}), ["click", "like"]).tolist()
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
    label : str or sequence of str
        :func:`label_indicator`.
    group : str
        The item-group column.
    groups : sequence
        The K groups, in the order of the output; other groups' rows are not counted.
    name : str
        The log's name in error messages.

    Returns
    -------
    PositiveCounts
        ``positives`` = ``#{Y=1, S=s_k}`` and ``n = len(log)``.

    Raises
    ------
    ocef.errors.ParameterError, ValueError
        As :func:`label_indicator`.

    Examples
    --------
    >>> positive_counts(pd.DataFrame({"Y": [1, 0, 1, 1], "S": ["a", "a", "b", "b"]}), groups=["a", "b"])
    PositiveCounts(positives=array([1, 2]), n=4)
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
        Exactly ``group, P, Q, U, delta_U, se, ci_low, ci_high``, each of length K.
    penalty : float
        ``Delta_REO`` (eq. 6).
    penalty_se : float
        NaN where undefined (a penalty of exactly 0, or the naive estimator).
    penalty_ci : tuple of float
        ``(low, high)`` of its interval.
    n_default, n_random : int
        ``|D_rec|`` and ``|D_rand|``.
    confidence : float
        Two-sided level of the intervals.
    sigma : numpy.ndarray, shape (K, K), optional
        Covariance of ``delta_U`` (delta method only).
    method : str
        ``"delta-full"``, ``"delta"`` (Algorithm 1), ``"bootstrap-<interval>"`` or ``"naive"``.
    delta_method_reliable : bool
        True only where the delta method's measured coverage holds (:func:`reo_result_from_counts`).
    notes : tuple of str
        Why an interval is unreliable.

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
    """Why REO is undefined for these positive counts (``P_k > 0`` for every group and ``mean(U) > 0``
    are needed, eq. 2-6); empty when it is defined.

    Parameters
    ----------
    groups : sequence
        The K group names, for the messages.
    pos_default, pos_random : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in each log.

    Returns
    -------
    list of str

    Examples
    --------
    >>> estimability_problems(["a", "b"], [3, 0], [2, 0])
    [...]
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
    """``(delta_U_1..delta_U_K, penalty)`` from category counts of D_rec, D_rand; NaN where a log is empty."""
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = counts_default[..., :-1] / counts_default.sum(axis=-1, keepdims=True)
        P = counts_random[..., :-1] / counts_random.sum(axis=-1, keepdims=True)
    _, dU, pen = reo_point_estimates(P, Q)
    return np.concatenate([dU, pen[..., None]], axis=-1)



def _multinomial_resamples(rng: np.random.Generator, counts: np.ndarray, n_resamples: int) -> np.ndarray:
    n = int(counts.sum())
    return rng.multinomial(n, counts / n, size=n_resamples)



def percentile_bounds(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval over axis 0: the ``(1 ± confidence)/2`` quantiles, NaN replicates
    ignored (an all-NaN column gives NaN quietly).

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
    >>> [round(float(v[0]), 9) for v in percentile_bounds(np.arange(101.0)[:, None], 0.9)]
    [5.0, 95.0]
    """
    import warnings

    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(replicates, alpha, axis=0), np.nanquantile(replicates, 1 - alpha, axis=0)


def _small_count_bootstrap(cd: np.ndarray, cr: np.ndarray, confidence: float, rng):
    """``(se, low, high)`` by the count percentile bootstrap (:data:`SMALL_COUNT_RESAMPLES` resamples)."""
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
    """The full :class:`ReoResult` from per-group positive counts and log sizes: eq. (5)-(7) and the
    delta method (Algorithm 1), the one estimator every data path ends in.

    Parameters
    ----------
    groups : sequence
        The K group names, in the order of the counts.
    pos_default, pos_random : array_like of int, shape (K,)
        ``#{Y=1, S=s_k}`` in D_rec and in D_rand.
    n_default, n_random : int
        ``|D_rec|`` and ``|D_rand|``.
    confidence : float
        Two-sided level, in (0, 1).
    interval : {"delta-full", "delta"}
        Full multinomial covariance, or Algorithm 1's diagonal ``Gamma``.
    small_counts : {"bootstrap", "delta"}
        Below :data:`MIN_POSITIVES_DELTA` positives of a group in either log (the delta method's
        measured floor): ``"bootstrap"`` uses the count bootstrap (:data:`SMALL_COUNT_INTERVAL`,
        :data:`SMALL_COUNT_RESAMPLES` resamples, a note why) and below :data:`MIN_POSITIVES_ANY`
        prints no interval (``method="none"``); ``"delta"`` keeps the delta method. Either way
        ``delta_method_reliable`` is False there.
    rng : None, int, SeedSequence or Generator
        Of that bootstrap (None: seed 0, so the same counts give the same interval).

    Returns
    -------
    ReoResult
        ``delta_method_reliable`` only with at least :data:`MIN_POSITIVES_DELTA` positives per group
        in both logs and a penalty interval above 0.

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

    Every unlogged pair counts as ``Y = 0``, so eq. (1) gives::

        U_k^naive = #{logged, R=1, Y=1, S=s_k} / #{logged, Y=1, S=s_k}

    (default rows have ``R = 1``; random rows take ``R`` from ``recommended``, else 0). Without
    random traffic every ``U_k`` is 1 and the penalty 0 whatever the system does (Table 1); with some,
    the result depends on the logging volumes, not the system: inconsistent. Point estimates only.

    Parameters
    ----------
    default : pandas.DataFrame
        The default log D_rec.
    random : pandas.DataFrame, optional
        The random log D_rand (default: none).
    label : str or sequence of str
        :func:`label_indicator`.
    group : str
        The item-group column.
    recommended : str
        The 0/1 column of the random log: does the default strategy recommend the pair.
    groups : sequence, optional
        Default: the sorted values found.

    Returns
    -------
    ReoResult
        ``method="naive"``; the standard errors and intervals are NaN.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> naive_reo(make_toy_reo_logs().default).penalty            # no random traffic: always 0
    0.0
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
