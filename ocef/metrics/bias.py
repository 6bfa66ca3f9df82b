"""holisticai's recommender bias metrics for any number of groups: sample values, population
estimates, intervals that cover, and comparisons with the reference that control errors.

:func:`recommender_bias` gives the system's item metrics, one row per group and one row per
(group, reference) pair (oriented as holisticai's ``(group_a, group_b)``, so that with two groups a
pair's ``value`` is holisticai's). Every value is a function of weighted sums over users of
per-user statistics (:func:`ocef.metrics.recommender.user_stats`), so the sample values (weights 1)
and ``n_resamples`` bootstrap replicates (users resampled within each group) are a few matrix
products. The interval method of each metric (:data:`AUTO_METHODS`: ``"t"``, ``"t-log"``,
``"triangle"`` for ETV, ``"basic-smoothed"`` for EKL, ``"basic"``; none for aggregate diversity and
the Gini index), why, and the coverage measured: ``docs/guide/metrics.md``. The p-values of each
pair metric are Holm-adjusted (:func:`ocef.inference.holm_adjust`).
"""
from __future__ import annotations

import dataclasses
import decimal
import sys
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
from ocef.validation import CONFIDENCE, Boolean, Integer, Options, Rng, validate_params

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.inference import holm_adjust
from ocef.metrics import FAMILIES, FAMILY_TEXT, RESAMPLE_CHUNK
from ocef._progress import PROGRESS
from ocef.metrics.recommender import (
    GINI_CONVENTION,
    REGISTRY,
    TRUTH_METRICS,
    UserStats,
    aggregate,
    check_scores,
    entries,
    exposure_distribution,
    item_metrics,
    kl_divergence,
    pair_metrics,
    user_stats,
)
from ocef.results import Result, jsonable, presents
from ocef.validation import as_generator

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is built
    import pandas as pd

#: resamples evaluated at a time (drawn per chunk of RESAMPLE_CHUNK, the same draws with or without a bar)
_STEP = 100

__all__ = ["recommender_bias", "RecommenderBiasResult", "OVERALL_METRICS", "GROUP_METRICS", "PAIR_METRICS",
           "INTERVALS", "AUTO_METHODS", "KL_SMOOTHING", "bootstrap_weights", "bootstrap_interval", "FAMILIES",
           "MIN_GROUP_USERS"]

#: The metrics of each level of the table, from :data:`ocef.metrics.recommender.REGISTRY`.
OVERALL_METRICS = tuple(m.name for m in entries("system"))
GROUP_METRICS = ("mean_score",) + OVERALL_METRICS + TRUTH_METRICS
PAIR_METRICS = tuple(m.name for m in entries("pair"))
INTERVALS = ("auto", "percentile", "basic")
#: pseudo-count added to every item's exposure count of both groups for the EKL estimate
KL_SMOOTHING = 0.5
#: the interval method of each metric with ``interval="auto"`` (see the module docstring): each
#: registry entry's ``interval``
AUTO_METHODS = {name: m.interval for name, m in REGISTRY.items()}
OVERALL_GROUP = "all"
COLUMNS = ["level", "group", "reference", "n_users", "metric", "value", "estimate", "ci_low", "ci_high",
           "confidence", "interval", "p_value", "p_adjusted", "significant", "reason", "bias", "n_defined"]
#: a value, estimate or interval needs its metric defined in at least this share of the resamples
MIN_DEFINED = 0.9
#: the EKL estimate and interval need at least this many exposures per item (of the items shown to
#: the group or the reference) in each of the two groups: coverage was measured down to 7.5 (30 users,
#: top-10 of 40 items); in sparser counts the pseudo-counts dominate the estimate
MIN_EXPOSURES_PER_ITEM = 5.0

#: Gini index / exposure entropy intervals are null above this Good-Turing estimate of the exposure
#: mass on items no sampled user was shown (share of exposures on items shown exactly once): the
#: bootstrap cannot see those items. Measured (40 / 400 items, top-10, 500 replicates): coverage
#: 0.57-0.82 where it was 0.03-0.07, 0.89-0.95 where it was <= 0.02.
MAX_UNSEEN_MASS = 0.025

#: "t"/"t-log": multiply the bootstrap SD by sqrt(n / (n - 1)) (n = df + 1, the smaller group), so
#: that for a mean it equals the usual s / sqrt(n) that Student's t assumes
T_SMALL_SAMPLE_CORRECTION = True

#: Why the Gini index has no interval: its basic bootstrap interval under-covers (measured, below), so
#: the estimate is printed without one. Measured: 0.89-0.92 at 95% (20-300 users per group, 40 items,
#: 500 replicates); a t interval around the bias-corrected estimate reached 0.91.
GINI_NO_INTERVAL = ("no valid interval: the bootstrap interval of the Gini index covered 0.89-0.92 at 95% in "
                    "simulation (a sum of absolute differences: the bootstrap's bias correction falls short where "
                    "items have near-equal exposure)")


#: Smallest group (users) for each interval family: below it, on a group row or on a pair where
#: either group is smaller, the interval and the p-value are null with a ``reason`` (nothing is
#: "significant" from a group of one). Measured by benchmarks/recmetrics_small_groups.py (identical
#: groups vs a 100-user reference, 40 items, top-10, 100 replicates a size; table in
#: docs/guide/metrics.md): the smallest size from which every metric of the family covered at least
#: 0.95 − 2 SE (0.906) at every size measured (1, 2, 3, 5, 8, 12, 20, 30). "t": 0.00 at 1 user
#: (zero width), 0.86 at 2; "t-log": 0.89 at 1; "triangle" (ETV, and EKL which shares its test):
#: 0.00 / 0.25 / 0.81 / 0.89 / 0.89 at 1 / 2 / 3 / 5 / 8, 0.93 at 12; "basic" (entropy): 0.56 at 12,
#: 0.86 at 20, 0.92 at 30.
MIN_GROUP_USERS = {"t": 3, "t-log": 2, "triangle": 12, "basic-smoothed": 12, "basic": 30}

# ------------------------------------------------------------------ result

@dataclass(frozen=True)
class RecommenderBiasResult(Result):
    """holisticai's bias metrics of one recommender for any number of user groups, with intervals.

    Made by :func:`recommender_bias`. ``table`` (also ``to_frame()``) is tidy: one row per (level,
    group, metric) with ``value`` (holisticai's sample statistic), ``estimate`` (of the population
    quantity), ``ci_low``/``ci_high``, ``interval`` (the method), ``p_value``/``p_adjusted``/
    ``significant`` (pairs), ``reason``, ``bias`` and ``n_defined``. The views: ``overall``,
    ``groups``, ``pairs`` (wide, group relative to reference) and ``summary()`` (the pairs in long
    form). How to read a row: ``docs/guide/metrics.md``. The result keeps the table as columns and
    builds the DataFrame when first read: ``to_dict()`` and ``ocef recmetrics`` do not need pandas.

    Attributes
    ----------
    columns : mapping of str to numpy.ndarray
        The tidy table as columns (:data:`COLUMNS`, one value per row; ``significant`` holds
        True, False or None); ``table`` is their DataFrame.
    group_names : tuple of str
        The groups, sorted.
    reference : str
        The group every other one is compared with.
    k, thresh, normalize
        How the recommendations were read (:func:`ocef.metrics.exposure`).
    gini_convention : {"holisticai", "formula"}
        Denominator of the Gini index (:func:`ocef.metrics.gini`).
    n_resamples : int
        Bootstrap resamples of users (0: no intervals).
    confidence : float
        Two-sided level of the intervals.
    has_truth : bool
        Whether a truth matrix was given (the opportunity metrics are present).
    interval : {"auto", "percentile", "basic"}
        The interval choice (``"auto"``: per metric, :data:`AUTO_METHODS`).
    simultaneous : bool
        Whether the pair intervals hold jointly over the pairs (Bonferroni).
    family : {"report", "table"}
        What one Holm family is (:data:`ocef.metrics.FAMILIES`).
    replicates : numpy.ndarray or None
        Bootstrap values, shape (n_resamples, len(table)), aligned with the rows of ``table``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> res = recommender_bias(rng.random((40, 6)), groups=np.repeat(["a", "b"], 20), k=2, n_resamples=50, rng=1)
    >>> res.pairs[["group_a", "group_b", "mad", "mad_ci_low", "mad_ci_high"]].round(3)
      group_a group_b    mad  mad_ci_low  mad_ci_high
    0       b       a -0.016      -0.086        0.054
    """

    columns: Mapping[str, Any] = dataclasses.field(repr=False)
    group_names: tuple[str, ...]
    reference: str
    k: int | None
    thresh: float | None
    normalize: bool
    gini_convention: str
    n_resamples: int
    confidence: float
    has_truth: bool
    interval: str = "auto"
    simultaneous: bool = False
    family: str = "report"
    #: bootstrap replicates, (n_resamples, len(table)) aligned with the rows of ``table`` (None without)
    replicates: np.ndarray | None = dataclasses.field(default=None, repr=False, compare=False)

    @cached_property
    def table(self) -> pd.DataFrame:
        """The tidy table (see the class docstring): one row per (level, group, metric)."""
        import pandas as pd

        return pd.DataFrame({c: pd.array(v, dtype="boolean") if c == "significant" else v
                             for c, v in self.columns.items()})

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The tidy table (a copy of ``table``): one row per (level, group, metric)."""
        return self.table.copy()

    def _wide(self, level: str, keys: list[str]) -> pd.DataFrame:
        import pandas as pd

        """One row per group (or pair) of ``level``: ``keys``, then per metric ``m`` its value
        and ``m_estimate``, ``m_ci_low``, ``m_ci_high`` (and for pairs ``m_p_adjusted``,
        ``m_significant``)."""
        part = self.table[self.table.level == level]
        extra = ["estimate", "ci_low", "ci_high"] + (["p_adjusted", "significant"] if level == "pair" else [])
        rows = []
        for key, sub in part.groupby(keys, sort=False, dropna=False):
            row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
            for r in sub.itertuples(index=False):
                row[r.metric] = r.value
                for col in extra:
                    row[f"{r.metric}_{col}"] = getattr(r, col)
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def overall(self) -> pd.DataFrame:
        """One row: the item metrics of the whole system (values, estimates, intervals)."""
        return self._wide("overall", ["n_users"])

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group: ``group``, ``n_users`` and its metrics."""
        return self._wide("group", ["group", "n_users"])

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per (group, reference) pair: ``group_a`` (the group), ``group_b`` (the
        reference), ``n_users`` (of the group), MAD, ETV, EKL and the ratios, oriented group_a
        relative to group_b, with estimates, intervals, Holm-adjusted p-values and verdicts."""
        wide = self._wide("pair", ["group", "reference", "n_users"])
        return wide.rename(columns={"group": "group_a", "reference": "group_b"})

    def summary(self) -> pd.DataFrame:
        """The pair comparisons in long form: one row per (group, metric).

        Returns
        -------
        pandas.DataFrame
            ``group``, ``reference``, ``n_users``, ``metric``, ``value``, ``estimate``, ``ci_low``,
            ``ci_high``, ``p_value``, ``p_adjusted``, ``significant``, ``reason``.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> res = recommender_bias(rng.random((40, 6)), groups=np.repeat(["a", "b"], 20), k=2, n_resamples=50, rng=1)
        >>> res.summary()[["group", "reference", "metric", "value", "p_adjusted"]].round(3).head(3)
          group reference                    metric  value  p_adjusted
        0     b         a                       mad -0.016       0.941
        1     b         a  exposure_total_variation  0.175       0.941
        2     b         a               exposure_kl  0.128       0.941
        """
        part = self.table[self.table.level == "pair"]
        return part[["group", "reference", "n_users", "metric", "value", "estimate", "ci_low", "ci_high",
                     "p_value", "p_adjusted", "significant", "reason"]].reset_index(drop=True)

    def rows(self, part: str) -> list[dict]:
        """The rows of one part of the table (its ``level`` column: ``"overall"``, ``"group"`` or
        ``"pair"``) as dicts of the columns, in the table's order, without pandas (null: None or NaN).

        Parameters
        ----------
        part : {"overall", "group", "pair"}
            The rows' ``level``.

        Returns
        -------
        list of dict
            One dict per row, keyed by :data:`COLUMNS`.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> res = recommender_bias(rng.random((40, 6)), groups=np.repeat(["a", "b"], 20), k=2, n_resamples=0)
        >>> [(r["group"], r["metric"]) for r in res.rows("pair")][:2]
        [('b', 'mad'), ('b', 'exposure_total_variation')]
        """
        names = list(self.columns)
        return [dict(zip(names, row)) for row, lv in zip(zip(*self.columns.values()), self.columns["level"])
                if lv == part]

    def _records(self, level: str, keys: list[str]) -> list[dict]:
        """One dict per ``keys`` value of the rows of ``level`` (in order of first appearance), each
        metric an object of its fields: the groups of the table's ``groupby(keys, sort=False)``."""
        fields = ["value", "estimate", "ci_low", "ci_high", "interval", "reason", "n_defined"]
        if level == "pair":
            fields[4:4] = ["p_value", "p_adjusted", "significant"]
        out: dict = {}
        for r in self.rows(level):
            row = out.setdefault(tuple(r[k] for k in keys), {k: r[k] for k in keys})
            row[r["metric"]] = {f: r[f] for f in fields}
        return list(out.values())

    @presents
    def to_dict(self) -> dict:
        """``{"overall": {...}, "groups": [...], "pairs": [...], settings}``, JSON-ready.

        Each metric is an object ``{value, estimate, ci_low, ci_high, [p_value, p_adjusted,
        significant,] interval, reason, n_defined}``. ±inf and NaN are both JSON ``null``: ``reason``
        says which ("infinite: ..." or "undefined: ...").
        """
        overall = self._records("overall", ["n_users"])[0]
        groups = self._records("group", ["group", "n_users"])
        pairs = [{"group_a": r.pop("group"), "group_b": r.pop("reference"), **r}
                 for r in self._records("pair", ["group", "reference", "n_users"])]
        return jsonable({"overall": overall, "groups": groups, "pairs": pairs, "reference": self.reference,
                         "k": self.k, "thresh": self.thresh, "normalize": self.normalize,
                         "gini_convention": self.gini_convention, "n_resamples": self.n_resamples,
                         "confidence": self.confidence, "interval": self.interval,
                         "simultaneous": self.simultaneous, "family": self.family,
                         "p_adjustment": FAMILY_TEXT[self.family]})


# ------------------------------------------------------------------ inputs

def _group_codes(groups, n_users: int) -> tuple[np.ndarray, list[str]]:
    if groups is None:
        raise ParameterError("groups is required: one label per user (any number of groups >= 2)")
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.shape[0] != n_users:
        raise ParameterError(f"groups must hold one label per user: expected a 1-d array of length {n_users} "
                         f"(the rows of scores), got shape {labels.shape}")
    missing = _is_missing(labels)
    if missing.any():
        raise DataError(f"groups holds {int(missing.sum())} missing label(s), e.g. at user {int(np.flatnonzero(missing)[0])}")
    try:
        uniques, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise ParameterTypeError("groups labels must be all numbers or all strings") from None
    names = [str(u) for u in uniques]
    if len(set(names)) != len(names):
        raise ParameterError(f"groups labels must have distinct names, got {names}")
    if len(names) < 2:
        raise ParameterError(f"groups must hold at least 2 distinct labels, got {names}")
    return codes.astype(np.intp).ravel(), names


def _is_missing(labels: np.ndarray) -> np.ndarray:
    """``pandas.isna`` of a 1-d array of labels without importing pandas: NaN, NaT and None (and, when
    pandas is loaded, its own nulls such as ``pd.NA``: then ``pandas.isna`` itself)."""
    if "pandas" in sys.modules:                   # pd.NA and pd.NaT exist only once pandas is imported
        return np.asarray(sys.modules["pandas"].isna(labels))
    if labels.dtype.kind in "fc":
        return np.isnan(labels)
    if labels.dtype.kind in "mM":
        return np.isnat(labels)
    if labels.dtype.kind != "O":
        return np.zeros(labels.shape, dtype=bool)
    nan_types = (float, complex, decimal.Decimal, np.floating, np.complexfloating, np.datetime64, np.timedelta64)
    return np.array([v is None or (isinstance(v, nan_types) and v != v) for v in labels.tolist()], dtype=bool)


def _find_group(name, names: list[str], option: str) -> int:
    key = str(name)
    if key not in names:
        shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
        raise ParameterError(f"{option} {name!r} is not a group; groups: {shown}")
    return names.index(key)


# ------------------------------------------------------------------ bootstrap

def bootstrap_weights(n_users: int, n_resamples: int, rng) -> np.ndarray:
    """Multiplicities of the users in ``n_resamples`` bootstrap resamples (with replacement).

    Row b counts how many times each of the ``n_users`` users is drawn in resample b; a group's
    bootstrap metrics are then weighted sums of per-user statistics with these weights
    (:func:`ocef.metrics.recommender.aggregate`), so no resample is materialised.
    :func:`recommender_bias` draws them within each group (a stratified bootstrap).

    Parameters
    ----------
    n_users : int
        Users to resample (>= 1).
    n_resamples : int
        Number of resamples.
    rng : None, int, SeedSequence or Generator
        Seeds the draws (:func:`ocef.validation.as_generator`).

    Returns
    -------
    numpy.ndarray of int, shape (n_resamples, n_users)
        Each row sums to ``n_users``.

    Examples
    --------
    >>> w = bootstrap_weights(5, 3, rng=0)
    >>> w.tolist(), w.sum(axis=1).tolist()
    ([[0, 2, 1, 1, 1], [4, 0, 0, 0, 1], [0, 0, 1, 2, 2]], [5, 5, 5])
    """
    gen = as_generator(rng)
    idx = gen.integers(0, n_users, size=(n_resamples, n_users))
    flat = (idx + n_users * np.arange(n_resamples)[:, None]).ravel()
    return np.bincount(flat, minlength=n_resamples * n_users).reshape(n_resamples, n_users)


def _slice(stats: UserStats, lo: int, hi: int) -> UserStats:
    return UserStats(**{f.name: (None if getattr(stats, f.name) is None else getattr(stats, f.name)[lo:hi])
                        for f in dataclasses.fields(stats)})


def _metric_values(parts: list[UserStats], weights: list[np.ndarray], ref: int, convention: str,
                   has_truth: bool) -> dict[str, dict[str, np.ndarray]]:
    """Every metric for R rows of weights: ``{"overall": {m: (R,)}, "group": {m: (R, G)},
    "pair": {m: (R, G - 1)}}`` (pairs: every group but the reference, in order), and ``"extra"``:
    ``diff`` (R, G - 1, I), the differences of the exposure distributions, and ``kl_smoothed``
    (R, G - 1), EKL of the counts plus :data:`KL_SMOOTHING`."""
    aggs = [aggregate(stats, w) for stats, w in zip(parts, weights)]
    group_values = {key: np.stack([a[key] for a in aggs], axis=1) for key in aggs[0]}   # (R, G[, I])
    total = group_values["counts"].sum(axis=1)                                           # (R, I)
    overall = item_metrics(total, group_values["pop"].sum(axis=1), group_values["n_active"].sum(axis=1),
                           convention=convention)
    group_values["dist"] = exposure_distribution(group_values["counts"])
    values = [m.name for m in entries("group") if m.name in group_values]      # the registry's group values
    group = {values[0]: group_values[values[0]]}                                  # (mean_score first)
    group.update(item_metrics(group_values["counts"], group_values["pop"], group_values["n_active"],
                              popularity=total[:, None, :], convention=convention, dist=group_values["dist"]))
    group.update({key: group_values[key] for key in values[1:]})
    others = [g for g in range(len(parts)) if g != ref]
    pair = pair_metrics({k: v[:, others] for k, v in group_values.items()},
                        {k: v[:, [ref]] for k, v in group_values.items()})
    dist = group_values["dist"]
    smoothed = exposure_distribution(group_values["counts"] + KL_SMOOTHING)
    counts = group_values["counts"]
    shown = (counts[:, others] + counts[:, [ref]]) > 0                                  # (R, G - 1, I)
    per_item = np.minimum(counts[:, others].sum(axis=-1), counts[:, [ref]].sum(axis=-1)) / np.maximum(
        shown.sum(axis=-1), 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        unseen_total = (total == 1).sum(axis=-1) / total.sum(axis=-1)                        # (R,)
        unseen_group = (counts == 1).sum(axis=-1) / counts.sum(axis=-1)                      # (R, G)
    extra = {"diff": dist[:, others] - dist[:, [ref]],
             "unseen_overall": unseen_total[:, None], "unseen_group": unseen_group,
             "kl_smoothed": kl_divergence(smoothed[:, others], smoothed[:, [ref]]), "per_item": per_item}
    return {"overall": overall, "group": group, "pair": pair, "extra": extra}


def bootstrap_interval(samples: np.ndarray, point: np.ndarray, confidence: float, *, interval: str = "percentile"):
    """Percentile or basic bootstrap interval over axis 0 of replicates.

    Undefined (NaN) replicates are ignored; ±inf replicates count (interpolation falls back to
    the nearest order statistic next to an inf). ``percentile``: the α/2 and 1 − α/2 quantiles
    q of the replicates; ``basic`` (reverse percentile): 2 θ̂ − q_{1−α/2}, 2 θ̂ − q_{α/2},
    centred on the bias-corrected 2 θ̂ − mean(θ*).

    Parameters
    ----------
    samples : numpy.ndarray
        Replicates, shape (B, ...).
    point : numpy.ndarray
        The sample values θ̂, shape (...).
    confidence : float
        Two-sided level in (0, 1).
    interval : {"percentile", "basic"}, default "percentile"
        The interval method (keyword-only).

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high, bias, n_defined)``; ``bias`` = mean(replicates) − θ̂, the bootstrap
        estimate of the plug-in bias.

    Examples
    --------
    >>> reps = np.arange(1.0, 101.0)[:, None]          # replicates 1..100 of a statistic
    >>> low, high, bias, n = bootstrap_interval(reps, np.array([40.0]), 0.9, interval="basic")
    >>> round(float(low[0]), 2), round(float(high[0]), 2), float(bias[0]), int(n[0])
    (-15.05, 74.05, 10.5, 100)
    """
    if interval not in ("percentile", "basic"):
        raise ParameterError(f"interval must be 'percentile' or 'basic', got {interval!r}")
    s = np.asarray(samples, dtype=float)
    point = np.asarray(point, dtype=float)
    defined = (~np.isnan(s)).sum(axis=0)
    alpha = 1.0 - np.asarray(confidence, dtype=float)
    low = np.full(s.shape[1:], np.nan)
    high = np.full(s.shape[1:], np.nan)
    bias = np.full(s.shape[1:], np.nan)
    ok = defined > 0
    if ok.any():
        sub = s[:, ok]
        with np.errstate(invalid="ignore"):
            if np.ndim(alpha) == 0:
                q = [alpha / 2, 1.0 - alpha / 2]
                linear = np.nanquantile(sub, q, axis=0)
                nearest = np.nanquantile(sub, q, axis=0, method="nearest")
                bounds = np.where(np.isfinite(linear), linear, nearest)
            else:
                a = np.broadcast_to(alpha, s.shape[1:])[ok]
                bounds = np.empty((2, sub.shape[1]))
                for j in range(sub.shape[1]):        # one level per column
                    q = [a[j] / 2, 1.0 - a[j] / 2]
                    linear = np.nanquantile(sub[:, j], q)
                    nearest = np.nanquantile(sub[:, j], q, method="nearest")
                    bounds[:, j] = np.where(np.isfinite(linear), linear, nearest)
            if interval == "basic":
                bounds = 2.0 * point[ok] - bounds[::-1]
            bias[ok] = np.nanmean(sub, axis=0) - point[ok]
        low[ok], high[ok] = bounds[0], bounds[1]
    return low, high, bias, defined


# ------------------------------------------------------------------ intervals per metric

def _t_interval(point, reps, df, confidence, log=False):
    """``(estimate, low, high, p_value)``: estimate ± t_df · SE* (SE* the bootstrap standard
    deviation), on log scale when ``log``; the p-value tests 0 (or ratio 1 on log scale)."""
    from ocef.inference import student_t

    with np.errstate(invalid="ignore", divide="ignore"):
        if log:
            point = np.where(point > 0, np.log(point), np.nan)
            reps = np.where(reps > 0, np.log(reps), np.nan)
        finite = np.isfinite(reps)
        reps = np.where(finite, reps, np.nan)
        se = np.nanstd(reps, axis=0, ddof=1)
        if T_SMALL_SAMPLE_CORRECTION:      # bootstrap SD of a mean is sqrt((n - 1) / n) times s / sqrt(n)
            se = se * np.sqrt((np.asarray(df, dtype=float) + 1.0) / np.asarray(df, dtype=float))
        crit = student_t.ppf(0.5 + np.asarray(confidence) / 2, df)
        low, high = point - crit * se, point + crit * se
        p = 2.0 * student_t.sf(np.abs(point) / se, df)
        p = np.where(se > 0, p, np.where(point == 0, 1.0, 0.0))
        p = np.where(np.isfinite(point) & np.isfinite(se), p, np.nan)
    if log:
        point, low, high = np.exp(point), np.exp(low), np.exp(high)
    return point, low, high, p


def _triangle_interval(point, point_diff, reps, rep_diff, confidence):
    """ETV: ``(estimate, low, high, p_value)`` with the interval ETV̂ ± q, q the quantile of the
    bootstrap ½‖d* − d̂‖₁ (triangle inequality; see the module docstring), the bias-corrected
    estimate 2·ETV̂ − mean(ETV*) clipped into it, and p = P*(½‖d* − d̂‖₁ ≥ ETV̂)."""
    noise = 0.5 * np.abs(rep_diff - point_diff[None]).sum(axis=-1)           # (B, P)
    ok = ~np.isnan(noise)
    n_ok = ok.sum(axis=0)
    q = np.array([np.quantile(noise[ok[:, j], j], confidence[j] if np.ndim(confidence) else confidence)
                  if n_ok[j] else np.nan for j in range(noise.shape[1])])
    low, high = np.clip(point - q, 0.0, 1.0), np.clip(point + q, 0.0, 1.0)
    with np.errstate(invalid="ignore"):
        estimate = np.clip(2.0 * point - np.nanmean(np.where(ok, reps, np.nan), axis=0), low, high)
        p = (1.0 + np.where(ok, noise >= point[None], False).sum(axis=0)) / (1.0 + n_ok)
    p = np.where(np.isnan(point) | (n_ok == 0), np.nan, p)
    return estimate, low, high, p


def _auto_rows(level, metric, value, reps, extra, df, confidence, point_extra, conf_pairs):
    """``(estimate, low, high, p_value, interval, reason)`` per element with ``interval="auto"``
    (undefined replicates give NaN, without warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return _auto_rows_inner(level, metric, value, reps, extra, df, confidence, point_extra, conf_pairs)


def _auto_rows_inner(level, metric, value, reps, extra, df, confidence, point_extra, conf_pairs):
    method = AUTO_METHODS[metric]
    conf = conf_pairs if level == "pair" else confidence
    m = value.shape[0]
    p = np.full(m, np.nan)
    reason = np.full(m, None, dtype=object)
    if reps is None:                                      # no resampling
        estimate = value.copy() if method in ("t", "t-log") else np.full(m, np.nan)
        nan = np.full(m, np.nan)
        reason[:] = ("no interval: n_resamples = 0" if method in ("t", "t-log")
                     else "no estimate or interval: the bias correction needs n_resamples > 0")
        return estimate, nan, nan.copy(), p, np.full(m, "none", dtype=object), reason
    if method == "none":
        nan = np.full(m, np.nan)
        reason[:] = ("no valid interval: a share of distinct items shown to a sample of users; the bootstrap "
                     "cannot see items no sampled user was shown")
        return nan, nan, nan.copy(), p, np.full(m, "none", dtype=object), reason
    if method in ("t", "t-log"):
        estimate, low, high, p = _t_interval(value, reps, df, conf, log=method == "t-log")
    elif method == "triangle":
        estimate, low, high, p = _triangle_interval(value, point_extra["diff"], reps, extra["diff"], conf)
    elif method == "basic-smoothed":
        kl = point_extra["kl_smoothed"]
        low, high, bias, _ = bootstrap_interval(extra["kl_smoothed"], kl, conf, interval="basic")
        estimate = np.maximum(kl - bias, 0.0)
        low, high = np.maximum(low, 0.0), np.maximum(high, 0.0)
        reason[:] = (f"estimate and interval from the exposure counts plus {KL_SMOOTHING:g} per item "
                     "(value: holisticai's plug-in, without smoothing)")
        sparse = point_extra["per_item"] < MIN_EXPOSURES_PER_ITEM
        estimate, low, high = (np.where(sparse, np.nan, x) for x in (estimate, low, high))
        for j in np.flatnonzero(sparse):
            reason[j] = (f"no valid interval: {point_extra['per_item'][j]:.2g} exposures per item shown, fewer "
                         f"than {MIN_EXPOSURES_PER_ITEM:g}: the smoothing would dominate the estimate")
    else:                                                 # basic
        low, high, bias, _ = bootstrap_interval(reps, value, conf, interval="basic")
        lo_range, hi_range = RANGES.get(metric, (-np.inf, np.inf))
        estimate = np.clip(value - bias, lo_range, hi_range)
        low, high = np.clip(low, lo_range, hi_range), np.clip(high, lo_range, hi_range)
        if level in ("overall", "group") and metric in ("gini_index", "exposure_entropy"):
            unseen = np.asarray(point_extra[f"unseen_{level}"], dtype=float)
            sparse = ~(unseen <= MAX_UNSEEN_MASS)
            low, high = np.where(sparse, np.nan, low), np.where(sparse, np.nan, high)
            for j in range(m):
                if sparse[j]:
                    reason[j] = (f"no valid interval: {unseen[j]:.2g} of the exposures are on items shown once "
                                 f"(Good-Turing unseen mass > {MAX_UNSEEN_MASS:g}); the bootstrap cannot see "
                                 "items no sampled user was shown")
                elif metric == "gini_index":
                    low[j], high[j] = np.nan, np.nan
                    reason[j] = GINI_NO_INTERVAL
    if level != "pair" or metric == "exposure_kl":
        p = np.full(m, np.nan) if metric != "exposure_kl" else p
    methods = np.full(m, method, dtype=object)
    # a row whose interval was withheld names no interval method
    methods[[isinstance(r, str) and r.startswith("no valid interval") for r in reason]] = "none"
    return estimate, low, high, p, methods, reason


def _reason(metric: str, value: float, estimate: float, low: float, high: float, n_defined: int, n_resamples: int,
            current):
    """Why a value, estimate or interval is null or infinite ("infinite: ...", "undefined: ...",
    "no valid interval: ..."), else ``current``."""
    notes = []
    if np.isinf(value):
        notes.append("infinite: " + ("the reference is never shown an item the group is shown"
                                     if metric == "exposure_kl" else "division by 0"))
    elif np.isnan(value):
        notes.append("undefined: " + ("0/0" if metric.endswith("_ratio") else
                                      "a group is shown no item or has no scored entry"))
    if n_resamples and not np.isnan(value) and n_defined < MIN_DEFINED * n_resamples:
        notes.append(f"no valid interval: defined in {n_defined} of {n_resamples} resamples")
    if current:
        notes.append(current)
    elif np.isfinite(value) and (value < low or value > high):
        notes.append("the interval is around the bias-corrected estimate and excludes the biased sample value")
    return "; ".join(notes) if notes else None


#: the range of each metric that has a bounded one (intervals are clipped to it)
RANGES = {"gini_index": (0.0, 1.0), "exposure_entropy": (0.0, np.inf)}


# ------------------------------------------------------------------ public function

def _size_floor(metric, method, smallest, low, high, p, reasons):
    """Null the interval and p-value of rows whose (smaller) group is below the measured floor of the
    row's interval family (:data:`MIN_GROUP_USERS`), with the reason."""
    low, high, p = (np.array(x, dtype=float) for x in (low, high, p))
    reasons = list(reasons)
    for j, (m, n) in enumerate(zip(method, np.asarray(smallest).tolist())):
        family = AUTO_METHODS.get(metric)                       # the floor measured for the metric's family
        floor = MIN_GROUP_USERS.get(family)
        if floor is None or n >= floor or (np.isnan(low[j]) and np.isnan(p[j])):
            continue
        low[j] = high[j] = p[j] = np.nan
        reasons[j] = (f"no valid interval: a group of {n} user{'s' if n != 1 else ''}, fewer than {floor}, the "
                      f"measured floor of the {family} interval family (docs/guide/metrics.md)")
    return low, high, p, reasons


def _bootstrap(parts, sizes, n_resamples: int, gen, ref, gini_convention, has_truth, progress=False) -> dict:
    """The bootstrap replicates of every metric (:func:`_metric_values` with resampled weights), in chunks
    of :data:`RESAMPLE_CHUNK` resamples above it: after the first chunk the memory the replicates will
    take is checked (:func:`ocef.validation.check_resources`), and a progress bar with the time left is
    shown on stderr."""
    from ocef.validation import check_resources

    from ocef._progress import progress_bar

    chunks = [min(RESAMPLE_CHUNK, n_resamples - a) for a in range(0, n_resamples, RESAMPLE_CHUNK)]
    out = []
    with progress_bar(progress, total=n_resamples, desc="bootstrap resamples", unit="resample") as bar:
        for i, size in enumerate(chunks):
            weights = [bootstrap_weights(int(n), size, gen) for n in sizes]   # the same draws with or without a bar
            for lo in range(0, size, _STEP):                                   # evaluated in steps: the bar moves
                out.append(_metric_values(parts, [w[lo:lo + _STEP] for w in weights], ref, gini_convention,
                                          has_truth))
                bar.update(min(_STEP, size - lo))
                if i == 0 and lo == 0 and len(chunks) > 1:
                    step = min(_STEP, size)
                    per = sum(np.asarray(a).nbytes for level in out[0].values() for a in level.values()) / step
                    check_resources(f"n_resamples={n_resamples} (the bootstrap keeps every replicate of every "
                                    f"metric)", memory=2.0 * per * n_resamples)
    if len(out) == 1:
        return out[0]
    return {level: {key: np.concatenate([o[level][key] for o in out], axis=0) for key in out[0][level]}
            for level in out[0]}


@validate_params(n_resamples=Integer(0, 10**6),     # issue 23: 10**12 resamples tried 146 TiB
                 confidence=CONFIDENCE, interval=Options(*INTERVALS), simultaneous=Boolean(),
                 gini_convention=GINI_CONVENTION, family=Options(*FAMILIES), rng=Rng(),
                 progress=PROGRESS)
def recommender_bias(scores, truth=None, groups=None, *, reference=None, k: int | None = None,
                     thresh: float | None = 0.5, normalize: bool = False, n_resamples: int = 200,
                     confidence: float = 0.95, interval: str = "auto", simultaneous: bool = False,
                     gini_convention: str = "holisticai", family: str = "report", rng=None,
                     progress=False) -> RecommenderBiasResult:
    """holisticai's bias metrics of a recommender for any number of groups, with population
    estimates, intervals that cover and multiplicity-adjusted comparisons with a reference.

    Parameters
    ----------
    scores : array_like
        Users x items (NaN = not scored, never shown).
    truth : array_like, optional
        The same shape: true relevance; enables the opportunity metrics and their ratios.
    groups : array_like
        One label per user (numbers or strings, >= 2 groups).
    reference : label, optional
        The group every other is compared with (default: the largest, the first sorted on ties).
    k, thresh, normalize
        How recommendations are read from the scores (:func:`ocef.metrics.exposure`).
    n_resamples : int, default 200
        Bootstrap resamples of users, stratified by group; 0: sample values only. Above
        :data:`RESAMPLE_CHUNK` they run in chunks with a progress bar, after a memory check.
    confidence : float, default 0.95
        Two-sided level; a pair is ``significant`` when its Holm-adjusted p-value is <= 1 − ``confidence``.
    family : {"report", "table"}, default "report"
        What one Holm family is (:data:`FAMILIES`): every pair of every metric, or each metric's pairs.
    interval : {"auto", "percentile", "basic"}
        ``"auto"``: the method measured to cover for each metric (:data:`AUTO_METHODS`); else that
        bootstrap interval for every metric.
    simultaneous : bool, default False
        Pair intervals that hold jointly over the pairs of a metric (Bonferroni).
    gini_convention : {"holisticai", "formula"}
        Gini index divided by n − 1 (holisticai) or n.
    rng : None, int, SeedSequence or Generator
        Seeds the bootstrap.
    progress : bool or "auto", default False
        A bar with the time left on stderr (``"auto"``: when stderr is a terminal); results unchanged.

    Returns
    -------
    RecommenderBiasResult
        With two groups, ``value`` holds holisticai 1.0.14's numbers (pair (a, reference) = holisticai's
        (group_a, group_b)).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> res = recommender_bias(rng.random((60, 8)), groups=np.repeat(["a", "b"], 30), k=2, n_resamples=100, rng=1)
    >>> res.table.set_index(["level", "metric"]).loc[("pair", "exposure_total_variation"), "interval"]
    'triangle'
    """
    arr = check_scores(scores)
    n_users = arr.shape[0]
    codes, names = _group_codes(groups, n_users)
    sizes = np.bincount(codes, minlength=len(names))
    ref = int(np.argmax(sizes)) if reference is None else _find_group(reference, names, "reference")
    order = np.argsort(codes, kind="stable")                     # users of each group contiguous
    stats = user_stats(arr, truth, k=k, thresh=thresh, normalize=normalize, order=order)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    parts = [_slice(stats, bounds[g], bounds[g + 1]) for g in range(len(names))]
    has_truth = stats.has_truth

    point = _metric_values(parts, [np.ones((1, n)) for n in sizes], ref, gini_convention, has_truth)
    boot = None
    if n_resamples:
        boot = _bootstrap(parts, sizes, int(n_resamples), as_generator(rng), ref, gini_convention, has_truth,
                          progress)

    others = [g for g in range(len(names)) if g != ref]
    n_pairs = len(others)
    conf_pairs = 1.0 - (1.0 - confidence) / n_pairs if simultaneous else confidence
    point_extra = {key: v[0] for key, v in point["extra"].items()}
    columns: dict[str, list] = {}
    replicates = []
    for level in ("overall", "group", "pair"):
        for metric, values in point[level].items():
            values = np.atleast_1d(values[0]).astype(float)
            m = values.shape[0]
            if level == "overall":
                grp, refname, n = [OVERALL_GROUP], [None], [n_users]
                df = np.array([n_users - 1.0])
            elif level == "group":
                grp, refname, n = names, [None] * m, [int(x) for x in sizes]
                df = np.maximum(sizes - 1.0, 1.0)
            else:
                grp, refname = [names[g] for g in others], [names[ref]] * m
                n = [int(sizes[g]) for g in others]
                df = np.maximum(np.minimum(sizes[others], sizes[ref]) - 1.0, 1.0)
            samples = extra = None
            if boot is not None:
                samples = boot[level][metric].reshape(n_resamples, -1)
                replicates.append(samples)
                extra = boot["extra"]
                _, _, bias, defined = bootstrap_interval(samples, values, confidence, interval="percentile")
            else:
                bias = np.full(m, np.nan)
                defined = np.zeros(m, dtype=int)
            conf = conf_pairs if level == "pair" else confidence
            if interval == "auto":
                estimate, low, high, p, method, reason = _auto_rows(level, metric, values, samples, extra, df,
                                                                    confidence, point_extra, conf_pairs)
            elif samples is None:
                estimate, low, high = values.copy(), np.full(m, np.nan), np.full(m, np.nan)
                p, method = np.full(m, np.nan), np.full(m, "none", dtype=object)
                reason = np.full(m, "no interval: n_resamples = 0", dtype=object)
            else:
                low, high, bias_, _ = bootstrap_interval(samples, values, conf, interval=interval)
                estimate = values - bias_ if interval == "basic" else values.copy()
                p, method = np.full(m, np.nan), np.full(m, interval, dtype=object)
                reason = np.full(m, None, dtype=object)
                outside = ~((low <= estimate) & (estimate <= high)) & ~np.isnan(low) & np.isfinite(estimate)
                reason[outside] = (f"the {interval} interval excludes the estimate: the plug-in is biased "
                                   "(use interval='auto')")
            # a value that is NaN/inf or too rarely defined in the resamples has no estimate/interval
            reasons = [_reason(metric, v, e, lo, hi, int(d), n_resamples, r)
                       for v, e, lo, hi, d, r in zip(values, estimate, low, high, defined, reason)]
            bad = np.isnan(values) | ((defined < MIN_DEFINED * n_resamples) if n_resamples else False)
            if metric != "exposure_kl" or interval != "auto":       # auto: EKL's estimate is smoothed
                bad = bad | np.isinf(values)
            else:
                bad = bad & ~np.isinf(values)
            estimate, low, high, p = (np.where(bad, np.nan, np.asarray(x, dtype=float)) for x in (estimate, low, high, p))
            if level != "overall":
                smallest = (np.asarray(n) if level == "group" else np.minimum(sizes[others], sizes[ref]))
                low, high, p, reasons = _size_floor(metric, method, smallest, low, high, p, reasons)
            for key, col in (("level", [level] * m), ("group", list(grp)), ("reference", list(refname)),
                             ("n_users", list(n)), ("metric", [metric] * m), ("value", values),
                             ("estimate", estimate), ("ci_low", low), ("ci_high", high),
                             ("confidence", np.full(m, conf)), ("interval", list(method)), ("p_value", p),
                             ("bias", bias), ("n_defined", np.asarray(defined, dtype=int)), ("reason", reasons)):
                columns.setdefault(key, []).append(np.asarray(col, dtype=object) if key in (
                    "level", "group", "reference", "metric", "interval", "reason") else np.asarray(col))
    table = {key: np.concatenate(parts) for key, parts in columns.items()}
    # issue 28: at confidence 0.9999999999999999 t interval ends were null with no reason
    ends = np.stack([table["ci_low"], table["ci_high"]], axis=1).astype(float)
    no_reason = np.array([r is None for r in table["reason"]], dtype=bool)
    unexplained = (~np.isnan(table["estimate"]) & ~np.isfinite(ends).all(axis=1) & no_reason
                   & (table["interval"] != "none"))
    if unexplained.any():
        table["ci_low"][unexplained] = table["ci_high"][unexplained] = np.nan   # an infinite end is no interval
        table["reason"][unexplained] = (
            f"no valid interval at confidence {confidence!r}: its critical value is not finite in double precision"
            f" (use a confidence of at most 1 - 1e-12)" if confidence > 1 - 1e-12 else
            "no valid interval: the interval is not defined here")
    pairs = table["level"] == "pair"
    etv = np.flatnonzero(pairs & (table["metric"] == "exposure_total_variation"))
    ekl = np.flatnonzero(pairs & (table["metric"] == "exposure_kl"))
    p_value = table["p_value"]
    if interval == "auto" and n_resamples:         # EKL tests ETV's null hypothesis (equal distributions)
        p_value[ekl] = np.where(np.isnan(table["value"][ekl]), np.nan, p_value[etv])
    p_adjusted = np.full(p_value.shape, np.nan)
    if family == "table":
        for metric in np.unique(table["metric"][pairs]):
            idx = np.flatnonzero(pairs & (table["metric"] == metric))
            p_adjusted[idx] = holm_adjust(p_value[idx])
    else:
        shared = interval == "auto" and n_resamples        # EKL tests ETV's hypothesis: counted once
        idx = np.flatnonzero(pairs & ~((table["metric"] == "exposure_kl") if shared else False))
        p_adjusted[idx] = holm_adjust(p_value[idx])
        if shared:
            p_adjusted[ekl] = np.where(np.isnan(p_value[ekl]), np.nan, p_adjusted[etv])
    table["p_adjusted"] = p_adjusted
    table["significant"] = np.where(np.isnan(p_adjusted), None, p_adjusted <= 1.0 - confidence)
    table = {c: table[c] for c in COLUMNS}
    sel_k = None if k is None else int(k)
    return RecommenderBiasResult(columns=table, group_names=tuple(names), reference=names[ref], k=sel_k,
                                 thresh=None if sel_k is not None else float(thresh), normalize=bool(normalize),
                                 gini_convention=gini_convention, n_resamples=int(n_resamples),
                                 confidence=confidence, has_truth=has_truth, interval=interval,
                                 simultaneous=bool(simultaneous), family=family,
                                 replicates=np.concatenate(replicates, axis=1) if replicates else None)
