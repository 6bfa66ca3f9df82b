"""A top-k log reduced to the sufficient statistics of exposure fairness, where the log lives.

The log (docs/formats/rankings.md) is long: one row per (user, ranked item) with columns ``user,
item, rank`` (1 = top) and optionally ``relevance``, ``score``, ``sample`` (id of a sampled
ranking, for stochastic rankings), ``n_relevant`` (relevant items of the user in the whole
catalog, for recall and the nDCG ideal), the item-group and user-group columns (or side tables
``item_groups``/``user_groups`` joined on ``item``/``user``). Every provider-side exposure metric
of :func:`audit_exposure` and its interval is a function of, per user group,

* ``n`` users, ``Σ_u V_u`` and ``Σ_u V_u V_uᵀ``, with ``V_u = (X_u1..X_uG, M_u1..M_uG)``: the
  exposure ``X_ug`` user u gives item group g (mean over the user's sampled rankings of the
  browsing-model exposure of g's items) and the merit ``M_ug`` (mean over the rankings of the
  relevance of g's items);
* ``n``, ``Σ m``, ``Σ m²``, min, max of each per-user metric (precision, recall, nDCG, hit rate).

:func:`ranking_statistics` computes them with one query (``backend="duckdb"``, the default for
files; the same SQL on Spark, ``backend="spark"``) or with numpy (``backend="pandas"``, the default
for DataFrames). Only these few numbers leave the backend.
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ocef.errors import DataError, ParameterError, ParameterTypeError, ResourceLimitError
from ocef.results import Result

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["BACKENDS", "USER_METRICS", "RankingStats", "ExposureResult", "read_log", "ranking_statistics",
           "audit_exposure", "share_intervals", "ranking_statistics_sql"]

BACKENDS = ("auto", "duckdb", "pandas", "spark")
USER_METRICS = ("precision", "recall", "ndcg", "hit_rate")
#: Largest number of item groups (the statistics grow as (2G)²).
MAX_ITEM_GROUPS = 64
_ROLES = ("user", "item", "rank", "relevance", "sample", "n_relevant", "score")


BROWSING_MODELS = ("geometric", "dcg", "cascade")


def check_browsing(browsing, patience, stop=0.5) -> tuple[str, float, float]:
    """``(browsing, patience, stop)`` checked: a model of :data:`BROWSING_MODELS`, ``patience``
    in (0, 1) for geometric/cascade (ignored by dcg), ``stop`` in [0, 1] for cascade."""
    if browsing not in BROWSING_MODELS:
        raise ParameterError(f"browsing must be one of {BROWSING_MODELS}, got {browsing!r}")
    for name, value, low_open in (("patience", patience, True), ("stop", stop, False)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParameterTypeError(f"{name} must be a real number, got {value!r}")
    if not 0.0 < float(patience) < 1.0:
        raise ParameterError(f"patience must be in (0, 1), got {patience!r}")
    if not 0.0 <= float(stop) <= 1.0:
        raise ParameterError(f"stop must be in [0, 1], got {stop!r}")
    return browsing, float(patience), float(stop)



# ------------------------------------------------------------------ inputs

def read_log(source, *, columns=None):
    """A top-k log as a pandas DataFrame with the standard column names (small logs, tests, recipes).

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        CSV or Parquet file, folder or glob of Parquet files, or a DataFrame.
    columns : dict, optional
        ``{role: column}`` renames, roles ``user, item, rank, relevance, sample, n_relevant, score``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> read_log(pd.DataFrame({"uid": [1], "iid": [2], "pos": [1]}),
    ...          columns={"user": "uid", "item": "iid", "rank": "pos"}).columns.tolist()
    ['user', 'item', 'rank']
    """
    import pandas as pd

    from ocef.backends import _check_path, _duckdb_relation

    if isinstance(source, (str, os.PathLike)):
        frame = _duckdb_relation(_check_path(source))[0].df()
    elif isinstance(source, pd.DataFrame):
        frame = source
    else:
        raise DataError(f"a log must be a file path or a pandas DataFrame here, got {type(source).__name__}")
    renames = {v: k for k, v in (columns or {}).items()}
    return frame.rename(columns=renames)


def _resolve_backend(backend, source) -> str:
    from ocef.backends import source_kind

    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {BACKENDS}, got {backend!r}")
    kind = source_kind(source)
    if kind not in ("file", "pandas", "spark"):
        raise DataError(f"a top-k log must be a file path, a pandas DataFrame or a Spark DataFrame, got {kind}")
    if backend == "auto":
        return {"file": "duckdb", "pandas": "pandas", "spark": "spark"}[kind]
    if kind == "spark" and backend != "spark":
        raise ParameterError(f"a Spark DataFrame needs backend='spark', got backend={backend!r}")
    return backend


# ------------------------------------------------------------------ the statistics

@dataclass(frozen=True)
class RankingStats(Result):
    """Sufficient statistics of a top-k log (see the module docstring), made by :func:`ranking_statistics`.

    Every provider-side exposure metric of :func:`audit_exposure` and its interval is a function of
    ``n_users``, ``sums`` and ``cross`` per user group; the per-user metrics' intervals need only
    ``metrics``. The exposure ``X_ug`` of item group g for user u uses the browsing model of
    :func:`ocef.exposure.rank_exposure.position_weights`; the merit ``M_ug`` is the relevance of g's
    items in the user's list.

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
    metrics : pandas.DataFrame
        Per-user-metric moments: ``user_group, metric, n, sum, sum_sq, min, max``.
    k : int
        List length (largest rank, or the ``k`` given).
    n_rows : int
        Rows of the log.
    has_relevance : bool
        Whether the log has a relevance column (merit and per-user metrics present).

    Examples
    --------
    >>> import pandas as pd
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
    metrics: object
    k: int
    n_rows: int
    has_relevance: bool

    def to_frame(self):
        """One row per user group and item group: ``user_group, item_group, n_users, exposure, merit``
        (sums over users; merit NaN without relevance).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
        ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
        >>> ranking_statistics(log, item_group="genre").to_frame()
          user_group item_group  n_users  exposure  merit
        0      (all)          a        3       2.5    NaN
        1      (all)          b        3       2.0    NaN
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


def _q(col: str, dialect: str) -> str:
    return "`" + col.replace("`", "``") + "`" if dialect == "spark" else '"' + col.replace('"', '""') + '"'


def _lit(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return "'" + str(v).replace("'", "''") + "'"


def _weight_sql(browsing: str, patience: float, stop: float, dialect: str, has_sample: bool = True,
                has_rel: bool = True) -> str:
    if browsing == "geometric":
        return f"pow({patience!r}, _k - 1)"
    if browsing == "dcg":
        return "1.0 / log2(_k + 1)"
    if not has_rel:                 # no relevant item: the cascade is the geometric model
        return f"pow({patience!r}, _k - 1)"
    above = (f"coalesce(sum(CASE WHEN _y > 0 THEN 1 ELSE 0 END) OVER (PARTITION BY _u{', _s' if has_sample else ''} "
             "ORDER BY _k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)")
    return f"pow({patience!r}, _k - 1) * pow({1.0 - stop!r}, {above})"


def ranking_statistics_sql(table: str, *, cols: dict, item_groups, k: int, browsing: str, patience: float,
                           stop: float, dialect: str = "duckdb", metrics=USER_METRICS) -> str:
    """The one SQL query (DuckDB or Spark dialect) computing :class:`RankingStats` from ``table``.

    The query weights each row by the browsing model (``e_k = patience^(k−1)`` geometric,
    ``1/log2(k+1)`` DCG, or the cascade ``patience^(k−1) (1 − stop)^(relevant items above)``),
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
    browsing : {"geometric", "dcg", "cascade"}
        Browsing model (checked by :func:`check_browsing`).
    patience, stop : float
        Its parameters.
    dialect : {"duckdb", "spark"}, default "duckdb"
        SQL dialect (identifier quoting, ``VALUES`` syntax).
    metrics : sequence of str, default USER_METRICS
        Per-user metrics to compute (those needing relevance or ``n_relevant`` are left out without
        them).

    Returns
    -------
    str
        The SQL text; its result has one row per user group.

    Examples
    --------
    >>> import duckdb, pandas as pd
    >>> sql = ranking_statistics_sql("log", cols={"user": "user", "rank": "rank", "item_group": "g"},
    ...                              item_groups=["a", "b"], k=2, browsing="geometric", patience=0.5, stop=0.5)
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2], "g": ["a", "b", "b", "a"]})
    >>> con = duckdb.connect()
    >>> _ = con.register("log", log)
    >>> con.execute(sql).df()[["n_users", "s__x0", "s__x1", "c__x0__x1"]].values.tolist()
    [[2.0, 1.5, 1.5, 1.0]]
    """
    q = lambda c: _q(c, dialect)  # noqa: E731
    has_rel = "relevance" in cols
    has_sample = "sample" in cols
    has_nrel = "n_relevant" in cols
    has_ug = "user_group" in cols
    G = len(item_groups)
    select = [f"{q(cols['user'])} AS _u", f"CAST({q(cols['rank'])} AS DOUBLE) AS _k", f"{q(cols['item_group'])} AS _ig"]
    if has_sample:
        select.append(f"{q(cols['sample'])} AS _s")
    if has_rel:
        select.append(f"CAST({q(cols['relevance'])} AS DOUBLE) AS _y")
    if has_ug:
        select.append(f"{q(cols['user_group'])} AS _ug")
    if has_nrel:
        select.append(f"CAST({q(cols['n_relevant'])} AS DOUBLE) AS _nrel")
    w = _weight_sql(browsing, patience, stop, dialect, has_sample, has_rel)
    # per ranking: every check that needs a ranking (ranks exactly 1..n) or a user (constant
    # user group, n_relevant); the checks of single rows are made by the profile query
    per_rank = ["count(*) AS _n", "max(_k) AS _kmax", "sum(_k) AS _ksum", "sum(_k * _k) AS _ksq"]
    if has_ug:
        per_rank += ["min(_ug) AS _ug", "max(_ug) AS _ug2"]
    if has_nrel:
        per_rank += ["min(_nrel) AS _nrel", "max(_nrel) AS _nrel2"]
    if has_rel:
        per_rank += ["sum(CASE WHEN _y > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END) AS _hits",
                     "sum(CASE WHEN _y > 0 THEN 1 / log2(_k + 1) ELSE CAST(0 AS DOUBLE) END) AS _dcg"]
    for j, g in enumerate(item_groups):
        per_rank.append(f"sum(CASE WHEN _ig = {_lit(g)} THEN _e ELSE CAST(0 AS DOUBLE) END) AS _x{j}")
    if has_rel:
        for j, g in enumerate(item_groups):
            per_rank.append(f"sum(CASE WHEN _ig = {_lit(g)} THEN _y ELSE CAST(0 AS DOUBLE) END) AS _m{j}")
    V = [f"_x{j}" for j in range(G)] + ([f"_m{j}" for j in range(G)] if has_rel else [])
    bad_rank = ("CASE WHEN r._kmax <> r._n OR r._ksum <> r._n * (r._n + 1) / 2 "
                "OR r._ksq <> r._n * (r._n + 1) * (2 * r._n + 1) / 6 THEN 1 ELSE 0 END")
    metric_sql = {
        "precision": f"_hits / CAST({int(k)} AS DOUBLE)",
        "recall": "CASE WHEN _nrel > 0 THEN _hits / _nrel END",
        "ndcg": "CASE WHEN _idcg > 0 THEN _dcg / _idcg END",
        "hit_rate": "CASE WHEN _hits > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END",
    }
    metrics = [m for m in metrics if has_rel and (m != "recall" or has_nrel)]
    keys = "_u, _s" if has_sample else "_u"
    inner = f"SELECT {keys}, {', '.join(per_rank)} FROM _e GROUP BY {keys}"
    if metrics:
        idcg_rows = ", ".join(f"({n}, CAST({sum(1.0 / math.log2(i + 1) for i in range(1, n + 1))!r} AS DOUBLE))"
                              for n in range(int(k) + 1))
        values = (f"VALUES {idcg_rows} AS t(_in, _idcg)" if dialect == "spark"
                  else f"(VALUES {idcg_rows}) AS t(_in, _idcg)")
        ideal = f"LEAST(CAST({'coalesce(r._nrel, r._hits)' if has_nrel else 'r._hits'} AS INT), {int(k)})"
        ranking = (f"SELECT r.*, {bad_rank} AS _bad, i._idcg FROM ({inner}) r "
                   f"LEFT JOIN ({f'SELECT * FROM {values}'}) i ON i._in = {ideal}")
    else:
        ranking = f"SELECT r.*, {bad_rank} AS _bad FROM ({inner}) r"
    carry = ["_n", "_bad", "_kmax"] + (["_ug", "_ug2"] if has_ug else []) + (["_nrel", "_nrel2"] if has_nrel else [])
    if has_sample:                  # a user's rankings: averaged (expected exposure, mean metric)
        agg = {"_n": "sum(_n)", "_bad": "max(_bad)", "_kmax": "max(_kmax)", "_ug": "min(_ug)", "_ug2": "max(_ug2)",
               "_nrel": "min(_nrel)", "_nrel2": "max(_nrel2)"}
        vals = ([f"{agg[c]} AS {c}" for c in carry] + [f"avg({v}) AS {v}" for v in V]
                + [f"avg({metric_sql[m]}) AS _met_{m}" for m in metrics])
        per_user = f"SELECT _u, {', '.join(vals)} FROM _r GROUP BY _u"
    else:                           # one ranking per user: no second aggregation over 10^7 users
        vals = carry + V + [f"{metric_sql[m]} AS _met_{m}" for m in metrics]
        per_user = f"SELECT _u, {', '.join(vals)} FROM _r"
    final = ["count(*) AS n_users", "sum(_n) AS n_rows", "sum(CASE WHEN _u IS NULL THEN 1 ELSE 0 END) AS null_user",
             "sum(_bad) AS bad_rank", "max(_kmax) AS kmax"]
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
    return (f"WITH _rows AS (SELECT {', '.join(select)} FROM {table}), "
            f"_e AS (SELECT *, {w} AS _e FROM _rows), "
            f"_r AS ({ranking}), _pu AS ({per_user}) "
            f"SELECT {ug_out}, {', '.join(final)} FROM _pu{group}")


def profile_sql(table: str, *, cols: dict, dialect: str = "duckdb") -> str:
    """The profile query: one row per item group with the rows, the largest and smallest rank and
    the missing users, ranks and relevances (one scan of a few columns, few groups)."""
    q = lambda c: _q(c, dialect)  # noqa: E731
    rel = q(cols["relevance"]) if "relevance" in cols else None
    parts = [f"{q(cols['item_group'])} AS g", "count(*) AS n", f"count({q(cols['user'])}) AS n_user",
             f"count({q(cols['rank'])}) AS n_rank", f"max({q(cols['rank'])}) AS kmax",
             f"min({q(cols['rank'])}) AS kmin"]
    if rel:
        parts += [f"count({rel}) AS n_rel", f"min({rel}) AS ymin"]
    return f"SELECT {', '.join(parts)} FROM {table} GROUP BY {q(cols['item_group'])}"


def _check_profile(rows: list[dict], names: dict, has_rel: bool) -> tuple[list, int]:
    """Item-group labels and the largest rank from :func:`profile_sql`'s rows, or the error."""
    if not rows or sum(r["n"] for r in rows) == 0:
        raise DataError(f"{names['log']} is empty: no ranked item")
    labels = [_plain(r["g"]) for r in rows]
    missing = sum(r["n"] for r, lab in zip(rows, labels) if lab is None or lab != lab)
    if missing:
        raise DataError(f"{names['log']}: {missing} row(s) have no item group "
                        f"(column {names['item_group']!r} missing or not in the item_groups table)")
    if sum(r["n"] - r["n_user"] for r in rows):
        raise DataError(f"{names['log']}: the user column has missing values")
    if sum(r["n"] - r["n_rank"] for r in rows) or min(r["kmin"] for r in rows) < 1:
        raise DataError(f"{names['log']}: column {names['rank']!r} must hold ranks 1, 2, ... (no missing value, "
                        f"none below 1); found minimum {min(r['kmin'] for r in rows if r['kmin'] is not None)}")
    if has_rel:
        nulls = sum(r["n"] - r["n_rel"] for r in rows)
        ymin = min((r["ymin"] for r in rows if r["ymin"] is not None), default=0)
        if nulls or ymin < 0:
            raise DataError(f"{names['log']}: relevance must be a number >= 0 on every row "
                            f"(found {nulls} missing, minimum {ymin})")
    labels = sorted(labels, key=lambda v: (str(type(v)), v))
    return labels, int(max(r["kmax"] for r in rows))


def _stats_from_rows(rows: list[dict], item_groups, has_rel, metrics, k, names) -> RankingStats:
    """:class:`RankingStats` from the one-row-per-user-group output of the query (checks included)."""
    import pandas as pd

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
            recs.append({"user_group": _plain(r["_ug"]), "metric": m, "n": int(r[f"{m}__n"]),
                         "sum": float(r[f"{m}__sum"] or 0.0), "sum_sq": float(r[f"{m}__sum_sq"] or 0.0),
                         "min": None if r[f"{m}__min"] is None else float(r[f"{m}__min"]),
                         "max": None if r[f"{m}__max"] is None else float(r[f"{m}__max"])})
    table = pd.DataFrame(recs, columns=["user_group", "metric", "n", "sum", "sum_sq", "min", "max"])
    return RankingStats(user_groups=tuple(_plain(r["_ug"]) for r in rows), item_groups=tuple(item_groups),
                        n_users=np.array([int(r["n_users"]) for r in rows]), sums=sums, cross=cross,
                        metrics=table, k=int(k), n_rows=int(sum(r["n_rows"] for r in rows)), has_relevance=has_rel)


def _plain(v):
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    return v


def _roles(columns, have, *, item_group, user_group, item_table, user_table) -> dict:
    """Role -> column of the (joined) log; required roles checked."""
    cols = {r: r for r in _ROLES}
    cols.update(columns or {})
    unknown = set(columns or {}) - set(_ROLES)
    if unknown:
        raise ParameterError(f"columns keys must be among {_ROLES}, got {sorted(unknown)}")
    out = {r: cols[r] for r in ("user", "rank")}
    for r in ("relevance", "sample", "n_relevant"):
        if cols[r] in have:
            out[r] = cols[r]
    missing = [cols[r] for r in ("user", "rank") if cols[r] not in have]
    if item_group not in have and item_table is None:
        missing.append(item_group)
    if user_group is not None and user_group not in have and user_table is None:
        missing.append(user_group)
    if missing:
        raise DataError(f"the log is missing column(s) {missing}; it has {list(have)}")
    out["item_group"] = item_group
    out["item"] = cols["item"]
    if user_group is not None:
        out["user_group"] = user_group
    return out


def _side_join_sql(base: str, cols: dict, have, item_group, user_group, item_table, user_table, dialect) -> str:
    q = lambda c: _q(c, dialect)  # noqa: E731
    sql = "SELECT l.*"
    joins = ""
    if item_group not in have:
        sql += f", it.{q(item_group)}"
        joins += f" LEFT JOIN {item_table} it ON l.{q(cols['item'])} = it.{q(cols['item'])}"
    if user_group is not None and user_group not in have:
        sql += f", ut.{q(user_group)}"
        joins += f" LEFT JOIN {user_table} ut ON l.{q(cols['user'])} = ut.{q(cols['user'])}"
    return f"({sql} FROM {base} l{joins})" if joins else base


def _with_side_labels(labels, item_table, item_group) -> list:
    """The item groups of the log and, with a side table, every group it lists (a group never shown
    gets exposure 0 instead of being absent)."""
    if item_table is None:
        return labels
    extra = {_plain(v) for v in item_table[item_group].dropna().unique()}
    return sorted(set(labels) | extra, key=lambda v: (str(type(v)), v))


def _check_side(table, key, col, name):
    if table is None:
        return None
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise DataError(f"{name} must be a pandas DataFrame with columns {key!r} and {col!r}")
    missing = [c for c in (key, col) if c not in table.columns]
    if missing:
        raise DataError(f"{name} is missing column(s) {missing}; it has {list(table.columns)}")
    if table[key].duplicated().any():
        raise DataError(f"{name} lists some {key!r} more than once")
    return table[[key, col]]


def ranking_statistics(source, *, item_group: str, user_group: str | None = None, item_groups=None,
                       user_groups=None, browsing: str = "geometric", patience: float = 0.5, stop: float = 0.5,
                       k: int | None = None, metrics=USER_METRICS, backend: str = "auto", columns=None,
                       spark=None, memory_limit: str | None = None) -> RankingStats:
    """Reduce a top-k log to :class:`RankingStats` with ``backend``.

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The log (CSV/Parquet file, folder or glob; or a DataFrame).
    item_group, user_group : str
        Group columns (of the log or of the side tables).
    item_groups, user_groups : pandas.DataFrame, optional
        Side tables ``item -> item_group`` and ``user -> user_group``.
    browsing, patience, stop
        Browsing model (:func:`ocef.exposure.rank_exposure.position_weights`).
    k : int, optional
        List length for precision and the nDCG ideal (default: the largest rank).
    metrics : sequence of str
        Per-user metrics among :data:`USER_METRICS` (computed when a relevance column exists).
    backend : {"auto", "duckdb", "pandas", "spark"}
    columns : dict, optional
        Role renames (:func:`read_log`).
    spark : SparkSession, optional
    memory_limit : str, optional
        DuckDB ``memory_limit`` for this query (e.g. ``"200MB"``; DuckDB spills to disk beyond it).

    Returns
    -------
    RankingStats

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1], "item": [5, 6], "rank": [1, 2], "g": ["a", "b"]})
    >>> st = ranking_statistics(log, item_group="g")
    >>> st.sums.tolist()
    [[1.0, 0.5]]
    """
    browsing, patience, stop = check_browsing(browsing, patience, stop)
    metrics = list(metrics)
    bad = [m for m in metrics if m not in USER_METRICS]
    if bad:
        raise ParameterError(f"metrics must be among {USER_METRICS}, got {bad}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise ParameterError(f"k must be an integer >= 1, got {k!r}")
    backend = _resolve_backend(backend, source)
    item_table = _check_side(item_groups, (columns or {}).get("item", "item"), item_group, "item_groups")
    user_table = _check_side(user_groups, (columns or {}).get("user", "user"), user_group, "user_groups")
    if backend == "pandas":
        return _pandas_statistics(source, item_group=item_group, user_group=user_group, item_table=item_table,
                                  user_table=user_table, browsing=browsing, patience=patience, stop=stop, k=k,
                                  metrics=metrics, columns=columns)
    return _sql_statistics(source, backend, item_group=item_group, user_group=user_group, item_table=item_table,
                           user_table=user_table, browsing=browsing, patience=patience, stop=stop, k=k,
                           metrics=metrics, columns=columns, spark=spark, memory_limit=memory_limit)


def _sql_statistics(source, backend, *, item_group, user_group, item_table, user_table, browsing, patience, stop,
                    k, metrics, columns, spark, memory_limit):
    from ocef.backends import _check_path, _duckdb_relation, duckdb_cursor, _is_parquet

    dialect = "spark" if backend == "spark" else "duckdb"
    if dialect == "duckdb":
        if isinstance(source, (str, os.PathLike)):
            source = _check_path(source)
        con = duckdb_cursor()
        rel = _duckdb_relation(source)[0] if not isinstance(source, (str, os.PathLike)) else None
        if rel is None:
            path = os.fspath(source)
            pattern = path if not os.path.isdir(path) else os.path.join(path, "**", "*.parquet")
            base = (f"read_parquet('{pattern}', hive_partitioning = true)" if _is_parquet(path)
                    else f"read_csv('{path}', header = true)")
            have = con.sql(f"SELECT * FROM {base} LIMIT 0").columns
        else:
            con.register("_ocef_rank_log", rel)
            base, have = "_ocef_rank_log", rel.columns
        if item_table is not None:
            con.register("_ocef_item_groups", item_table)
        if user_table is not None:
            con.register("_ocef_user_groups", user_table)
        run = lambda sql: _duck_rows(con, sql)  # noqa: E731
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")
    else:
        from ocef.backends import _spark_view

        spark, have = _spark_view(source, "_ocef_rank_log", spark)
        base = "_ocef_rank_log"
        if item_table is not None:
            spark.createDataFrame(item_table).createOrReplaceTempView("_ocef_item_groups")
        if user_table is not None:
            spark.createDataFrame(user_table).createOrReplaceTempView("_ocef_user_groups")
        run = lambda sql: [r.asDict() for r in spark.sql(sql).collect()]  # noqa: E731
    cols = _roles(columns, have, item_group=item_group, user_group=user_group, item_table=item_table,
                  user_table=user_table)
    table = _side_join_sql(base, cols, have, item_group, user_group, "_ocef_item_groups", "_ocef_user_groups",
                           dialect)
    names = {"log": "log", "item_group": item_group, "user_group": user_group, "rank": cols["rank"]}
    has_rel = "relevance" in cols
    # the profile: item groups, the list length and the checks of single rows, in one light scan
    labels, kmax = _check_profile(run(profile_sql(table, cols=cols, dialect=dialect)), names, has_rel)
    labels = _with_side_labels(labels, item_table, item_group)
    if len(labels) > MAX_ITEM_GROUPS:
        raise ResourceLimitError(f"item_group {item_group!r} has {len(labels)} groups; at most {MAX_ITEM_GROUPS} "
                                 "are supported (the statistics grow as their square)")
    k = kmax if k is None else k
    sql = ranking_statistics_sql(table, cols=cols, item_groups=labels, k=k, browsing=browsing, patience=patience,
                                 stop=stop, dialect=dialect, metrics=metrics)
    used = [m for m in metrics if has_rel and (m != "recall" or "n_relevant" in cols)]
    try:
        rows = run(sql)
    finally:
        if dialect == "duckdb" and memory_limit is not None:
            con.execute("RESET memory_limit")
    return _stats_from_rows(rows, labels, has_rel, used, k, names)


def _duck_rows(con, sql):
    import duckdb

    try:
        res = con.sql(sql)
        names = res.columns
        return [dict(zip(names, r)) for r in res.fetchall()]
    except duckdb.Error as exc:
        raise DataError(f"the log cannot be aggregated by DuckDB: {str(exc).splitlines()[0]}") from None


def _pandas_statistics(source, *, item_group, user_group, item_table, user_table, browsing, patience, stop, k,
                       metrics, columns):
    """numpy implementation of the same statistics (an independent check of the SQL)."""
    import pandas as pd

    frame = read_log(source) if not isinstance(source, pd.DataFrame) else source
    cols = _roles(columns, frame.columns, item_group=item_group, user_group=user_group, item_table=item_table,
                  user_table=user_table)
    if item_group not in frame.columns:
        frame = frame.merge(item_table, how="left", left_on=cols["item"], right_on=cols["item"])
    if user_group is not None and user_group not in frame.columns:
        frame = frame.merge(user_table, how="left", left_on=cols["user"], right_on=cols["user"])
    if len(frame) == 0:
        raise DataError("log is empty: no ranked item")
    has_rel, has_sample, has_nrel = "relevance" in cols, "sample" in cols, "n_relevant" in cols
    if frame[item_group].isna().any():
        raise DataError(f"log: {int(frame[item_group].isna().sum())} row(s) have no item group "
                        f"(column {item_group!r} missing or not in the item_groups table)")
    labels = sorted((_plain(v) for v in frame[item_group].unique()), key=lambda v: (str(type(v)), v))
    labels = _with_side_labels(labels, item_table, item_group)
    if len(labels) > MAX_ITEM_GROUPS:
        raise ResourceLimitError(f"item_group {item_group!r} has {len(labels)} groups; at most {MAX_ITEM_GROUPS}")
    rank = frame[cols["rank"]].to_numpy(dtype=float)
    if np.isnan(rank).any():
        raise DataError(f"log: column {cols['rank']!r} has missing values")
    y = frame[cols["relevance"]].to_numpy(dtype=float) if has_rel else np.zeros(len(frame))
    if has_rel and (np.isnan(y).any() or (y < 0).any()):
        raise DataError("log: relevance must be a number >= 0 on every row")
    ucode, users = pd.factorize(frame[cols["user"]])
    if (ucode < 0).any():
        raise DataError(f"log: column {cols['user']!r} has missing values")
    scode = pd.factorize(frame[cols["sample"]])[0] if has_sample else np.zeros(len(frame), dtype=np.int64)
    rcode, _ = pd.factorize(pd.Series(ucode).astype(np.int64) * (scode.max() + 1) + scode)
    n_r = rcode.max() + 1
    # ranks 1..n exactly once per ranking
    cnt = np.bincount(rcode, minlength=n_r)
    kmax_r = np.full(n_r, -np.inf)
    np.maximum.at(kmax_r, rcode, rank)
    kmin_r = np.full(n_r, np.inf)
    np.minimum.at(kmin_r, rcode, rank)
    ksum = np.bincount(rcode, weights=rank, minlength=n_r)
    ksq = np.bincount(rcode, weights=rank * rank, minlength=n_r)
    bad = (kmin_r != 1) | (kmax_r != cnt) | (ksum != cnt * (cnt + 1) / 2) | (ksq != cnt * (cnt + 1) * (2 * cnt + 1) / 6)
    if bad.any():
        raise DataError(f"log: {len(np.unique(pd.Series(ucode)[bad[rcode]]))} user(s) have a ranking whose ranks "
                        f"are not exactly 1..n (column {cols['rank']!r}: each sampled ranking must list ranks 1, 2, "
                        "..., n once)")
    if k is None:
        k = int(rank.max())
    if browsing == "geometric":
        e = patience ** (rank - 1)
    elif browsing == "dcg":
        e = 1.0 / np.log2(rank + 1)
    else:
        order = np.lexsort((rank, rcode))
        rel_sorted = (y[order] > 0).astype(float)
        cum = np.cumsum(rel_sorted)
        start = np.r_[0, np.flatnonzero(np.diff(rcode[order])) + 1]
        first_cum = np.repeat(cum[start] - rel_sorted[start], np.diff(np.r_[start, len(order)]))
        above = np.empty(len(order))
        above[order] = cum - rel_sorted - first_cum
        e = patience ** (rank - 1) * (1 - stop) ** above
    user_of_r = np.zeros(n_r, dtype=np.int64)
    user_of_r[rcode] = ucode
    S = np.bincount(user_of_r, minlength=len(users)).astype(float)
    gcode = np.searchsorted(np.array(labels, dtype=object), frame[item_group].map(_plain).to_numpy(dtype=object)) \
        if all(isinstance(v, str) for v in labels) else np.array([labels.index(_plain(v)) for v in frame[item_group]])
    G = len(labels)
    nu = len(users)
    X = np.zeros((nu, G))
    M = np.zeros((nu, G))
    np.add.at(X, (ucode, gcode), e)
    if has_rel:
        np.add.at(M, (ucode, gcode), y)
    X /= S[:, None]
    M /= S[:, None]
    V = np.hstack([X, M]) if has_rel else X
    # user groups
    if user_group is not None:
        ug = pd.Series(frame[user_group].to_numpy()).groupby(ucode)
        if ug.nunique(dropna=False).max() > 1:
            raise DataError(f"log: some user(s) have several values of {user_group!r}: a user group must be constant per user")
        ug_of_user = ug.first().to_numpy()
        if pd.isna(ug_of_user).any():
            raise DataError(f"log: the user-group column {user_group!r} has missing values")
    else:
        ug_of_user = np.array(["(all)"] * nu, dtype=object)
    ug_codes, ug_labels = pd.factorize(pd.Series(ug_of_user, dtype=object).map(_plain))
    ug_list = [_plain(v) for v in ug_labels]
    sort = sorted(range(len(ug_list)), key=lambda i: (str(type(ug_list[i])), ug_list[i]))
    # per-user metrics (per ranking, then averaged over the user's rankings)
    table = []
    used = [m for m in metrics if has_rel and (m != "recall" or has_nrel)]
    if used:
        hits_r = np.bincount(rcode, weights=(y > 0).astype(float), minlength=n_r)
        dcg_r = np.bincount(rcode, weights=np.where(y > 0, 1.0 / np.log2(rank + 1), 0.0), minlength=n_r)
        if has_nrel:
            nrel_u = pd.Series(frame[cols["n_relevant"]].to_numpy(dtype=float)).groupby(ucode)
            if (nrel_u.nunique() > 1).any():
                raise DataError("log: n_relevant must be constant per user")
            nrel_u = nrel_u.first().to_numpy()
            nrel_r = nrel_u[user_of_r]
        else:
            nrel_r = hits_r
        ideal = np.r_[0.0, np.cumsum(1.0 / np.log2(np.arange(1, k + 1) + 1))]
        idcg_r = ideal[np.minimum(nrel_r, k).astype(int)]
        with np.errstate(divide="ignore", invalid="ignore"):
            per_r = {"precision": hits_r / k, "recall": np.where(nrel_r > 0, hits_r / nrel_r, np.nan),
                     "ndcg": np.where(idcg_r > 0, dcg_r / idcg_r, np.nan), "hit_rate": (hits_r > 0).astype(float)}
        per_u = {}
        for m in used:
            v = per_r[m]
            ok = ~np.isnan(v)
            num = np.bincount(user_of_r[ok], weights=v[ok], minlength=nu)
            den = np.bincount(user_of_r[ok], minlength=nu)
            with np.errstate(divide="ignore", invalid="ignore"):
                per_u[m] = np.where(den > 0, num / den, np.nan)
    U = len(ug_list)
    sums = np.zeros((U, V.shape[1]))
    cross = np.zeros((U, V.shape[1], V.shape[1]))
    n_users = np.zeros(U, dtype=np.int64)
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
    return RankingStats(user_groups=tuple(ug_list[i] for i in sort), item_groups=tuple(labels), n_users=n_users,
                        sums=sums, cross=cross,
                        metrics=pd.DataFrame(table, columns=["user_group", "metric", "n", "sum", "sum_sq", "min", "max"]),
                        k=int(k), n_rows=len(frame), has_relevance=has_rel)


# ------------------------------------------------------------------ intervals from the statistics

def share_intervals(n, sums, cross, *, target: str = "equal", n_groups: int | None = None,
                    confidence: float = 0.95) -> list[dict]:
    """Exposure share of each item group, its target and their difference and ratio, with
    delta-method intervals clustered by user (users independent), from :class:`RankingStats` moments.

    ``share_g = Σ_u X_ug / Σ_u T_u`` (``T_u = Σ_g X_ug``), a ratio of means; its influence per user is
    ``(X_ug - share_g T_u) / mean(T)``, so ``Var ≈ Σ_u IF_u² / (n (n - 1))``, a quadratic form in
    ``cross``. Target ``"equal"``: ``1/G``; ``"merit"``: ``Σ_u M_ug / Σ_u R_u`` (estimated; its
    influence enters the difference and the log-ratio). p-values: two-sided z tests of
    share = target (difference) — the ratio tests the same null.

    Parameters
    ----------
    n : int
        Users.
    sums : array_like, shape (V,)
    cross : array_like, shape (V, V)
        ``V = G`` (exposure only) or ``2G`` (exposure then merit).
    target : {"equal", "merit"}
    n_groups : int, optional
        Number of item groups G (default: ``len(sums)``, or half with merit).
    confidence : float, default 0.95

    Returns
    -------
    list of dict
        One per item group: ``share, share_se, target, difference, difference_se, ratio,
        log_ratio_se``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.5], [0.5, 1.0], [1.0, 0.5]])
    >>> r = share_intervals(3, X.sum(0), X.T @ X)
    >>> round(r[0]["share"], 4), r[0]["target"]
    (0.5556, 0.5)
    """
    s = np.asarray(sums, dtype=float)
    C = np.asarray(cross, dtype=float)
    G = n_groups if n_groups is not None else (len(s) // 2 if target == "merit" else len(s))
    if target == "merit" and len(s) != 2 * G:
        raise DataError("target='merit' needs the merit statistics: the log has no relevance column")
    n = float(n)
    tot_x = s[:G].sum()
    out = []
    denom = n * (n - 1.0)
    for g in range(G):
        share = s[g] / tot_x if tot_x > 0 else np.nan
        a_x = np.zeros(len(s))
        a_x[:G] = -share
        a_x[g] += 1.0
        a_x /= tot_x / n
        if target == "merit":
            tot_m = s[G:2 * G].sum()
            tgt = s[G + g] / tot_m if tot_m > 0 else np.nan
            a_m = np.zeros(len(s))
            a_m[G:2 * G] = -tgt
            a_m[G + g] += 1.0
            a_m /= tot_m / n
        else:
            tgt = 1.0 / G
            a_m = np.zeros(len(s))
        with np.errstate(divide="ignore", invalid="ignore"):
            var_s = a_x @ C @ a_x / denom if n > 1 else np.nan
            a_d = a_x - a_m
            var_d = a_d @ C @ a_d / denom if n > 1 else np.nan
            a_l = a_x / share - (a_m / tgt if target == "merit" else 0.0)
            var_l = a_l @ C @ a_l / denom if n > 1 else np.nan
            rec = {"share": share, "share_se": np.sqrt(max(var_s, 0.0)), "target": tgt,
                   "difference": share - tgt, "difference_se": np.sqrt(max(var_d, 0.0)),
                   "ratio": share / tgt, "log_ratio_se": np.sqrt(max(var_l, 0.0)) if share > 0 else np.nan}
            out.append({key: float(v) for key, v in rec.items()})
    return out


@dataclass(frozen=True)
class ExposureResult(Result):
    """Exposure fairness of a top-k log (:func:`ocef.exposure.rank_exposure.exposure_fairness`).

    Provider side: the share of the users' attention (browsing-model exposure) each item group
    receives, compared with a target share (equal, or merit-proportional), with intervals clustered
    by user and Holm-adjusted tests. Consumer side (with a user-group column): each user group vs
    the reference. ``to_frame()`` is ``groups``; ``summary()`` the differences from the target,
    most significant first.

    Attributes
    ----------
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
    target : {"equal", "merit"}
        The target shares.
    confidence : float
        Two-sided level of the intervals.
    ranking : RankingFairnessResult or None
        Per-user AWRF, NDKL and expected exposure by user group (only when
        :func:`ocef.exposure.rank_exposure.exposure_fairness` is given ``ranking_metrics``: a second
        pass over the log; :func:`ocef.exposure.rank_metrics.ranking_fairness`).

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
    ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
    >>> res = audit_exposure(log, item_group="genre")
    >>> res.groups[res.groups.statistic == "share"][["item_group", "estimate", "ci_low", "ci_high"]].round(3)
      item_group  estimate  ci_low  ci_high
    0          a     0.556   0.338    0.773
    3          b     0.444   0.227    0.662
    """

    overall: pd.DataFrame
    groups: pd.DataFrame
    pairs: pd.DataFrame
    users: object
    stats: object = field(repr=False)
    browsing: str = "geometric"
    patience: float = 0.5
    target: str = "equal"
    confidence: float = 0.95
    ranking: object = None

    def to_frame(self):
        """The per-group table ``groups`` (share, difference and ratio rows per user group and item group).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
        ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
        >>> audit_exposure(log, item_group="genre").to_frame().shape
        (6, 13)
        """
        return self.groups

    def summary(self):
        """The differences from the target share, most significant (smallest adjusted p-value) first.

        Returns
        -------
        pandas.DataFrame
            The ``difference`` rows of ``groups``.

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
        ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
        >>> audit_exposure(log, item_group="genre").summary()[["item_group", "estimate", "p_adjusted"]].round(3)
          item_group  estimate  p_adjusted
        0          a     0.056         1.0
        1          b    -0.056         1.0
        """
        g = self.groups
        return g[g["statistic"] == "difference"].sort_values("p_adjusted").reset_index(drop=True)

    def to_dict(self) -> dict:
        """``overall``, ``groups``, ``pairs``, ``users`` (its views) and the settings, JSON-ready.

        Returns
        -------
        dict

        Examples
        --------
        >>> import pandas as pd
        >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
        ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
        >>> sorted(audit_exposure(log, item_group="genre").to_dict())
        ['browsing', 'confidence', 'groups', 'overall', 'pairs', 'patience', 'target', 'users']
        """
        from ocef.results import jsonable

        out = {"overall": jsonable(self.overall), "groups": jsonable(self.groups), "pairs": jsonable(self.pairs),
               "users": None if self.users is None else {"groups": jsonable(self.users.groups),
                                                          "pairs": jsonable(self.users.pairs),
                                                          "overall": jsonable(self.users.overall)},
               "browsing": self.browsing, "patience": self.patience, "target": self.target,
               "confidence": self.confidence}
        if self.ranking is not None:              # only when asked for (ranking_metrics=)
            out["ranking"] = self.ranking.to_dict()
        return out


def _z_rows(ug, ig, n, r, z, level):
    from scipy.stats import norm

    reason = None if n >= 2 else "no valid interval: fewer than 2 users"
    rows = []
    est, se = r["share"], r["share_se"]
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "share", "target": r["target"],
                 # a share lies in [0, 1]: the interval is cut to it (the cut keeps its coverage)
                 "estimate": est, "ci_low": max(est - z * se, 0.0), "ci_high": min(est + z * se, 1.0),
                 "p_value": np.nan, "reason": reason})
    d, dse = r["difference"], r["difference_se"]
    p = float(2 * norm.sf(abs(d) / dse)) if dse > 0 and n >= 2 else np.nan
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "difference", "target": r["target"],
                 # share - target lies in [-target, 1 - target]
                 "estimate": d, "ci_low": max(d - z * dse, -r["target"]), "ci_high": min(d + z * dse, 1.0 - r["target"]),
                 "p_value": p,
                 "reason": reason if dse > 0 or n < 2 else "no valid interval: the share does not vary across users"})
    lr, lse = r["ratio"], r["log_ratio_se"]
    ok = lr > 0 and np.isfinite(lr) and lse == lse
    rows.append({"user_group": ug, "item_group": ig, "n_users": n, "statistic": "ratio", "target": r["target"],
                 "estimate": lr, "ci_low": float(np.exp(np.log(lr) - z * lse)) if ok else np.nan,
                 "ci_high": float(np.exp(np.log(lr) + z * lse)) if ok else np.nan, "p_value": p,
                 "reason": reason if ok else (reason or "no valid interval: the share is 0")})
    if n < 2:
        for row in rows:
            row["ci_low"] = row["ci_high"] = row["p_value"] = np.nan
    return rows


def audit_exposure(source, *, item_group: str, user_group=None, item_groups=None, user_groups=None,
                   browsing: str = "geometric", patience: float = 0.5, stop: float = 0.5, target: str = "equal",
                   k=None, metrics=("precision", "ndcg", "hit_rate"), reference=None, confidence: float = 0.95,
                   backend: str = "auto", columns=None, spark=None, memory_limit=None) -> ExposureResult:
    """Exposure fairness of a top-k log with intervals: the implementation of :func:`ocef.exposure.exposure_fairness`.

    Reduces the log to :class:`RankingStats` with ``backend`` (:func:`ranking_statistics`), then
    per user group (and ``"(all)"``) computes each item group's exposure share, its difference and
    ratio to the target share with delta-method intervals clustered by user
    (:func:`share_intervals`), Holm-adjusted over the differences; with ``user_group``, the
    differences of shares between each user group and the reference, and the per-user metrics by
    user group (:func:`ocef.exposure.by_group.metric_frame_from_moments`).

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The log ``user, item, rank [, score, relevance, sample, n_relevant]`` (docs/formats/rankings.md).
    item_group : str
        Column of the log (or of ``item_groups``) giving each item's group.
    user_group : str, optional
        Column of the log (or of ``user_groups``) giving each user's group (consumer side).
    item_groups, user_groups : pandas.DataFrame, optional
        Side tables ``item, <item_group>`` and ``user, <user_group>``.
    browsing : {"geometric", "dcg", "cascade"}, default "geometric"
        Browsing model (:func:`ocef.exposure.rank_exposure.position_weights`).
    patience, stop : float, default 0.5
        Browsing-model parameters (``stop``: the cascade's stop probability).
    target : {"equal", "merit"}, default "equal"
        Target shares: ``1/G`` per item group, or the share of relevance (needs ``relevance``).
    k : int, optional
        List length for precision (default: the largest rank of the log).
    metrics : sequence of str, default ("precision", "ndcg", "hit_rate")
        Per-user metrics compared across user groups (need ``relevance``; ``recall`` also
        ``n_relevant``).
    reference : optional
        Reference user group (default: the largest).
    confidence : float, default 0.95
        Two-sided level; a test is ``significant`` when its Holm-adjusted p-value is at most
        1 − ``confidence``.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        Counting backend (DuckDB for files, pandas for DataFrames).
    columns : dict, optional
        Role renames ``{"user": ..., "item": ..., "rank": ..., "relevance": ..., "sample": ...}``.
    spark : SparkSession, optional
        For ``backend="spark"``.
    memory_limit : str, optional
        DuckDB ``memory_limit`` for the query (e.g. ``"200MB"``).

    Returns
    -------
    ExposureResult

    Raises
    ------
    ocef.errors.ParameterError
        For an unknown ``target``, ``browsing``, metric or ``reference``, or a bad ``confidence``.
    ocef.errors.DataError
        For a malformed log, or ``target="merit"`` without a relevance column.

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [10, 20, 20, 10, 10, 30], "rank": [1, 2, 1, 2, 1, 2],
    ...                     "genre": ["a", "b", "b", "a", "a", "b"]})
    >>> res = audit_exposure(log, item_group="genre")
    >>> int(res.overall["n_users"].iloc[0]), round(float(res.overall["total_variation"].iloc[0]), 4)
    (3, 0.0556)
    """
    import pandas as pd
    from scipy.stats import norm

    from ocef.inference import holm_adjust
    from ocef.exposure.by_group import metric_frame_from_moments
    from ocef.validation import check_in_interval

    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    if target not in ("equal", "merit"):
        raise ParameterError(f"target must be 'equal' or 'merit', got {target!r}")
    st = ranking_statistics(source, item_group=item_group, user_group=user_group, item_groups=item_groups,
                            user_groups=user_groups, browsing=browsing, patience=patience, stop=stop, k=k,
                            metrics=metrics, backend=backend, columns=columns, spark=spark, memory_limit=memory_limit)
    if target == "merit" and not st.has_relevance:
        raise DataError("target='merit' needs a relevance column in the log")
    z = norm.ppf(0.5 + confidence / 2)
    G = len(st.item_groups)
    strata = list(zip(st.user_groups, st.n_users, st.sums, st.cross))
    if len(strata) > 1 or user_group is not None:
        strata = [("(all)", st.n_users.sum(), st.sums.sum(axis=0), st.cross.sum(axis=0))] + strata
    rows, per_group = [], {}
    for ug, n, s, c in strata:
        res = share_intervals(n, s, c, target=target, n_groups=G, confidence=confidence)
        per_group[ug] = (n, res)
        for ig, r in zip(st.item_groups, res):
            rows.append(_z_rows(ug, ig, int(n), r, z, confidence))
    groups = pd.DataFrame([r for rr in rows for r in rr])
    diff = groups["statistic"] == "difference"
    adj = holm_adjust(groups.loc[diff, "p_value"].to_numpy(dtype=float))
    groups["p_adjusted"] = np.nan
    groups.loc[diff, "p_adjusted"] = adj
    groups.loc[groups["statistic"] == "ratio", "p_adjusted"] = adj
    sig = (groups["p_adjusted"] <= 1 - confidence).astype(object)
    sig[groups["p_adjusted"].isna()] = None                     # no test (the share rows, or no interval)
    groups["significant"] = sig
    groups["confidence"] = confidence
    groups = groups[["user_group", "item_group", "n_users", "statistic", "target", "estimate", "ci_low", "ci_high",
                     "confidence", "p_value", "p_adjusted", "significant", "reason"]]
    # consumer side: user groups vs the reference
    prow = []
    ugs = list(st.user_groups)
    users = None
    if user_group is not None and len(ugs) > 1:
        ref = reference if reference is not None else ugs[int(np.argmax(st.n_users))]
        if ref not in ugs:
            raise ParameterError(f"reference must be one of the user groups {ugs}, got {reference!r}")
        nb, rb = per_group[ref]
        for ug in ugs:
            if ug == ref:
                continue
            na, ra = per_group[ug]
            for ig, a, b in zip(st.item_groups, ra, rb):
                d = a["share"] - b["share"]
                se = math.hypot(a["share_se"], b["share_se"])
                ok = na >= 2 and nb >= 2 and se > 0
                prow.append({"user_group": ug, "reference": ref, "item_group": ig, "statistic": "share difference",
                             "estimate": d, "ci_low": d - z * se if ok else np.nan,
                             "ci_high": d + z * se if ok else np.nan,
                             "p_value": float(2 * norm.sf(abs(d) / se)) if ok else np.nan,
                             "reason": None if ok else "no valid interval: fewer than 2 users or no variation"})
        if len(st.metrics):
            users = metric_frame_from_moments(st.metrics, by=["user_group"], reference=ref, confidence=confidence,
                                              binary=["hit_rate"])
    elif len(st.metrics):
        users = metric_frame_from_moments(st.metrics, by=["user_group"], confidence=confidence, binary=["hit_rate"])
    pairs = pd.DataFrame(prow, columns=["user_group", "reference", "item_group", "statistic", "estimate", "ci_low",
                                        "ci_high", "p_value", "reason"])
    pairs["p_adjusted"] = holm_adjust(pairs["p_value"].to_numpy(dtype=float)) if len(pairs) else []
    pairs["significant"] = pairs["p_adjusted"] <= 1 - confidence
    all_res = per_group[strata[0][0]][1]
    tv = 0.5 * sum(abs(r["difference"]) for r in all_res)
    overall = pd.DataFrame([{"n_users": int(st.n_users.sum()), "n_rows": st.n_rows, "n_item_groups": G,
                             "n_user_groups": len(ugs) if user_group is not None else 0, "k": st.k,
                             "browsing": browsing, "patience": patience if browsing != "dcg" else None,
                             "target": target, "total_variation": tv,
                             # a plug-in summary, biased upwards like holisticai's ETV: no interval is printed
                             "total_variation_reason": "no valid interval: a plug-in summary of the group "
                                                       "differences; read each group's difference, its interval "
                                                       "and its Holm-adjusted test"}])
    return ExposureResult(overall=overall, groups=groups, pairs=pairs, users=users, stats=st, browsing=browsing,
                          patience=patience, target=target, confidence=confidence)
