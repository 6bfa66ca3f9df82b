"""Ranking-based Equal Opportunity (REO) from default + random traffic (seed 000, Dong et al.).

Definitions (Sec. 2-3, App. D)
------------------------------
For K item groups s_1..s_K:

* ``P_k = P(Y=1, S=s_k)`` estimated on the random traffic D_rand,
  ``Q_k = P(Y=1, S=s_k | R=1)`` estimated on the default traffic D_rec        (eq. 5)
* ``U_k = Q_k / P_k``: the RTPR utility P(R=1 | Y=1, S=s_k) up to the common factor P(R=1)
  (eq. 1, 4, 6); every metric below is invariant to that factor.
* ``delta_U_k = U_k / mean(U) - 1``                                              (eq. 3, 7)
* ``penalty = Delta_REO = std(U) / mean(U)`` with the *population* std (1/K), as the
  gradient H_j = delta_U_j / (K Delta_REO) of App. F requires and as the 11.1% threshold of
  Sec. 4.3 (U_1 = 0.8 U_2 gives 1/9) confirms.                                    (eq. 2, 6)

Standard errors follow Algorithm 1 (App. D, justified in App. F) literally:
``Gamma = diag(U_k^2 ((1-Q_k)/(Q_k n_default) + (1-P_k)/(P_k n_random)))``,
``G_{j,k} = K (delta_{jk} sum(U) - U_k) / sum(U)^2``, ``H_j = delta_U_j / (K penalty)``,
``Sigma = G^T Gamma G`` (covariance of delta_U), ``Xi = H^T Sigma H`` (variance of the
penalty); intervals are estimate +- z(delta/2) SE.

``Gamma`` is diagonal, as in the seed: it treats the P_k (and the Q_k) of different groups as
independent, whereas within one log they are multinomial with Cov = -P_j P_k / n. For K = 2
and U_1/U_2 this drops ``2/n`` from the variance of log(Q_1/Q_2) (and of log(P_1/P_2)), so
the SE is slightly too small (by 3.5% in an A/A check with Q = (0.12, 0.05), P = (0.05, 0.03));
negligible when the P_k, Q_k are small, as in production logs. We keep Algorithm 1 as written.

Table 1 of the seed: eq. (2) gives 1/3 for dataset B (U = (1/2, 1)); the seed prints 2/3,
which is |U_1 - U_2| / mean(U) (twice eq. 2 for K = 2). We follow eq. (2), Sec. 4.3 and App. F.

When the delta method is unreliable
-----------------------------------
``Delta_REO`` is a norm of ``delta_U`` (``sqrt(mean(delta_U^2))``): it is not differentiable
at 0, its estimator is biased upward near 0 (by up to about one SE of delta_U_k) and its
sampling distribution is a folded (non-central chi) rather than a normal one. When the true
penalty is within about two standard errors of 0 the symmetric delta interval is wrong: it
reaches below 0 and its coverage is off. A Monte-Carlo check (``tests/test_reo.py``) with a
true penalty of 0 finds a 95% interval covering in ~95% of logs for K = 2 (a folded normal)
but ~70% for K = 4 and ~20% for K = 8; from about 2-4 SEs on the coverage is back near 95%.
:class:`ReoResult` flags this (``delta_method_reliable`` is False when the lower end of the
penalty interval is <= 0, and the SE is NaN when the estimate is exactly 0). Then:
(1) read the per-group ``delta_U_k`` intervals, which stay valid (``delta_U`` is smooth at 0);
(2) use a bootstrap interval for the penalty (``bootstrap_reo_ci(..., method="bca")`` or
``"percentile"``), which respects the boundary; (3) for a decision, test the penalty against
a threshold (e.g. :func:`eighty_percent_rule_threshold`) instead of against 0; (4) collect more
random traffic (:func:`delta_method_sample_size`).

Public API (part B of issue 5 relies on these names)
----------------------------------------------------
Pure array functions (any leading batch shape ``(..., K)``, vectorized over replicates):

* ``rtpr_utilities(P, Q) -> U``; ``relative_group_utilities(U) -> delta_U``;
  ``reo_penalty(U) -> penalty``; ``reo_point_estimates(P, Q) -> (U, delta_U, penalty)``
* ``delta_method_reo(P, Q, n_default, n_random, confidence=0.95) -> ReoArrays`` (fields
  ``U, delta_U, penalty, gamma, sigma, xi, se_delta_U, se_penalty, z``)
* ``reo_from_counts(pos_default, n_default, pos_random, n_random, confidence)``: same from
  positive counts per group (arrays ``(..., K)``) and log sizes (``(...)``).

Logs (pandas; columns ``request, day, user, item, R, Y, S, source``; only the label and group
columns are required):

* ``estimate_reo(default, random, *, label="Y", group="S", confidence=0.95, groups=None)
  -> ReoResult`` with ``.groups`` (group, P, Q, U, delta_U, se, ci_low, ci_high),
  ``.penalty``, ``.penalty_se``, ``.penalty_ci``, ``.n_default``, ``.n_random``, ``.sigma``,
  ``.delta_method_reliable``, ``.to_dict()``.
* ``positive_counts(log, *, label, group, groups) -> (pos[K], n)``;
  ``label_indicator(log, label)`` (Y = any of several 0/1 columns).
* ``naive_reo(default, random=None, *, label, group, recommended="R", groups=None)``: the
  estimator that treats every missing label as negative (Sec. 1), for comparison.
* ``bootstrap_reo_ci(default, random, *, method="standard"|"percentile"|"bca",
  n_resamples=100, confidence, rng, resample="counts"|"rows") -> (ReoResult, BootstrapSummary)``
  (replicates, se, bias, intervals; ``bca_interval`` is the BCa formula of scipy.stats.bootstrap
  computed with an exact count-level jackknife); ``category_counts(log, ...)``.
* A/B (App. D, G): ``ab_test(control, treatment, random, *, method="delta"|"delta-shared"|
  "partition"|"bootstrap", label, group, confidence, rng, n_resamples=100, n_folds=10) -> AbResult`` with
  ``.groups`` (group, D, se, ci_low, ci_high, p_value), ``.D_reo``, ``.D_reo_se``,
  ``.D_reo_ci``, ``.D_reo_p_value``, ``.to_dict()``; ``shared_random_ab_variance(P, Q_control,
  Q_treatment, n_control, n_treatment, n_random)`` (arrays, for "delta-shared");
  ``reo_jacobians(U) -> (G, H)``; ``utility_covariance_diagonal(P, Q, n_default, n_random)``.
* Other metrics (App. H): ``ranking_statistical_parity(n_recommended, n_candidates)``,
  ``user_precision_utility(default, *, label, user_group)``.
* Planning: ``eighty_percent_rule_threshold(K, ratio=0.8)``,
  ``delta_method_sample_size(P, Q, *, epsilon, confidence, n_default=None, ...)``,
  ``theorem_sample_size(P, Q, *, epsilon, delta)``, ``expected_random_rows(p_act, *, n_requests,
  n_show, log_rate=1)`` (refuses p_act outside [0, 1]), ``p_act_for(n_random, ...)``.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ocef._validation import check_in_interval

__all__ = [
    "rtpr_utilities", "relative_group_utilities", "reo_penalty", "reo_point_estimates",
    "ReoArrays", "reo_jacobians", "utility_covariance_diagonal", "delta_method_reo", "reo_from_counts", "normal_quantile",
    "label_indicator", "positive_counts", "ReoResult", "estimate_reo", "naive_reo",
    "category_counts", "bca_interval", "BootstrapSummary", "bootstrap_reo_ci",
    "AbResult", "ab_test", "shared_random_ab_variance", "ranking_statistical_parity", "user_precision_utility",
    "eighty_percent_rule_threshold", "delta_method_sample_size", "theorem_sample_size",
    "expected_random_rows", "p_act_for",
]


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
        r = (random[recommended].to_numpy().astype(bool) if recommended in random.columns
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


# --------------------------------------------------------------------------------------------
# Bootstrap (App. G.2, Sec. 4.3) on category counts
# --------------------------------------------------------------------------------------------
#
# Every REO statistic depends on a log only through its category counts
# ``c = (#{Y=1,S=s_1}, ..., #{Y=1,S=s_K}, #rest)``. Resampling n rows with replacement is then
# exactly a Multinomial(n, c / n) draw of the counts, and a jackknife (leave-one-row-out) takes
# only K + 1 distinct values, each with multiplicity c_j. This makes the bootstrap O(B K) and
# the BCa acceleration O(K) instead of O(B n) and O(n^2) (scipy.stats.bootstrap's jackknife
# on the rows would need n^2 operations: 2e10 for one day of the seed's logs). ``resample=
# "rows"`` runs the literal Algorithm 4 (index resampling and a full recount) for comparison.

BOOTSTRAP_METHODS = ("standard", "percentile", "bca")


def category_counts(log: pd.DataFrame, *, label: str | Sequence[str] = "Y", group: str = "S",
                    groups: Sequence, name: str = "log") -> np.ndarray:
    """``(#{Y=1,S=s_1}, ..., #{Y=1,S=s_K}, #rows with Y=0)``: the sufficient statistic of a log."""
    pos, n = positive_counts(log, label=label, group=group, groups=groups, name=name)
    return np.append(pos, n - pos.sum())


def _reo_stat_from_counts(counts_default: np.ndarray, counts_random: np.ndarray) -> np.ndarray:
    """``(delta_U_1..delta_U_K, penalty)`` from category counts ``(..., K+1)`` of D_rec, D_rand."""
    Q = counts_default[..., :-1] / counts_default.sum(axis=-1, keepdims=True)
    P = counts_random[..., :-1] / counts_random.sum(axis=-1, keepdims=True)
    _, dU, pen = reo_point_estimates(P, Q)
    return np.concatenate([dU, pen[..., None]], axis=-1)


def _ab_stat_from_counts(counts_control, counts_treatment, counts_random) -> np.ndarray:
    """``(D_1..D_K, D_REO)`` = treatment minus control statistics sharing D_rand (App. D)."""
    return (_reo_stat_from_counts(counts_treatment, counts_random)
            - _reo_stat_from_counts(counts_control, counts_random))


def _multinomial_resamples(rng: np.random.Generator, counts: np.ndarray, n_resamples: int) -> np.ndarray:
    n = int(counts.sum())
    return rng.multinomial(n, counts / n, size=n_resamples)


def _row_resamples(rng: np.random.Generator, counts: np.ndarray, n_resamples: int) -> np.ndarray:
    """Literal resampling: draw row indices with replacement and recount (Algorithm 4)."""
    rows = np.repeat(np.arange(counts.size), counts)
    out = np.empty((n_resamples, counts.size), dtype=np.int64)
    for b in range(n_resamples):  # one full recount per bootstrap data set, as in Alg. 4
        out[b] = np.bincount(rows[rng.integers(0, rows.size, rows.size)], minlength=counts.size)
    return out


def _jackknife_values(statistic, samples: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Leave-one-row-out values of ``statistic`` per sample: for sample j, one value per
    category (row removed from that category) with weight = the category's count."""
    values, weights = [], []
    for j, c in enumerate(samples):
        keep = c > 0
        removed = c[None, :] - np.eye(c.size, dtype=c.dtype)[keep]      # (m, K+1)
        args = [np.broadcast_to(s, removed.shape) if i != j else removed for i, s in enumerate(samples)]
        values.append(statistic(*args))                                 # (m, d)
        weights.append(c[keep].astype(float))
    return values, weights


def bca_interval(theta_hat: np.ndarray, theta_boot: np.ndarray, jack_values: list[np.ndarray],
                 jack_weights: list[np.ndarray], confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Bias-corrected and accelerated interval (Efron & Tibshirani 14.3, 15.4), the algorithm of
    ``scipy.stats.bootstrap(method="BCa")`` computed from a weighted jackknife.

    ``theta_hat`` (d,), ``theta_boot`` (B, d); ``jack_values[j]`` (m_j, d) with row weights
    ``jack_weights[j]`` (m_j,) summing to the size n_j of sample j. Returns ``(low, high)``.
    A test checks equality with scipy.stats.bootstrap on row-level data.
    """
    alpha = (1.0 - confidence) / 2.0
    low = np.full(theta_hat.shape, np.nan)
    high = np.full(theta_hat.shape, np.nan)
    nums = np.zeros(theta_hat.shape)
    dens = np.zeros(theta_hat.shape)
    for vals, w in zip(jack_values, jack_weights):
        n = w.sum()
        dot = (w[:, None] * vals).sum(axis=0) / n
        u = (n - 1.0) * (dot - vals)
        nums += (w[:, None] * u ** 3).sum(axis=0) / n ** 3
        dens += (w[:, None] * u ** 2).sum(axis=0) / n ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        a_hat = nums / (6.0 * dens ** 1.5)
    z_alpha = stats.norm.ppf(alpha)
    for i in range(theta_hat.size):
        boot = theta_boot[:, i]
        boot = boot[np.isfinite(boot)]
        if boot.size == 0:
            continue
        pct = (np.count_nonzero(boot < theta_hat[i]) + np.count_nonzero(boot <= theta_hat[i])) / (2.0 * boot.size)
        z0 = stats.norm.ppf(pct)
        a = a_hat[i] if np.isfinite(a_hat[i]) else 0.0
        num1, num2 = z0 + z_alpha, z0 - z_alpha
        a1 = stats.norm.cdf(z0 + num1 / (1 - a * num1))
        a2 = stats.norm.cdf(z0 + num2 / (1 - a * num2))
        if np.isfinite(a1) and np.isfinite(a2):
            low[i], high[i] = np.quantile(boot, [a1, a2])
    return low, high


@dataclass
class BootstrapSummary:
    """Bootstrap of a vector statistic: estimate, replicates, SE, bias and interval."""

    estimate: np.ndarray          # (d,) on the original data
    replicates: np.ndarray        # (B, d); NaN where a replicate has a group without positives
    se: np.ndarray                # std of the finite replicates (ddof=1)
    bias: np.ndarray              # mean(replicates) - estimate
    ci_low: np.ndarray
    ci_high: np.ndarray
    method: str
    n_undefined: int              # replicates where the statistic is undefined (dropped)


def _bootstrap_counts(statistic, samples: list[np.ndarray], *, method: str, n_resamples: int,
                      confidence: float, rng, resample: str = "counts") -> BootstrapSummary:
    from ocef._validation import as_generator, check_positive_int

    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"method must be one of {BOOTSTRAP_METHODS}, got {method!r}")
    if resample not in ("counts", "rows"):
        raise ValueError(f"resample must be 'counts' or 'rows', got {resample!r}")
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    z = normal_quantile(confidence)
    rng = as_generator(rng)
    draw = _multinomial_resamples if resample == "counts" else _row_resamples
    estimate = statistic(*samples)
    replicates = statistic(*[draw(rng, c, n_resamples) for c in samples])
    finite = np.isfinite(replicates)
    n_undefined = int((~finite.all(axis=1)).sum())
    masked = np.where(finite, replicates, np.nan)
    with warnings.catch_warnings():  # all-NaN columns (a statistic never defined) give NaN quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(masked, axis=0, ddof=1)
        bias = np.nanmean(masked, axis=0) - estimate
    if method == "standard":                       # eq. (23)
        low, high = estimate - z * se, estimate + z * se
    elif method == "percentile":
        alpha = (1.0 - confidence) / 2.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, high = np.nanquantile(masked, alpha, axis=0), np.nanquantile(masked, 1 - alpha, axis=0)
    else:
        vals, weights = _jackknife_values(statistic, samples)
        low, high = bca_interval(estimate, masked, vals, weights, confidence)
    return BootstrapSummary(estimate, replicates, se, bias, low, high, method, n_undefined)


def bootstrap_reo_ci(default: pd.DataFrame, random: pd.DataFrame, *, label: str | Sequence[str] = "Y",
                     group: str = "S", confidence: float = 0.95, n_resamples: int = 100,
                     method: str = "standard", rng=None, groups: Sequence | None = None,
                     resample: str = "counts") -> tuple[ReoResult, BootstrapSummary]:
    """Bootstrap intervals for ``delta_U_k`` and ``Delta_REO`` of one strategy (Sec. 4.3, Fig. 7-8).

    Resamples D_rec and D_rand independently with replacement (same sizes), ``n_resamples``
    times. ``method``: ``"standard"`` (estimate +- z SE_boot, the normal bootstrap of eq. 23),
    ``"percentile"``, or ``"bca"`` (bias-corrected and accelerated). Returns the delta-method
    :class:`ReoResult` with its ``groups`` columns ``se, ci_low, ci_high`` replaced by the
    bootstrap ones (``method`` records which), and the :class:`BootstrapSummary` (replicates,
    bias = the bootstrap estimate of the estimator's bias, Fig. 8). Statistic order:
    ``delta_U_1..delta_U_K, penalty``.
    """
    result = estimate_reo(default, random, label=label, group=group, confidence=confidence, groups=groups)
    names = result.groups.group.tolist()
    cd = category_counts(default, label=label, group=group, groups=names, name="default")
    cr = category_counts(random, label=label, group=group, groups=names, name="random")
    boot = _bootstrap_counts(_reo_stat_from_counts, [cd, cr], method=method, n_resamples=n_resamples,
                             confidence=confidence, rng=rng, resample=resample)
    table = result.groups.copy()
    table["se"], table["ci_low"], table["ci_high"] = boot.se[:-1], boot.ci_low[:-1], boot.ci_high[:-1]
    out = ReoResult(table, result.penalty, float(boot.se[-1]), (float(boot.ci_low[-1]), float(boot.ci_high[-1])),
                    result.n_default, result.n_random, result.confidence, None, f"bootstrap-{method}",
                    result.delta_method_reliable)
    return out, boot


# --------------------------------------------------------------------------------------------
# A/B comparisons (App. D "Between strategies", App. G)
# --------------------------------------------------------------------------------------------

AB_METHODS = ("delta", "delta-shared", "partition", "bootstrap")


def shared_random_ab_variance(P, Q_control, Q_treatment, n_control, n_treatment, n_random) -> np.ndarray:
    """Delta-method variances of ``(D_1..D_K, D_REO)`` that keep the covariance the shared
    random traffic induces between the arms (an extension of Algorithm 2; not in the seed).

    With ``J = [G, G H]`` the gradient of ``(delta_U, Delta_REO)`` w.r.t. U (App. F) and
    ``U = Q / P``, the first-order expansion in the independent estimates Q^T, Q^C, P gives

        ``Var_m = sum_j J^T_jm^2 Gq^T_j + J^C_jm^2 Gq^C_j
                  + (J^T_jm U^T_j - J^C_jm U^C_j)^2 (1 - P_j) / (P_j |D_rand|)``

    with ``Gq_j = U_j^2 (1 - Q_j) / (Q_j |D_rec|)`` (the default-traffic part of Gamma).
    Algorithm 2 instead adds the two arms' full variances, counting the P part twice with the
    wrong sign of its cross term; in an A/A test the P part cancels exactly.
    """
    P = np.asarray(P, dtype=float)
    out = []
    for Q, n in ((Q_treatment, n_treatment), (Q_control, n_control)):
        U = rtpr_utilities(P, Q)
        G, H = reo_jacobians(U)
        J = np.concatenate([G, np.einsum("...jk,...k->...j", G, H)[..., None]], axis=-1)
        out.append((U, J, utility_covariance_diagonal(P, Q, n, np.inf)))
    (U_t, J_t, g_t), (U_c, J_c, g_c) = out
    with np.errstate(divide="ignore", invalid="ignore"):
        p_part = (1.0 - P) / (P * np.asarray(n_random, dtype=float)[..., None])
    return (np.einsum("...jm,...j->...m", J_t ** 2, g_t) + np.einsum("...jm,...j->...m", J_c ** 2, g_c)
            + np.einsum("...jm,...j->...m", (J_t * U_t[..., None] - J_c * U_c[..., None]) ** 2, p_part))


@dataclass
class AbResult:
    """Treatment minus control: ``D_k = delta_U_k^T - delta_U_k^C`` and
    ``D_REO = Delta_REO^T - Delta_REO^C`` with standard errors, intervals and two-sided
    p-values of H0: no difference.

    ``groups``: group, delta_U_control, delta_U_treatment, D, se, ci_low, ci_high, p_value.
    """

    groups: pd.DataFrame
    D_reo: float
    D_reo_se: float
    D_reo_ci: tuple[float, float]
    D_reo_p_value: float
    penalty_control: float
    penalty_treatment: float
    n_control: int
    n_treatment: int
    n_random: int
    method: str
    confidence: float

    def to_dict(self) -> dict:
        """JSON-ready dict with keys ``groups`` (records), ``D_reo``, ``D_reo_se``, ``D_reo_ci``,
        ``D_reo_p_value``, ``penalty_control``, ``penalty_treatment``, ``n_control``,
        ``n_treatment``, ``n_random``, ``method``, ``confidence``."""
        return {
            "groups": _records(self.groups), "D_reo": _json_float(self.D_reo),
            "D_reo_se": _json_float(self.D_reo_se),
            "D_reo_ci": [_json_float(self.D_reo_ci[0]), _json_float(self.D_reo_ci[1])],
            "D_reo_p_value": _json_float(self.D_reo_p_value),
            "penalty_control": _json_float(self.penalty_control),
            "penalty_treatment": _json_float(self.penalty_treatment),
            "n_control": int(self.n_control), "n_treatment": int(self.n_treatment),
            "n_random": int(self.n_random), "method": self.method, "confidence": float(self.confidence),
        }


def _normal_p_value(estimate, se) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * stats.norm.sf(np.abs(np.asarray(estimate) / np.asarray(se)))


def _fold_counts(rng: np.random.Generator, counts: np.ndarray, n_folds: int) -> np.ndarray:
    """Category counts of ``n_folds`` non-overlapping random folds of equal size (Alg. 3)."""
    rows = np.repeat(np.arange(counts.size), counts)
    fold = rng.permutation(rows.size) % n_folds
    return np.bincount(fold * counts.size + rows, minlength=n_folds * counts.size).reshape(n_folds, counts.size)


def ab_test(control: pd.DataFrame, treatment: pd.DataFrame, random: pd.DataFrame, *,
            method: str = "delta", label: str | Sequence[str] = "Y", group: str = "S",
            confidence: float = 0.95, rng=None, groups: Sequence | None = None,
            n_resamples: int = 100, bootstrap_interval: str = "standard",
            n_folds: int | tuple[int, int] = 10) -> AbResult:
    """Compare REO metrics of a treatment arm with a control arm that share one random
    traffic log (orthogonal assignment, App. I.2).

    ``method``:

    * ``"delta"`` — Algorithm 2: Algorithm 1 on each arm, ``SE(D) = sqrt(SE_T^2 + SE_C^2)``,
      normal interval and p-value. As the seed says, it neglects the correlation the shared
      D_rand induces between the arms; that correlation is positive, so the test is
      conservative (it rejects less than its level) unless |D_rand| >> |D_rec|.
    * ``"delta-shared"`` — the same delta method applied jointly to (Q^T, Q^C, P), which keeps
      the covariance of the shared D_rand (:func:`shared_random_ab_variance`); it holds its
      level whatever |D_rand| / |D_rec| is. An extension, not in the seed.
    * ``"partition"`` — Algorithm 3: each arm's D_rec and (separately) D_rand are split into
      ``n_folds`` (M_C, M_T) random non-overlapping folds, the metrics computed per fold and
      compared by Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``; scipy uses the
      unrounded Welch-Satterthwaite ν where eq. 22 floors it). The estimate is mu_T - mu_C.
    * ``"bootstrap"`` — Algorithm 4: D_rec^T, D_rec^C and D_rand are resampled independently
      ``n_resamples`` times; ``bootstrap_interval`` = ``"standard"`` (eq. 23), ``"percentile"``
      or ``"bca"``. p-values use the normal approximation D / SE_boot.
    """
    from ocef._validation import as_generator, check_positive_int

    if method not in AB_METHODS:
        raise ValueError(f"method must be one of {AB_METHODS}, got {method!r}")
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    for log, name in ((control, "control"), (treatment, "treatment"), (random, "random")):
        _check_log(log, label, group, name)
    names = _resolve_groups([control, treatment, random], group, groups)
    cc = category_counts(control, label=label, group=group, groups=names, name="control")
    ct = category_counts(treatment, label=label, group=group, groups=names, name="treatment")
    cr = category_counts(random, label=label, group=group, groups=names, name="random")
    _check_estimable(names, cc[:-1], cr[:-1])
    _check_estimable(names, ct[:-1], cr[:-1])
    z = normal_quantile(confidence)
    n_c, n_t, n_r = int(cc.sum()), int(ct.sum()), int(cr.sum())
    arr_c = reo_from_counts(cc[:-1], n_c, cr[:-1], n_r, confidence)
    arr_t = reo_from_counts(ct[:-1], n_t, cr[:-1], n_r, confidence)
    D = np.append(arr_t.delta_U - arr_c.delta_U, arr_t.penalty - arr_c.penalty)

    if method == "delta":                                                   # Algorithm 2
        se = np.sqrt(np.append(arr_t.se_delta_U ** 2 + arr_c.se_delta_U ** 2,
                               arr_t.se_penalty ** 2 + arr_c.se_penalty ** 2))
        low, high, p = D - z * se, D + z * se, _normal_p_value(D, se)
    elif method == "delta-shared":                                          # joint delta method
        se = np.sqrt(shared_random_ab_variance(cr[:-1] / n_r, cc[:-1] / n_c, ct[:-1] / n_t, n_c, n_t, n_r))
        low, high, p = D - z * se, D + z * se, _normal_p_value(D, se)
    elif method == "partition":                                             # Algorithm 3
        m_c, m_t = (n_folds, n_folds) if np.ndim(n_folds) == 0 else n_folds
        m_c = check_positive_int("n_folds (control)", m_c, minimum=2)
        m_t = check_positive_int("n_folds (treatment)", m_t, minimum=2)
        gen = as_generator(rng)
        v_c = _reo_stat_from_counts(_fold_counts(gen, cc, m_c), _fold_counts(gen, cr, m_c))
        v_t = _reo_stat_from_counts(_fold_counts(gen, ct, m_t), _fold_counts(gen, cr, m_t))
        if not (np.isfinite(v_c).all() and np.isfinite(v_t).all()):
            raise ValueError(f"with n_folds={n_folds} some fold has a group without positive label in "
                             f"its share of the random traffic (U_k undefined); use fewer folds")
        test = stats.ttest_ind(v_t, v_c, axis=0, equal_var=False)
        ci = test.confidence_interval(confidence_level=confidence)
        D = v_t.mean(axis=0) - v_c.mean(axis=0)
        se = np.sqrt(v_t.var(axis=0, ddof=1) / m_t + v_c.var(axis=0, ddof=1) / m_c)
        low, high, p = np.asarray(ci.low), np.asarray(ci.high), np.asarray(test.pvalue)
    else:                                                                   # Algorithm 4
        boot = _bootstrap_counts(_ab_stat_from_counts, [cc, ct, cr], method=bootstrap_interval,
                                 n_resamples=n_resamples, confidence=confidence, rng=rng)
        se, low, high = boot.se, boot.ci_low, boot.ci_high
        p = _normal_p_value(D, se)
        method = f"bootstrap-{bootstrap_interval}"

    table = pd.DataFrame({
        "group": names, "delta_U_control": arr_c.delta_U, "delta_U_treatment": arr_t.delta_U,
        "D": D[:-1], "se": se[:-1], "ci_low": low[:-1], "ci_high": high[:-1], "p_value": p[:-1],
    })
    return AbResult(table, float(D[-1]), float(se[-1]), (float(low[-1]), float(high[-1])), float(p[-1]),
                    float(arr_c.penalty), float(arr_t.penalty), n_c, n_t, n_r, method, confidence)


# --------------------------------------------------------------------------------------------
# Other metrics (App. H)
# --------------------------------------------------------------------------------------------

def ranking_statistical_parity(n_recommended, n_candidates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RSP (App. H.1, eq. 24-26): ``U_k = #{R=1, S=s_k} / #{S=s_k}`` over the pair space,
    ``delta_U_k = U_k - mean(U)`` (absolute, eq. 25), ``Delta_RSP = std(U) / mean(U)``.

    No labels, hence no random traffic needed: ``n_candidates[k]`` is the number of
    (request, item) pairs with an item of group k (requests x items of the group).
    Returns ``(U, delta_U, Delta_RSP)``; vectorized over leading axes.
    """
    rec = np.asarray(n_recommended, dtype=float)
    cand = np.asarray(n_candidates, dtype=float)
    if rec.shape != cand.shape or rec.ndim == 0 or rec.shape[-1] < 2:
        raise ValueError(f"n_recommended and n_candidates must have the same shape (..., K>=2), "
                         f"got {rec.shape} and {cand.shape}")
    if np.any(cand <= 0) or np.any(rec < 0) or np.any(rec > cand):
        raise ValueError("need 0 <= n_recommended <= n_candidates and n_candidates > 0 for every group")
    U = rec / cand
    return U, U - U.mean(axis=-1, keepdims=True), reo_penalty(U)


def user_precision_utility(default: pd.DataFrame, *, label: str | Sequence[str] = "Y",
                           user_group: str) -> tuple[pd.DataFrame, float]:
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
    return table, float(reo_penalty(U))


# --------------------------------------------------------------------------------------------
# Planning: thresholds and sample sizes (Sec. 4.3, Theorem D.2 / App. E, Alg. 1)
# --------------------------------------------------------------------------------------------

def eighty_percent_rule_threshold(K: int, ratio: float = 0.8) -> float:
    """Largest ``Delta_REO`` compatible with the 80% rule among K groups (Sec. 4.3).

    The rule asks ``min_k U_k >= ratio * max_k U_k``. The coefficient of variation is convex,
    so its maximum over that box is at a vertex: m groups at ``ratio`` and K - m at 1; this
    returns the max over m. K = 2 gives 1/9 = 11.1% (the seed's threshold). A penalty above
    the threshold therefore proves that some pair of groups violates the rule.
    """
    from ocef._validation import check_positive_int

    K = check_positive_int("K", K, minimum=2)
    ratio = check_in_interval("ratio", ratio, 0.0, 1.0, low_open=False, high_open=True)
    m = np.arange(1, K)
    U = np.where(np.arange(K)[None, :] < m[:, None], ratio, 1.0)
    return float(reo_penalty(U).max())


def _variance_coefficients(P, Q) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``Var = A / |D_rec| + B / |D_rand|`` for the penalty (A, B scalars) and for each delta_U_k
    (A_k, B_k): Gamma is linear in 1/|D_rec| and 1/|D_rand| (Alg. 1)."""
    a = delta_method_reo(P, Q, 1.0, np.inf)
    b = delta_method_reo(P, Q, np.inf, 1.0)
    diag = lambda s: np.diagonal(s, axis1=-2, axis2=-1)  # noqa: E731
    return a.xi, b.xi, diag(a.sigma), diag(b.sigma)


def delta_method_sample_size(P, Q, *, epsilon: float, confidence: float = 0.95,
                             n_default: int | None = None, random_to_default: float | None = None,
                             target: str = "penalty") -> dict:
    """Log sizes for which the delta-method interval of Algorithm 1 has half-width <= epsilon.

    ``P``, ``Q``: planning values of P_k, Q_k (a pilot estimate). ``target``: ``"penalty"``
    or ``"delta_U"`` (all groups). Give either ``n_default`` (the default log you will have;
    returns the random log needed) or ``random_to_default`` (the ratio |D_rand| / |D_rec|;
    returns both). Returns ``{"n_default", "n_random", "half_width"}``.
    """
    eps = check_in_interval("epsilon", epsilon, 0.0, np.inf, low_open=True, high_open=True)
    z = normal_quantile(confidence)
    A, B, Ak, Bk = _variance_coefficients(P, Q)
    if target == "delta_U":
        pass
    elif target == "penalty":
        if not np.isfinite(A) or not np.isfinite(B):
            raise ValueError("the penalty's delta-method variance is undefined at Delta_REO = 0; "
                             "plan with target='delta_U'")
        Ak, Bk = np.atleast_1d(A), np.atleast_1d(B)
    else:
        raise ValueError(f"target must be 'penalty' or 'delta_U', got {target!r}")
    budget = (eps / z) ** 2
    if (n_default is None) == (random_to_default is None):
        raise ValueError("give exactly one of n_default and random_to_default")
    if n_default is not None:
        from ocef._validation import check_positive_int
        nd = check_positive_int("n_default", n_default)
        room = budget - Ak / nd
        if np.any(room <= 0):
            best = float(z * np.sqrt(np.max(Ak) / nd))
            raise ValueError(f"n_default={nd} is too small: even unlimited random traffic gives a "
                             f"half-width of {best:.4g} > epsilon={eps}")
        nr = int(np.ceil(np.max(Bk / room)))
    else:
        r = check_in_interval("random_to_default", random_to_default, 0.0, np.inf, low_open=True, high_open=True)
        nd = int(np.ceil(np.max((Ak + Bk / r) / budget)))
        nr = int(np.ceil(r * nd))
    half = float(z * np.sqrt(np.max(Ak / nd + Bk / nr)))
    return {"n_default": nd, "n_random": nr, "half_width": half}


def theorem_sample_size(P, Q, *, epsilon: float, delta: float) -> dict:
    """Sizes that Theorem E.4 (eq. 21) and eq. (8) give for ``|Delta_REO_hat - Delta_REO| <=
    epsilon`` with probability >= 1 - delta (the constant-explicit form of Theorem D.2):

    ``n = 4 K^2 / (sum_k U_k)^2 / epsilon^2 * log(1/delta)``,
    ``|D_rec| = n max_k U_k^2 (1-q_k)/q_k``, ``|D_rand| = n max_k U_k^2 (1-p_k)/p_k``.

    The product is invariant to rescaling U, so ``U = Q/P`` may be used. It bounds the
    covariance crudely (App. E) and is far more conservative than
    :func:`delta_method_sample_size`.
    """
    from ocef._validation import check_delta

    eps = check_in_interval("epsilon", epsilon, 0.0, np.inf, low_open=True, high_open=True)
    d = check_delta(delta)
    P = np.asarray(P, dtype=float)
    Q = np.asarray(Q, dtype=float)
    U = rtpr_utilities(P, Q)
    K = U.shape[-1]
    n = 4.0 * K ** 2 / U.sum() ** 2 / eps ** 2 * np.log(1.0 / d)
    return {"n": float(n),
            "n_default": int(np.ceil(n * np.max(U ** 2 * (1 - Q) / Q))),
            "n_random": int(np.ceil(n * np.max(U ** 2 * (1 - P) / P)))}


def expected_random_rows(p_act: float, *, n_requests: int, n_show: int, log_rate: float = 1.0) -> float:
    """Expected |D_rand| when each of ``n_requests`` requests is activated with probability
    ``p_act`` and then shows ``n_show`` random items, logged at rate ``log_rate`` (Sec. 3.2)."""
    from ocef._validation import check_positive_int

    p = check_in_interval("p_act", p_act, 0.0, 1.0, low_open=False, high_open=False)
    r = check_in_interval("log_rate", log_rate, 0.0, 1.0, low_open=True, high_open=False)
    return p * check_positive_int("n_requests", n_requests) * check_positive_int("n_show", n_show) * r


def p_act_for(n_random: int, *, n_requests: int, n_show: int, log_rate: float = 1.0) -> float:
    """The activation probability p_act that yields ``n_random`` random rows in expectation
    (inverse of :func:`expected_random_rows`); refuses targets needing p_act > 1."""
    from ocef._validation import check_positive_int

    nr = check_positive_int("n_random", n_random)
    full = expected_random_rows(1.0, n_requests=n_requests, n_show=n_show, log_rate=log_rate)
    p = nr / full
    if p > 1.0:
        raise ValueError(f"n_random={nr} needs p_act={p:.3g} > 1: at most {full:.0f} random rows "
                         f"come from {n_requests} requests x {n_show} items x log rate {log_rate}")
    return float(p)
