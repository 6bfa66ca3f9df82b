"""Point estimates of REO (eq. 1-7) and their delta-method intervals (Algorithm 1), on arrays and on logs.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ocef.validation import check_in_interval

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


def reo_point_estimates(P, Q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(U, delta_U, penalty)`` from ``P_k``, ``Q_k`` (eq. 4, 6, 7); shapes ``(..., K)``,
    ``(..., K)``, ``(...)``."""
    U = rtpr_utilities(P, Q)
    return U, relative_group_utilities(U), reo_penalty(U)


def normal_quantile(confidence: float) -> float:
    """``z(delta/2)``: the upper ``(1 - confidence)/2`` quantile of N(0, 1) (Alg. 1)."""
    c = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    return float(stats.norm.ppf(0.5 + c / 2.0))


class ReoArrays(NamedTuple):
    """Algorithm 1 on arrays. Shapes: K-vectors ``(..., K)``, matrices ``(..., K, K)``,
    scalars ``(...)``."""

    U: np.ndarray
    delta_U: np.ndarray
    penalty: np.ndarray
    gamma: np.ndarray       # diagonal of Gamma = Cov(U), (..., K)
    sigma: np.ndarray       # Sigma = G^T Gamma G = Cov(delta_U), (..., K, K)
    xi: np.ndarray          # Xi = H^T Sigma H = Var(penalty), (...)
    se_delta_U: np.ndarray  # sqrt(diag Sigma), (..., K)
    se_penalty: np.ndarray  # sqrt(Xi), (...); NaN where penalty == 0
    z: float                # z(delta/2)

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


def reo_jacobians(U) -> tuple[np.ndarray, np.ndarray]:
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
    return G, H


def delta_method_reo(P, Q, n_default, n_random, confidence: float = 0.95) -> ReoArrays:
    """Algorithm 1 (App. D; App. F): estimates, standard errors of ``delta_U_k`` and of
    ``Delta_REO`` by the delta method.

    ``P``, ``Q``: shape ``(..., K)``; ``n_default = |D_rec|``, ``n_random = |D_rand|``:
    shape ``(...)`` (or scalars). Vectorized over the leading axes, so many replicates
    (simulations, days) are processed in one call.

    * ``Gamma = diag(U_k^2 ((1-Q_k)/(Q_k |D_rec|) + (1-P_k)/(P_k |D_rand|)))``
    * ``G_{j,k} = d delta_U_k / d U_j = K (delta_{jk} sum_i U_i - U_k) / (sum_i U_i)^2``
    * ``H_j = d Delta_REO / d delta_U_j = delta_U_j / (K Delta_REO)``
    * ``Sigma = G^T Gamma G``, ``Xi = H^T Sigma H``; ``SE(delta_U_k) = sqrt(Sigma_kk)``,
      ``SE(Delta_REO) = sqrt(Xi)``.

    ``H`` is undefined where ``Delta_REO = 0``: ``se_penalty`` is NaN there (see the module
    docstring on the delta method near 0).
    """
    z = normal_quantile(confidence)
    U, dU, pen = reo_point_estimates(P, Q)
    gamma = utility_covariance_diagonal(P, Q, n_default, n_random)
    G, H = reo_jacobians(U)
    sigma = np.einsum("...jk,...j,...jl->...kl", G, gamma, G)
    xi = np.einsum("...k,...kl,...l->...", H, sigma, H)
    se_dU = np.sqrt(np.clip(np.diagonal(sigma, axis1=-2, axis2=-1), 0.0, None))
    se_pen = np.sqrt(np.clip(xi, 0.0, None))
    return ReoArrays(U, dU, pen, gamma, sigma, xi, se_dU, se_pen, z)


def reo_from_counts(pos_default, n_default, pos_random, n_random,
                    confidence: float = 0.95) -> ReoArrays:
    """Algorithm 1 from counts: ``pos_default[..., k] = #{Y=1, S=s_k}`` in D_rec (size
    ``n_default``), ``pos_random[..., k]`` likewise in D_rand (size ``n_random``); eq. (5)."""
    nd = np.asarray(n_default, dtype=float)
    nr = np.asarray(n_random, dtype=float)
    Q = np.asarray(pos_default, dtype=float) / nd[..., None]
    P = np.asarray(pos_random, dtype=float) / nr[..., None]
    return delta_method_reo(P, Q, nd, nr, confidence)


# --------------------------------------------------------------------------------------------
# Logs
# --------------------------------------------------------------------------------------------

def _check_columns(log: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    if not isinstance(log, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(log).__name__}")
    missing = [c for c in columns if c not in log.columns]
    if missing:
        raise ValueError(f"{name} log is missing column(s) {missing}; it has {list(log.columns)}")


def _label_list(label) -> list[str]:
    labels = [label] if isinstance(label, str) else list(label)
    if not labels or not all(isinstance(c, str) for c in labels):
        raise TypeError(f"label must be a column name or a non-empty list of column names, got {label!r}")
    return labels


def label_indicator(log: pd.DataFrame, label: str | Sequence[str] = "Y", *, name: str = "log") -> np.ndarray:
    """Boolean ``Y`` per row: the label column, or the OR of several 0/1 columns
    (the seed's published data: Y = 1 when any engagement signal is 1, Sec. 4.2).

    Every label value must be 0 or 1 (bools accepted); anything else, NaN included, is refused.
    """
    labels = _label_list(label)
    _check_columns(log, labels, name)
    y = np.zeros(len(log), dtype=bool)
    for col in labels:
        series = log[col]
        if series.dtype == bool:
            y |= series.to_numpy()
            continue
        if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
            raise ValueError(f"{name} label column {col!r} must hold 0/1 values, got dtype {series.dtype}")
        values = series.to_numpy(dtype=float, na_value=np.nan)   # nullable Int/boolean too
        bad = ~np.isin(values, (0.0, 1.0))
        if bad.any():
            shown = pd.unique(values[bad])[:5].tolist()
            raise ValueError(f"{name} label column {col!r} must hold only 0 and 1, found {shown}")
        y |= values == 1.0
    return y


def _resolve_groups(logs: Sequence[pd.DataFrame], group: str, groups) -> list:
    if groups is not None:
        groups = list(groups)
        if len(groups) < 2 or len(set(groups)) != len(groups):
            raise ValueError(f"groups must list at least 2 distinct values, got {groups!r}")
        for log in logs:
            unknown = set(pd.unique(log[group])) - set(groups)
            if unknown:
                raise ValueError(f"group column {group!r} has values {sorted(map(str, unknown))} "
                                 f"not in groups={groups!r}")
        return groups
    values = pd.unique(pd.concat([log[group] for log in logs], ignore_index=True))
    if pd.isna(values).any():
        raise ValueError(f"group column {group!r} has missing values")
    found = sorted(values.tolist(), key=lambda v: (str(type(v)), v))
    if len(found) < 2:
        raise ValueError(f"REO needs at least 2 groups in column {group!r}, found {found!r}")
    return found


def positive_counts(log: pd.DataFrame, *, label: str | Sequence[str] = "Y", group: str = "S",
                    groups: Sequence, name: str = "log") -> tuple[np.ndarray, int]:
    """``(#{Y=1, S=s_k} for k in groups, |log|)``: the numerators and denominator of eq. (5)."""
    y = label_indicator(log, label, name=name)
    codes = pd.Categorical(log[group], categories=list(groups)).codes
    counts = np.bincount(codes[y & (codes >= 0)], minlength=len(groups))
    return counts.astype(np.int64), len(log)


def _check_log(log, label, group: str, name: str) -> None:
    _check_columns(log, _label_list(label) + [group], name)
    if len(log) == 0:
        raise ValueError(f"{name} log is empty: REO needs at least one row")


@dataclass
class ReoResult:
    """REO estimates with delta-method standard errors and intervals (Algorithm 1).

    ``groups``: tidy DataFrame with one row per group: ``group, P, Q, U, delta_U, se,
    ci_low, ci_high`` (se and interval are those of ``delta_U``).
    """

    groups: pd.DataFrame
    penalty: float
    penalty_se: float
    penalty_ci: tuple[float, float]
    n_default: int
    n_random: int
    confidence: float = 0.95
    sigma: np.ndarray | None = field(default=None, repr=False)
    method: str = "delta"
    #: False when the *delta-method* penalty interval reaches 0 or below, or its SE is
    #: undefined (penalty exactly 0): the delta method is then unreliable for the penalty
    #: (module docstring). Bootstrap results carry the flag of the delta interval too.
    delta_method_reliable: bool = False

    def to_dict(self) -> dict:
        """JSON-ready: ``groups`` (list of records), ``penalty``, ``penalty_se``, ``penalty_ci``,
        ``n_default``, ``n_random``, ``confidence``, ``method``, ``delta_method_reliable``.
        Undefined numbers (NaN) become ``None`` (JSON null)."""
        return {
            "groups": _records(self.groups),
            "penalty": _json_float(self.penalty),
            "penalty_se": _json_float(self.penalty_se),
            "penalty_ci": [_json_float(self.penalty_ci[0]), _json_float(self.penalty_ci[1])],
            "n_default": int(self.n_default),
            "n_random": int(self.n_random),
            "confidence": _json_float(self.confidence),
            "method": self.method,
            "delta_method_reliable": bool(self.delta_method_reliable),
        }


def _json_float(v) -> float | None:
    v = float(v)
    return v if np.isfinite(v) else None


def _records(table: pd.DataFrame) -> list[dict]:
    """Rows of a result table as JSON-ready dicts (numpy scalars unwrapped, NaN -> None)."""
    out = []
    for row in table.to_dict(orient="records"):
        rec = {}
        for k, v in row.items():
            if isinstance(v, (float, np.floating)):
                rec[k] = _json_float(v)
            elif isinstance(v, np.generic):
                rec[k] = v.item()
            else:
                rec[k] = v
        out.append(rec)
    return out


def _result_from_arrays(groups: list, P, Q, arr: ReoArrays, n_default: int, n_random: int,
                        confidence: float, method: str = "delta") -> ReoResult:
    lo, hi = arr.ci_delta_U()
    plo, phi = arr.ci_penalty()
    table = pd.DataFrame({
        "group": groups, "P": P, "Q": Q, "U": arr.U, "delta_U": arr.delta_U,
        "se": arr.se_delta_U, "ci_low": lo, "ci_high": hi,
    })
    reliable = bool(np.isfinite(arr.se_penalty) and plo > 0.0)
    return ReoResult(table, float(arr.penalty), float(arr.se_penalty), (float(plo), float(phi)),
                     int(n_default), int(n_random), float(confidence), arr.sigma, method, reliable)


def _check_estimable(groups: list, pos_default: np.ndarray, pos_random: np.ndarray) -> None:
    no_pos = [g for g, c in zip(groups, pos_random) if c == 0]
    if no_pos:
        raise ValueError(
            f"group(s) {no_pos} have no positive label in the random traffic: P_k = 0, so "
            f"U_k = Q_k / P_k is undefined; collect more random traffic or merge groups")
    if pos_default.sum() == 0:
        raise ValueError("the default traffic has no positive label in any group: mean(U) = 0, "
                         "so delta_U and the REO penalty are undefined")


def estimate_reo(default: pd.DataFrame, random: pd.DataFrame, *, label: str | Sequence[str] = "Y",
                 group: str = "S", confidence: float = 0.95, groups: Sequence | None = None) -> ReoResult:
    """Estimate ``U_k``, ``delta_U_k`` and ``Delta_REO`` with delta-method intervals
    (eq. 5-7, Algorithm 1) from the default traffic log D_rec and the random traffic log D_rand.

    ``label``: a 0/1 column, or a list of them (Y = any of them); ``group``: the item-group
    column S; ``groups``: optional list fixing the groups and their order (default: the sorted
    values found in both logs). Raises ``ValueError`` naming the problem for missing columns,
    empty logs, labels outside {0, 1}, and groups without positives in the random traffic.
    """
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    _check_log(default, label, group, "default")
    _check_log(random, label, group, "random")
    groups = _resolve_groups([default, random], group, groups)
    pos_d, n_d = positive_counts(default, label=label, group=group, groups=groups, name="default")
    pos_r, n_r = positive_counts(random, label=label, group=group, groups=groups, name="random")
    _check_estimable(groups, pos_d, pos_r)
    Q = pos_d / n_d
    P = pos_r / n_r
    arr = delta_method_reo(P, Q, n_d, n_r, confidence)
    return _result_from_arrays(groups, P, Q, arr, n_d, n_r, confidence)


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
        raise ValueError(f"group(s) {empty} have no logged positive label: the naive U_k is undefined")
    U = pos_rec / pos_all
    nan = np.full(len(groups), np.nan)
    table = pd.DataFrame({"group": groups, "P": pos_all / (n_d + n_r), "Q": pos_rec / (n_d + n_r),
                          "U": U, "delta_U": relative_group_utilities(U), "se": nan,
                          "ci_low": nan, "ci_high": nan})
    return ReoResult(table, float(reo_penalty(U)), float("nan"), (float("nan"), float("nan")),
                     n_d, n_r, float("nan"), None, "naive")
