"""Point estimates of REO (eq. 1-7) and their delta-method intervals (Algorithm 1), on arrays and on logs.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import numpy as np

from ocef.backends import _missing, frame_label_indicator, is_missing, label_columns
from ocef.reo.groups import _plain_key, resolve_groups
from ocef.results import Result, jsonable
from ocef.validation import check_in_interval
from ocef.errors import ParameterError, ParameterTypeError

if TYPE_CHECKING:                      # pandas is imported where a DataFrame is made or read
    import pandas as pd

# --------------------------------------------------------------------------------------------
# Pure formulas
# --------------------------------------------------------------------------------------------

def rtpr_utilities(P, Q) -> np.ndarray:
    """``U_k = Q_k / P_k`` (eq. 4/6): the RTPR utility up to the common factor P(R=1).

    ``P``, ``Q`` have shape ``(..., K)``. ``P_k = 0`` gives ``inf``/``nan`` (no warning);
    the DataFrame entry points refuse such input with a named error.
    """
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return Q / P


def relative_group_utilities(U) -> np.ndarray:
    """``delta_U_k = U_k / mean(U_1..U_K) - 1`` (eq. 3, 7), over the last axis."""
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U / U.mean(axis=-1, keepdims=True) - 1.0


def reo_penalty(U) -> np.ndarray:
    """``Delta_REO = std(U) / mean(U)`` (eq. 2, 6), population std over the last axis (K groups)."""
    U = np.asarray(U, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return U.std(axis=-1) / U.mean(axis=-1)


def reo_point_estimates(P, Q) -> "ReoPoint":
    """``(U, delta_U, penalty)`` from ``P_k``, ``Q_k`` (eq. 4, 6, 7); shapes ``(..., K)``,
    ``(..., K)``, ``(...)``."""
    U = rtpr_utilities(P, Q)
    return ReoPoint(U, relative_group_utilities(U), reo_penalty(U))


def normal_quantile(confidence: float) -> float:
    """``z(delta/2)``: the upper ``(1 - confidence)/2`` quantile of N(0, 1) (Alg. 1)."""
    c = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    from statistics import NormalDist     # the standard library's quantile: no scipy import at start-up

    # the lower tail (1 - c)/2 keeps its precision up to c = 1 - 1e-16, where 0.5 + c/2 rounds to 1
    # and inv_cdf(1) raised StatisticsError
    return float(-NormalDist().inv_cdf((1.0 - c) / 2.0))


class ReoPoint(NamedTuple):
    """Point estimates (eq. 4, 6, 7): ``U (..., K)``, ``delta_U (..., K)``, ``penalty (...)``."""

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray


class ReoJacobians(NamedTuple):
    """``G[..., j, k] = d delta_U_k / d U_j`` and ``H[..., j] = d Delta_REO / d delta_U_j`` (App. F)."""

    G: np.ndarray
    H: np.ndarray


#: Delta-method covariances of the U_k: ``"diagonal"`` is Algorithm 1 as printed, ``"full"``
#: keeps the multinomial covariances of the Q_k (one default log) and of the P_k (one random log).
COVARIANCES = ("full", "diagonal")


class ReoArrays(NamedTuple):
    """Algorithm 1 on arrays. Shapes: K-vectors ``(..., K)``, matrices ``(..., K, K)``,
    scalars ``(...)``."""

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
        """``delta_U_k +- z SE`` (Alg. 1)."""
        return self.delta_U - self.z * self.se_delta_U, self.delta_U + self.z * self.se_delta_U

    def ci_penalty(self) -> tuple[np.ndarray, np.ndarray]:
        """``penalty +- z SE`` (Alg. 1)."""
        return self.penalty - self.z * self.se_penalty, self.penalty + self.z * self.se_penalty


def utility_covariance_diagonal(P, Q, n_default, n_random) -> np.ndarray:
    """Diagonal of ``Gamma`` (Alg. 1, App. F):
    ``U_k^2 ((1-Q_k)/Q_k / n_default + (1-P_k)/P_k / n_random)``.

    Computed in the algebraically identical form
    ``(Q_k (1-Q_k)/n_default + Q_k^2 (1-P_k)/(P_k n_random)) / P_k^2`` which stays finite
    when ``Q_k = 0`` (a group never liked among the recommendations: U_k = 0, Gamma_kk = 0).
    """
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    nd = np.asarray(n_default, dtype=float)[..., None]
    nr = np.asarray(n_random, dtype=float)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (Q * (1.0 - Q) / nd + Q * Q * (1.0 - P) / (P * nr)) / (P * P)


def utility_covariance(P, Q, n_default, n_random) -> np.ndarray:
    """Full delta-method ``Gamma = Cov(U_hat)`` (..., K, K) from the multinomial logs.

    The Q_hat_k are the cell shares of one multinomial default log, ``Cov(Q_hat_j, Q_hat_k) =
    (delta_jk Q_k - Q_j Q_k) / n_default``, and likewise the P_hat_k of the random log; with
    ``dU_k/dQ_k = 1/P_k`` and ``dU_k/dP_k = -U_k/P_k`` the delta method gives

        Gamma_jk = delta_jk (Q_k / (P_k^2 n_default) + Q_k^2 / (P_k^3 n_random))
                   - U_j U_k (1/n_default + 1/n_random).

    Its diagonal is Algorithm 1's Gamma (:func:`utility_covariance_diagonal`); Algorithm 1 drops
    the off-diagonal terms. Since delta_U and Delta_REO are invariant to rescaling U,
    ``G^T U = 0`` and the rank-one term cancels in ``G^T Gamma G``: the full Sigma is
    ``G^T diag(Q_k/(P_k^2 n_d) + Q_k^2/(P_k^3 n_r)) G``, larger than Algorithm 1's by
    ``(1/n_d + 1/n_r) G^T diag(U^2) G`` -- a relative ``~ (Q_k + P_k)/2`` that matters when
    positive labels are common.
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
    """``(G, H)`` of Algorithm 1 / App. F at utilities ``U`` (..., K):

    ``G[..., j, k] = d delta_U_k / d U_j = K (delta_{jk} sum_i U_i - U_k) / (sum_i U_i)^2`` and
    ``H[..., j] = d Delta_REO / d delta_U_j = delta_U_j / (K Delta_REO)`` (NaN where the
    penalty is 0, where Delta_REO is not differentiable). ``G @ H`` is the gradient of the
    penalty with respect to U.
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
    """Algorithm 1 (App. D; App. F): estimates, standard errors of ``delta_U_k`` and of
    ``Delta_REO`` by the delta method.

    ``P``, ``Q``: shape ``(..., K)``; ``n_default = |D_rec|``, ``n_random = |D_rand|``:
    shape ``(...)`` (or scalars). Vectorized over the leading axes, so many replicates
    (simulations, days) are processed in one call.

    * ``Gamma = diag(U_k^2 ((1-Q_k)/(Q_k |D_rec|) + (1-P_k)/(P_k |D_rand|)))`` (Algorithm 1,
      ``covariance="diagonal"``, the default here) or the full multinomial covariance
      (``covariance="full"``, :func:`utility_covariance`; the default of :func:`estimate_reo`)
    * ``G_{j,k} = d delta_U_k / d U_j = K (delta_{jk} sum_i U_i - U_k) / (sum_i U_i)^2``
    * ``H_j = d Delta_REO / d delta_U_j = delta_U_j / (K Delta_REO)``
    * ``Sigma = G^T Gamma G``, ``Xi = H^T Sigma H``; ``SE(delta_U_k) = sqrt(Sigma_kk)``,
      ``SE(Delta_REO) = sqrt(Xi)``.

    ``H`` is undefined where ``Delta_REO = 0``: ``se_penalty`` is NaN there (see the module
    docstring on the delta method near 0).
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
    """Algorithm 1 from counts: ``pos_default[..., k] = #{Y=1, S=s_k}`` in D_rec (size
    ``n_default``), ``pos_random[..., k]`` likewise in D_rand (size ``n_random``); eq. (5)."""
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
    """Boolean ``Y`` per row: the label column, or the OR of several 0/1 columns
    (the seed's published data: Y = 1 when any engagement signal is 1, Sec. 4.2).

    Every label value must be 0 or 1 (bools accepted); anything else, NaN included, is refused.
    """
    labels = label_columns(label)
    _check_columns(log, labels, name)
    return frame_label_indicator(log, labels, name)


def _resolve_groups(logs: Sequence[pd.DataFrame], group: str, groups) -> list:
    import pandas as pd

    return resolve_groups([pd.unique(log[group]) for log in logs], group, groups)


class PositiveCounts(NamedTuple):
    """``positives[k] = #{Y=1, S=s_k}`` and ``n = |log|``: the numerators and denominator of eq. (5)."""

    positives: np.ndarray
    n: int


def positive_counts(log: pd.DataFrame, *, label: str | Sequence[str] = "Y", group: str = "S",
                    groups: Sequence, name: str = "log") -> PositiveCounts:
    """``(#{Y=1, S=s_k} for k in groups, |log|)``: the numerators and denominator of eq. (5)."""
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
    """REO estimates with delta-method standard errors and intervals (Algorithm 1).

    ``groups``: tidy DataFrame with one row per group: ``group, P, Q, U, delta_U, se,
    ci_low, ci_high`` (se and interval are those of ``delta_U``), made on first access from
    ``columns`` (the same table as a dict of columns: JSON output needs no pandas). ``method``
    records the interval: ``"delta-full"``, ``"delta"`` (Algorithm 1),
    ``"bootstrap-<interval>"`` or ``"naive"``. ``notes``: why an interval is unreliable (a group
    without positives, ...).
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
        """The rows of ``groups`` as strict-JSON dicts, without pandas."""
        names = list(self.columns)
        return [jsonable(dict(zip(names, row))) for row in zip(*self.columns.values())]

    def to_frame(self) -> pd.DataFrame:
        """One row per group (the ``groups`` table) with the penalty, its interval, the log
        sizes, the confidence and the method repeated on every row."""
        return self.groups.assign(
            penalty=self.penalty, penalty_se=self.penalty_se, penalty_ci_low=self.penalty_ci[0],
            penalty_ci_high=self.penalty_ci[1], n_default=self.n_default, n_random=self.n_random,
            confidence=self.confidence, method=self.method, delta_method_reliable=self.delta_method_reliable)

    def to_dict(self) -> dict:
        """JSON-ready: ``groups`` (list of records), ``penalty``, ``penalty_se``, ``penalty_ci``,
        ``n_default``, ``n_random``, ``confidence``, ``method``, ``delta_method_reliable``,
        ``notes``. Undefined numbers (NaN) become ``None`` (JSON null)."""
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
    """Why REO is undefined for these positive counts (empty when it is defined): groups
    without positives in the random traffic (P_k = 0), no positive in the default traffic."""
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
    """Notes for groups without a positive label in the default log: ``Q_k = 0`` gives
    ``U_k = 0`` with delta-method SE 0 (the delta method is unreliable at the boundary)."""
    return [f"group {g!r} has no positive label in the default log (Q_k = 0): U_k = 0 with delta-method "
            f"SE 0, an unreliable interval; collect more default traffic or use a bootstrap interval"
            for g, c in zip(groups, np.asarray(pos_default)) if c == 0]


def check_interval(interval: str) -> str:
    """``interval`` checked against :data:`INTERVALS`."""
    if interval not in INTERVALS:
        raise ParameterError(f"interval must be one of {INTERVALS}, got {interval!r}")
    return interval


def reo_result_from_counts(groups: Sequence, pos_default, n_default: int, pos_random, n_random: int, *,
                           confidence: float = 0.95, interval: str = "delta-full") -> ReoResult:
    """The full :class:`ReoResult` from per-group positive counts and log sizes (eq. 5-7 and the
    delta method ``interval``): the one estimator every data path (pandas, DuckDB, Spark) ends in.

    Refuses empty logs and groups without positives in the random log (U_k undefined), naming
    them; a group without positives in the default log gets a note and an unreliable flag.
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
    arr = delta_method_reo(P, Q, n_default, n_random, confidence=confidence,
                           covariance=covariance)
    return _result_from_arrays(groups, P, Q, arr, n_default, n_random, confidence, interval,
                               zero_default_notes(groups, pos_d))


def naive_reo(default: pd.DataFrame, random: pd.DataFrame | None = None, *,
              label: str | Sequence[str] = "Y", group: str = "S", recommended: str = "R",
              groups: Sequence | None = None) -> ReoResult:
    """The estimator that treats every missing label as negative (the practice Sec. 1 warns
    about), for comparison. Point estimates only (se and intervals are NaN).

    Every pair of the pair space whose label was not logged counts as ``Y = 0``; only logged
    rows can then be positive, and

        ``U_k^naive = #{logged, R=1, Y=1, S=s_k} / #{logged, Y=1, S=s_k}``  (eq. 1 on that data)

    where default-traffic rows have ``R = 1`` and random-traffic rows take ``R`` from the
    ``recommended`` column when present (else 0: not recommended by the default strategy).
    Without random traffic every ``U_k`` is 1 and the penalty is 0 whatever the system does
    (Table 1: datasets A and B look the same); with some random traffic the result depends on
    the logging volumes, not on the system, so it is inconsistent.
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
