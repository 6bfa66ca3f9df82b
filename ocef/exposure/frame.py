"""Any per-user metric by any combination of user attributes, with intervals clustered by user.

The model is Fairlearn's ``MetricFrame`` (overall, by group, difference and ratio to a reference),
for recommender metrics measured per user (precision, recall, nDCG, hit rate, or any column):
every user is one independent cluster (their rows are averaged first), so a group's value is the
mean over its users and its interval is a t interval of that mean (the Wilson interval when the
metric is 0/1, e.g. hit rate). Each group is compared with a reference group: the difference of
means with Welch's t interval and test, and the ratio of means with a delta-method interval on
the log scale; the p-values of the comparisons (one per group and metric: the difference and the
ratio test the same null, equal means) are Holm-adjusted together (:func:`ocef.inference.holm_adjust`).

Everything is computed from per-group moments (users ``n``, ``Σ m``, ``Σ m²``, min, max), which a
DuckDB or Spark query computes over 10^7 users without moving them (:mod:`ocef.exposure.statistics`,
:mod:`ocef.exposure.ranking_metrics`). Skewed per-user metrics (expected exposure) get Hall's (1992)
skewness-corrected interval of their mean instead (:func:`hall_interval`, from the third power sum).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.results import Result, column_frame, presents, rows_to_columns
from ocef.validation import CONFIDENCE, validate_params

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["MetricFrameResult", "metric_frame", "metric_frame_from_moments", "moments", "mean_interval",
           "compare_means", "hall_interval", "hall_difference", "floor_reason", "MIN_EFFECTIVE_USERS"]

MOMENT_COLUMNS = ("n", "sum", "sum_sq", "min", "max")

#: Floor of the mean family (t interval of a group mean, Welch's difference and the ratio with a
#: reference): Kish's effective number of users ``(Σm)² / Σm²`` of a non-negative, not 0/1 metric
#: (with a mostly-zero metric such as precision: about the users with a non-zero value). Below 2 the
#: t interval of precision covered 0.64-0.79; from 2 to 4, 0.93-0.95; measured in
#: ``benchmarks/exposure_small_groups.py`` (docs/guide/exposure.md, "Small groups").
MIN_EFFECTIVE_USERS = 4


def floor_reason(n, total, total_sq, *, minimum=None, binary: bool = False, min_users: int = 2) -> str | None:
    """Why a group mean (and every comparison with it) gets no interval, or None.

    Parameters
    ----------
    n : int
        Users of the group.
    total, total_sq : float
        ``Σ m`` and ``Σ m²``.
    minimum : float, optional
        The smallest value (the effective-users floor applies to non-negative metrics only).
    binary : bool, default False
        0/1 metric (Wilson's interval: valid at any size; its comparisons need 2 users).
    min_users : int, default 2
        The metric's own floor of users (e.g. :data:`ocef.exposure.ranking_metrics.MIN_USERS`).

    Returns
    -------
    str or None

    Examples
    --------
    >>> floor_reason(10, 1.0, 1.0)
    'no valid interval: 1.0 effective users with a non-zero value, fewer than 4'
    >>> floor_reason(10, 5.0, 3.0) is None
    True
    """
    if n < max(min_users, 2):
        return (f"no valid interval: {int(n)} users, fewer than {max(min_users, 2)}" +
                (" (below that the interval covered under 0.94 in simulation)" if min_users > 2 else ""))
    if binary or (minimum is not None and minimum == minimum and minimum < 0):
        return None
    eff = total * total / total_sq if total_sq > 0 else 0.0
    if eff < MIN_EFFECTIVE_USERS:
        return (f"no valid interval: {eff:.1f} effective users with a non-zero value, fewer than "
                f"{MIN_EFFECTIVE_USERS}")
    return None


def moments(values) -> dict[str, float]:
    """The moments a group's interval needs: ``n``, ``sum``, ``sum_sq``, ``min``, ``max`` (NaN ignored).

    :func:`mean_interval` and :func:`metric_frame_from_moments` compute a group's mean, its
    interval and its comparison with the reference from these five numbers only, which a DuckDB or
    Spark query can return for millions of users.

    Parameters
    ----------
    values : array_like of float
        One value per user (NaN: undefined for that user, left out).

    Returns
    -------
    dict
        ``n`` (int, defined values), ``sum``, ``sum_sq`` (Σ x²), ``min``, ``max`` (NaN when ``n`` is 0).

    Examples
    --------
    >>> moments([1.0, float("nan"), 0.5])
    {'n': 2, 'sum': 1.5, 'sum_sq': 1.25, 'min': 0.5, 'max': 1.0}
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return {"n": int(x.size), "sum": float(x.sum()), "sum_sq": float(x @ x),
            "min": float(x.min()) if x.size else np.nan, "max": float(x.max()) if x.size else np.nan}


def _mean_var(n, s1, s2):
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.asarray(s1, dtype=float) / n
        var = np.maximum(np.asarray(s2, dtype=float) - n * mean * mean, 0.0) / (n - 1.0)
    return mean, var


@validate_params(confidence=CONFIDENCE)
def mean_interval(n, total, total_sq, *, binary: bool = False, confidence: float = 0.95) -> dict:
    """Mean over users and its interval from moments: Student t (``mean ± t_{n-1} s/√n``), or
    Wilson's score interval when the values are 0/1 (``binary``).

    Parameters
    ----------
    n : int
        Users.
    total, total_sq : float
        ``Σ m`` and ``Σ m²``.
    binary : bool, default False
        The values are 0/1.
    confidence : float, default 0.95

    Returns
    -------
    dict
        ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``reason`` (None, or why there is no interval).

    Examples
    --------
    >>> r = mean_interval(4, 2.0, 1.5)
    >>> [round(float(r[key]), 3) for key in ("estimate", "ci_low", "ci_high")]
    [0.5, -0.15, 1.15]
    """
    from ocef.inference import student_t as student

    from ocef.inference import wilson_interval

    mean, var = _mean_var(n, total, total_sq)
    mean, var = float(mean), float(var)
    se = float(np.sqrt(var / n)) if n > 1 else np.nan
    if n < 1:
        return {"estimate": np.nan, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "reason": "undefined: no user in the group"}
    if binary:
        low, high = wilson_interval(round(total), n, confidence=confidence)
        return {"estimate": mean, "se": se, "ci_low": float(low), "ci_high": float(high), "reason": None}
    if n < 2:
        return {"estimate": mean, "se": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "reason": "no valid interval: fewer than 2 users"}
    half = student.ppf(0.5 + confidence / 2, n - 1) * se
    return {"estimate": mean, "se": se, "ci_low": mean - half, "ci_high": mean + half, "reason": None}


_NO_RATIO = "no valid interval for the ratio: a group mean is not positive"


@validate_params(confidence=CONFIDENCE)
def compare_means(a: dict, b: dict, *, confidence: float = 0.95) -> dict:
    """Group ``a`` vs reference ``b`` from their moments: difference of means (Welch's t interval
    and two-sided test) and ratio of means (delta-method interval of ``log(mean_a / mean_b)``,
    exponentiated; its p-value is Welch's: both test equal means).

    Parameters
    ----------
    a, b : dict
        Moments (``n``, ``sum``, ``sum_sq``) of the two groups (:func:`moments`).
    confidence : float, default 0.95

    Returns
    -------
    dict
        ``difference``, ``difference_low``, ``difference_high``, ``ratio``, ``ratio_low``,
        ``ratio_high``, ``p_value``, ``reason``.

    Examples
    --------
    >>> r = compare_means(moments([1, 2, 3, 4]), moments([1, 1, 2, 2]))
    >>> round(r["difference"], 3), round(r["ratio"], 3), round(r["p_value"], 3)
    (1.0, 1.667, 0.228)
    """
    from ocef.inference import normal as norm
    from ocef.inference import student_t as student

    ma, va = (float(x) for x in _mean_var(a["n"], a["sum"], a["sum_sq"]))
    mb, vb = (float(x) for x in _mean_var(b["n"], b["sum"], b["sum_sq"]))
    out = {"difference": ma - mb, "difference_low": np.nan, "difference_high": np.nan,
           "ratio": ma / mb if mb != 0 else (np.nan if ma == 0 else np.inf), "ratio_low": np.nan,
           "ratio_high": np.nan, "p_value": np.nan, "reason": None}
    if a["n"] < 2 or b["n"] < 2:
        out["reason"] = "no valid interval: fewer than 2 users in a group"
        return out
    sa, sb = va / a["n"], vb / b["n"]
    se = np.sqrt(sa + sb)
    if se == 0:
        out["reason"] = "no valid interval: the metric is constant within both groups"
        return out
    df = (sa + sb) ** 2 / ((sa * sa / (a["n"] - 1) if sa else 0.0) + (sb * sb / (b["n"] - 1) if sb else 0.0))
    tq = student.ppf(0.5 + confidence / 2, df)
    out.update(difference_low=ma - mb - tq * se, difference_high=ma - mb + tq * se,
               p_value=float(2 * student.sf(abs(ma - mb) / se, df)))
    if ma > 0 and mb > 0:
        se_log = np.sqrt(sa / ma ** 2 + sb / mb ** 2)
        z = norm.ppf(0.5 + confidence / 2)
        out.update(ratio_low=float(np.exp(np.log(ma / mb) - z * se_log)),
                   ratio_high=float(np.exp(np.log(ma / mb) + z * se_log)))
    else:
        out["reason"] = _NO_RATIO
    return out


@dataclass(frozen=True)
class MetricFrameResult(Result):
    """Per-user metrics overall, by group and compared with a reference group.

    Made by :func:`metric_frame` or :func:`metric_frame_from_moments`. ``to_frame()`` stacks the
    overall rows (attributes ``"(all)"``) over ``groups``; ``summary()`` is ``pairs`` sorted by
    adjusted p-value.

    The result keeps its three tables as columns (``columns``) and builds each DataFrame when it is
    first read; ``to_dict()`` does not need pandas.

    Attributes
    ----------
    columns : dict
        ``{"overall": ..., "groups": ..., "pairs": ...}``, each a mapping of column name to a list
        of values (one per row), the tables below.
    overall : pandas.DataFrame
        One row per metric: ``metric, n_users, estimate, ci_low, ci_high, reason``.
    groups : pandas.DataFrame
        One row per group and metric (the ``by`` columns, then as ``overall``).
    pairs : pandas.DataFrame
        One row per (group ≠ reference, metric, statistic ∈ {difference, ratio}): ``estimate,
        ci_low, ci_high, p_value, p_adjusted, significant, reason``.
    by : tuple
        The user attributes.
    reference : tuple
        The reference group (one value per attribute).
    confidence : float
        Two-sided level of the intervals.
    binary : tuple of str
        The metrics treated as 0/1 per user (Wilson intervals).

    Examples
    --------
    >>> from ocef.datasets import make_toy_rankings
    >>> res = metric_frame(make_toy_rankings(), metrics="relevance", by="gender", reference="F")
    >>> res.overall.round(3)
          metric  n_users  estimate  ci_low  ci_high reason
    0  relevance       20     0.433   0.308    0.558   None
    """

    columns: Mapping[str, Any] = field(repr=False)
    by: tuple
    reference: tuple
    confidence: float = 0.95
    binary: tuple = field(default=())

    @cached_property
    def overall(self) -> pd.DataFrame:
        """One row per metric (see the class docstring)."""
        return column_frame(self.columns["overall"])

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per group and metric (see the class docstring)."""
        return column_frame(self.columns["groups"])

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """One row per compared group, metric and statistic (see the class docstring)."""
        return column_frame(self.columns["pairs"], objects=("significant",))

    @presents
    def to_dict(self) -> dict:
        """``overall``, ``groups`` and ``pairs`` (lists of records), ``by``, ``reference``, ``confidence``
        and ``binary``, made from the columns (no pandas)."""
        from ocef.results import column_records, jsonable

        return {**{name: column_records(self.columns[name]) for name in ("overall", "groups", "pairs")},
                "by": jsonable(self.by), "reference": jsonable(self.reference), "confidence": self.confidence,
                "binary": jsonable(self.binary)}

    @presents
    def to_frame(self):
        """``groups`` with a first row per metric for the overall value (the ``by`` columns say "(all)")."""
        import pandas as pd

        over = self.overall.copy()
        for col in self.by:
            over[col] = "(all)"
        return pd.concat([over[self.groups.columns], self.groups], ignore_index=True)

    def summary(self):
        """The comparisons with the reference (``pairs``), most significant first.

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from ocef.datasets import make_toy_rankings
        >>> res = metric_frame(make_toy_rankings(), metrics="relevance", by="gender", reference="F")
        >>> res.summary()[["gender", "statistic", "estimate", "p_adjusted"]].round(3)
          gender   statistic  estimate  p_adjusted
        0      M  difference       0.0         1.0
        1      M       ratio       1.0         1.0
        """
        return self.pairs.sort_values(["p_adjusted", "metric"], na_position="last").reset_index(drop=True)


@validate_params(confidence=CONFIDENCE)
def metric_frame(data, *, metrics, by, user: str | None = "user", reference=None, confidence: float = 0.95,
                 binary=None) -> MetricFrameResult:
    """Per-user metrics by any combination of user attributes (Fairlearn's ``MetricFrame`` with
    intervals clustered by user and Holm-adjusted comparisons).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per user, or several per user (e.g. one per sampled ranking), with the metric
        columns and the ``by`` attribute columns; a user's rows are averaged first.
    metrics : str or sequence of str
        Metric columns (e.g. ``precision``, ``ndcg``, ``hit_rate`` or any per-user number).
    by : str or sequence of str
        User attribute columns; several = intersectional groups.
    user : str or None, default "user"
        User id column (None: one row per user).
    reference : scalar or tuple, optional
        The group every other group is compared with (default: the largest).
    confidence : float, default 0.95
        Two-sided level of the intervals.
    binary : sequence of str, optional
        Metrics that are 0/1 per user (Wilson intervals); default: those whose values are all 0 or 1.

    Returns
    -------
    MetricFrameResult

    Examples
    --------
    >>> from ocef.datasets import make_toy_rankings
    >>> res = metric_frame(make_toy_rankings(), metrics="relevance", by="gender")   # precision@3
    >>> res.groups[["gender", "n_users", "estimate"]].round(2).values.tolist()
    [['F', 10, 0.43], ['M', 10, 0.43]]
    """
    import pandas as pd

    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    by = [by] if isinstance(by, str) else list(by)
    if not metrics or not by:
        raise ParameterError(f"give at least one metric and one attribute, got metrics={metrics!r}, by={by!r}")
    need = metrics + by + ([user] if user is not None else [])
    missing = [c for c in need if c not in data.columns]
    if missing:
        raise DataError(f"data is missing column(s) {missing}; it has {list(data.columns)}")
    frame = data[need]
    for col in by:
        if frame[col].isna().any():
            raise DataError(f"attribute column {col!r} has missing values")
    for m in metrics:
        if not pd.api.types.is_numeric_dtype(frame[m]):
            raise DataError(f"metric column {m!r} must be numeric, got dtype {frame[m].dtype}")
    if user is not None:
        if (frame.groupby(user)[by].nunique() > 1).any().any():
            raise DataError(f"a user has several values of {by}: user attributes must be constant per user")
        frame = frame.groupby(user, sort=False).agg({**{m: "mean" for m in metrics}, **{c: "first" for c in by}})
    rows = []
    for m in metrics:
        vals = frame[m].astype(float)
        ok = vals.notna()
        g = frame.loc[ok].assign(_v=vals[ok], _v2=vals[ok] ** 2)
        agg = g.groupby(by, sort=True).agg(n=("_v", "size"), sum=("_v", "sum"), sum_sq=("_v2", "sum"),
                                           min=("_v", "min"), max=("_v", "max")).reset_index()
        agg.insert(len(by), "metric", m)
        rows.append(agg)
    table = pd.concat(rows, ignore_index=True)
    if binary is None:
        binary = [m for m in metrics if frame[m].dropna().isin((0.0, 1.0)).all()]
    return metric_frame_from_moments(table, by=by, reference=reference, confidence=confidence, binary=binary)


@validate_params(confidence=CONFIDENCE)
def metric_frame_from_moments(table, *, by, reference=None, confidence: float = 0.95, binary=(),
                              min_users=None, min_pair_users=None, min_ratio_users=None,
                              skew_corrected=()) -> MetricFrameResult:
    """:func:`metric_frame` from per-group moments (one row per group and metric: the ``by``
    columns, ``metric``, ``n``, ``sum``, ``sum_sq``, ``min``, ``max``), e.g. as computed by a
    DuckDB or Spark query over millions of users.

    Parameters
    ----------
    table : pandas.DataFrame
    by : sequence of str
    reference : scalar or tuple, optional
        Default: the group with the most users.
    confidence : float, default 0.95
    binary : sequence of str
        Metrics that are 0/1 per user.
    min_users : dict, optional
        ``{metric: users}``: the metric's own floor (default 2). Below it, or below
        :data:`MIN_EFFECTIVE_USERS` effective users (:func:`floor_reason`), a group's mean and every
        comparison with it print no interval (null + ``reason``).
    min_pair_users : dict, optional
        ``{metric: users}``: the floor of the comparisons alone (e.g. EE-R's 160, where the
        difference of a small, sparse group undercovered at fewer users): a pair in which a group
        has fewer users prints no interval and no test (null + ``reason``).
    min_ratio_users : dict, optional
        ``{metric: users}``: the floor of the ratio row's interval alone (e.g. EE-L's 30): below it
        the difference row and the test stand, the ratio prints its estimate without an interval.
    skew_corrected : sequence of str
        Metrics whose difference is :func:`hall_difference` (interval and p-value; the table then
        needs a ``sum_cu`` column) in place of Welch's.

    Returns
    -------
    MetricFrameResult

    Examples
    --------
    >>> t = pd.DataFrame({"g": ["a", "b"], "metric": "hit_rate", "n": [100, 100], "sum": [50.0, 30.0],
    ...                   "sum_sq": [50.0, 30.0], "min": 0.0, "max": 1.0})
    >>> res = metric_frame_from_moments(t, by=["g"], binary=["hit_rate"])
    >>> res.pairs[["g", "statistic", "estimate"]].round(2).values.tolist()
    [['b', 'difference', -0.2], ['b', 'ratio', 0.6]]
    """
    from ocef.inference import holm_adjust

    by = [by] if isinstance(by, str) else list(by)
    binary = set(binary)
    recs = _sorted_moments(table, by)
    sizes: dict = {}
    for rec in recs:                     # the groupby(by, sort=True)["n"].max() of the sorted table
        key = tuple(rec[c] for c in by)
        if not any(v is None or (isinstance(v, float) and v != v) for v in key):     # groupby drops null keys
            sizes[key] = max(sizes.get(key, rec["n"]), rec["n"])
    if not sizes:
        raise DataError("no group has any user")
    if reference is None:
        ref = max(sizes, key=sizes.__getitem__)            # the first group of the largest size
        ref = ref if len(by) > 1 else ref[0]
    else:
        ref = reference
    ref = ref if isinstance(ref, tuple) else (ref,)
    keys = list(sizes)
    if ref not in keys:
        raise ParameterError(f"reference must be one of the groups {keys if len(by) > 1 else [k[0] for k in keys]}, "
                             f"got {reference!r}")
    grows, prow = [], []
    cells = {}
    floors = dict(min_users or {})
    pair_floors = dict(min_pair_users or {})
    ratio_floors = dict(min_ratio_users or {})

    def withheld(rec, m):
        return floor_reason(rec["n"], rec["sum"], rec["sum_sq"], minimum=rec.get("min"), binary=m in binary,
                            min_users=floors.get(m, 2))

    for rec in recs:
        key = tuple(rec[c] for c in by)
        cells[(key, rec["metric"])] = rec
        mi = mean_interval(rec["n"], rec["sum"], rec["sum_sq"], binary=rec["metric"] in binary, confidence=confidence)
        why = None if mi["reason"] is not None or rec["metric"] in binary else withheld(rec, rec["metric"])
        grows.append({**{c: rec[c] for c in by}, "metric": rec["metric"], "n_users": int(rec["n"]),
                      "estimate": mi["estimate"], "ci_low": np.nan if why else mi["ci_low"],
                      "ci_high": np.nan if why else mi["ci_high"], "reason": why or mi["reason"]})
    metrics = list(dict.fromkeys(rec["metric"] for rec in recs))
    overall = []
    for m in metrics:
        sub = [rec for rec in recs if rec["metric"] == m]
        # numpy's sums of the column, as pandas' Series.sum (pairwise summation): bit for bit
        n, s1, s2 = (np.array([rec[c] for rec in sub]).sum() for c in ("n", "sum", "sum_sq"))
        n, s1, s2 = int(n), float(s1), float(s2)
        mins = [rec["min"] for rec in sub if rec["min"] is not None and rec["min"] == rec["min"]]
        mi = mean_interval(n, s1, s2, binary=m in binary, confidence=confidence)
        why = None if mi["reason"] is not None or m in binary else withheld(
            {"n": n, "sum": s1, "sum_sq": s2, "min": float(min(mins)) if mins else np.nan}, m)
        overall.append({"metric": m, "n_users": n, "estimate": mi["estimate"], "ci_low": np.nan if why else mi["ci_low"],
                        "ci_high": np.nan if why else mi["ci_high"], "reason": why or mi["reason"]})
    for (key, m), rec in cells.items():
        if key == ref or (ref, m) not in cells:
            continue
        c = compare_means(rec, cells[(ref, m)], confidence=confidence)
        if m in skew_corrected and c["reason"] in (None, _NO_RATIO):     # the difference is valid: correct it
            h = hall_difference(rec, cells[(ref, m)], confidence=confidence)
            c.update(difference_low=h["difference_low"], difference_high=h["difference_high"], p_value=h["p_value"])
        why = withheld(rec, m) or withheld(cells[(ref, m)], m)
        why = why and why.replace("no valid interval: ", "no valid interval: a group has ")
        fewest, smaller = pair_floors.get(m, 0), int(min(rec["n"], cells[(ref, m)]["n"]))
        if why is None and smaller < fewest:
            why = (f"no valid interval: a group has {smaller} users, fewer than {fewest} for a comparison "
                   f"(below that, the difference of {m} covered under 0.94 in simulation)")
        if why is not None and c["reason"] in (None, _NO_RATIO):     # the pair is no better than its weaker group
            c.update(difference_low=np.nan, difference_high=np.nan, ratio_low=np.nan, ratio_high=np.nan,
                     p_value=np.nan, reason=why)
        ratio_why = None
        if c["reason"] is None and smaller < ratio_floors.get(m, 0):     # the difference holds, the ratio's interval not yet
            ratio_why = (f"no valid interval for the ratio: a group has {smaller} users, fewer than "
                         f"{ratio_floors[m]} (below that, the ratio of {m} covered under 0.94 in simulation)")
            c.update(ratio_low=np.nan, ratio_high=np.nan)
        base = {**dict(zip(by, key)), "reference": ref[0] if len(ref) == 1 else ref, "metric": m}
        prow.append({**base, "statistic": "difference", "estimate": c["difference"], "ci_low": c["difference_low"],
                     "ci_high": c["difference_high"], "p_value": c["p_value"], "reason": c["reason"]})
        prow.append({**base, "statistic": "ratio", "estimate": c["ratio"], "ci_low": c["ratio_low"],
                     "ci_high": c["ratio_high"], "p_value": c["p_value"], "reason": ratio_why or c["reason"]})
    cols = by + ["reference", "metric", "statistic", "estimate", "ci_low", "ci_high", "p_value", "p_adjusted",
                 "significant", "reason"]
    pairs = {c: [r[c] for r in prow] for c in cols if c not in ("p_adjusted", "significant")}
    diff = np.array(pairs["statistic"], dtype=object) == "difference"
    p_adjusted = (np.repeat(holm_adjust(np.array(pairs["p_value"], dtype=float)[diff]), 2) if prow
                  else np.zeros(0))       # each difference row is followed by its ratio row
    pairs["p_adjusted"] = p_adjusted
    pairs["significant"] = significance(p_adjusted, confidence)
    columns = {"overall": rows_to_columns(overall, ["metric", "n_users", "estimate", "ci_low", "ci_high", "reason"]),
               "groups": rows_to_columns(grows, by + ["metric", "n_users", "estimate", "ci_low", "ci_high", "reason"]),
               "pairs": {c: pairs[c] for c in cols}}
    return MetricFrameResult(columns=columns, by=tuple(by), reference=ref, confidence=confidence,
                             binary=tuple(sorted(binary)))


def _sorted_moments(table, by: list) -> list[dict]:
    """The moment records sorted by ``by`` and ``metric`` (stable), as ``DataFrame.sort_values`` and
    ``to_dict("records")`` give them: from a DataFrame with pandas, from records (e.g.
    :attr:`ocef.exposure.statistics.RankingStats.moments`) in Python, their null ``min``/``max`` as the
    DataFrame's NaN."""
    if not isinstance(table, (list, tuple)):
        return table.sort_values(by + ["metric"], kind="stable").reset_index(drop=True).to_dict("records")
    recs = [dict(r) for r in table]
    for c in ("min", "max"):             # a float column with missing values holds NaN in a DataFrame
        if any(r.get(c) is not None for r in recs):
            for r in recs:
                if c in r and r[c] is None:
                    r[c] = np.nan
    try:
        return sorted(recs, key=lambda r: tuple(r[c] for c in by) + (r["metric"],))
    except TypeError:                    # labels of mixed types: pandas' order
        import pandas as pd

        return _sorted_moments(pd.DataFrame(recs), by)


def significance(p_adjusted, confidence: float) -> list:
    """The ``significant`` column: ``p_adjusted <= 1 - confidence``, None where there is no test (NaN).

    Parameters
    ----------
    p_adjusted : array_like of float
        Adjusted p-values (NaN: no test).
    confidence : float
        The level; the test's size is ``1 - confidence``.

    Returns
    -------
    list
        True, False or None per row.

    Examples
    --------
    >>> significance([0.01, 0.2, float("nan")], 0.95)
    [True, False, None]
    """
    p = np.asarray(p_adjusted, dtype=float)
    return [None if v != v else bool(v <= 1 - confidence) for v in p.tolist()]


@validate_params(confidence=CONFIDENCE)
def hall_interval(n, total, total_sq, total_cu, *, confidence: float = 0.95) -> dict:
    """Mean over users and Hall's skewness-corrected t interval, from the power sums of the values.

    Per-user ranking metrics are often skewed (EE-R is 0 for every user without a relevant item
    shown); the Student t interval then misses on the side of the long tail. Hall (1992) removes
    the skewness term of the t statistic's Edgeworth expansion with the monotone transformation
    ``g(W) = W + γW²/3 + γ²W³/27 + γ/(6n)`` of ``W = (x̄ − μ)/s`` (γ the sample skewness
    ``m₃/s³``); inverting ``√n g(W) = ±t_{n−1}`` gives
    ``W = (3/γ)((1 + γ(±t/√n − γ/(6n)))^(1/3) − 1)`` and the bounds ``x̄ − W s``. With γ = 0 it
    is Student's interval. (Zhou & Dinh 2005 compare it with Johnson's and the bootstrap.)

    Parameters
    ----------
    n : int
        Users.
    total, total_sq, total_cu : float
        ``Σ m``, ``Σ m²`` and ``Σ m³`` over the users.
    confidence : float, default 0.95
        Two-sided level.

    Returns
    -------
    dict
        ``estimate``, ``se`` (``s/√n``), ``skewness``, ``ci_low``, ``ci_high``, ``reason``.

    Examples
    --------
    >>> x = [0.0, 0.0, 0.0, 0.1, 0.2, 1.5]
    >>> r = hall_interval(len(x), sum(x), sum(v * v for v in x), sum(v ** 3 for v in x))
    >>> [round(r[k], 3) for k in ("estimate", "ci_low", "ci_high")]
    [0.3, -0.142, 2.681]
    """
    from ocef.inference import student_t as student

    n = int(n)
    if n < 1:
        return {"estimate": np.nan, "se": np.nan, "skewness": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "reason": "undefined: no user in the group"}
    mean = total / n
    if n < 2:
        return {"estimate": mean, "se": np.nan, "skewness": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                "reason": "no valid interval: fewer than 2 users"}
    spread = total_sq - n * mean * mean
    # a spread within the rounding of Σm² is no spread: every user has the same value, and the
    # skewness of rounding noise would bend the interval (found: ci_low above the mean by 4e-11);
    # the cutoff is a few dozen ulps of Σm², so a real relative spread of 1e-6 is kept
    var = spread / (n - 1) if spread > 64 * np.finfo(float).eps * abs(total_sq) else 0.0
    sd = math.sqrt(var)
    m3 = total_cu / n - 3.0 * mean * total_sq / n + 2.0 * mean ** 3
    gamma = m3 / sd ** 3 if sd > 0 else 0.0
    c = float(student.ppf(0.5 + confidence / 2, n - 1))
    bounds = []
    for sign in (1.0, -1.0):
        v = sign * c / math.sqrt(n) - gamma / (6.0 * n)
        w = 3.0 / gamma * (np.cbrt(1.0 + gamma * v) - 1.0) if abs(gamma) > 1e-12 else v
        bounds.append(mean - w * sd)
    return {"estimate": mean, "se": sd / math.sqrt(n), "skewness": gamma, "ci_low": float(bounds[0]),
            "ci_high": float(bounds[1]), "reason": None}


@validate_params(confidence=CONFIDENCE)
def hall_difference(a: dict, b: dict, *, confidence: float = 0.95) -> dict:
    """Difference of two group means with Hall's skewness correction of Welch's statistic.

    Welch's ``T = (d − δ)/se`` (``d = x̄_a − x̄_b``, ``se² = s_a²/n_a + s_b²/n_b``) is skewed when a
    small group's values are (EE-R of a group with sparse relevance: mostly zeros, rare large
    values), and its interval misses on the side of the long tail. As in :func:`hall_interval`,
    the monotone transformation ``f(T) = T + aT²/3 + a²T³/27 + a/6`` removes the skewness term of
    its Edgeworth expansion, with ``a = (m₃ₐ/n_a² − m₃ᵦ/n_b²)/se³`` the estimated skewness of ``d``
    (``m₃`` the third central sample moments; with one group ``a = γ/√n`` and this is
    :func:`hall_interval`; the two-sample form of Hall 1992, Zhou & Dinh 2005). Inverting
    ``f(T) = ±t_ν`` (ν Welch's degrees of freedom) gives ``T = (3/a)((1 + a(±t_ν − a/6))^(1/3) − 1)``
    and the bounds ``d − T·se``; the two-sided p-value of equal means is ``2 P(t_ν > |f(d/se)|)``.
    With ``a = 0`` both are Welch's.

    Parameters
    ----------
    a, b : dict
        ``n``, ``sum``, ``sum_sq`` and ``sum_cu`` (``Σ m³``) of each group; ``b`` the reference.
    confidence : float, default 0.95

    Returns
    -------
    dict
        ``difference``, ``difference_low``, ``difference_high``, ``skewness`` (``a``), ``p_value``,
        ``reason``.

    Examples
    --------
    >>> def sums(x):
    ...     return {"n": len(x), "sum": sum(x), "sum_sq": sum(v * v for v in x), "sum_cu": sum(v ** 3 for v in x)}
    >>> r = hall_difference(sums([0.0, 0.0, 0.0, 0.1, 0.2, 1.5]), sums([0.1, 0.2, 0.3, 0.2]))
    >>> [round(r[k], 3) for k in ("difference", "difference_low", "difference_high", "p_value")]
    [0.1, -0.347, 2.543, 0.623]
    """
    from ocef.inference import student_t as student

    out = {"difference": np.nan, "difference_low": np.nan, "difference_high": np.nan, "skewness": np.nan,
           "p_value": np.nan, "reason": None}
    if a["n"] < 2 or b["n"] < 2:
        out["reason"] = "no valid interval: fewer than 2 users in a group"
        return out
    parts = []
    for g in (a, b):
        n = float(g["n"])
        mean = g["sum"] / n
        var = max(g["sum_sq"] - n * mean * mean, 0.0) / (n - 1)
        m3 = g["sum_cu"] / n - 3.0 * mean * g["sum_sq"] / n + 2.0 * mean ** 3
        parts.append((n, mean, var / n, m3 / (n * n)))
    (na, ma, sa, ka), (nb, mb, sb, kb) = parts
    out["difference"] = d = ma - mb
    se = math.sqrt(sa + sb)
    if se == 0:
        out["reason"] = "no valid interval: the metric is constant within both groups"
        return out
    df = (sa + sb) ** 2 / ((sa * sa / (na - 1) if sa else 0.0) + (sb * sb / (nb - 1) if sb else 0.0))
    skew = (ka - kb) / se ** 3
    tq = float(student.ppf(0.5 + confidence / 2, df))
    bounds = []
    for sign in (1.0, -1.0):
        v = sign * tq - skew / 6.0
        w = 3.0 / skew * (np.cbrt(1.0 + skew * v) - 1.0) if abs(skew) > 1e-12 else v
        bounds.append(d - w * se)
    t0 = d / se
    f0 = t0 + skew * t0 ** 2 / 3.0 + skew ** 2 * t0 ** 3 / 27.0 + skew / 6.0
    out.update(difference_low=float(bounds[0]), difference_high=float(bounds[1]), skewness=skew,
               p_value=float(2 * student.sf(abs(f0), df)))
    return out
