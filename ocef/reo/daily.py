"""Daily monitoring of REO (Sec. 4.3, Fig. 6): one estimate with its interval per day (or per any
key column), from one counts-first aggregation of the two logs.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from ocef.reo.counts import reo_counts
from ocef.reo.estimators import (
    INTERVALS,
    _COVARIANCE_OF,
    _result_from_arrays,
    delta_method_reo,
    estimability_problems,
    zero_default_notes,
)
from ocef.results import Result, jsonable, presents
from ocef.validation import CONFIDENCE, Either, Name, Options, Real, validate_params
from ocef.backends import BACKENDS


@dataclass(frozen=True, eq=False)
class ReoDaily(Result):
    """REO per value of a key column (a day), from :func:`estimate_reo_by` (Sec. 4.3, Fig. 6);
    ``any_above``: some day is significantly above the threshold.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per key (:meth:`to_frame`).
    by : str
        The key column.
    group_names : tuple
        The K groups, in order.
    confidence : float
        Two-sided level of the intervals.
    method : str
        ``"delta-full"`` or ``"delta"``.
    threshold : float, optional
        The penalty threshold tested, or None.
    days : tuple
        Each day's :class:`ReoResult` (None where undefined).

    Examples
    --------
    >>> from ocef.reo import eighty_percent_rule_threshold
    >>> from ocef.datasets import make_toy_reo_daily
    >>> estimate_reo_by(*make_toy_reo_daily(), threshold=eighty_percent_rule_threshold(2)).table["significantly_above"].tolist()
    [True, False]
    """

    table: pd.DataFrame
    by: str
    group_names: tuple
    confidence: float
    method: str
    threshold: float | None = None
    days: tuple = field(default=(), repr=False)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The per-day penalties as one tidy table: ``table`` with the interval method and confidence added.

        One row per value of ``by``: ``<by>, n_default, n_random, penalty`` (``Delta_REO``,
        eq. 6), ``penalty_se, ci_low, ci_high, delta_method_reliable``, then
        ``significantly_above`` and ``significantly_below`` when a threshold was given,
        ``note`` (why a day has no estimate or an unreliable one), ``method`` and
        ``confidence``. The per-group estimates are in ``groups``.
        """
        return self.table.assign(method=self.method, confidence=self.confidence)

    @property
    def groups(self) -> pd.DataFrame:
        """One row per value of ``by`` and group: ``<by>``, then the columns of
        :attr:`ReoResult.groups` (``group, P, Q, U, delta_U, se, ci_low, ci_high``); a key without
        an estimate (see ``table["note"]``) has its groups with null numbers."""
        from ocef.reo.estimators import GROUP_COLUMNS

        parts = []
        for key, res in zip(self.table[self.by], self.days):
            part = (res.groups.copy() if res is not None else
                    pd.DataFrame({"group": list(self.group_names), **{c: np.nan for c in GROUP_COLUMNS[1:]}}))
            part.insert(0, self.by, key)
            parts.append(part)
        if not parts:
            return pd.DataFrame(columns=[self.by, *GROUP_COLUMNS])
        return pd.concat(parts, ignore_index=True)

    @presents
    def to_dict(self) -> dict:
        """The per-day estimates as strict-JSON data, each day with its per-group estimates nested.

        Keys ``by`` (the key column), ``groups`` (the K group names), ``confidence``,
        ``method``, ``threshold`` (None when none was given) and ``days``: one dict per row
        of ``table`` (its columns as keys) with the day's :meth:`ReoResult.group_records`
        under ``groups`` (None for a day without an estimate). NaN becomes None.
        """
        rows = []
        for rec, res in zip(jsonable(self.table), self.days):
            rec["groups"] = res.group_records() if res is not None else None
            rows.append(rec)
        return jsonable({"by": self.by, "groups": list(self.group_names), "confidence": self.confidence,
                         "method": self.method, "threshold": self.threshold, "days": rows})

    @property
    def any_above(self) -> bool:
        """Whether some day's penalty is significantly above the threshold."""
        return bool("significantly_above" in self.table and self.table["significantly_above"].any())


@validate_params(confidence=CONFIDENCE, interval=Options(*INTERVALS), backend=Options(*BACKENDS),
                 threshold=Either(Options(None), Real(0, float("inf"), closed="left")), by=Name())
def estimate_reo_by(default, random, *, by: str = "day", label: str | Sequence[str] = "Y", group: str = "S",
                    confidence: float = 0.95, groups: Sequence | None = None, interval: str = "delta-full",
                    threshold: float | None = None, backend: str = "auto", spark=None) -> ReoDaily:
    """One REO estimate with its interval per value of ``by``: the paper's daily monitoring (Sec. 4.3, Fig. 6).

    Counted once per (``by``, group), Algorithm 1 vectorized over the days; an undefined day gets
    NaN and a ``note``. The ``threshold`` comparisons are per day, not adjusted for their number.

    Parameters
    ----------
    default, random : DataFrame, file path, DuckDB relation, :class:`ocef.backends.Sql` or Spark DataFrame
        As :func:`ocef.reo.estimate_reo`.
    by : str
        The key column.
    label, group, confidence, groups, backend, spark
        As in :func:`ocef.reo.ab_test`.
    interval : {"delta-full", "delta"}
        The delta-method covariance (:func:`ocef.reo.estimate_reo`).
    threshold : float, optional
        E.g. :func:`ocef.reo.eighty_percent_rule_threshold`: adds ``significantly_above`` /
        ``significantly_below`` per day.

    Returns
    -------
    ReoDaily

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_daily
    >>> estimate_reo_by(*make_toy_reo_daily()).table["penalty"].round(3).tolist()
    [0.333, 0.032]
    """
    covariance = _COVARIANCE_OF[interval]
    c = reo_counts({"default": default, "random": random}, label=label, group=group, groups=groups, by=by,
                   backend=backend, spark=spark)
    names = list(c.group_names)
    pos_d, pos_r = c.positives("default"), c.positives("random")          # (D, K)
    n_d, n_r = c.rows("default"), c.rows("random")                         # (D,)
    notes = [[f"no {'default' if n_d[i] == 0 else 'random'} traffic on this {by}"] if n_d[i] == 0 or n_r[i] == 0
             else estimability_problems(names, pos_d[i], pos_r[i]) for i in range(len(c.index))]
    ok = np.array([not w for w in notes])
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = pos_d / n_d[:, None]
        P = pos_r / n_r[:, None]
    arr = delta_method_reo(np.where(ok[:, None], P, 1.0), np.where(ok[:, None], Q, 1.0),
                           np.where(ok, n_d, 1), np.where(ok, n_r, 1), confidence=confidence,
                           covariance=covariance)
    days = []
    for i in range(len(c.index)):
        if not ok[i]:
            days.append(None)
            continue
        day_notes = zero_default_notes(names, pos_d[i])
        notes[i] = day_notes
        days.append(_result_from_arrays(names, P[i], Q[i], type(arr)(*[
            v[i] if isinstance(v, np.ndarray) else v for v in arr]), n_d[i], n_r[i], confidence, interval, day_notes))
    nan = float("nan")
    table = pd.DataFrame({
        by: list(c.index), "n_default": n_d, "n_random": n_r,
        "penalty": [r.penalty if r else nan for r in days],
        "penalty_se": [r.penalty_se if r else nan for r in days],
        "ci_low": [r.penalty_ci[0] if r else nan for r in days],
        "ci_high": [r.penalty_ci[1] if r else nan for r in days],
        "delta_method_reliable": [bool(r.delta_method_reliable) if r else False for r in days],
    })
    if threshold is not None:
        table["significantly_above"] = (table["ci_low"] > threshold).to_numpy()
        table["significantly_below"] = (table["ci_high"] < threshold).to_numpy()
    table["note"] = ["; ".join(n) for n in notes]
    return ReoDaily(table, by, tuple(names), confidence, interval, threshold, tuple(days))
