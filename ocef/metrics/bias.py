"""Seed 004's recommender bias metrics for any number of groups, with bootstrap intervals.

:func:`recommender_bias` computes, from one score matrix (and optionally a truth matrix):

- the item metrics of the whole system (aggregate diversity, Gini index, exposure entropy,
  average recommendation popularity);
- one row per group: its size, mean score (the MAD ingredient), the item metrics of the items
  it is shown (its ARP uses the popularity over all users), and with a truth matrix its average
  precision / recall / F1 and its RMSE / MAE;
- one row per (group, reference) pair: MAD, ETV, EKL and the precision / recall / F1 / RMSE / MAE
  ratios, oriented group relative to reference, i.e. holisticai's (group_a, group_b) =
  (group, reference): with two groups the pair's numbers are holisticai's.

Every value is a function of weighted sums over users of per-user statistics
(:func:`ocef.metrics.recommender.user_stats` / :func:`~ocef.metrics.recommender.aggregate`), so
the same code gives the point estimate (weights 1) and ``n_resamples`` bootstrap replicates
(weights = multiplicities of a resample) in a few matrix products, without a loop over users or
resamples. The bootstrap resamples users with replacement within each group (stratified: group
sizes stay fixed, no group is ever empty); intervals at ``confidence`` are percentile (default) or
basic intervals (:func:`bootstrap_interval`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from ocef.validation import Integer, validate_params
import pandas as pd

from ocef.metrics.recommender import (
    GINI_CONVENTIONS, TRUTH_METRICS, UserStats, _check_choice, aggregate, check_scores, exposure_distribution,
    item_metrics, pair_metrics, user_stats,
)
from ocef.results import Result, jsonable
from ocef.validation import as_generator, check_in_interval, check_positive_int

__all__ = ["recommender_bias", "RecommenderBiasResult", "OVERALL_METRICS", "GROUP_METRICS", "PAIR_METRICS",
           "INTERVALS", "bootstrap_weights", "bootstrap_interval"]

OVERALL_METRICS = ("aggregate_diversity", "gini_index", "exposure_entropy", "avg_recommendation_popularity")
GROUP_METRICS = ("mean_score",) + OVERALL_METRICS + TRUTH_METRICS
PAIR_METRICS = ("mad", "exposure_total_variation", "exposure_kl") + tuple(f"{k}_ratio" for k in TRUTH_METRICS)
INTERVALS = ("percentile", "basic")
OVERALL_GROUP = "all"


# ------------------------------------------------------------------ result

@dataclass(frozen=True)
class RecommenderBiasResult(Result):
    """Seed 004's metrics of one recommender for many groups (see :func:`recommender_bias`).

    ``table`` is the tidy result (also ``to_frame()``): one row per value with ``level``
    (``overall``/``group``/``pair``), ``group``, ``reference`` (pairs), ``n_users``, ``metric``,
    ``value``, ``ci_low``, ``ci_high`` (NaN without resampling), ``bias`` (bootstrap estimate of
    the plug-in bias) and ``n_defined`` (resamples in which the value was defined). ``overall``,
    ``groups`` and ``pairs`` are wide views; ``replicates`` holds the bootstrap values.
    """

    table: pd.DataFrame
    group_names: tuple[str, ...]
    reference: str
    top: int | None
    thresh: float | None
    normalize: bool
    gini_convention: str
    n_resamples: int
    confidence: float
    has_truth: bool
    interval: str = "percentile"
    #: bootstrap replicates, (n_resamples, len(table)) aligned with the rows of ``table`` (None without)
    replicates: np.ndarray | None = dataclasses.field(default=None, repr=False, compare=False)

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def _rows(self, level: str, keys: list[str], ci: str) -> list[dict]:
        """One dict per group (or pair) of ``level``: ``keys`` then each metric's value and, with
        resampling, its bounds as ``m_low``/``m_high`` (``ci="columns"``) or ``m_ci`` (``"list"``)."""
        part = self.table[self.table.level == level]
        rows = []
        for key, sub in part.groupby(keys, sort=False, dropna=False):
            row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
            for r in sub.itertuples(index=False):
                row[r.metric] = r.value
                if self.n_resamples and ci == "list":
                    row[f"{r.metric}_ci"] = [r.ci_low, r.ci_high]
                elif self.n_resamples:
                    row[f"{r.metric}_low"], row[f"{r.metric}_high"] = r.ci_low, r.ci_high
            rows.append(row)
        return rows

    @property
    def overall(self) -> pd.Series:
        """The item metrics of the whole system (and their ``_low``/``_high`` bounds)."""
        return pd.Series(self._rows("overall", ["n_users"], "columns")[0])

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group: ``group``, ``n_users`` and its values."""
        return pd.DataFrame(self._rows("group", ["group", "n_users"], "columns"))

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per (group, reference) pair: ``group_a`` (the group), ``group_b`` (the
        reference), ``n_users`` (of the group), MAD, ETV, EKL and the ratios, oriented group_a
        relative to group_b."""
        rows = self._rows("pair", ["group", "reference", "n_users"], "columns")
        return pd.DataFrame(rows).rename(columns={"group": "group_a", "reference": "group_b"})

    def to_dict(self) -> dict:
        """``{"overall": {...}, "groups": [...], "pairs": [...], settings}``; with resampling each
        value ``m`` has ``m_ci = [low, high]``."""
        overall = self._rows("overall", ["n_users"], "list")[0]
        groups = self._rows("group", ["group", "n_users"], "list")
        pairs = [{"group_a": r.pop("group"), "group_b": r.pop("reference"), **r}
                 for r in self._rows("pair", ["group", "reference", "n_users"], "list")]
        return jsonable({"overall": overall, "groups": groups, "pairs": pairs, "reference": self.reference,
                         "top": self.top, "thresh": self.thresh, "normalize": self.normalize,
                         "gini_convention": self.gini_convention, "n_resamples": self.n_resamples,
                         "confidence": self.confidence, "interval": self.interval})


# ------------------------------------------------------------------ inputs

def _group_codes(groups, n_users: int) -> tuple[np.ndarray, list[str]]:
    if groups is None:
        raise ValueError("groups is required: one label per user (any number of groups >= 2)")
    labels = np.asarray(groups)
    if labels.ndim != 1 or labels.shape[0] != n_users:
        raise ValueError(f"groups must hold one label per user: expected a 1-d array of length {n_users} "
                         f"(the rows of scores), got shape {labels.shape}")
    missing = pd.isna(labels)
    if missing.any():
        raise ValueError(f"groups holds {int(missing.sum())} missing label(s), e.g. at user {int(np.flatnonzero(missing)[0])}")
    try:
        uniques, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise TypeError("groups labels must be all numbers or all strings") from None
    names = [str(u) for u in uniques]
    if len(set(names)) != len(names):
        raise ValueError(f"groups labels must have distinct names, got {names}")
    if len(names) < 2:
        raise ValueError(f"groups must hold at least 2 distinct labels, got {names}")
    return codes.astype(np.intp).ravel(), names


def _find_group(name, names: list[str], option: str) -> int:
    key = str(name)
    if key not in names:
        shown = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
        raise ValueError(f"{option} {name!r} is not a group; groups: {shown}")
    return names.index(key)


# ------------------------------------------------------------------ bootstrap

def bootstrap_weights(n_users: int, n_resamples: int, rng) -> np.ndarray:
    """Multiplicities of ``n_resamples`` resamples of ``n_users`` users drawn with replacement:
    an (n_resamples, n_users) integer array whose rows sum to ``n_users``."""
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
    "pair": {m: (R, G - 1)}}`` (pairs: every group but the reference, in order)."""
    aggs = [aggregate(stats, w) for stats, w in zip(parts, weights)]
    group_values = {key: np.stack([a[key] for a in aggs], axis=1) for key in aggs[0]}   # (R, G[, I])
    total = group_values["counts"].sum(axis=1)                                           # (R, I)
    overall = item_metrics(total, group_values["pop"].sum(axis=1), group_values["n_active"].sum(axis=1),
                           convention=convention)
    group_values["dist"] = exposure_distribution(group_values["counts"])
    group = {"mean_score": group_values["mean_score"]}
    group.update(item_metrics(group_values["counts"], group_values["pop"], group_values["n_active"],
                              popularity=total[:, None, :], convention=convention, dist=group_values["dist"]))
    if has_truth:
        group.update({key: group_values[key] for key in TRUTH_METRICS})
    others = [g for g in range(len(parts)) if g != ref]
    pair = pair_metrics({k: v[:, others] for k, v in group_values.items()},
                        {k: v[:, [ref]] for k, v in group_values.items()})
    return {"overall": overall, "group": group, "pair": pair}


def bootstrap_interval(samples: np.ndarray, point: np.ndarray, confidence: float, method: str = "percentile"):
    """``(low, high, bias, n_defined)`` over axis 0 of bootstrap replicates, ignoring undefined
    (NaN) replicates; ±inf replicates count (interpolation falls back to the nearest order
    statistic next to an inf).

    ``percentile``: the α/2 and 1 − α/2 quantiles q of the replicates; ``basic`` (reverse
    percentile): 2 θ̂ − q_{1−α/2}, 2 θ̂ − q_{α/2}, which corrects a shift of the bootstrap
    distribution — the plug-in ETV and EKL are biased upwards (resampling adds sampling noise
    to the exposure distributions; aggregate diversity, a count of distinct items, downwards),
    so their percentile intervals can lie entirely beside θ̂.
    ``bias`` = mean(replicates) − θ̂, the bootstrap estimate of the plug-in bias.
    """
    _check_choice("interval", method, INTERVALS)
    s = np.asarray(samples, dtype=float)
    point = np.asarray(point, dtype=float)
    defined = (~np.isnan(s)).sum(axis=0)
    alpha = 1.0 - confidence
    q = np.array([alpha / 2, 1.0 - alpha / 2])
    low = np.full(s.shape[1:], np.nan)
    high = np.full(s.shape[1:], np.nan)
    bias = np.full(s.shape[1:], np.nan)
    ok = defined > 0
    if ok.any():
        sub = s[:, ok]
        with np.errstate(invalid="ignore"):
            linear = np.nanquantile(sub, q, axis=0)
            nearest = np.nanquantile(sub, q, axis=0, method="nearest")
            bounds = np.where(np.isfinite(linear), linear, nearest)
            if method == "basic":
                bounds = 2.0 * point[ok] - bounds[::-1]
            bias[ok] = np.nanmean(sub, axis=0) - point[ok]
        low[ok], high[ok] = bounds[0], bounds[1]
    return low, high, bias, defined


# ------------------------------------------------------------------ public function

@validate_params(n_resamples=Integer(0, 10**6))     # issue 23: 10**12 resamples tried 146 TiB
def recommender_bias(scores, truth=None, groups=None, reference=None, top: int | None = None, thresh: float | None = 0.5,
                     normalize: bool = False, n_resamples: int = 0, rng=None, *, confidence: float = 0.95,
                     interval: str = "percentile",
                     gini_convention: str = "holisticai") -> RecommenderBiasResult:
    """Seed 004's bias metrics of a recommender for any number of groups, with bootstrap intervals.

    ``scores``: users x items (NaN = not scored, never shown); ``truth``: the same shape (enables
    the opportunity metrics); ``groups``: one label per user (numbers or strings, >= 2 groups);
    ``reference``: the group every other is compared with (default: the largest group, the first
    in sorted order on ties); ``top``/``thresh``/``normalize``: how recommendations are read from
    the scores (:func:`ocef.metrics.exposure`); ``gini_convention``: ``"holisticai"`` (n − 1) or
    ``"formula"`` (n). With ``n_resamples`` > 0, intervals at ``confidence`` from a bootstrap over
    users stratified by group (``rng`` seeds it): ``interval="percentile"`` (default) or
    ``"basic"`` (see :func:`bootstrap_interval`: the percentile intervals of ETV and EKL, biased
    plug-in estimates, are shifted upwards — measured in the ``bias-metrics-movielens``
    experiment —; the basic interval corrects the shift; the ``bias`` column estimates it).

    Two groups give holisticai 1.0.14's numbers: the pair row (a, reference) holds
    ``mad_score``, ``exposure_l1``, ``exposure_kl`` and the ratios with (group_a, group_b) =
    (a, reference); the overall row its item metrics.
    """
    arr = check_scores(scores)
    n_users = arr.shape[0]
    _check_choice("gini_convention", gini_convention, GINI_CONVENTIONS)
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=0)     # 0: no intervals
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    _check_choice("interval", interval, INTERVALS)
    codes, names = _group_codes(groups, n_users)
    sizes = np.bincount(codes, minlength=len(names))
    ref = int(np.argmax(sizes)) if reference is None else _find_group(reference, names, "reference")
    order = np.argsort(codes, kind="stable")                     # users of each group contiguous
    stats = user_stats(arr, truth, top, thresh, normalize, order=order)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    parts = [_slice(stats, bounds[g], bounds[g + 1]) for g in range(len(names))]
    has_truth = stats.has_truth

    point = _metric_values(parts, [np.ones((1, n)) for n in sizes], ref, gini_convention, has_truth)
    boot = None
    if n_resamples:
        gen = as_generator(rng)
        weights = [bootstrap_weights(int(n), int(n_resamples), gen) for n in sizes]
        boot = _metric_values(parts, weights, ref, gini_convention, has_truth)

    others = [g for g in range(len(names)) if g != ref]
    rows, replicates = [], []
    for level, metrics in point.items():
        for metric, values in metrics.items():
            values = np.atleast_1d(values[0])
            if boot is not None:
                samples = boot[level][metric].reshape(n_resamples, -1)
                replicates.append(samples)
                low, high, bias, defined = bootstrap_interval(samples, values, confidence, interval)
            else:
                low = high = bias = np.full(values.shape, np.nan)
                defined = np.zeros(values.shape, dtype=int)
            for k, v in enumerate(values):
                if level == "overall":
                    grp, refname, n = OVERALL_GROUP, None, n_users
                elif level == "group":
                    grp, refname, n = names[k], None, int(sizes[k])
                else:
                    grp, refname, n = names[others[k]], names[ref], int(sizes[others[k]])
                rows.append({"level": level, "group": grp, "reference": refname, "n_users": n, "metric": metric,
                             "value": float(v), "ci_low": float(low[k]), "ci_high": float(high[k]),
                             "bias": float(bias[k]), "n_defined": int(defined[k])})
    table = pd.DataFrame(rows, columns=["level", "group", "reference", "n_users", "metric", "value",
                                        "ci_low", "ci_high", "bias", "n_defined"])
    sel_top = None if top is None else int(top)
    return RecommenderBiasResult(table=table, group_names=tuple(names), reference=names[ref], top=sel_top,
                                 thresh=None if sel_top is not None else float(thresh), normalize=bool(normalize),
                                 gini_convention=gini_convention, n_resamples=int(n_resamples),
                                 confidence=confidence, has_truth=has_truth, interval=interval,
                                 replicates=np.concatenate(replicates, axis=1) if replicates else None)
