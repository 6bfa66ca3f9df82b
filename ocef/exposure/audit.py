"""The front door of the exposure audit: :func:`exposure_fairness` and its result.

One call reads a top-k log once where it lives (:mod:`ocef.exposure.statistics`), gives each item
group's exposure share against a target with intervals (:mod:`ocef.exposure.shares`), compares user
groups (the shares, and the list metrics of the registry, :mod:`ocef.exposure.frame`) and, when
asked, the per-user ranking metrics (AWRF, NDKL, expected exposure: a second pass,
:mod:`ocef.exposure.ranking_metrics`). Every parameter is declared once, with the declarations of
the modules that use it (:data:`DECLARED_PARAMS`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ocef.exposure.browsing import BROWSING_PARAMS
from ocef.exposure.logs import LOG_PARAMS, fill_log_doc
from ocef.exposure.shares import TARGET_MEANING, TARGETS
from ocef.exposure.user_metrics import LIST_METRICS, RANKING_METRICS, REGISTRY
from ocef.results import Result, presents
from ocef.validation import CONFIDENCE, Integer, Label, OneOrMore, Options, OrNone, validate_params
from ocef._progress import PROGRESS

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["ExposureResult", "exposure_fairness", "DECLARED_PARAMS", "FAMILIES", "adjust_family"]

#: Families of the Holm adjustment: every test of the output together (the default), or each table alone.
FAMILIES = ("report", "table")

#: Every parameter of :func:`exposure_fairness`, declared once (shared with ``ocef exposure``).
DECLARED_PARAMS = {
    **LOG_PARAMS, **BROWSING_PARAMS,
    **{name: c for m in RANKING_METRICS for name, c in REGISTRY[m].params.items()},
    "target": Options(*TARGETS), "k": OrNone(Integer(1, 2**53)), "confidence": CONFIDENCE,   # 2**53: a float count
    "family": Options(*FAMILIES), "progress": PROGRESS, "reference": OrNone(Label()),
    "metrics": OrNone(OneOrMore(Options(*LIST_METRICS))),
    "ranking_metrics": OrNone(OneOrMore(Options(*RANKING_METRICS))),
}


@dataclass(frozen=True)
class ExposureResult(Result):
    """Exposure fairness of a top-k log (:func:`exposure_fairness`).

    Provider side: the share of the users' attention (browsing-model exposure) each item group
    receives, compared with a target share (equal, or merit-proportional), with intervals clustered
    by user and Holm-adjusted tests. Consumer side (with a user-group column): each user group vs
    the reference. ``to_frame()`` is ``groups``; ``summary()`` the differences from the target,
    most significant first. The result keeps its tables as columns and builds each DataFrame when it
    is first read: ``to_dict()`` and ``ocef exposure --json`` do not need pandas.

    Attributes
    ----------
    columns : dict
        ``{"overall": ..., "groups": ..., "pairs": ...}``, each a mapping of column name to values
        (one per row): the three tables below.
    overall : pandas.DataFrame
        One row: users, rows, item groups, browsing model, the total variation between shares and
        target (a plug-in without an interval: ``total_variation_reason`` says so).
    groups : pandas.DataFrame
        One row per (user group, item group, statistic ∈ {share, difference, ratio}); user group
        ``"(all)"`` pools every user: ``estimate, ci_low, ci_high, p_value, p_adjusted, significant,
        reason`` (difference and ratio vs the target share; Holm over the differences).
    pairs : pandas.DataFrame
        Consumer side: each user group vs the reference, per item group, the difference of exposure
        shares (z interval, independent groups), Holm-adjusted.
    users : MetricFrameResult or None
        Per-user metrics (precision, recall, nDCG, hit rate) by user group (needs relevance).
    stats : RankingStats
        The sufficient statistics the result was computed from.
    browsing : str
        Browsing model (``"geometric"``, ``"dcg"`` or ``"cascade"``).
    patience : float
        Its patience parameter.
    target : {"catalogue", "equal", "merit"}
        The target shares (:data:`ocef.exposure.shares.TARGETS`); ``overall`` says what it implies
        (``target_meaning``).
    confidence : float
        Two-sided level of the intervals.
    ranking : RankingFairnessResult or None
        Per-user AWRF, NDKL and expected exposure by user group (only when
        :func:`exposure_fairness` is given ``ranking_metrics``: a second
        pass over the log; :func:`ocef.exposure.ranking_metrics.ranking_fairness`).
    family : {"report", "table"}
        The Holm family of every ``p_adjusted`` and ``significant``: all the tests of the output
        together, or each table alone (``overall["family"]`` says which and how many tests).

    Examples
    --------
    >>> from ocef.datasets import make_toy_rankings
    >>> res = exposure_fairness(make_toy_rankings(), item_group="genre", target="equal")
    >>> res.groups[res.groups.statistic == "share"][["item_group", "estimate", "ci_low", "ci_high"]].round(3)
      item_group  estimate  ci_low  ci_high
    0          a     0.657   0.519    0.773
    3          b     0.343   0.227    0.481
    """

    columns: Mapping[str, Any] = field(repr=False)
    users: object
    stats: object = field(repr=False)
    browsing: str = "geometric"
    patience: float = 0.5
    target: str = "catalogue"
    confidence: float = 0.95
    ranking: object = None
    family: str = "report"

    @cached_property
    def overall(self) -> pd.DataFrame:
        """One row: the log, the settings and the total variation (see the class docstring)."""
        from ocef.results import column_frame

        return column_frame(self.columns["overall"])

    @cached_property
    def groups(self) -> pd.DataFrame:
        """Share, difference and ratio rows per user group and item group (see the class docstring)."""
        from ocef.results import column_frame

        return column_frame(self.columns["groups"], objects=("significant",))

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """Each user group vs the reference, per item group (see the class docstring)."""
        from ocef.results import column_frame

        return column_frame(self.columns["pairs"], objects=("significant",))

    @presents
    def to_frame(self):
        """The per-group table ``groups`` (share, difference and ratio rows per user group and item group)."""
        return self.groups

    def summary(self):
        """The differences from the target share, most significant (smallest adjusted p-value) first.

        Returns
        -------
        pandas.DataFrame
            The ``difference`` rows of ``groups``.

        Examples
        --------
        >>> from ocef.datasets import make_toy_rankings
        >>> res = exposure_fairness(make_toy_rankings(), item_group="genre", target="equal")
        >>> res.summary()[["item_group", "estimate", "p_adjusted"]].round(3)
          item_group  estimate  p_adjusted
        0          a     0.157       0.056
        1          b    -0.157       0.056
        """
        g = self.groups
        return g[g["statistic"] == "difference"].sort_values("p_adjusted").reset_index(drop=True)

    @presents
    def to_dict(self) -> dict:
        """``overall``, ``groups``, ``pairs``, ``users`` (its views) and the settings, JSON-ready."""
        from ocef.results import column_records

        u = None if self.users is None else self.users.columns
        out = {"overall": column_records(self.columns["overall"]), "groups": column_records(self.columns["groups"]),
               "pairs": column_records(self.columns["pairs"]),
               "users": None if u is None else {"groups": column_records(u["groups"]),
                                                "pairs": column_records(u["pairs"]),
                                                "overall": column_records(u["overall"])},
               "browsing": self.browsing, "patience": self.patience, "target": self.target,
               "confidence": self.confidence, "family": self.family}
        if self.ranking is not None:              # only when asked for (ranking_metrics=)
            out["ranking"] = self.ranking.to_dict()
        return out



def adjust_family(tables, *, confidence: float):
    """Holm's adjustment over every test of several tables at once (one family), in place.

    A test is a row with a ``p_value`` whose ``statistic`` is not ``"ratio"``; a ``ratio`` row tests
    the same null as the ``difference`` row just before it and takes its adjusted p-value.

    Parameters
    ----------
    tables : sequence of pandas.DataFrame or dict
        Tables with ``statistic``, ``p_value``, ``p_adjusted`` and ``significant`` columns (DataFrames,
        or dicts of columns such as ``ExposureResult.columns["groups"]``).
    confidence : float
        ``significant`` = ``p_adjusted <= 1 - confidence``.

    Returns
    -------
    int
        The number of tests in the family.

    Examples
    --------
    >>> a = pd.DataFrame({"statistic": ["difference", "ratio"], "p_value": [0.02, 0.02]})
    >>> b = pd.DataFrame({"statistic": ["share difference"], "p_value": [0.01]})
    >>> adjust_family([a, b], confidence=0.95)
    2
    >>> a["p_adjusted"].tolist(), b["significant"].tolist()
    ([0.02, 0.02], [True])
    """
    from ocef.inference import holm_adjust

    tests = [(t, _tested(t)) for t in tables]
    p = np.concatenate([np.asarray(t["p_value"], dtype=float)[m] for t, m in tests]) if tests else np.zeros(0)
    adj, start = holm_adjust(p), 0
    for t, m in tests:
        col = np.full(m.size, np.nan)
        col[m] = adj[start:start + int(m.sum())]
        start += int(m.sum())
        stat = np.asarray(t["statistic"], dtype=object)
        for i in range(1, m.size):                       # a ratio row: its difference row's test
            if stat[i] == "ratio" and stat[i - 1] == "difference":
                col[i] = col[i - 1]
        t["p_adjusted"] = col
        sig = pd_bool(col <= 1 - confidence)
        sig[np.isnan(col)] = None
        t["significant"] = sig if hasattr(t, "columns") else sig.tolist()
    return int(p.size)


def _tested(table) -> np.ndarray:
    """The rows of a table (DataFrame or dict of columns) that are tests: a p-value, not a ratio row."""
    return (np.asarray(table["statistic"], dtype=object) != "ratio") & ~np.isnan(np.asarray(table["p_value"],
                                                                                              dtype=float))


#: the columns of ``ExposureResult.overall`` before ``family`` (added last, once the family is known)
OVERALL_COLUMNS = ["n_users", "n_rows", "n_item_groups", "n_user_groups", "k", "browsing", "patience", "target",
                   "target_meaning", "total_variation", "total_variation_reason", "notes"]


def _columns_of(source) -> list:
    """The columns of a log (a path, a DataFrame or a relation: :func:`ocef.backends.log_columns`)."""
    from ocef.backends import log_columns

    return list(log_columns(source))


def pd_bool(values):
    """An object array of Python booleans (None where set later), the ``significant`` column's type."""
    out = np.empty(len(values), dtype=object)
    out[:] = [bool(v) for v in values]
    return out


@validate_params(**DECLARED_PARAMS)
@fill_log_doc
def exposure_fairness(rankings, *, item_group: str, user_group=None, item_groups=None, user_groups=None,
                      browsing: str = "geometric", patience: float = 0.5, stop: float = 0.5,
                      target: str = "catalogue", k: int | None = None, metrics=("precision", "ndcg", "hit_rate"),
                      reference=None, confidence: float = 0.95, backend: str = "auto", columns=None, spark=None,
                      memory_limit: str | None = None, ranking_metrics=None, judgments=None,
                      attention: str = "trec", awrf_target="equal", ndkl_desired=None,
                      complete: bool = False, family: str = "report", progress=False) -> ExposureResult:
    """Exposure fairness of a top-k log, provider and consumer side, with intervals (the front door).

    Reduces the log to sufficient statistics (:func:`ocef.exposure.ranking_statistics`), then per user
    group (and ``"(all)"``) each item group's exposure share, its difference and ratio to the
    ``target`` share (delta-method intervals clustered by user, Holm-adjusted;
    :func:`ocef.exposure.shares.share_table`); with ``user_group``, the differences of shares between
    user groups and the list metrics by user group; with ``ranking_metrics``, AWRF, NDKL and expected
    exposure (:func:`ocef.exposure.ranking_fairness`, a second pass). Walkthrough:
    ``docs/guide/exposure.md``.

    Parameters
    ----------
    rankings : str, path, pandas.DataFrame, DuckDB relation or Spark DataFrame
        The log ``user, item, rank [, score, relevance, sample, n_relevant]`` (docs/formats/rankings.md).
    item_group : str
        Column of the log (or of ``item_groups``) giving each item's group.
    user_group : str, optional
        Column of the log (or of ``user_groups``) giving each user's group (consumer side).
    %(sides)s
        ``item_groups`` is also the catalogue of the catalogue-proportional target.
    %(browsing)s
    target : {"catalogue", "equal", "merit"}, default "catalogue"
        Target shares: each group's share of the items, ``1/G``, or the share of relevance
        (:mod:`ocef.exposure.shares`; ``overall["target_meaning"]`` says what it implies).
    k : int, optional
        List length for precision (default: the largest rank of the log).
    metrics : sequence of str, default ("precision", "ndcg", "hit_rate")
        List metrics of the registry compared across user groups (need ``relevance``); None for none.
    reference : optional
        Reference user group (default: the largest).
    confidence : float, default 0.95
        Two-sided level; ``significant`` = Holm-adjusted p-value <= 1 − ``confidence``.
    %(backend)s
    ranking_metrics : sequence of str, optional
        Among ``"awrf", "ndkl", "ee_disparity", "ee_relevance", "ee_difference"``: the result's
        ``ranking`` view (opt-in: a second pass).
    %(judgments)s
    %(ranking)s
    family : {"report", "table"}, default "report"
        Holm's family: every test of the output together, or each table alone.
    progress : bool or "auto", default False
        A bar with the time left on stderr (``"auto"``: when stderr is a terminal); results unchanged; a long DuckDB count shows its own bar (:func:`ocef._progress.query_progress`).

    Returns
    -------
    ExposureResult

    Raises
    ------
    ocef.errors.DataError
        A malformed log, ``target="merit"`` without relevance, ``target="catalogue"`` without an item
        column or ``item_groups``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_rankings
    >>> res = exposure_fairness(make_toy_rankings(), item_group="genre")   # target: the catalogue's shares
    >>> res.groups.query("statistic == 'share'")[["item_group", "estimate", "target"]].round(3).to_dict("list")
    {'item_group': ['a', 'b'], 'estimate': [0.657, 0.343], 'target': [0.5, 0.5]}
    """
    from ocef.exposure.frame import metric_frame_from_moments
    from ocef.results import rows_to_columns
    from ocef.exposure.shares import _share_columns, _share_pair_columns
    from ocef.exposure.statistics import ranking_statistics

    from ocef.inference import normal as norm

    from ocef.errors import ParameterError

    if not np.isfinite(norm.ppf(0.5 + confidence / 2)) or confidence > 1 - 1e-9:
        raise ParameterError(f"confidence={confidence!r} is too close to 1 for a finite interval; give at most "
                             "0.999999999")
    if reference is not None and user_group is None:
        raise ParameterError(f"reference={reference!r} needs user_group: the reference is a user group")
    notes = []
    if judgments is not None and not set(ranking_metrics or ()) & {"ee_relevance", "ee_difference"}:
        notes.append("judgments were not used: they are the target of ee_relevance and ee_difference, which "
                     "were not asked for (ranking_metrics)")
    if item_groups is not None and item_group in _columns_of(rankings):
        notes.append(f"the log has the column {item_group!r}: it gives the item groups; the item_groups table "
                     "gives only the catalogue of the catalogue target")
    list_metrics = [] if metrics is None else [metrics] if isinstance(metrics, str) else list(metrics)
    from ocef._progress import progress_bar, query_progress

    bar = progress_bar(progress, total=2 + bool(ranking_metrics), desc="exposure: log passes, intervals", unit="step")
    with query_progress(progress, "exposure: counting the log"):      # a long DuckDB query's own bar
        st = ranking_statistics.__wrapped__(rankings, item_group=item_group, user_group=user_group,
                                            item_groups=item_groups, user_groups=user_groups, browsing=browsing,
                                            patience=patience, stop=stop, k=k, metrics=list_metrics, backend=backend,
                                            columns=columns, spark=spark, memory_limit=memory_limit)
    bar.update()
    groups, per_group = _share_columns(st, target=target, confidence=confidence, by_user_group=user_group is not None)
    ugs = list(st.user_groups)
    users, ref = None, None
    if st.longest is not None and st.k > st.longest and list_metrics:
        notes.append(f"k = {st.k} is larger than the longest list ({st.longest}): precision@k divides each "
                     f"user's hits by {st.k}, counting the missing positions as misses")
    if user_group is not None and len(ugs) > 1:
        ref = reference if reference is not None else ugs[int(np.argmax(st.n_users))]
        if ref not in ugs and isinstance(ref, str):      # "1" from the command line names the user group 1
            ref = next((u for u in ugs if str(u) == ref), ref)
        reference = ref
        if ref not in ugs:
            from ocef.errors import ParameterError

            raise ParameterError(f"reference must be one of the user groups {ugs}, got {reference!r}")
    binary = [m for m in LIST_METRICS if REGISTRY[m].binary]
    if len(st.moments):
        users = metric_frame_from_moments(st.moments, by=["user_group"], reference=ref, confidence=confidence,
                                          binary=binary)
        total = int(st.n_users.sum())
        uo = users.columns["overall"]
        left = {m: total - int(n) for m, n in zip(uo["metric"], uo["n_users"]) if n < total}
        for m, n_out in left.items():
            notes.append(f"{m}: {n_out} of {total} users have no value (no relevant item: {m} is undefined for "
                         "them) and are left out of its means")
    if ref is not None:
        pairs = _share_pair_columns(st.item_groups, per_group, ugs, ref, confidence=confidence)
    else:
        pairs = _share_pair_columns(st.item_groups, {None: (0, [])}, [], None, confidence=confidence)
    tv = 0.5 * sum(abs(r["difference"]) for r in per_group[next(iter(per_group))][1])
    meaning = TARGET_MEANING[target].format(source=st.catalogue_source)
    overall = rows_to_columns([{"n_users": int(st.n_users.sum()), "n_rows": st.n_rows, "n_item_groups": len(st.item_groups),
                             "n_user_groups": len(ugs) if user_group is not None else 0, "k": st.k,
                             "browsing": browsing, "patience": patience if browsing != "dcg" else None,
                             "target": target, "target_meaning": meaning, "total_variation": tv,
                             # a plug-in summary, biased upwards like holisticai's ETV: no interval is printed
                             "total_variation_reason": "no valid interval: a plug-in summary of the group "
                                                       "differences; read each group's difference, its interval "
                                                       "and its Holm-adjusted test",
                             "notes": "; ".join(notes) if notes else None}], OVERALL_COLUMNS)
    res = ExposureResult(columns={"overall": overall, "groups": groups, "pairs": pairs}, users=users, stats=st, browsing=browsing,
                         patience=patience, target=target, confidence=confidence, family=family)
    bar.update()
    if ranking_metrics:
        from ocef.exposure.ranking_metrics import ranking_fairness   # opt-in: a second pass over the log

        with query_progress(progress, "exposure: ranking metrics pass"):
            ranking = ranking_fairness.__wrapped__(
                rankings, item_group=item_group, user_group=user_group, item_groups=item_groups, user_groups=user_groups,
                judgments=judgments, metrics=ranking_metrics, browsing=browsing, patience=patience, stop=stop,
                attention=attention, awrf_target=awrf_target, ndkl_desired=ndkl_desired, complete=complete,
                reference=reference, confidence=confidence, backend=backend, columns=columns, spark=spark,
                memory_limit=memory_limit)
        res = dataclasses.replace(res, ranking=ranking)
        bar.update()
    bar.close()
    tables = [("groups", groups), ("pairs", pairs)]
    if users is not None:
        tables.append(("users", users.columns["pairs"]))
    if res.ranking is not None:
        tables.append(("ranking", res.ranking.pairs))
    if family == "report":
        n_tests = adjust_family([t for _, t in tables], confidence=confidence)
        overall["family"] = [f"report: Holm over all {n_tests} tests of this output "
                             f"({', '.join(name for name, _ in tables)})"]
    else:
        counts = [f"{name} {int(_tested(t).sum())}" for name, t in tables]
        overall["family"] = ["table: Holm within each table (" + ", ".join(counts) + " tests)"]
    return res
