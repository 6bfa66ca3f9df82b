"""A top-k log reduced to the sufficient statistics of provider-side exposure and of the list
metrics, where the log lives.

Every provider-side exposure metric of :func:`ocef.exposure.exposure_fairness` and its interval is
a function of, per user group,

* ``n`` users, ``Σ_u V_u`` and ``Σ_u V_u V_uᵀ``, with ``V_u = (X_u1..X_uG, M_u1..M_uG)``: the
  exposure ``X_ug`` user u gives item group g (mean over the user's sampled rankings of the
  browsing-model exposure of g's items, :class:`ocef.exposure.browsing.BrowsingModel`) and the
  merit ``M_ug`` (mean over the rankings of the relevance of g's items);
* ``n``, ``Σ m``, ``Σ m²``, min, max of each list metric of the registry
  (:data:`ocef.exposure.user_metrics.LIST_METRICS`: precision, recall, nDCG, hit rate).

:func:`ranking_statistics` computes them with one query (``backend="duckdb"``, the default for
files; the same SQL on Spark, ``backend="spark"``) or with numpy (``backend="pandas"``, the default
for DataFrames). Only these few numbers leave the backend.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ocef.backends import plain_value, resolve_backend, sql_literal
from ocef.errors import DataError
from ocef.exposure.browsing import BROWSING_PARAMS, BrowsingModel
from ocef.exposure.logs import LOG_PARAMS, check_side, open_sql, pandas_log, rows_select
from ocef.exposure.user_metrics import LIST_METRICS, REGISTRY, list_value_sql, list_values
from ocef.results import Result, presents
from ocef.validation import Integer, OneOrMore, Options, OrNone, validate_params

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["RankingStats", "ranking_statistics", "ranking_statistics_sql", "MOMENT_COLUMNS"]

#: The columns of :attr:`RankingStats.metrics`.
MOMENT_COLUMNS = ["user_group", "metric", "n", "sum", "sum_sq", "min", "max"]


@dataclass(frozen=True)
class RankingStats(Result):
    """Sufficient statistics of a top-k log (see the module docstring), made by :func:`ranking_statistics`.

    Every provider-side exposure metric of :func:`ocef.exposure.exposure_fairness` and its interval
    is a function of ``n_users``, ``sums`` and ``cross`` per user group; the list metrics' intervals
    need only ``metrics``. The exposure ``X_ug`` of item group g for user u uses the browsing model
    (:class:`ocef.exposure.browsing.BrowsingModel`); the merit ``M_ug`` is the relevance of g's items
    in the user's list.

    Attributes
    ----------
    user_groups : tuple
        User-group labels (``("(all)",)`` without a user-group column).
    item_groups : tuple
        Item-group labels, sorted.
    n_users : numpy.ndarray, shape (U,)
        Users per user group.
    sums : numpy.ndarray, shape (U, V)
        ``Σ_u V_u`` per user group, ``V = (X_1..X_G, M_1..M_G)`` (M only with relevance).
    cross : numpy.ndarray, shape (U, V, V)
        ``Σ_u V_u V_uᵀ``.
    moments : tuple of dict
        Per-user-metric moments, one record per user group and metric: ``user_group, metric, n, sum,
        sum_sq, min, max``; ``metrics`` is their DataFrame (built when first read).
    k : int
        List length (largest rank, or the ``k`` given).
    n_rows : int
        Rows of the log.
    has_relevance : bool
        Whether the log has a relevance column (merit and per-user metrics present).
    item_counts : tuple of int or None
        Items per item group, the catalogue of the catalogue-proportional target (None without an
        item column or an ``item_groups`` table).
    catalogue_source : str or None
        Where ``item_counts`` come from (``"the item_groups table"`` or ``"the items of the log"``).
    longest : int or None
        The largest rank of the log (the longest list; ``k`` may exceed it).

    Examples
    --------
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
    ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
    >>> st = ranking_statistics(log, item_group="genre")            # geometric browsing, patience 0.5
    >>> st.item_groups, st.n_users.tolist(), st.sums.tolist(), st.k
    (('a', 'b'), [3], [[2.5, 2.0]], 2)
    """

    user_groups: tuple
    item_groups: tuple
    n_users: np.ndarray
    sums: np.ndarray
    cross: np.ndarray
    moments: tuple
    k: int
    n_rows: int
    has_relevance: bool
    item_counts: tuple | None = None
    catalogue_source: str | None = None
    longest: int | None = None

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """Per-user-metric moments as a DataFrame: ``user_group, metric, n, sum, sum_sq, min, max``."""
        import pandas as pd

        return pd.DataFrame(list(self.moments), columns=MOMENT_COLUMNS)

    @presents
    def to_dict(self) -> dict:
        """Every field, the moments under the key ``metrics`` (a list of records), JSON-ready."""
        from ocef.results import jsonable

        return {("metrics" if f.name == "moments" else f.name):
                jsonable([dict(r) for r in self.moments] if f.name == "moments" else getattr(self, f.name))
                for f in dataclasses.fields(self) if f.repr and not f.name.startswith("_")}

    @presents
    def to_frame(self):
        """One row per user group and item group: ``user_group, item_group, n_users, exposure, merit``
        (sums over users; merit NaN without relevance).
        """
        import pandas as pd

        G = len(self.item_groups)
        rows = []
        for i, ug in enumerate(self.user_groups):
            for j, ig in enumerate(self.item_groups):
                rows.append({"user_group": ug, "item_group": ig, "n_users": int(self.n_users[i]),
                             "exposure": float(self.sums[i, j]),
                             "merit": float(self.sums[i, G + j]) if self.has_relevance else np.nan})
        return pd.DataFrame(rows)


def ranking_statistics_sql(table: str, *, cols: dict, item_groups, k: int, model: BrowsingModel,
                           dialect: str = "duckdb", metrics=LIST_METRICS, has_item: bool = False,
                           ideal_max: int | None = None) -> str:
    """The one SQL query (DuckDB or Spark dialect) computing :class:`RankingStats` from ``table``.

    The query weights each row by the browsing model (:meth:`ocef.exposure.browsing.BrowsingModel.sql`),
    sums the weights (and relevances) per item group within each ranking, averages a user's sampled
    rankings, and returns per user group the number of users, ``Σ V_u`` (columns ``s__x<j>``,
    ``s__m<j>``), ``Σ V_u V_uᵀ`` (``c__x<a>__x<b>`` etc., upper triangle), the moments of each per-user
    metric (``<metric>__n``, ``__sum``, ``__sum_sq``, ``__min``, ``__max``) and the checks of the
    log (``null_user``, ``bad_rank``: ranks not exactly 1..n, ``bad_ug``, ``bad_nrel``).

    Parameters
    ----------
    table : str
        The relation to read (a table name, or a ``read_parquet(...)`` expression).
    cols : dict
        Maps the roles ``user``, ``rank``, ``item_group`` (and optionally ``relevance``, ``sample``,
        ``n_relevant``, ``user_group``) to columns of ``table``.
    item_groups : sequence
        The item-group labels, in the order of the output columns.
    k : int
        List length of precision and of the nDCG ideal.
    model : BrowsingModel
        The browsing model.
    dialect : {"duckdb", "spark"}, default "duckdb"
        SQL dialect (identifier quoting, ``VALUES`` syntax).
    metrics : sequence of str, default LIST_METRICS
        List metrics of the registry to compute (those needing relevance or ``n_relevant`` are left out without
        them).
    has_item : bool, default False
        The log has an item column: a ranking listing an item twice is counted (``bad_item``) and refused.
    ideal_max : int, optional
        The most relevant items a ranking can hold (the largest rank or ``n_relevant``): the ideal-DCG
        table stops at ``min(k, ideal_max)``, so a huge ``k`` costs nothing.

    Returns
    -------
    str
        The SQL text; its result has one row per user group.

    Examples
    --------
    >>> import duckdb, pandas as pd
    >>> sql = ranking_statistics_sql("log", cols={"user": "user", "rank": "rank", "item_group": "g"},
    ...                              item_groups=["a", "b"], k=2, model=BrowsingModel("geometric", 0.5))
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "g": ["a", "b", "b", "a"]})
    >>> con = duckdb.connect()
    >>> _ = con.register("log", log)
    >>> con.execute(sql).df()[["n_users", "s__x0", "s__x1", "c__x0__x1"]].values.tolist()
    [[2.0, 1.5, 1.5, 1.0]]
    """
    has_rel = "relevance" in cols
    has_sample = "sample" in cols
    has_nrel = "n_relevant" in cols
    has_ug = "user_group" in cols
    G = len(item_groups)
    select = rows_select(cols, dialect, ("user", "rank", "item_group", "sample", "relevance", "user_group",
                                         "n_relevant") + (("item",) if has_item else ()))
    w = model.sql("_k", model.above_sql("_u, _s" if has_sample else "_u") if has_rel else None)
    # per ranking: every check that needs a ranking (ranks exactly 1..n) or a user (constant
    # user group, n_relevant); the checks of single rows are made by the profile query
    per_rank = ["count(*) AS _n", "max(_k) AS _kmax", "sum(_k) AS _ksum", "sum(_k * _k) AS _ksq"]
    if has_item:                    # an item twice in one ranking: refused whatever is asked
        per_rank.append("CASE WHEN count(DISTINCT _i) <> count(*) THEN 1 ELSE 0 END AS _dup")
    if has_ug:
        per_rank += ["min(_ug) AS _ug", "max(_ug) AS _ug2"]
    if has_nrel:
        per_rank += ["min(_nrel) AS _nrel", "max(_nrel) AS _nrel2"]
    if has_rel:
        per_rank += ["sum(CASE WHEN _y > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END) AS _hits",
                     "sum(CASE WHEN _y > 0 THEN 1 / log2(_k + 1) ELSE CAST(0 AS DOUBLE) END) AS _dcg",
                     "max(CASE WHEN _y > 0 THEN 1 / _k ELSE CAST(0 AS DOUBLE) END) AS _rr"]
    for j, g in enumerate(item_groups):
        per_rank.append(f"sum(CASE WHEN _ig = {sql_literal(g)} THEN _e ELSE CAST(0 AS DOUBLE) END) AS _x{j}")
    if has_rel:
        for j, g in enumerate(item_groups):
            per_rank.append(f"sum(CASE WHEN _ig = {sql_literal(g)} THEN _y ELSE CAST(0 AS DOUBLE) END) AS _m{j}")
    V = [f"_x{j}" for j in range(G)] + ([f"_m{j}" for j in range(G)] if has_rel else [])
    bad_rank = ("CASE WHEN r._kmax <> r._n OR r._ksum <> r._n * (r._n + 1) / 2 "
                "OR r._ksq <> r._n * (r._n + 1) * (2 * r._n + 1) / 6 THEN 1 ELSE 0 END")
    metrics = _computable(metrics, cols)
    metric_sql = {m: list_value_sql(m, k) for m in metrics}
    keys = "_u, _s" if has_sample else "_u"
    inner = f"SELECT {keys}, {', '.join(per_rank)} FROM _e GROUP BY {keys}"
    if metrics:
        # the ideal DCG of n relevant items, n <= min(k, ideal_max): ranks beyond k are irrelevant and a
        # ranking holds at most the log's largest rank (or n_relevant's largest value) relevant items
        top = int(min(k, ideal_max)) if ideal_max is not None else int(k)
        idcg = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(2, top + 2)))]
        idcg_rows = ", ".join(f"({n}, CAST({float(v)!r} AS DOUBLE))" for n, v in enumerate(idcg))
        values = (f"VALUES {idcg_rows} AS t(_in, _idcg)" if dialect == "spark"
                  else f"(VALUES {idcg_rows}) AS t(_in, _idcg)")
        ideal = f"LEAST(CAST({'coalesce(r._nrel, r._hits)' if has_nrel else 'r._hits'} AS BIGINT), {top})"
        ranking = (f"SELECT r.*, {bad_rank} AS _bad, i._idcg FROM ({inner}) r "
                   f"LEFT JOIN ({f'SELECT * FROM {values}'}) i ON i._in = {ideal}")
    else:
        ranking = f"SELECT r.*, {bad_rank} AS _bad FROM ({inner}) r"
    carry = ["_n", "_bad", "_kmax"] + (["_dup"] if has_item else []) + (["_ug", "_ug2"] if has_ug else []) + (["_nrel", "_nrel2"] if has_nrel else [])
    if has_sample:                  # a user's rankings: averaged (expected exposure, mean metric)
        agg = {"_n": "sum(_n)", "_bad": "max(_bad)", "_kmax": "max(_kmax)", "_dup": "max(_dup)", "_ug": "min(_ug)", "_ug2": "max(_ug2)",
               "_nrel": "min(_nrel)", "_nrel2": "max(_nrel2)"}
        vals = ([f"{agg[c]} AS {c}" for c in carry] + [f"avg({v}) AS {v}" for v in V]
                + [f"avg({metric_sql[m]}) AS _met_{m}" for m in metrics])
        per_user = f"SELECT _u, {', '.join(vals)} FROM _r GROUP BY _u"
    else:                           # one ranking per user: no second aggregation over 10^7 users
        vals = carry + V + [f"{metric_sql[m]} AS _met_{m}" for m in metrics]
        per_user = f"SELECT _u, {', '.join(vals)} FROM _r"
    final = ["count(*) AS n_users", "sum(_n) AS n_rows", "sum(CASE WHEN _u IS NULL THEN 1 ELSE 0 END) AS null_user",
             "sum(_bad) AS bad_rank", "max(_kmax) AS kmax"]
    if has_item:
        final.append("sum(_dup) AS bad_item")
    if has_ug:
        final.append("sum(CASE WHEN _ug <> _ug2 THEN 1 ELSE 0 END) AS bad_ug")
    if has_nrel:
        final.append("sum(CASE WHEN _nrel <> _nrel2 THEN 1 ELSE 0 END) AS bad_nrel")
    final += [f"sum({v}) AS s_{v}" for v in V]
    final += [f"sum({a} * {b}) AS c_{a}_{b}" for i, a in enumerate(V) for b in V[i:]]
    for m in metrics:
        c = f"_met_{m}"
        final += [f"count({c}) AS {m}__n", f"sum({c}) AS {m}__sum", f"sum({c} * {c}) AS {m}__sum_sq",
                  f"min({c}) AS {m}__min", f"max({c}) AS {m}__max"]
    ug_out = "_ug" if has_ug else "'(all)' AS _ug"
    group = " GROUP BY _ug" if has_ug else ""
    return (f"WITH _rows AS (SELECT {select} FROM {table}), "
            f"_e AS (SELECT *, {w} AS _e FROM _rows), "
            f"_r AS ({ranking}), _pu AS ({per_user}) "
            f"SELECT {ug_out}, {', '.join(final)} FROM _pu{group}")


def _stats_from_rows(rows: list[dict], item_groups, has_rel, metrics, k, names) -> RankingStats:
    """:class:`RankingStats` from the one-row-per-user-group output of the query (checks included)."""
    if not rows:
        raise DataError(f"{names['log']} is empty: no ranked item")
    for r in rows:
        if r["null_user"]:
            raise DataError(f"{names['log']}: the user column has missing values")
        if r.get("bad_ug"):
            raise DataError(f"{names['log']}: {r['bad_ug']} user(s) have several values of {names['user_group']!r}: "
                            "a user group must be constant per user")
        if r["bad_rank"]:
            raise DataError(f"{names['log']}: {r['bad_rank']} user(s) have a ranking whose ranks are not exactly "
                            f"1..n (column {names['rank']!r}: each sampled ranking must list ranks 1, 2, ..., n once)")
        if r.get("bad_item"):
            raise DataError(f"{names['log']}: {r['bad_item']} user(s) have an item twice in one ranking; "
                            "each ranking must list an item once")
        if r.get("bad_nrel"):
            raise DataError(f"{names['log']}: n_relevant must be constant per user")
        if r["_ug"] is None or (isinstance(r["_ug"], float) and math.isnan(r["_ug"])):
            raise DataError(f"{names['log']}: the user-group column {names['user_group']!r} has missing values")
    rows = sorted(rows, key=lambda r: (str(type(r["_ug"])), r["_ug"]))
    G = len(item_groups)
    V = [f"_x{j}" for j in range(G)] + ([f"_m{j}" for j in range(G)] if has_rel else [])
    U = len(rows)
    sums = np.array([[float(r[f"s_{v}"] or 0.0) for v in V] for r in rows]).reshape(U, len(V))
    cross = np.zeros((U, len(V), len(V)))
    for u, r in enumerate(rows):
        for i, a in enumerate(V):
            for j in range(i, len(V)):
                cross[u, i, j] = cross[u, j, i] = float(r[f"c_{a}_{V[j]}"] or 0.0)
    recs = []
    for r in rows:
        for m in metrics:
            recs.append({"user_group": plain_value(r["_ug"]), "metric": m, "n": int(r[f"{m}__n"]),
                         "sum": float(r[f"{m}__sum"] or 0.0), "sum_sq": float(r[f"{m}__sum_sq"] or 0.0),
                         "min": None if r[f"{m}__min"] is None else float(r[f"{m}__min"]),
                         "max": None if r[f"{m}__max"] is None else float(r[f"{m}__max"])})
    return RankingStats(user_groups=tuple(plain_value(r["_ug"]) for r in rows), item_groups=tuple(item_groups),
                        n_users=np.array([int(r["n_users"]) for r in rows]), sums=sums, cross=cross,
                        moments=tuple(recs), k=int(k), n_rows=int(sum(r["n_rows"] for r in rows)), has_relevance=has_rel,
                        longest=int(max(r["kmax"] for r in rows)))


def _computable(metrics, cols) -> list[str]:
    """The list metrics whose roles the log has (the others are left out, as the log cannot give them)."""
    return [m for m in metrics if all(r in cols for r in REGISTRY[m].needs)]


@validate_params(**LOG_PARAMS, **BROWSING_PARAMS, k=OrNone(Integer(1)),
                 metrics=OneOrMore(Options(*LIST_METRICS)))
def ranking_statistics(source, *, item_group: str, user_group: str | None = None, item_groups=None,
                       user_groups=None, browsing: str = "geometric", patience: float = 0.5, stop: float = 0.5,
                       k: int | None = None, metrics=LIST_METRICS, backend: str = "auto", columns=None,
                       spark=None, memory_limit: str | None = None) -> RankingStats:
    """Reduce a top-k log to :class:`RankingStats` with ``backend``.

    Parameters
    ----------
    source : str, path, pandas.DataFrame, DuckDB relation or Spark DataFrame
        The log (CSV/Parquet file, folder or glob; or a DataFrame).
    item_group, user_group : str
        Group columns (of the log or of the side tables).
    item_groups, user_groups : pandas.DataFrame, optional
        Side tables ``item -> item_group`` and ``user -> user_group``.
    browsing, patience, stop
        Browsing model (:class:`ocef.exposure.browsing.BrowsingModel`).
    k : int, optional
        List length for precision and the nDCG ideal (default: the largest rank).
    metrics : sequence of str
        List metrics of the registry (:data:`ocef.exposure.user_metrics.LIST_METRICS`; computed
        when the log has the roles they need).
    backend : {"auto", "duckdb", "pandas", "spark"}
    columns : dict, optional
        Role renames (:func:`ocef.exposure.logs.read_log`).
    spark : SparkSession, optional
    memory_limit : str, optional
        DuckDB ``memory_limit`` for this query (e.g. ``"200MB"``; DuckDB spills to disk beyond it).

    Returns
    -------
    RankingStats

    Examples
    --------
    >>> log = pd.DataFrame({"user": [1, 1], "item": [5, 6], "rank": [1, 2], "g": ["a", "b"]})
    >>> st = ranking_statistics(log, item_group="g")
    >>> st.sums.tolist()
    [[1.0, 0.5]]
    """
    model = BrowsingModel(browsing, patience, stop)
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    backend = resolve_backend(backend, source)
    item_table = check_side(item_groups, (columns or {}).get("item", "item"), item_group, "item_groups")
    user_table = check_side(user_groups, (columns or {}).get("user", "user"), user_group, "user_groups")
    if backend == "pandas":
        return _pandas_statistics(source, item_group=item_group, user_group=user_group, item_table=item_table,
                                  user_table=user_table, model=model, k=k, metrics=metrics, columns=columns)
    log = open_sql(source, backend, item_group=item_group, user_group=user_group, item_table=item_table,
                   user_table=user_table, columns=columns, spark=spark, memory_limit=memory_limit)
    try:
        pr = log.profile
        k = pr.kmax if k is None else k
        rows = log.run(ranking_statistics_sql(log.table, cols=pr.cols, item_groups=pr.labels, k=k, model=model,
                                              dialect=log.dialect, metrics=metrics,
                                              has_item=pr.cols["item"] in log.have,
                                              ideal_max=max(pr.kmax, pr.nrel_max or 0)))
    finally:
        log.close()
    st = _stats_from_rows(rows, pr.labels, "relevance" in pr.cols, _computable(metrics, pr.cols), k, pr.names)
    return dataclasses.replace(st, item_counts=pr.item_counts, catalogue_source=pr.catalogue_source)


def _pandas_statistics(source, *, item_group, user_group, item_table, user_table, model, k, metrics, columns):
    """numpy implementation of the same statistics (an independent check of the SQL)."""
    import pandas as pd

    lg = pandas_log(source, item_group=item_group, user_group=user_group, item_table=item_table,
                    user_table=user_table, columns=columns)
    pr, y, rank, rcode, user_of_r = lg.profile, lg.relevance, lg.rank, lg.ranking, lg.ranking_user
    has_rel, has_nrel = "relevance" in pr.cols, "n_relevant" in pr.cols
    k = pr.kmax if k is None else k
    n_r, nu, G = len(lg.ranking_size), len(lg.users), len(pr.labels)
    e = model.log_weights(rank, rcode, y) if has_rel else model.weights(rank)
    X = np.zeros((nu, G))
    M = np.zeros((nu, G))
    np.add.at(X, (lg.user, lg.group), e)
    if has_rel:
        np.add.at(M, (lg.user, lg.group), y)
    X /= lg.n_rankings[:, None]
    M /= lg.n_rankings[:, None]
    V = np.hstack([X, M]) if has_rel else X
    ug_codes, ug_labels = pd.factorize(pd.Series(lg.user_group, dtype=object))
    ug_list = list(ug_labels)
    sort = sorted(range(len(ug_list)), key=lambda i: (str(type(ug_list[i])), ug_list[i]))
    used = _computable(metrics, pr.cols)
    per_u = {}
    if used:                        # the per-ranking aggregates of the list metrics, then the registry's formulas
        rel = (y > 0).astype(float)
        rr = np.zeros(n_r)
        np.maximum.at(rr, rcode, np.where(y > 0, 1.0 / rank, 0.0))
        a = {"hits": np.bincount(rcode, weights=rel, minlength=n_r), "k": int(k), "rr": rr,
             "dcg": np.bincount(rcode, weights=np.where(y > 0, 1.0 / np.log2(rank + 1), 0.0), minlength=n_r)}
        if has_nrel:
            nrel_u = pd.Series(lg.frame[pr.cols["n_relevant"]].to_numpy(dtype=float)).groupby(lg.user)
            if (nrel_u.nunique() > 1).any():
                raise DataError("log: n_relevant must be constant per user")
            a["n_relevant"] = nrel_u.first().to_numpy()[user_of_r]
        else:
            a["n_relevant"] = a["hits"]
        top = int(min(k, max(pr.kmax, np.nanmax(a["n_relevant"], initial=0))))   # ranks beyond k: irrelevant
        ideal = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(1, top + 1) + 1))]
        a["idcg"] = ideal[np.minimum(a["n_relevant"], top).astype(int)]
        for m in used:
            v = list_values(m, a)
            ok = ~np.isnan(v)
            num = np.bincount(user_of_r[ok], weights=v[ok], minlength=nu)
            den = np.bincount(user_of_r[ok], minlength=nu)
            with np.errstate(divide="ignore", invalid="ignore"):
                per_u[m] = np.where(den > 0, num / den, np.nan)
    U = len(ug_list)
    sums = np.zeros((U, V.shape[1]))
    cross = np.zeros((U, V.shape[1], V.shape[1]))
    n_users = np.zeros(U, dtype=np.int64)
    table = []
    for out_i, i in enumerate(sort):
        sel = ug_codes == i
        n_users[out_i] = sel.sum()
        sums[out_i] = V[sel].sum(axis=0)
        cross[out_i] = V[sel].T @ V[sel]
        for m in used:
            v = per_u[m][sel]
            v = v[~np.isnan(v)]
            table.append({"user_group": ug_list[i], "metric": m, "n": int(v.size), "sum": float(v.sum()),
                          "sum_sq": float(v @ v), "min": float(v.min()) if v.size else None,
                          "max": float(v.max()) if v.size else None})
    return RankingStats(user_groups=tuple(ug_list[i] for i in sort), item_groups=tuple(pr.labels), n_users=n_users,
                        sums=sums, cross=cross, moments=tuple(table), k=int(k),
                        n_rows=len(lg.frame), has_relevance=has_rel, item_counts=pr.item_counts,
                        catalogue_source=pr.catalogue_source, longest=int(pr.kmax))
