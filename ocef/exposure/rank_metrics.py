"""Per-user ranking fairness over a whole top-k log: AWRF, NDKL and expected exposure (EE-D, EE-R,
EE-L), with intervals clustered by user and Holm-adjusted comparisons of user groups.

:mod:`ocef.exposure.rank_exposure` defines each metric once, on the rankings of one user; this module
computes the same value for *every* user of a log, where the log lives (one SQL query on DuckDB or
Spark, numpy group-bys on pandas; only per-user-group moments leave the backend), then treats the
per-user values as any per-user metric (:func:`ocef.exposure.by_group.metric_frame_from_moments`):
the mean over users with Hall's (1992) skewness-corrected t interval of that mean (:func:`hall_interval`;
users are the independent clusters: all of a user's positions and sampled rankings move together),
none below the measured minimum of users (:data:`MIN_USERS`), and each user group compared with a
reference group (Welch's interval and test, Holm-adjusted over every comparison).

Per user u with sampled rankings s = 1..S_u (one ranking without a ``sample`` column):

- ``awrf``: the mean over u's rankings of ``1 - JS(R_s, T)^2`` (TREC Fair Ranking 2022
  ``qr_awrf``; :func:`ocef.exposure.rank_exposure.awrf`), ``R_s`` the attention-weighted item-group
  distribution of ranking s (attention ``"trec"``: ``1/log2(max(k, 2))``; ``"browsing"``: the
  browsing model's exposure), ``T`` the target distribution (equal, or given).
- ``ndkl``: the mean over u's rankings of NDKL (Geyik et al. 2019, Eq. 6;
  :func:`ocef.exposure.rank_exposure.ndkl`), desired distribution the ranking's own (FairRankTune's
  default) or given.
- ``ee_disparity``, ``ee_relevance``, ``ee_difference``: EE-D ``‖ε‖²``, EE-R ``ε·ε*``, EE-L ``‖ε −
  ε*‖²`` (Diaz et al. 2020, Eq. 5-7, unnormalised; :func:`ocef.exposure.rank_exposure.expected_exposure_metrics`)
  with ``ε_d`` the expected exposure of item d over u's sampled rankings (Eq. 2) and ``ε*_d`` its
  target exposure (:func:`ocef.exposure.rank_exposure.target_exposure`) from u's relevance judgments.
  The target needs the relevance of **all** of u's relevant items, shown or not: pass them as a
  ``judgments`` table (``user, item, relevance``, like TREC qrels). Without it the log's
  ``relevance`` column is used, i.e. the judgments of the items shown only; an item relevant to u
  that no ranking showed then gets no target, so EE-R and EE-L measure the exposure's fit to the
  shown items' relevance, not to u's full relevance (the result's ``note`` says so).

Scale: this is a second pass over the log with a window (cumulative group counts per ranking, for
NDKL) and, for expected exposure, a group-by on (user, item) and a join with the judgments — it is
opt-in (``metrics=``; :func:`ocef.exposure.rank_exposure.exposure_fairness` and ``ocef exposure`` run it only
when given ``ranking_metrics`` / ``--ranking-metrics``).
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ocef.errors import DataError, ParameterError, ParameterTypeError, ResourceLimitError
from ocef.results import Result

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["RANKING_METRICS", "MIN_USERS", "RankingFairnessResult", "hall_interval", "per_user_fairness", "ranking_fairness",
           "ranking_fairness_sql"]

#: Per-user ranking fairness metrics, with their direction.
RANKING_METRICS = ("awrf", "ndkl", "ee_disparity", "ee_relevance", "ee_difference")
EE_METRICS = ("ee_disparity", "ee_relevance", "ee_difference")
ATTENTION = ("trec", "browsing")
#: FairRankTune's smoothing of NDKL's KL divergence.
NDKL_EPS = 1e-7
#: Fewest users for which a mean's interval is printed, from the measured coverage (guide/exposure.md):
#: below these, Hall's interval covered under 0.93 in simulation (EE-D: 0.80 at 12 users, 0.89 at 20,
#: 0.92 at 40 when sampled rankings rarely overlap; EE-R and EE-L: 0.92 at 12), so it is not printed.
MIN_USERS = {"awrf": 2, "ndkl": 2, "ee_disparity": 80, "ee_relevance": 20, "ee_difference": 20}

_TARGET_NOTE_LOG = ("target exposure from the log's relevance column: only the items shown have a "
                    "judgment, so relevant items never shown get no target (pass judgments= or --judgments for the "
                    "full target)")


# ------------------------------------------------------------------ parameters

def _check_metrics(metrics) -> list[str]:
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(dict.fromkeys(metrics))
    bad = [m for m in metrics if m not in RANKING_METRICS]
    if bad or not metrics:
        raise ParameterError(f"metrics must be a non-empty list among {RANKING_METRICS}, got {metrics!r}")
    return metrics


def _distribution(name, value, labels) -> np.ndarray | None:
    """A mapping ``{item group: proportion}`` as a vector over ``labels`` (None stays None)."""
    if value is None or (isinstance(value, str) and value == "equal"):
        return None if value is None else np.full(len(labels), 1.0 / len(labels))
    if not isinstance(value, dict):
        raise ParameterTypeError(f"{name} must be 'equal' or a dict {{item group: proportion}}, got {value!r}")
    unknown = [g for g in value if g not in labels]
    if unknown:
        raise ParameterError(f"{name} names item group(s) {unknown} that are not among the item groups {list(labels)}")
    vec = np.zeros(len(labels))
    for g, v in value.items():
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (float(v) >= 0 and math.isfinite(v)):
            raise ParameterError(f"{name}[{g!r}] must be a finite number >= 0, got {v!r}")
        vec[list(labels).index(g)] = float(v)
    if vec.sum() <= 0:
        raise ParameterError(f"{name} must give some item group a positive proportion, got {value!r}")
    return vec


# ------------------------------------------------------------------ SQL (DuckDB and Spark dialects)

def _lit(v) -> str:
    from ocef.exposure.rankings import _lit as lit

    return lit(v)


def _d(x: float) -> str:
    return f"CAST({float(x)!r} AS DOUBLE)"


def _relent_sql(x: str, y: str) -> str:
    """``rel_entr(x, y)`` (scipy.special): ``x ln(x/y)``, 0 at x = 0."""
    return f"(CASE WHEN {x} > 0 THEN {x} * ln({x} / {y}) ELSE CAST(0 AS DOUBLE) END)"


def ranking_fairness_sql(table: str, *, cols: dict, item_groups, metrics, browsing: str = "geometric",
                         patience: float = 0.5, stop: float = 0.5, attention: str = "trec", awrf_target=None,
                         ndkl_desired=None, judgments: str | None = None, complete: bool = False,
                         dialect: str = "duckdb", per_user: bool = False) -> str:
    """The SQL query (DuckDB or Spark dialect) computing the per-user metrics of :func:`ranking_fairness`.

    Parameters
    ----------
    table : str
        The log (a table name or a parenthesised sub-query).
    cols : dict
        Role -> column: ``user, rank, item_group`` and optionally ``item, relevance, sample, user_group``.
    item_groups : sequence
        The item-group labels (the order of ``awrf_target`` and ``ndkl_desired``).
    metrics : sequence of str
        Among :data:`RANKING_METRICS`.
    browsing, patience, stop
        Browsing model of the exposure (:func:`ocef.exposure.rank_exposure.position_weights`).
    attention : {"trec", "browsing"}
        AWRF's position weights.
    awrf_target : array_like, optional
        AWRF's target distribution over ``item_groups`` (default: equal).
    ndkl_desired : array_like, optional
        NDKL's desired distribution (default: each ranking's own).
    judgments : str, optional
        Table ``user, item, relevance`` (column names as in ``cols``); default: the log's relevance.
    complete : bool, default False
        Keep judgments with relevance <= 0 in the target (expeval ``-C``).
    dialect : {"duckdb", "spark"}
    per_user : bool, default False
        One row per user (``_u, _ug`` and the metrics) instead of the moments per user group.

    Returns
    -------
    str

    Examples
    --------
    >>> sql = ranking_fairness_sql("log", cols={"user": "user", "rank": "rank", "item_group": "g"},
    ...                            item_groups=["a", "b"], metrics=["awrf"])
    >>> "awrf__sum" in sql and "GROUP BY _ug" not in sql
    True
    """
    from ocef.exposure.rankings import _q, _weight_sql

    q = lambda c: _q(c, dialect)  # noqa: E731
    metrics = _check_metrics(metrics)
    G = len(item_groups)
    has_s, has_y, has_ug = "sample" in cols, "relevance" in cols, "user_group" in cols
    want_ee = any(m in EE_METRICS for m in metrics)
    want_awrf, want_ndkl = "awrf" in metrics, "ndkl" in metrics
    if want_ee and "item" not in cols:
        raise DataError("expected exposure needs an item column in the log")
    if want_ee and judgments is None and not has_y:
        raise DataError("expected exposure needs relevance: a judgments table or a relevance column in the log")
    keys = "_u, _s" if has_s else "_u"
    select = [f"{q(cols['user'])} AS _u", f"CAST({q(cols['rank'])} AS DOUBLE) AS _k", f"{q(cols['item_group'])} AS _ig"]
    if has_s:
        select.append(f"{q(cols['sample'])} AS _s")
    if has_y:
        select.append(f"CAST({q(cols['relevance'])} AS DOUBLE) AS _y")
    if has_ug:
        select.append(f"{q(cols['user_group'])} AS _ug")
    if want_ee:
        select.append(f"{q(cols['item'])} AS _i")
    e_sql = _weight_sql(browsing, patience, stop, dialect, has_s, has_y)
    w_sql = ("CAST(CAST(CAST(1 AS DOUBLE) / log2(greatest(_k, CAST(2 AS DOUBLE))) AS FLOAT) AS DOUBLE)"
             if attention == "trec" else "_e")
    ctes = [f"_rows AS (SELECT {', '.join(select)} FROM {table})",
            f"_e AS (SELECT *, {e_sql} AS _e FROM _rows)"]
    src = "_e"
    if want_ndkl:                   # prefix proportions of each group: a cumulative window per ranking
        win = f"OVER (PARTITION BY {keys} ORDER BY _k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        cums = [f"sum(CASE WHEN _ig = {_lit(g)} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END) {win} / _k + "
                f"{_d(NDKL_EPS)} AS _p{j}" for j, g in enumerate(item_groups)]
        ctes.append(f"_c AS (SELECT *, {', '.join(cums)} FROM _e)")
        src = "_c"
    per_rank = ["count(*) AS _n", "max(_k) AS _kmax", "sum(_k) AS _ksum", "sum(_k * _k) AS _ksq"]
    if has_ug:
        per_rank += ["min(_ug) AS _ug", "max(_ug) AS _ug2"]
    if want_awrf:
        per_rank += [f"sum(CASE WHEN _ig = {_lit(g)} THEN {w_sql} ELSE CAST(0 AS DOUBLE) END) AS _a{j}"
                     for j, g in enumerate(item_groups)]
    if want_ndkl:
        disc = "(CAST(1 AS DOUBLE) / log2(_k + 1))"
        per_rank.append(f"sum({disc}) AS _z")
        for j, g in enumerate(item_groups):
            per_rank += [f"sum({disc} * _p{j} * ln(_p{j})) AS _na{j}", f"sum({disc} * _p{j}) AS _nb{j}"]
            if ndkl_desired is None:
                per_rank.append(f"sum(CASE WHEN _ig = {_lit(g)} THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END) AS _nc{j}")
    ctes.append(f"_r AS (SELECT {keys}, {', '.join(per_rank)} FROM {src} GROUP BY {keys})")
    bad_rank = ("CASE WHEN _kmax <> _n OR _ksum <> _n * (_n + 1) / 2 "
                "OR _ksq <> _n * (_n + 1) * (2 * _n + 1) / 6 THEN 1 ELSE 0 END")
    rk = [keys, f"{bad_rank} AS _bad"] + (["_ug", "_ug2"] if has_ug else [])
    if want_awrf:                   # 1 - JS(P, T)^2, P renormalised as scipy's jensenshannon
        t = np.full(G, 1.0 / G) if awrf_target is None else np.asarray(awrf_target, dtype=float)
        t = t / t.sum()
        total = " + ".join(f"_a{j}" for j in range(G))
        ctes_p = [f"_a{j} / ({total}) AS _P{j}" for j in range(G)]
        rk += ctes_p
    if want_ndkl:
        if ndkl_desired is None:
            logq = [f"ln(_nc{j} / _n + {_d(NDKL_EPS)})" for j in range(G)]
        else:
            logq = [_d(math.log(float(v) + NDKL_EPS)) for v in ndkl_desired]
        num = " + ".join(f"_na{j} - {logq[j]} * _nb{j}" for j in range(G))
        rk.append(f"({num}) / _z AS _ndkl")
    ctes.append(f"_rk AS (SELECT {', '.join(rk)} FROM _r)")
    if want_awrf:
        parts = []
        for j in range(G):
            m = f"((_P{j} + {_d(t[j])}) / 2)"
            parts.append(_relent_sql(f"_P{j}", m))
            if t[j] > 0:
                parts.append(f"{_d(t[j])} * ln({_d(t[j])} / {m})")
        ctes.append(f"_ra AS (SELECT *, CAST(1 AS DOUBLE) - ({' + '.join(parts)}) / 2 AS _awrf FROM _rk)")
        rsrc = "_ra"
    else:
        rsrc = "_rk"
    carry = ["_bad"] + (["_ug", "_ug2"] if has_ug else [])
    vals = [m for m in ("awrf", "ndkl") if m in metrics]
    if has_s:
        agg = {"_bad": "max(_bad)", "_ug": "min(_ug)", "_ug2": "max(_ug2)"}
        pu = ([f"{agg[c]} AS {c}" for c in carry] + ["count(*) AS _S"] + [f"avg(_{m}) AS {m}" for m in vals])
        ctes.append(f"_pu AS (SELECT _u, {', '.join(pu)} FROM {rsrc} GROUP BY _u)")
    else:
        pu = carry + ["CAST(1 AS DOUBLE) AS _S"] + [f"_{m} AS {m}" for m in vals]
        ctes.append(f"_pu AS (SELECT _u, {', '.join(pu)} FROM {rsrc})")
    final_src = "_pu"
    if want_ee:
        dup = "count(*) - count(DISTINCT _s)" if has_s else "count(*) - 1"
        ybad = "CASE WHEN min(_y) <> max(_y) THEN 1 ELSE 0 END" if has_y else "0"
        ctes.append(f"_ui AS (SELECT _u, _i, sum(_e) AS _es, {dup} AS _dup, {ybad} AS _ybad"
                    f"{', min(_y) AS _y' if has_y else ''} FROM _e GROUP BY _u, _i)")
        ctes.append("_eps AS (SELECT a._u, a._i, a._es / p._S AS _eps, "
                    "CASE WHEN a._dup > 0 OR a._ybad > 0 THEN 1 ELSE 0 END AS _bui FROM _ui a JOIN _pu p ON a._u = p._u)")
        if judgments is None:
            jsrc = "SELECT _u, _i, _y FROM _ui"
        else:
            jsrc = (f"SELECT {q(cols['user'])} AS _u, {q(cols['item'])} AS _i, "
                    f"CAST({q(cols.get('relevance', 'relevance'))} AS DOUBLE) AS _y FROM {judgments} "
                    f"WHERE {q(cols['user'])} IN (SELECT _u FROM _pu)")
        where = "" if complete else " WHERE _y > 0"
        ctes.append(f"_j AS (SELECT * FROM ({jsrc}) jj{where})")
        ctes.append("_jr AS (SELECT _u, _i, _y, CAST(row_number() OVER (PARTITION BY _u ORDER BY _y DESC) AS DOUBLE) "
                    "AS _j FROM _j)")
        p = _d(patience)
        if browsing == "geometric":
            w_ideal, corr = f"pow({p}, _j - 1)", "CAST(1 AS DOUBLE)"
        elif browsing == "dcg":
            w_ideal, corr = "CAST(1 AS DOUBLE) / log2(_j + 1)", "CAST(1 AS DOUBLE)"
        else:                       # gERR: q = p(1 - u) above the relevant levels; (1 - u)^b below
            qq = _d(patience * (1.0 - stop))
            w_ideal = f"CASE WHEN _y > 0 THEN pow({qq}, _j - 1) ELSE pow({p}, _j - 1) END"
            corr = (f"CASE WHEN _y > 0 THEN CAST(1 AS DOUBLE) ELSE "
                    f"pow({_d(1.0 - stop)}, min(_j) OVER (PARTITION BY _u, _y) - 1) END")
        ctes.append(f"_tg AS (SELECT _u, _i, avg({w_ideal}) OVER (PARTITION BY _u, _y) * {corr} AS _t FROM _jr)")
        ctes.append("_ee AS (SELECT coalesce(a._u, t._u) AS _u, coalesce(a._eps, CAST(0 AS DOUBLE)) AS _eps, "
                    "coalesce(t._t, CAST(0 AS DOUBLE)) AS _t, coalesce(a._bui, 0) AS _bui "
                    "FROM _eps a FULL OUTER JOIN _tg t ON a._u = t._u AND a._i = t._i)")
        ctes.append("_eu AS (SELECT _u, sum(_eps * _eps) AS ee_disparity, sum(_eps * _t) AS ee_relevance, "
                    "sum((_eps - _t) * (_eps - _t)) AS ee_difference, max(_bui) AS _bui FROM _ee GROUP BY _u)")
        ee = [m for m in EE_METRICS if m in metrics]
        ctes.append(f"_all AS (SELECT p.*, e._bui, {', '.join('e.' + m for m in ee)} FROM _pu p "
                    "LEFT JOIN _eu e ON p._u = e._u)")
        final_src = "_all"
    bui = "_bui" if want_ee else "0"
    ug = "_ug" if has_ug else "'(all)'"
    head = f"WITH {', '.join(ctes)} "
    if per_user:
        return (head + f"SELECT _u, {ug} AS _ug, {'_ug2' if has_ug else ug + ' AS _ug2'}, _bad, {bui} AS _bui, "
                f"{', '.join(metrics)} FROM {final_src}")
    out = ["count(*) AS n_users", "sum(_bad) AS bad_rank", f"sum({bui}) AS bad_item",
           f"sum(CASE WHEN {ug} <> {'_ug2' if has_ug else ug} THEN 1 ELSE 0 END) AS bad_ug"]
    for m in metrics:
        out += [f"count({m}) AS {m}__n", f"sum({m}) AS {m}__sum", f"sum({m} * {m}) AS {m}__sum_sq",
                f"sum({m} * {m} * {m}) AS {m}__sum_cu", f"min({m}) AS {m}__min", f"max({m}) AS {m}__max"]
    group = " GROUP BY _ug" if has_ug else ""
    return head + f"SELECT {ug} AS _ug, {', '.join(out)} FROM {final_src}{group}"


# ------------------------------------------------------------------ backends

def _open_sql(source, backend, judgments, item_table, user_table, spark, memory_limit):
    """``(run, base, have, judgments_name, cleanup)`` for DuckDB or Spark (the log is never read into Python)."""
    from ocef.backends import _check_path, _duckdb_relation, _is_parquet, duckdb_cursor

    if backend == "duckdb":
        con = duckdb_cursor()
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(_check_path(source))
            pattern = path if not os.path.isdir(path) else os.path.join(path, "**", "*.parquet")
            base = (f"read_parquet('{pattern}', hive_partitioning = true)" if _is_parquet(path)
                    else f"read_csv('{path}', header = true)")
            have = con.sql(f"SELECT * FROM {base} LIMIT 0").columns
        else:
            rel = _duckdb_relation(source)[0]
            con.register("_ocef_rank_log", rel)
            base, have = "_ocef_rank_log", rel.columns
        for name, tab in (("_ocef_item_groups", item_table), ("_ocef_user_groups", user_table),
                          ("_ocef_judgments", judgments)):
            if tab is not None:
                con.register(name, tab)
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")

        def run(sql):
            from ocef.exposure.rankings import _duck_rows

            return _duck_rows(con, sql)

        def cleanup():
            if memory_limit is not None:
                con.execute("RESET memory_limit")
        return run, base, list(have), cleanup
    from ocef.backends import _spark_view

    spark, columns = _spark_view(source, "_ocef_rank_log", spark)
    for name, tab in (("_ocef_item_groups", item_table), ("_ocef_user_groups", user_table),
                      ("_ocef_judgments", judgments)):
        if tab is not None:
            spark.createDataFrame(tab).createOrReplaceTempView(name)
    return (lambda sql: [r.asDict() for r in spark.sql(sql).collect()]), "_ocef_rank_log", columns, \
        (lambda: None)


def _check_judgments(judgments, columns):
    if judgments is None:
        return None
    import pandas as pd

    roles = {"user": "user", "item": "item", "relevance": "relevance"}
    roles.update({r: c for r, c in (columns or {}).items() if r in roles})
    if not isinstance(judgments, pd.DataFrame):
        raise DataError(f"judgments must be a pandas DataFrame with columns {list(roles.values())}, "
                        f"got {type(judgments).__name__}")
    missing = [c for c in roles.values() if c not in judgments.columns]
    if missing:
        raise DataError(f"judgments is missing column(s) {missing}; it has {list(judgments.columns)}")
    j = judgments[list(roles.values())]
    if j[roles["user"]].isna().any() or j[roles["item"]].isna().any():
        raise DataError("judgments: the user and item columns must have no missing value")
    y = pd.to_numeric(j[roles["relevance"]], errors="coerce")
    if y.isna().any() or not np.isfinite(y.to_numpy(dtype=float)).all():
        raise DataError(f"judgments: column {roles['relevance']!r} must be a finite number on every row")
    if j.duplicated([roles["user"], roles["item"]]).any():
        raise DataError("judgments lists some (user, item) more than once")
    return j


def _raise_checks(bad_rank, bad_ug, bad_item, names):
    if bad_rank:
        raise DataError(f"log: {int(bad_rank)} user(s) have a ranking whose ranks are not exactly 1..n (column "
                        f"{names['rank']!r}: each sampled ranking must list ranks 1, 2, ..., n once)")
    if bad_ug:
        raise DataError(f"log: {int(bad_ug)} user(s) have several values of {names['user_group']!r}: a user group "
                        "must be constant per user")
    if bad_item:
        raise DataError(f"log: {int(bad_item)} user(s) have an item twice in one ranking, or an item whose "
                        "relevance differs between the user's rankings")


def _prepare(source, *, item_group, user_group, item_groups, user_groups, judgments, metrics, backend, columns):
    from ocef.exposure.rankings import _check_side, _resolve_backend

    metrics = _check_metrics(metrics)
    backend = _resolve_backend(backend, source)
    item_table = _check_side(item_groups, (columns or {}).get("item", "item"), item_group, "item_groups")
    user_table = _check_side(user_groups, (columns or {}).get("user", "user"), user_group, "user_groups")
    judg = _check_judgments(judgments, columns)
    return metrics, backend, item_table, user_table, judg


def _sql_moments(source, backend, *, item_group, user_group, item_table, user_table, judg, metrics, browsing,
                 patience, stop, attention, awrf_target, ndkl_desired, complete, columns, spark, memory_limit,
                 per_user):
    from ocef.exposure.rankings import (MAX_ITEM_GROUPS, _check_profile, _roles, _side_join_sql, _with_side_labels,
                                       profile_sql)

    dialect = "spark" if backend == "spark" else "duckdb"
    run, base, have, cleanup = _open_sql(source, backend, judg, item_table, user_table, spark, memory_limit)
    try:
        cols = _roles(columns, have, item_group=item_group, user_group=user_group, item_table=item_table,
                      user_table=user_table)
        if cols["item"] not in have and any(m in EE_METRICS for m in metrics):
            raise DataError(f"expected exposure needs the item column {cols['item']!r} in the log; it has {have}")
        table = _side_join_sql(base, cols, have, item_group, user_group, "_ocef_item_groups", "_ocef_user_groups",
                               dialect)
        names = {"log": "log", "item_group": item_group, "user_group": user_group, "rank": cols["rank"]}
        labels, _ = _check_profile(run(profile_sql(table, cols=cols, dialect=dialect)), names, "relevance" in cols)
        labels = _with_side_labels(labels, item_table, item_group)
        if len(labels) > MAX_ITEM_GROUPS:
            raise ResourceLimitError(f"item_group {item_group!r} has {len(labels)} groups; at most "
                                     f"{MAX_ITEM_GROUPS} are supported")
        t = _distribution("awrf_target", awrf_target, labels)
        d = _distribution("ndkl_desired", ndkl_desired, labels)
        if "item" in cols and cols["item"] not in have:
            cols = {k: v for k, v in cols.items() if k != "item"}
        sql = ranking_fairness_sql(table, cols=cols, item_groups=labels, metrics=metrics, browsing=browsing,
                                   patience=patience, stop=stop, attention=attention, awrf_target=t, ndkl_desired=d,
                                   judgments=None if judg is None else "_ocef_judgments", complete=complete,
                                   dialect=dialect, per_user=per_user)
        rows = run(sql)
    finally:
        cleanup()
    return rows, labels, "relevance" in cols, names


def _pandas_per_user(source, *, item_group, user_group, item_table, user_table, judg, metrics, browsing, patience,
                     stop, attention, awrf_target, ndkl_desired, complete, columns):
    """numpy/pandas implementation of the per-user values (an independent check of the SQL)."""
    import pandas as pd
    from scipy.spatial.distance import jensenshannon
    from scipy.special import rel_entr

    from ocef.exposure.rankings import _plain, _roles, _with_side_labels, read_log

    frame = read_log(source) if not isinstance(source, pd.DataFrame) else source
    cols = _roles(columns, frame.columns, item_group=item_group, user_group=user_group, item_table=item_table,
                  user_table=user_table)
    if item_group not in frame.columns:
        frame = frame.merge(item_table, how="left", left_on=cols["item"], right_on=cols["item"])
    if user_group is not None and user_group not in frame.columns:
        frame = frame.merge(user_table, how="left", left_on=cols["user"], right_on=cols["user"])
    names = {"log": "log", "item_group": item_group, "user_group": user_group, "rank": cols["rank"]}
    if len(frame) == 0:
        raise DataError("log is empty: no ranked item")
    if frame[item_group].isna().any():
        raise DataError(f"log: {int(frame[item_group].isna().sum())} row(s) have no item group "
                        f"(column {item_group!r} missing or not in the item_groups table)")
    want_ee = any(m in EE_METRICS for m in metrics)
    has_y, has_s = "relevance" in cols, "sample" in cols
    if want_ee and cols["item"] not in frame.columns:
        raise DataError(f"expected exposure needs the item column {cols['item']!r} in the log")
    if want_ee and judg is None and not has_y:
        raise DataError("expected exposure needs relevance: a judgments table or a relevance column in the log")
    labels = sorted((_plain(v) for v in frame[item_group].unique()), key=lambda v: (str(type(v)), v))
    labels = _with_side_labels(labels, item_table, item_group)
    t = _distribution("awrf_target", awrf_target, labels)
    d = _distribution("ndkl_desired", ndkl_desired, labels)
    rank = frame[cols["rank"]].to_numpy(dtype=float)
    if np.isnan(rank).any() or (rank < 1).any():
        raise DataError(f"log: column {cols['rank']!r} must hold ranks 1, 2, ... (no missing value, none below 1)")
    y = frame[cols["relevance"]].to_numpy(dtype=float) if has_y else np.zeros(len(frame))
    if has_y and (np.isnan(y).any() or (y < 0).any()):
        raise DataError("log: relevance must be a number >= 0 on every row")
    ucode, users = pd.factorize(frame[cols["user"]])
    if (ucode < 0).any():
        raise DataError(f"log: column {cols['user']!r} has missing values")
    scode = pd.factorize(frame[cols["sample"]])[0] if has_s else np.zeros(len(frame), dtype=np.int64)
    rcode = pd.factorize(pd.Series(ucode).astype(np.int64) * (scode.max() + 1) + scode)[0]
    n_r, nu = rcode.max() + 1, len(users)
    cnt = np.bincount(rcode, minlength=n_r).astype(float)
    kmax = np.full(n_r, -np.inf)
    np.maximum.at(kmax, rcode, rank)
    ksum = np.bincount(rcode, weights=rank, minlength=n_r)
    ksq = np.bincount(rcode, weights=rank * rank, minlength=n_r)
    bad_r = (kmax != cnt) | (ksum != cnt * (cnt + 1) / 2) | (ksq != cnt * (cnt + 1) * (2 * cnt + 1) / 6)
    user_of_r = np.zeros(n_r, dtype=np.int64)
    user_of_r[rcode] = ucode
    _raise_checks(np.unique(user_of_r[bad_r]).size, 0, 0, names)
    if user_group is not None:
        ug = pd.Series(frame[user_group].to_numpy()).groupby(ucode)
        if ug.nunique(dropna=False).max() > 1:
            _raise_checks(0, int((ug.nunique(dropna=False) > 1).sum()), 0, names)
        ug_of_user = ug.first().to_numpy()
        if pd.isna(ug_of_user).any():
            raise DataError(f"log: the user-group column {user_group!r} has missing values")
    else:
        ug_of_user = np.array(["(all)"] * nu, dtype=object)
    S = np.bincount(user_of_r, minlength=nu).astype(float)
    lab = {v: j for j, v in enumerate(labels)}
    gcode = np.array([lab[_plain(v)] for v in frame[item_group].to_numpy()], dtype=np.int64)
    G = len(labels)
    order = np.lexsort((rank, rcode))                              # rows by ranking, then rank
    if browsing == "geometric":
        e = patience ** (rank - 1)
    elif browsing == "dcg":
        e = 1.0 / np.log2(rank + 1)
    else:
        rel_sorted = (y[order] > 0).astype(float)
        cum = np.cumsum(rel_sorted)
        start = np.r_[0, np.flatnonzero(np.diff(rcode[order])) + 1]
        first = np.repeat(cum[start] - rel_sorted[start], np.diff(np.r_[start, len(order)]))
        above = np.empty(len(order))
        above[order] = cum - rel_sorted - first
        e = patience ** (rank - 1) * (1 - stop) ** above
    out = {}
    if "awrf" in metrics:
        w = ((1.0 / np.log2(np.maximum(rank, 2))).astype(np.float32).astype(float) if attention == "trec" else e)
        a = np.zeros((n_r, G))
        np.add.at(a, (rcode, gcode), w)
        r = a / a.sum(axis=1, keepdims=True)
        tt = np.full(G, 1.0 / G) if t is None else t
        per_r = 1.0 - jensenshannon(r, np.broadcast_to(tt, r.shape), axis=1) ** 2
        out["awrf"] = np.bincount(user_of_r, weights=per_r, minlength=nu) / S
    if "ndkl" in metrics:
        onehot = np.zeros((len(frame), G))
        onehot[np.arange(len(frame)), gcode] = 1.0
        oh = onehot[order]
        cum = np.cumsum(oh, axis=0)
        ro = rcode[order]
        start = np.r_[0, np.flatnonzero(np.diff(ro)) + 1]
        lengths = np.diff(np.r_[start, len(order)])
        cum -= np.repeat(cum[start] - oh[start], lengths, axis=0)
        prefix = cum / rank[order][:, None]
        if d is None:
            counts = np.zeros((n_r, G))
            np.add.at(counts, (rcode, gcode), 1.0)
            qr = (counts / cnt[:, None])[ro]
        else:
            qr = np.broadcast_to(d, prefix.shape)
        kl = rel_entr(prefix + NDKL_EPS, qr + NDKL_EPS).sum(axis=1)
        disc = 1.0 / np.log2(rank[order] + 1.0)
        per_r = np.bincount(ro, weights=kl * disc, minlength=n_r) / np.bincount(ro, weights=disc, minlength=n_r)
        out["ndkl"] = np.bincount(user_of_r, weights=per_r, minlength=nu) / S
    bad_item = np.zeros(nu, dtype=bool)
    if want_ee:
        item = frame[cols["item"]].to_numpy()
        ui = pd.DataFrame({"u": ucode, "i": item, "e": e, "y": y, "s": scode})
        g = ui.groupby(["u", "i"], sort=False)
        agg = g.agg(es=("e", "sum"), n=("e", "size"), ns=("s", "nunique"), ymin=("y", "min"), ymax=("y", "max"))
        agg = agg.reset_index()
        bad = (agg["n"] > agg["ns"]) | (agg["ymin"] != agg["ymax"])
        bad_item[agg.loc[bad, "u"].to_numpy()] = True
        agg["eps"] = agg["es"] / S[agg["u"].to_numpy()]
        if judg is None:
            jt = agg[["u", "i"]].assign(y=agg["ymin"])
        else:
            ju, ji, jy = judg.columns
            code = pd.Index(users).get_indexer(judg[ju])
            keep = code >= 0
            jt = pd.DataFrame({"u": code[keep], "i": judg[ji].to_numpy()[keep],
                               "y": judg[jy].to_numpy(dtype=float)[keep]})
        if not complete:
            jt = jt[jt["y"] > 0]
        jt = jt.sort_values(["u", "y"], ascending=[True, False], kind="stable")
        j = jt.groupby("u").cumcount().to_numpy(dtype=float) + 1.0
        yy = jt["y"].to_numpy()
        if browsing == "geometric":
            wj, corr_b = patience ** (j - 1), None
        elif browsing == "dcg":
            wj, corr_b = 1.0 / np.log2(j + 1), None
        else:
            wj = np.where(yy > 0, (patience * (1 - stop)) ** (j - 1), patience ** (j - 1))
            corr_b = True
        jt = jt.assign(w=wj, j=j)
        lev = jt.groupby(["u", "y"], sort=False)
        tval = lev["w"].transform("mean").to_numpy()
        if corr_b:
            b = lev["j"].transform("min").to_numpy() - 1
            tval = np.where(yy > 0, tval, tval * (1 - stop) ** b)
        jt = jt.assign(t=tval)
        both = agg[["u", "i", "eps"]].merge(jt[["u", "i", "t"]], on=["u", "i"], how="outer").fillna(0.0)
        uu = both["u"].to_numpy().astype(np.int64)
        ep, tv = both["eps"].to_numpy(), both["t"].to_numpy()
        out["ee_disparity"] = np.bincount(uu, weights=ep * ep, minlength=nu)
        out["ee_relevance"] = np.bincount(uu, weights=ep * tv, minlength=nu)
        out["ee_difference"] = np.bincount(uu, weights=(ep - tv) ** 2, minlength=nu)
    _raise_checks(0, 0, int(bad_item.sum()), names)
    table = pd.DataFrame({"user": users, "user_group": [_plain(v) for v in ug_of_user]})
    for m in metrics:
        table[m] = out[m]
    return table, labels, has_y


# ------------------------------------------------------------------ the interval of a skewed mean

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
    from scipy.stats import t as student

    from ocef.validation import check_in_interval

    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
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


# ------------------------------------------------------------------ front doors

def _check_options(browsing, patience, stop, attention, complete):
    from ocef.exposure.rankings import check_browsing

    browsing, patience, stop = check_browsing(browsing, patience, stop)
    if attention not in ATTENTION:
        raise ParameterError(f"attention must be one of {ATTENTION}, got {attention!r}")
    if not isinstance(complete, (bool, np.bool_)):
        raise ParameterTypeError(f"complete must be True or False, got {complete!r}")
    return browsing, patience, stop


def per_user_fairness(source, *, item_group: str, user_group: str | None = None, item_groups=None,
                      user_groups=None, judgments=None, metrics=RANKING_METRICS, browsing: str = "geometric",
                      patience: float = 0.5, stop: float = 0.5, attention: str = "trec", awrf_target="equal",
                      ndkl_desired=None, complete: bool = False, backend: str = "auto", columns=None,
                      spark=None):
    """One row per user of the log: its AWRF, NDKL and expected-exposure metrics (module docstring).

    This returns a row per user (for inspection, tests and small logs); :func:`ranking_fairness`
    computes the same values inside the backend and returns only their moments per user group.

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The top-k log ``user, item, rank [, relevance, sample]`` (docs/formats/rankings.md).
    item_group : str
        Column of the log (or of ``item_groups``) giving each item's group.
    user_group : str, optional
        Column of the log (or of ``user_groups``) giving each user's group.
    item_groups, user_groups : pandas.DataFrame, optional
        Side tables ``item, <item_group>`` and ``user, <user_group>``.
    judgments : pandas.DataFrame, optional
        ``user, item, relevance`` of every judged item of each user (TREC qrels); the target
        exposure of expected exposure. Default: the log's ``relevance`` of the items shown.
    metrics : sequence of str, default all of :data:`RANKING_METRICS`
        ``"awrf"``, ``"ndkl"``, ``"ee_disparity"``, ``"ee_relevance"``, ``"ee_difference"``.
    browsing : {"geometric", "dcg", "cascade"}, default "geometric"
        Browsing model of the exposure ε (and of AWRF's attention with ``attention="browsing"``);
        the cascade reads the log's relevance column (the geometric model without one).
    patience : float, default 0.5
        ``p`` in (0, 1) of the geometric and cascade models.
    stop : float, default 0.5
        Cascade stop probability ``u`` in [0, 1].
    attention : {"trec", "browsing"}, default "trec"
        AWRF position weights: TREC 2022's ``1/log2(max(k, 2))`` or the browsing model's exposure.
    awrf_target : "equal" or dict, default "equal"
        AWRF target distribution over the item groups (renormalised to sum 1).
    ndkl_desired : dict, optional
        NDKL's desired distribution ``{item group: proportion}`` (default: each ranking's own).
    complete : bool, default False
        Keep judgments with relevance <= 0 in the target (expeval ``-C``: the judgments list
        the whole candidate set); default: only relevant items (relevance > 0) have a target.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        DuckDB for files, pandas for pandas DataFrames, Spark for Spark DataFrames.
    columns : dict, optional
        Role renames ``{"user": ..., "item": ..., "rank": ..., "relevance": ..., "sample": ...}``
        (also the column names of ``judgments``).
    spark : SparkSession, optional
        The session of ``backend="spark"`` (default: a local one).

    Returns
    -------
    pandas.DataFrame
        ``user, user_group`` and one column per metric, sorted by user.

    Raises
    ------
    DataError
        Ranks not exactly 1..n per ranking, an item twice in a ranking, a user group not constant
        per user, expected exposure without an item column or without relevance.

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1, 1, 1], "item": [0, 1, 2, 3], "rank": [1, 2, 3, 4],
    ...                     "relevance": [1, 0, 1, 1], "g": ["A", "A", "B", "B"]})
    >>> per_user_fairness(log, item_group="g", metrics=["ndkl", "ee_disparity"]).round(6).to_dict("records")
    [{'user': 1, 'user_group': '(all)', 'ndkl': 0.452368, 'ee_disparity': 1.328125}]
    """
    import pandas as pd

    browsing, patience, stop = _check_options(browsing, patience, stop, attention, complete)
    metrics, backend, item_table, user_table, judg = _prepare(
        source, item_group=item_group, user_group=user_group, item_groups=item_groups, user_groups=user_groups,
        judgments=judgments, metrics=metrics, backend=backend, columns=columns)
    kw = dict(item_group=item_group, user_group=user_group, item_table=item_table, user_table=user_table,
              judg=judg, metrics=metrics, browsing=browsing, patience=patience, stop=stop, attention=attention,
              awrf_target=awrf_target, ndkl_desired=ndkl_desired, complete=complete, columns=columns)
    if backend == "pandas":
        table = _pandas_per_user(source, **kw)[0]
    else:
        rows, _, _, names = _sql_moments(source, backend, spark=spark, memory_limit=None, per_user=True, **kw)
        from ocef.exposure.rankings import _plain

        _raise_checks(sum(r["_bad"] for r in rows), sum(r["_ug"] != r["_ug2"] for r in rows),
                      sum(r["_bui"] or 0 for r in rows), names)
        table = pd.DataFrame({"user": [_plain(r["_u"]) for r in rows],
                              "user_group": [_plain(r["_ug"]) for r in rows]})
        for m in metrics:
            table[m] = np.array([r[m] for r in rows], dtype=float)
    return table.sort_values("user", kind="stable").reset_index(drop=True)


def _moments_from_table(table, metrics) -> pd.DataFrame:
    recs = []
    for ug, sub in table.groupby("user_group", sort=True):
        for m in metrics:
            v = sub[m].to_numpy(dtype=float)
            v = v[~np.isnan(v)]
            recs.append({"user_group": ug, "metric": m, "n": int(v.size), "sum": float(v.sum()),
                         "sum_sq": float(v @ v), "sum_cu": float((v * v) @ v), "min": float(v.min()) if v.size else None,
                         "max": float(v.max()) if v.size else None})
    import pandas as pd

    return pd.DataFrame(recs, columns=MOMENTS)


def _moments_from_rows(rows, metrics, names) -> pd.DataFrame:
    import pandas as pd

    from ocef.exposure.rankings import _plain

    _raise_checks(sum(r["bad_rank"] or 0 for r in rows), sum(r["bad_ug"] or 0 for r in rows),
                  sum(r["bad_item"] or 0 for r in rows), names)
    recs = []
    for r in sorted(rows, key=lambda r: (str(type(_plain(r["_ug"]))), _plain(r["_ug"]))):
        if r["_ug"] is None:
            raise DataError(f"log: the user-group column {names['user_group']!r} has missing values")
        for m in metrics:
            recs.append({"user_group": _plain(r["_ug"]), "metric": m, "n": int(r[f"{m}__n"]),
                         "sum": float(r[f"{m}__sum"] or 0.0), "sum_sq": float(r[f"{m}__sum_sq"] or 0.0),
                         "sum_cu": float(r[f"{m}__sum_cu"] or 0.0), "min": None if r[f"{m}__min"] is None else float(r[f"{m}__min"]),
                         "max": None if r[f"{m}__max"] is None else float(r[f"{m}__max"])})
    return pd.DataFrame(recs, columns=MOMENTS)


@dataclass(frozen=True)
class RankingFairnessResult(Result):
    """Per-user AWRF, NDKL and expected exposure of a top-k log: means over users with intervals,
    by user group, and user groups compared with a reference (:func:`ranking_fairness`).

    Attributes
    ----------
    overall : pandas.DataFrame
        One row per metric over all users: ``metric, n_users, estimate, ci_low, ci_high, confidence,
        p_value, p_adjusted, significant, reason, note`` (no test here: p-values null).
    groups : pandas.DataFrame
        The same per user group (``user_group`` first).
    pairs : pandas.DataFrame
        Each user group vs the reference, per metric, ``statistic`` ∈ {difference, ratio}: Welch's
        interval and test of equal means, Holm-adjusted over every comparison of the table.
    moments : pandas.DataFrame
        Per user group and metric ``n, sum, sum_sq, min, max`` of the per-user values (all that
        left the backend).
    metrics : tuple
        The metrics computed.
    reference : object
        The reference user group (None without user groups).
    target_source : str
        ``"judgments"``, ``"log relevance"`` or ``"none"`` (expected exposure not computed).
    browsing : str
        Browsing model.
    patience : float
        Its patience.
    attention : str
        AWRF position weights.
    confidence : float
        Level of the intervals.

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3, 4, 4], "rank": [1, 2] * 4,
    ...                     "g": ["a", "b", "a", "a", "b", "a", "b", "b"], "ug": list("xxxxyyyy")})
    >>> res = ranking_fairness(log, item_group="g", user_group="ug", metrics=["ndkl"])
    >>> res.groups[["user_group", "n_users", "estimate"]].round(4).to_dict("records")
    [{'user_group': 'x', 'n_users': 2, 'estimate': 0.2125}, {'user_group': 'y', 'n_users': 2, 'estimate': 0.2125}]
    >>> res.pairs[["statistic", "estimate", "p_adjusted"]].round(4).values.tolist()
    [['difference', 0.0, 1.0], ['ratio', 1.0, 1.0]]
    """

    overall: pd.DataFrame
    groups: pd.DataFrame
    pairs: pd.DataFrame
    moments: pd.DataFrame
    metrics: tuple
    reference: object
    target_source: str
    browsing: str = "geometric"
    patience: float = 0.5
    attention: str = "trec"
    confidence: float = 0.95

    def to_frame(self):
        """The per-user-group table (``groups``; empty without user groups, then read ``overall``).

        Returns
        -------
        pandas.DataFrame
            ``groups``.

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "g": ["a", "b", "a", "a"],
        ...                     "ug": ["x", "x", "y", "y"]})
        >>> ranking_fairness(log, item_group="g", user_group="ug", metrics=["awrf"]).to_frame()["user_group"].tolist()
        ['x', 'y']
        """
        return self.groups

    def summary(self):
        """The comparisons of user groups (``pairs``), most significant first.

        Returns
        -------
        pandas.DataFrame
            ``pairs`` sorted by ``p_adjusted`` (rows without a test last).

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3, 4, 4], "rank": [1, 2] * 4,
        ...                     "g": ["a", "b", "a", "a", "b", "b", "a", "b"], "ug": list("xxxxyyyy")})
        >>> ranking_fairness(log, item_group="g", user_group="ug", metrics=["ndkl"]).summary()["statistic"].tolist()
        ['difference', 'ratio']
        """
        return self.pairs.sort_values(["p_adjusted", "metric"], na_position="last").reset_index(drop=True)


MOMENTS = ["user_group", "metric", "n", "sum", "sum_sq", "sum_cu", "min", "max"]
_PROTOCOL = ["estimate", "ci_low", "ci_high", "confidence", "p_value", "p_adjusted", "significant", "reason", "note"]


def _result(moments, *, metrics, user_group, reference, confidence, target_source, browsing, patience, attention):
    import pandas as pd

    from ocef.exposure.by_group import metric_frame_from_moments

    ugs = list(dict.fromkeys(moments["user_group"]))
    if user_group is not None and reference is not None and reference not in ugs:
        raise ParameterError(f"reference must be one of the user groups {ugs}, got {reference!r}")
    mf = metric_frame_from_moments(moments, by=["user_group"], reference=reference if user_group else None,
                                   confidence=confidence)
    note = {m: (_TARGET_NOTE_LOG if target_source == "log relevance" and m in ("ee_relevance", "ee_difference")
                else None) for m in metrics}

    def finish(frame, tested):
        frame = frame.copy()
        frame["confidence"] = confidence
        if not tested:
            frame["p_value"] = np.nan
            frame["p_adjusted"] = np.nan
            frame["significant"] = None
        else:
            sig = frame["significant"].astype(object)
            sig[frame["p_adjusted"].isna()] = None
            frame["significant"] = sig
        frame["note"] = frame["metric"].map(note)
        lead = [c for c in frame.columns if c not in _PROTOCOL]
        return frame[lead + _PROTOCOL].reset_index(drop=True)

    # the means: Hall's skewness-corrected interval in place of Student's (the comparisons stay Welch's)
    for frame, keyed in ((mf.overall, False), (mf.groups, True)):
        for i, row in frame.iterrows():
            if keyed:
                sub = moments[(moments["metric"] == row["metric"]) & (moments["user_group"] == row["user_group"])]
            else:
                sub = moments[moments["metric"] == row["metric"]]
            h = hall_interval(int(sub["n"].sum()), float(sub["sum"].sum()), float(sub["sum_sq"].sum()),
                              float(sub["sum_cu"].sum()), confidence=confidence)
            frame.loc[i, ["ci_low", "ci_high"]] = [h["ci_low"], h["ci_high"]]
            frame.loc[i, "reason"] = h["reason"]
            n_users, fewest = int(sub["n"].sum()), MIN_USERS[row["metric"]]
            if h["reason"] is None and n_users < fewest:
                frame.loc[i, ["ci_low", "ci_high"]] = [np.nan, np.nan]
                frame.loc[i, "reason"] = (f"no valid interval: {n_users} users, fewer than {fewest} (below that, the "
                                          f"interval of {row['metric']} covered under 0.93 in simulation)")
    order = {m: i for i, m in enumerate(RANKING_METRICS)}
    overall = finish(mf.overall, False)
    overall = overall.sort_values("metric", key=lambda c: c.map(order), kind="stable").reset_index(drop=True)
    groups = finish(mf.groups, False) if user_group is not None else overall.iloc[0:0].assign(user_group=[])
    if user_group is not None:
        groups = groups[["user_group"] + [c for c in groups.columns if c != "user_group"]]
        groups = groups.sort_values(["user_group", "metric"], key=lambda c: c.map(order) if c.name == "metric" else c,
                                    kind="stable").reset_index(drop=True)
    pairs = finish(mf.pairs, True) if user_group is not None and len(ugs) > 1 else pd.DataFrame(
        columns=["user_group", "reference", "metric", "statistic"] + _PROTOCOL)
    ref = mf.reference[0] if user_group is not None and len(ugs) > 1 else None
    return RankingFairnessResult(overall=overall, groups=groups, pairs=pairs, moments=moments, metrics=tuple(metrics),
                                 reference=ref, target_source=target_source, browsing=browsing, patience=patience,
                                 attention=attention, confidence=confidence)


def ranking_fairness(source, *, item_group: str, user_group: str | None = None, item_groups=None, user_groups=None,
                     judgments=None, metrics=None, browsing: str = "geometric", patience: float = 0.5,
                     stop: float = 0.5, attention: str = "trec", awrf_target="equal", ndkl_desired=None,
                     complete: bool = False, reference=None, confidence: float = 0.95, backend: str = "auto",
                     columns=None, spark=None, memory_limit: str | None = None) -> RankingFairnessResult:
    """AWRF, NDKL and expected exposure (EE-D, EE-R, EE-L) over a whole top-k log, with intervals.

    Every user's value is computed inside the backend (module docstring; equal to
    :func:`ocef.exposure.rank_exposure.awrf`, :func:`~ocef.exposure.rank_exposure.ndkl` and
    :func:`~ocef.exposure.rank_exposure.expected_exposure_metrics` on that user's rankings); only
    their moments per user group (``n, Σ, Σ², Σ³, min, max``) leave it. The system value of a metric
    is the mean over users (TREC Fair Ranking's aggregation) with Hall's skewness-corrected t
    interval of that mean (:func:`hall_interval`; users independent; each user's positions and
    sampled rankings are one cluster). Below :data:`MIN_USERS` users (EE-D 80, EE-R and EE-L 20,
    where the measured coverage fell under 0.93) the interval is null with a ``reason``. With
    ``user_group``, each group's mean and each group vs the reference (Welch's interval and test of
    the difference, a delta-method interval of the ratio), the p-values Holm-adjusted together
    (:func:`ocef.exposure.by_group.metric_frame_from_moments`).

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The top-k log.
    item_group : str
        Item-group column (of the log or of ``item_groups``).
    user_group : str, optional
        User-group column (of the log or of ``user_groups``).
    item_groups, user_groups : pandas.DataFrame, optional
        Side tables.
    judgments : pandas.DataFrame, optional
        ``user, item, relevance`` of all judged items (the full target of expected exposure).
    metrics : sequence of str, optional
        Among :data:`RANKING_METRICS`; default: AWRF and NDKL, and the three EE metrics when there
        is relevance (``judgments`` or a ``relevance`` column) and an item column.
    browsing : {"geometric", "dcg", "cascade"}, default "geometric"
        Browsing model of the exposure.
    patience : float, default 0.5
        ``p`` of the geometric and cascade models.
    stop : float, default 0.5
        Cascade stop probability.
    attention : {"trec", "browsing"}, default "trec"
        AWRF position weights.
    awrf_target : "equal" or dict, default "equal"
        AWRF target distribution.
    ndkl_desired : dict, optional
        NDKL desired distribution (default: each ranking's own).
    complete : bool, default False
        Judgments with relevance <= 0 keep a target (expeval ``-C``).
    reference : optional
        Reference user group (default: the largest).
    confidence : float, default 0.95
        Level of the intervals; ``significant`` = ``p_adjusted <= 1 - confidence``.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        Counting backend.
    columns : dict, optional
        Role renames (also for ``judgments``).
    spark : SparkSession, optional
        Session for ``backend="spark"``.
    memory_limit : str, optional
        DuckDB ``memory_limit`` for the query (e.g. ``"200MB"``).

    Returns
    -------
    RankingFairnessResult

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [0, 1, 1, 0, 0, 2], "rank": [1, 2, 1, 2, 1, 2],
    ...                     "g": ["a", "b", "b", "a", "a", "a"]})
    >>> res = ranking_fairness(log, item_group="g", metrics=["awrf"])
    >>> res.overall[["metric", "n_users", "estimate"]].round(4).to_dict("records")
    [{'metric': 'awrf', 'n_users': 3, 'estimate': 0.9281}]
    """
    from ocef.validation import check_in_interval

    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    browsing, patience, stop = _check_options(browsing, patience, stop, attention, complete)
    if metrics is None:
        metrics = _default_metrics(source, judgments, columns)
    metrics, backend, item_table, user_table, judg = _prepare(
        source, item_group=item_group, user_group=user_group, item_groups=item_groups, user_groups=user_groups,
        judgments=judgments, metrics=metrics, backend=backend, columns=columns)
    kw = dict(item_group=item_group, user_group=user_group, item_table=item_table, user_table=user_table,
              judg=judg, metrics=metrics, browsing=browsing, patience=patience, stop=stop, attention=attention,
              awrf_target=awrf_target, ndkl_desired=ndkl_desired, complete=complete, columns=columns)
    if backend == "pandas":
        table, _, has_y = _pandas_per_user(source, **kw)
        moments = _moments_from_table(table, metrics)
    else:
        rows, _, has_y, names = _sql_moments(source, backend, spark=spark, memory_limit=memory_limit, per_user=False,
                                             **kw)
        moments = _moments_from_rows(rows, metrics, names)
    want_ee = any(m in EE_METRICS for m in metrics)
    target_source = "none" if not want_ee else ("judgments" if judg is not None else "log relevance")
    return _result(moments, metrics=metrics, user_group=user_group, reference=reference, confidence=confidence,
                   target_source=target_source, browsing=browsing, patience=patience, attention=attention)


def _default_metrics(source, judgments, columns) -> list[str]:
    """AWRF and NDKL; the EE metrics too when the log has an item column and relevance exists."""
    cols = {"item": "item", "relevance": "relevance"}
    cols.update({r: c for r, c in (columns or {}).items() if r in cols})
    have = _columns_of(source)
    ee = cols["item"] in have and (judgments is not None or cols["relevance"] in have)
    return ["awrf", "ndkl"] + (list(EE_METRICS) if ee else [])


def _columns_of(source) -> list:
    if hasattr(source, "columns") and not isinstance(source, (str, os.PathLike)):
        return list(source.columns)
    from ocef.backends import _check_path, _duckdb_relation

    return list(_duckdb_relation(_check_path(source))[0].columns)
