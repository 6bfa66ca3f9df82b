"""Per-user ranking fairness over a whole top-k log: AWRF, NDKL and expected exposure (EE-D, EE-R,
EE-L), with intervals clustered by user and Holm-adjusted comparisons of user groups.

:mod:`ocef.exposure.formulas` defines each metric once, on the rankings of one user: ``awrf``
(TREC Fair Ranking 2022 ``qr_awrf``), ``ndkl`` (Geyik et al. 2019, Eq. 6), ``ee_disparity``,
``ee_relevance``, ``ee_difference`` (Diaz et al. 2020, Eq. 5-7, unnormalised), each the mean over a
user's sampled rankings. This module computes them for every user where the log lives (one SQL
query on DuckDB or Spark, numpy group-bys on pandas) and treats them as any per-user metric
(:func:`ocef.exposure.frame.metric_frame_from_moments`: Hall's interval, :data:`MIN_USERS`, Welch
comparisons). Expected exposure's target needs every relevant item of a user, shown or not
(``judgments``); the guide (``docs/guide/exposure.md``) says what it measures without them. A
second pass over the log: opt-in (``ranking_metrics`` / ``--ranking-metrics``).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ocef.backends import log_columns, plain_value, resolve_backend, sql_identifier
from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.exposure.browsing import BROWSING_PARAMS, BrowsingModel
from ocef.exposure.frame import hall_interval
from ocef.exposure.logs import (LOG_PARAMS, fill_log_doc, check_judgments, check_side, open_sql, pandas_log, raise_checks,
                                rows_select)
from ocef.exposure.user_metrics import EE_METRICS, PER_RANKING_METRICS, RANKING_METRICS, REGISTRY, RankingInput
from ocef.results import Result, presents
from ocef.validation import CONFIDENCE, Label, OneOrMore, OrNone, Options, validate_params

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["RANKING_METRICS", "MIN_USERS", "MIN_PAIR_USERS", "MIN_RATIO_USERS", "HALL_PAIRS", "RANKING_PARAMS", "RankingFairnessResult", "per_user_fairness",
           "ranking_fairness", "ranking_fairness_sql"]

#: Fewest users for which a mean's interval is printed, from the measured coverage (guide/exposure.md):
#: below these, Hall's interval covered under 0.94 in simulation (EE-D: 0.914 at 40 users when sampled
#: rankings rarely overlap; EE-R: 0.928-0.938 in two designs up to 80; EE-L: 0.932 at 10), so it is not printed.
#: The registry's entries hold them (:data:`ocef.exposure.user_metrics.REGISTRY`).
MIN_USERS = {m: REGISTRY[m].min_users for m in RANKING_METRICS}
#: metric -> fewest users of each group of a printed comparison (EE-R's Welch difference; guide/exposure.md)
MIN_PAIR_USERS = {m: REGISTRY[m].min_pair_users for m in RANKING_METRICS if REGISTRY[m].min_pair_users}
#: Fewest users of each group for the ratio row's interval, where above the comparison's floor.
MIN_RATIO_USERS = {m: REGISTRY[m].min_ratio_users for m in RANKING_METRICS if REGISTRY[m].min_ratio_users}
#: The metrics whose comparisons use Hall's skewness-corrected difference (:func:`hall_difference`).
HALL_PAIRS = tuple(m for m in RANKING_METRICS if REGISTRY[m].pair_interval == "hall")
#: The declared parameters of the ranking metrics (each entry's ``params``, merged).
RANKING_PARAMS = {name: c for m in RANKING_METRICS for name, c in REGISTRY[m].params.items()}

_TARGET_NOTE_LOG = ("target exposure from the log's relevance column: only the items shown have a "
                    "judgment, so relevant items never shown get no target (pass judgments= or --judgments for the "
                    "full target)")


# ------------------------------------------------------------------ parameters

def _check_metrics(metrics) -> list[str]:
    """The metrics asked for, in order, each once (their names are checked by the declaration)."""
    metrics = list(dict.fromkeys([metrics] if isinstance(metrics, str) else metrics))
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

def ranking_fairness_sql(table: str, *, cols: dict, item_groups, metrics, model: BrowsingModel = BrowsingModel(),
                         attention: str = "trec", awrf_target=None,
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
    model : BrowsingModel
        Browsing model of the exposure.
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
    q = lambda c: sql_identifier(c, dialect)  # noqa: E731
    metrics = _check_metrics(metrics)
    has_s, has_y, has_ug = "sample" in cols, "relevance" in cols, "user_group" in cols
    want_ee = any(m in EE_METRICS for m in metrics)
    if want_ee and "item" not in cols:
        raise DataError("expected exposure needs an item column in the log")
    if want_ee and judgments is None and not has_y:
        raise DataError("expected exposure needs relevance: a judgments table or a relevance column in the log")
    keys = "_u, _s" if has_s else "_u"
    select = rows_select(cols, dialect, ("user", "rank", "item_group", "sample", "relevance", "user_group")
                         + (("item",) if want_ee else ()))
    e_sql = model.sql("_k", model.above_sql(keys) if has_y else None)
    ctes = [f"_rows AS (SELECT {select} FROM {table})",
            f"_e AS (SELECT *, {e_sql} AS _e FROM _rows)"]
    # the per-ranking metrics: each registry entry's SQL pieces (rows, aggregates per ranking, stages)
    vals = [m for m in PER_RANKING_METRICS if m in metrics]
    x = RankingInput(item_groups=list(item_groups), attention=attention, awrf_target=awrf_target,
                     ndkl_desired=ndkl_desired, keys=keys)
    pieces = [REGISTRY[m].sql(x) for m in vals]
    row_cols = [c for p in pieces for c in p.get("rows", ())]
    src = "_e"
    if row_cols:
        ctes.append(f"_c AS (SELECT *, {', '.join(row_cols)} FROM _e)")
        src = "_c"
    per_rank = ["count(*) AS _n", "max(_k) AS _kmax", "sum(_k) AS _ksum", "sum(_k * _k) AS _ksq"]
    if has_ug:
        per_rank += ["min(_ug) AS _ug", "max(_ug) AS _ug2"]
    per_rank += [c for p in pieces for c in p.get("ranking", ())]
    ctes.append(f"_r AS (SELECT {keys}, {', '.join(per_rank)} FROM {src} GROUP BY {keys})")
    bad_rank = ("CASE WHEN _kmax <> _n OR _ksum <> _n * (_n + 1) / 2 "
                "OR _ksq <> _n * (_n + 1) * (2 * _n + 1) / 6 THEN 1 ELSE 0 END")
    n_stages = max([len(p["stages"]) for p in pieces], default=0)
    stage0 = [c for p in pieces for stage in p["stages"][:1] for c in stage]
    ctes.append(f"_rk AS (SELECT *, {', '.join([f'{bad_rank} AS _bad'] + stage0)} FROM _r)")
    rsrc = "_rk"
    for i in range(1, n_stages):
        cols_i = [c for p in pieces for c in (p["stages"][i] if i < len(p["stages"]) else ())]
        ctes.append(f"_rk{i} AS (SELECT *, {', '.join(cols_i)} FROM {rsrc})")
        rsrc = f"_rk{i}"
    carry = ["_bad"] + (["_ug", "_ug2"] if has_ug else [])
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
        # the ideal ranking's exposure, ties sharing (formulas.target_exposure)
        ctes.append("_jl AS (SELECT *, min(_j) OVER (PARTITION BY _u, _y) AS _j0 FROM _jr)")
        w_ideal = model.sql("_j", model.ideal_above_sql("_j", "_j0"))
        ctes.append(f"_tg AS (SELECT _u, _i, avg({w_ideal}) OVER (PARTITION BY _u, _y) AS _t FROM _jl)")
        ctes.append("_ee AS (SELECT coalesce(a._u, t._u) AS _u, coalesce(a._eps, CAST(0 AS DOUBLE)) AS _eps, "
                    "coalesce(t._t, CAST(0 AS DOUBLE)) AS _t, coalesce(a._bui, 0) AS _bui "
                    "FROM _eps a FULL OUTER JOIN _tg t ON a._u = t._u AND a._i = t._i)")
        ee = [m for m in EE_METRICS if m in metrics]
        sums = "".join(f"sum({REGISTRY[m].sql}) AS {m}, " for m in ee)      # each entry's term of (eps, eps*)
        ctes.append(f"_eu AS (SELECT _u, {sums}max(_bui) AS _bui FROM _ee GROUP BY _u)")
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

def _prepare(source, *, item_group, user_group, item_groups, user_groups, judgments, metrics, backend, columns,
             **options):
    """``(backend, keywords of the computation)``: the side tables and judgments checked, the metrics in order."""
    return resolve_backend(backend, source), dict(
        item_group=item_group, user_group=user_group, metrics=_check_metrics(metrics), columns=columns,
        item_table=check_side(item_groups, (columns or {}).get("item", "item"), item_group, "item_groups"),
        user_table=check_side(user_groups, (columns or {}).get("user", "user"), user_group, "user_groups"),
        judg=check_judgments(judgments, columns), **options)


def _sql_moments(source, backend, *, item_group, user_group, item_table, user_table, judg, metrics, model,
                 attention, awrf_target, ndkl_desired, complete, columns, spark, memory_limit, per_user):
    log = open_sql(source, backend, item_group=item_group, user_group=user_group, item_table=item_table,
                   user_table=user_table, judgments=judg, columns=columns, spark=spark, memory_limit=memory_limit)
    try:
        cols, labels = log.profile.cols, log.profile.labels
        if cols["item"] not in log.have and any(m in EE_METRICS for m in metrics):
            raise DataError(f"expected exposure needs the item column {cols['item']!r} in the log; it has {log.have}")
        t = _distribution("awrf_target", awrf_target, labels)
        d = _distribution("ndkl_desired", ndkl_desired, labels)
        if cols["item"] not in log.have:
            cols = {k: v for k, v in cols.items() if k != "item"}
        sql = ranking_fairness_sql(log.table, cols=cols, item_groups=labels, metrics=metrics, model=model,
                                   attention=attention, awrf_target=t, ndkl_desired=d, judgments=log.judgments,
                                   complete=complete, dialect=log.dialect, per_user=per_user)
        rows = log.run(sql)
    finally:
        log.close()
    return rows, labels, "relevance" in cols, log.profile.names


def _pandas_per_user(source, *, item_group, user_group, item_table, user_table, judg, metrics, model, attention,
                     awrf_target, ndkl_desired, complete, columns):
    """numpy/pandas implementation of the per-user values (an independent check of the SQL)."""
    import pandas as pd

    lg = pandas_log(source, item_group=item_group, user_group=user_group, item_table=item_table,
                    user_table=user_table, columns=columns)
    frame, cols, labels, names = lg.frame, lg.profile.cols, lg.profile.labels, lg.profile.names
    want_ee = any(m in EE_METRICS for m in metrics)
    has_y = "relevance" in cols
    if want_ee and cols["item"] not in frame.columns:
        raise DataError(f"expected exposure needs the item column {cols['item']!r} in the log")
    if want_ee and judg is None and not has_y:
        raise DataError("expected exposure needs relevance: a judgments table or a relevance column in the log")
    t = _distribution("awrf_target", awrf_target, labels)
    d = _distribution("ndkl_desired", ndkl_desired, labels)
    rank, y, ucode, users, scode, rcode = lg.rank, lg.relevance, lg.user, lg.users, lg.sample, lg.ranking
    nu = len(users)
    cnt, user_of_r, S, gcode = lg.ranking_size, lg.ranking_user, lg.n_rankings, lg.group
    e = model.log_weights(rank, rcode, y)
    out = {}
    x = RankingInput(item_groups=list(labels), attention=attention, awrf_target=t, ndkl_desired=d, rank=rank,
                     ranking=rcode, group=gcode, exposure=e, ranking_size=cnt)
    for m in (m for m in PER_RANKING_METRICS if m in metrics):       # each entry's numpy value per ranking
        out[m] = np.bincount(user_of_r, weights=REGISTRY[m].numpy(x), minlength=nu) / S
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
        j0 = jt.assign(j=j).groupby(["u", "y"], sort=False)["j"].transform("min").to_numpy()
        jt = jt.assign(w=model.weights(j, model.ideal_above(j, yy, j0)))   # the ideal ranking, ties sharing
        jt = jt.assign(t=jt.groupby(["u", "y"], sort=False)["w"].transform("mean").to_numpy())
        both = agg[["u", "i", "eps"]].merge(jt[["u", "i", "t"]], on=["u", "i"], how="outer").fillna(0.0)
        uu = both["u"].to_numpy().astype(np.int64)
        ep, tv = both["eps"].to_numpy(), both["t"].to_numpy()
        for m in (m for m in EE_METRICS if m in metrics):
            out[m] = np.bincount(uu, weights=REGISTRY[m].numpy(ep, tv), minlength=nu)
    raise_checks(0, 0, int(bad_item.sum()), names)
    table = pd.DataFrame({"user": users, "user_group": list(lg.user_group)})
    for m in metrics:
        table[m] = out[m]
    return table, labels, has_y



# ------------------------------------------------------------------ front doors

#: The declarations of the two front doors of this module (those of the log, the browsing model
#: and the registry's metrics).
DECLARED_PARAMS = {**LOG_PARAMS, **BROWSING_PARAMS, **RANKING_PARAMS, "metrics": OneOrMore(Options(*RANKING_METRICS))}


@validate_params(**DECLARED_PARAMS)
@fill_log_doc
def per_user_fairness(source, *, item_group: str, user_group: str | None = None, item_groups=None,
                      user_groups=None, judgments=None, metrics=RANKING_METRICS, browsing: str = "geometric",
                      patience: float = 0.5, stop: float = 0.5, attention: str = "trec", awrf_target="equal",
                      ndkl_desired=None, complete: bool = False, backend: str = "auto", columns=None,
                      spark=None, memory_limit: str | None = None):
    """One row per user of the log: its AWRF, NDKL and expected-exposure metrics.

    For inspection, tests and small logs; :func:`ranking_fairness` computes the same values inside the
    backend and returns only their moments per user group.

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The top-k log ``user, item, rank [, relevance, sample]`` (docs/formats/rankings.md).
    item_group : str
        Column of the log (or of ``item_groups``) giving each item's group.
    user_group : str, optional
        Column of the log (or of ``user_groups``) giving each user's group.
    %(sides)s
    %(judgments)s
    metrics : sequence of str, default all of :data:`RANKING_METRICS`
        ``"awrf"``, ``"ndkl"``, ``"ee_disparity"``, ``"ee_relevance"``, ``"ee_difference"``.
    %(browsing)s
    %(ranking)s
    %(backend)s

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
    >>> from ocef.datasets import make_toy_rankings
    >>> per_user_fairness(make_toy_rankings(), item_group="genre", metrics=["ndkl"]).round(3).head(2)
       user user_group   ndkl
    0     0      (all)  0.000
    1     1      (all)  0.533
    """
    import pandas as pd

    model = BrowsingModel(browsing, patience, stop)
    backend, kw = _prepare(source, item_group=item_group, user_group=user_group, item_groups=item_groups,
                           user_groups=user_groups, judgments=judgments, metrics=metrics, backend=backend,
                           columns=columns, model=model, attention=attention, awrf_target=awrf_target,
                           ndkl_desired=ndkl_desired, complete=complete)
    metrics = kw["metrics"]
    if backend == "pandas":
        table = _pandas_per_user(source, **kw)[0]
    else:
        rows, _, _, names = _sql_moments(source, backend, spark=spark, memory_limit=memory_limit, per_user=True, **kw)
        raise_checks(sum(r["_bad"] for r in rows), sum(r["_ug"] != r["_ug2"] for r in rows),
                     sum(r["_bui"] or 0 for r in rows), names)
        table = pd.DataFrame({"user": [plain_value(r["_u"]) for r in rows],
                              "user_group": [plain_value(r["_ug"]) for r in rows]})
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

    raise_checks(sum(r["bad_rank"] or 0 for r in rows), sum(r["bad_ug"] or 0 for r in rows),
                 sum(r["bad_item"] or 0 for r in rows), names)
    recs = []
    for r in sorted(rows, key=lambda r: (str(type(plain_value(r["_ug"]))), plain_value(r["_ug"]))):
        if r["_ug"] is None:
            raise DataError(f"log: the user-group column {names['user_group']!r} has missing values")
        for m in metrics:
            recs.append({"user_group": plain_value(r["_ug"]), "metric": m, "n": int(r[f"{m}__n"]),
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
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3, 4, 4], "rank": [1, 2] * 4,
    ...                     "g": ["a", "b", "a", "a", "b", "a", "b", "b"], "ug": list("xxxxyyyy")})
    >>> res = ranking_fairness(log, item_group="g", user_group="ug", metrics=["ndkl"])
    >>> res.groups[["user_group", "n_users", "estimate"]].round(4).to_dict("records")
    [{'user_group': 'x', 'n_users': 2, 'estimate': 0.2125}, {'user_group': 'y', 'n_users': 2, 'estimate': 0.2125}]
    >>> res.pairs[["statistic", "estimate", "p_adjusted"]].round(4).values.tolist()
    [['difference', 0.0, nan], ['ratio', 1.0, nan]]
    >>> res.pairs["reason"][0]
    'no valid interval: a group has 1.0 effective users with a non-zero value, fewer than 4'
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

    @presents
    def to_frame(self):
        """The per-user-group table (``groups``; empty without user groups, then read ``overall``).

        ``groups``.
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

    from ocef.exposure.frame import metric_frame_from_moments  # noqa: I001  (pandas and scipy, on use)

    ugs = list(dict.fromkeys(moments["user_group"]))
    if user_group is not None and reference is not None and reference not in ugs:
        raise ParameterError(f"reference must be one of the user groups {ugs}, got {reference!r}")
    mf = metric_frame_from_moments(moments, by=["user_group"], reference=reference if user_group else None,
                                   confidence=confidence, min_users=MIN_USERS, min_pair_users=MIN_PAIR_USERS,
                                   min_ratio_users=MIN_RATIO_USERS,
                                   skew_corrected=HALL_PAIRS)
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
                                          f"interval of {row['metric']} covered under 0.94 in simulation)")
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


@validate_params(**{**DECLARED_PARAMS, "metrics": OrNone(DECLARED_PARAMS["metrics"])},
                 confidence=CONFIDENCE, reference=OrNone(Label()))
@fill_log_doc
def ranking_fairness(source, *, item_group: str, user_group: str | None = None, item_groups=None, user_groups=None,
                     judgments=None, metrics=None, browsing: str = "geometric", patience: float = 0.5,
                     stop: float = 0.5, attention: str = "trec", awrf_target="equal", ndkl_desired=None,
                     complete: bool = False, reference=None, confidence: float = 0.95, backend: str = "auto",
                     columns=None, spark=None, memory_limit: str | None = None) -> RankingFairnessResult:
    """AWRF, NDKL and expected exposure (EE-D, EE-R, EE-L) over a whole top-k log, with intervals.

    Each user's value is computed inside the backend; only its moments per user group leave it. The
    system value is the mean over users (TREC Fair Ranking's aggregation) with Hall's interval
    (:func:`hall_interval`; null below :data:`MIN_USERS`), and with ``user_group`` each group is
    compared with the reference (Welch; Holm-adjusted, :func:`ocef.exposure.frame.metric_frame_from_moments`).
    EE-R's difference is Welch's statistic with Hall's skewness correction
    (:func:`ocef.exposure.frame.hall_difference`), null with a ``reason`` while a group has fewer than
    :data:`MIN_PAIR_USERS` users (160).

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The top-k log.
    item_group : str
        Item-group column (of the log or of ``item_groups``).
    user_group : str, optional
        User-group column (of the log or of ``user_groups``).
    %(sides)s
    %(judgments)s
    metrics : sequence of str, optional
        Among :data:`RANKING_METRICS`; default: AWRF and NDKL, and the EE metrics when there is
        relevance and an item column.
    %(browsing)s
    %(ranking)s
    reference : optional
        Reference user group (default: the largest).
    confidence : float, default 0.95
        Level of the intervals; ``significant`` = ``p_adjusted <= 1 - confidence``.
    %(backend)s

    Returns
    -------
    RankingFairnessResult

    Examples
    --------
    >>> from ocef.datasets import make_toy_rankings
    >>> res = ranking_fairness(make_toy_rankings(), item_group="genre", metrics=["awrf"])
    >>> res.overall[["metric", "n_users", "estimate"]].round(4).to_dict("records")
    [{'metric': 'awrf', 'n_users': 20, 'estimate': 0.9361}]
    """
    model = BrowsingModel(browsing, patience, stop)
    if metrics is None:
        metrics = _default_metrics(source, judgments, columns)
    backend, kw = _prepare(source, item_group=item_group, user_group=user_group, item_groups=item_groups,
                           user_groups=user_groups, judgments=judgments, metrics=metrics, backend=backend,
                           columns=columns, model=model, attention=attention, awrf_target=awrf_target,
                           ndkl_desired=ndkl_desired, complete=complete)
    metrics, judg = kw["metrics"], kw["judg"]
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
    have = log_columns(source)
    ee = cols["item"] in have and (judgments is not None or cols["relevance"] in have)
    return [m for m in RANKING_METRICS if ee or m not in EE_METRICS]
