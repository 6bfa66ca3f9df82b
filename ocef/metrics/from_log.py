"""holisticai's recommender bias metrics computed from a top-k log instead of a score matrix.

:func:`seed004_from_log` reduces the log (docs/formats/rankings.md) where it lives (DuckDB, pandas or
Spark) to the few counts that :mod:`ocef.metrics.recommender`'s functions need; its SQL helpers are
the public ones of :mod:`ocef.backends` (shared with the exposure audit).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.backends import fetch_rows, plain_value, resolve_backend, source_kind, sql_identifier, sql_literal
from ocef.metrics.recommender import GINI_CONVENTION, REGISTRY
from ocef.validation import Boolean, Integer, validate_params

if TYPE_CHECKING:                 # annotations only: pandas is imported where it is used
    import pandas as pd

__all__ = ["seed004_from_log", "seed004_sql", "SEED004_LOG_REASONS", "SEED004_LOG_NO_INTERVAL"]

# ------------------------------------------------------------------ holisticai's bias metrics from the log

#: Why a top-k log cannot give a holisticai value that the score matrix gives (the ``*_reason`` fields).
SEED004_LOG_REASONS = {
    "no_score": "undefined: the log has no score column {col!r}; MAD is the difference of the groups' mean "
                "scores of the shown items",
    "normalize": "undefined: normalize=True min-max scales the scores by the minimum and maximum over every "
                 "scored entry of the whole users x items matrix, shown or not, and a top-k log carries only "
                 "the shown items' scores; pass score_bounds=(min, max) of the matrix",
    "no_relevance": "undefined: the log has no relevance column {col!r} and no relevant_items table; "
                    "precision, recall and F1 count the relevant items among the shown ones",
    "no_n_relevant": "undefined: {metric} divides by each user's number of relevant items in the whole "
                     "catalog, which a top-k log does not carry; give a column {col!r} or a relevant_items "
                     "table",
}


def _seed004_names(user, item, user_group, score, relevance, n_relevant, have, relevant_items) -> dict:
    """Role -> column of the log for :func:`seed004_from_log` (``score``, ``relevance``, ``n_relevant``
    only when present; with ``relevant_items`` relevance and n_relevant come from that table)."""
    missing = [c for c in (user, item) + ((user_group,) if user_group else ()) if c not in have]
    if missing:
        raise DataError(f"the log is missing column(s) {missing}; it has {list(have)}")
    cols = {"user": user, "item": item}
    if user_group:
        cols["user_group"] = user_group
    if score in have:
        cols["score"] = score
    if relevant_items is not None:
        clash = [c for c in (relevance, n_relevant) if c in have]
        if clash:
            raise ParameterError(f"relevance given twice: the log has column(s) {clash} and relevant_items is "
                                 "given; drop the columns or the table")
    else:
        for role, col in (("relevance", relevance), ("n_relevant", n_relevant)):
            if col in have:
                cols[role] = col
    return cols


def _relevant_tables(table, user: str, item: str, relevance: str):
    """``(pairs, counts)`` of a relevant-items side table: the distinct relevant ``(user, item)`` (rows
    with ``relevance > 0`` when the table has that column, else every row) and the number per user."""
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise ParameterTypeError(f"relevant_items must be a pandas DataFrame with columns {user!r} and {item!r}, "
                                 f"got {type(table).__name__}")
    missing = [c for c in (user, item) if c not in table.columns]
    if missing:
        raise DataError(f"relevant_items is missing column(s) {missing}; it has {list(table.columns)}")
    if table[[user, item]].isna().any().any():
        raise DataError(f"relevant_items: columns {user!r} and {item!r} have missing values")
    if relevance in table.columns:
        y = pd.to_numeric(table[relevance], errors="coerce")
        if y.isna().any() or (y < 0).any():
            raise DataError(f"relevant_items: {relevance!r} must be a number >= 0 on every row")
        table = table[y > 0]
    if table.duplicated([user, item]).any():
        raise DataError("relevant_items lists a (user, item) pair more than once")
    pairs = pd.DataFrame({"_ru": table[user].to_numpy(), "_ri": table[item].to_numpy(), "_rel": 1.0})
    counts = pairs.groupby("_ru", sort=False).size().astype(float).rename("_rn").reset_index()
    return pairs, counts


def _log_values(roles: dict) -> list:
    """The group values of :data:`ocef.metrics.recommender.REGISTRY` that a log with these roles gives."""
    return [m for m in REGISTRY.values() if m.log is not None and all(roles[r] for r in m.log.needs)]


def seed004_sql(table: str, *, cols: dict, dialect: str = "duckdb", relevant: bool = False) -> tuple[str, str, str]:
    """The three queries of :func:`seed004_from_log` (DuckDB or Spark dialect): per user group, the
    duplicate check, and per user group and item.

    The first returns one row per user group: ``n_users``, the checks (``null_user``, ``null_item``,
    ``bad_ug``, ``null_score``, ``null_rel``, ``ymin``, ``bad_nrel``, ``null_nrel``, ``nrel_min``,
    ``tp_over`` users with more relevant shown items than ``n_relevant``), ``arp_sum`` = Σ over
    users of the mean exposure count (over all users) of the items they are shown (ARP's
    numerator), the sums of MAD (``s_sum, s_n, s_min, s_max`` over the shown items' scores) and
    the sums over users of precision ``tp/n_shown``, recall ``tp/n_relevant`` (0 when
    ``n_relevant = 0``) and F1 ``2 tp/(n_shown + n_relevant)`` (``p_sum, r_sum, f_sum``). The
    second returns ``dup``, the rows that repeat an item of their user (a sort within users, which
    DuckDB spills to disk; a distinct count per user does not fit a small ``memory_limit`` at 10^8
    rows). The third returns ``_ug, _i, c``: the exposure count of each item per user group. With
    ``relevant=True`` the relevance and ``n_relevant`` come from the registered tables
    ``_ocef_rel_pairs(_ru, _ri, _rel)`` and ``_ocef_rel_n(_ru, _rn)``.

    Parameters
    ----------
    table : str
        The log's table (or a subquery in parentheses).
    cols : dict
        Role -> column: ``user, item`` and optionally ``user_group, score, relevance, n_relevant``.
    dialect : {"duckdb", "spark"}
    relevant : bool, default False
        Join the relevant-items tables.

    Returns
    -------
    tuple of str
        The per-group query, the duplicate query and the per-item query.

    Examples
    --------
    >>> groups, dups, items = seed004_sql("log", cols={"user": "u", "item": "i", "score": "s"})
    >>> "sum(_ss) AS s_sum" in groups and "GROUP BY _ug, _i" in items and "lag(_i)" in dups
    True
    """
    q = lambda c: sql_identifier(c, dialect)  # noqa: E731
    one, zero = "CAST(1 AS DOUBLE)", "CAST(0 AS DOUBLE)"
    has_s, has_ug = "score" in cols, "user_group" in cols
    has_y = relevant or "relevance" in cols
    has_nr = relevant or "n_relevant" in cols
    sel = [f"l.{q(cols['user'])} AS _u", f"l.{q(cols['item'])} AS _i",
           f"l.{q(cols['user_group'])} AS _ug" if has_ug else "'(all)' AS _ug"]
    if has_s:
        sel.append(f"CAST(l.{q(cols['score'])} AS DOUBLE) AS _s")
    src = f"{table} l"
    if relevant:
        sel += [f"coalesce(rp._rel, {zero}) AS _y", f"coalesce(rn._rn, {zero}) AS _nr"]
        src += (f" LEFT JOIN _ocef_rel_pairs rp ON rp._ru = l.{q(cols['user'])} AND rp._ri = l.{q(cols['item'])}"
                f" LEFT JOIN _ocef_rel_n rn ON rn._ru = l.{q(cols['user'])}")
    else:
        if has_y:
            sel.append(f"CAST(l.{q(cols['relevance'])} AS DOUBLE) AS _y")
        if has_nr:
            sel.append(f"CAST(l.{q(cols['n_relevant'])} AS DOUBLE) AS _nr")
    per_user = ["_u", "count(*) AS _n", "count(_i) AS _ni", "sum(_c) AS _cs",
                "min(_ug) AS _ug", "max(_ug) AS _ug2", "count(_ug) AS _ugn"]
    if has_s:
        per_user += ["sum(_s) AS _ss", "count(_s) AS _sn", "min(_s) AS _smin", "max(_s) AS _smax"]
    if has_y:
        per_user += [f"sum(CASE WHEN _y > 0 THEN {one} ELSE {zero} END) AS _tp", "count(_y) AS _yn",
                     "min(_y) AS _ymin"]
    if has_nr:
        per_user += ["min(_nr) AS _nr", "max(_nr) AS _nr2", "count(_nr) AS _nrn"]
    final = ["_ug", "count(*) AS n_users", "sum(_n) AS n_rows",
             "sum(CASE WHEN _u IS NULL THEN 1 ELSE 0 END) AS null_user", "sum(_n - _ni) AS null_item",
             "sum(_cs / _n) AS arp_sum", "sum(CASE WHEN _ug <> _ug2 OR _ugn < _n THEN 1 ELSE 0 END) AS bad_ug"]
    if has_s:
        final += ["sum(_n - _sn) AS null_score", "min(_smin) AS s_min", "max(_smax) AS s_max"]
    if has_y:
        final += ["sum(_n - _yn) AS null_rel", "min(_ymin) AS ymin"]
    if has_nr:
        final += ["sum(CASE WHEN _nr <> _nr2 THEN 1 ELSE 0 END) AS bad_nrel",
                  "sum(CASE WHEN _nrn < _n THEN 1 ELSE 0 END) AS null_nrel", "min(_nr) AS nrel_min"]
    if has_y and has_nr:
        final.append("sum(CASE WHEN _tp > _nr THEN 1 ELSE 0 END) AS tp_over")
    roles = {"score": has_s, "relevance": has_y, "n_relevant": has_nr}
    final += [f"{expr} AS {col}" for m in _log_values(roles) for col, expr in m.log.sql.items()]   # the registry's
    rows = f"WITH _l AS (SELECT {', '.join(sel)} FROM {src})"
    # each row carries its item's exposure count over all users (a join with a table of n_items rows)
    counted = ("_ic AS (SELECT _i AS _ci, CAST(count(*) AS DOUBLE) AS _c FROM _l GROUP BY _i), "
               "_lc AS (SELECT _l.*, _ic._c FROM _l LEFT JOIN _ic ON _l._i = _ic._ci)")
    groups = (f"{rows}, {counted}, _pu AS (SELECT {', '.join(per_user)} FROM _lc GROUP BY _u) "
              f"SELECT {', '.join(final)} FROM _pu GROUP BY _ug")
    dups = (f"SELECT count(*) AS dup FROM (SELECT _i, lag(_i) OVER (PARTITION BY _u ORDER BY _i) AS _p "
            f"FROM (SELECT {q(cols['user'])} AS _u, {q(cols['item'])} AS _i FROM {table}) _ui) _w WHERE _i = _p")
    items = f"{rows} SELECT _ug, _i, count(*) AS c FROM _l GROUP BY _ug, _i"
    return groups, dups, items


def _seed004_pandas(frame, cols: dict, pairs=None, counts=None) -> tuple[list[dict], dict]:
    """The rows of :func:`seed004_sql`'s two queries, computed by pandas (an independent check):
    the per-group rows as dicts, the per-item rows as ``{column: array}``."""
    import pandas as pd

    has_s, has_ug = "score" in cols, "user_group" in cols
    f = pd.DataFrame({"_u": frame[cols["user"]].to_numpy(), "_i": frame[cols["item"]].to_numpy(),
                      "_ug": frame[cols["user_group"]].to_numpy() if has_ug else "(all)"})
    if has_s:
        f["_s"] = pd.to_numeric(frame[cols["score"]], errors="coerce").to_numpy(dtype=float)
    if pairs is not None:
        f = f.merge(pairs, how="left", left_on=["_u", "_i"], right_on=["_ru", "_ri"]).drop(columns=["_ru", "_ri"])
        f = f.merge(counts, how="left", left_on="_u", right_on="_ru").drop(columns=["_ru"])
        f["_y"] = f.pop("_rel").fillna(0.0).astype(float)
        f["_nr"] = f.pop("_rn").fillna(0.0).astype(float)
    else:
        for role, name in (("relevance", "_y"), ("n_relevant", "_nr")):
            if role in cols:
                f[name] = pd.to_numeric(frame[cols[role]], errors="coerce").to_numpy(dtype=float)
    has_y, has_nr = "_y" in f, "_nr" in f
    if has_y:
        f["_hit"] = (f["_y"] > 0).astype(float)
    f["_c"] = f["_i"].map(f["_i"].value_counts()).astype(float)      # the item's exposure count, all users
    g = f.groupby("_u", dropna=False, sort=False)
    pu = pd.DataFrame({"_n": g.size(), "_nd": g["_i"].nunique(), "_ni": g["_i"].count(), "_cs": g["_c"].sum(),
                       "_ug": g["_ug"].first(), "_ugk": g["_ug"].nunique(dropna=False)})
    if has_s:
        pu["_ss"], pu["_sn"], pu["_smin"], pu["_smax"] = g["_s"].sum(), g["_s"].count(), g["_s"].min(), g["_s"].max()
    if has_y:
        pu["_tp"], pu["_yn"], pu["_ymin"] = g["_hit"].sum(), g["_y"].count(), g["_y"].min()
    if has_nr:
        pu["_nr"], pu["_nrk"], pu["_nrn"] = g["_nr"].min(), g["_nr"].nunique(), g["_nr"].count()
    pu = pu.reset_index()
    groups = []
    for ug, sub in pu.groupby("_ug", dropna=False, sort=False):
        n_sub = sub["_n"].astype(float)
        row = {"_ug": ug, "n_users": len(sub), "n_rows": int(sub["_n"].sum()),
               "null_user": int(sub["_u"].isna().sum()), "null_item": int((sub["_n"] - sub["_ni"]).sum()),
               "dup": int((sub["_ni"] - sub["_nd"]).sum()), "bad_ug": int((sub["_ugk"] > 1).sum()),
               "arp_sum": float((sub["_cs"] / n_sub).sum())}
        if has_s:
            row.update(null_score=int((sub["_n"] - sub["_sn"]).sum()), s_min=sub["_smin"].min(),
                       s_max=sub["_smax"].max())
        if has_y:
            row.update(null_rel=int((sub["_n"] - sub["_yn"]).sum()), ymin=sub["_ymin"].min())
        if has_nr:
            row.update(bad_nrel=int((sub["_nrk"] > 1).sum()), null_nrel=int((sub["_nrn"] < sub["_n"]).sum()),
                       nrel_min=sub["_nr"].min())
        if has_y and has_nr:
            row.update(tp_over=int((sub["_tp"].to_numpy() > sub["_nr"].to_numpy()).sum()))
        for m in _log_values({"score": has_s, "relevance": has_y, "n_relevant": has_nr}):   # the registry's sums
            row.update(m.log.pandas(sub))
        groups.append(row)
    items = f.groupby(["_ug", "_i"], dropna=False, sort=False).size().rename("c").reset_index()
    return groups, {c: items[c].to_numpy() for c in ("_ug", "_i", "c")}


def _seed004_rows(source, backend: str, cols_of, *, relevant_items, user: str, item: str, relevance: str,
                  spark=None, memory_limit=None):
    """Run :func:`seed004_sql`'s two queries with ``backend`` (or their pandas twin): ``(groups,
    items, cols)``. ``cols_of(have)`` maps the log's columns to the roles. A file read by DuckDB
    or Spark does not import pandas (about 70 MB of memory)."""
    from ocef.backends import duckdb_cursor, duckdb_table, log_frame, spark_table

    side = None if relevant_items is None else _relevant_tables(relevant_items, user, item, relevance)
    if backend == "pandas":
        frame = log_frame(source)
        cols = cols_of(frame.columns)
        groups, items = _seed004_pandas(frame, cols, *(side or (None, None)))
        _check_seed004_groups(groups, cols)
        return groups, items, cols
    if backend == "duckdb":
        con = duckdb_cursor()
        base, have = duckdb_table(con, source, "_ocef_s004_log")
        if side is not None:
            con.register("_ocef_rel_pairs", side[0])
            con.register("_ocef_rel_n", side[1])
        run = lambda sql: fetch_rows(con, sql)  # noqa: E731
        run_arrays = lambda sql: _duck_arrays(con, sql)  # noqa: E731
        dialect = "duckdb"
        if memory_limit is not None:
            con.execute(f"SET memory_limit = {sql_literal(str(memory_limit))}")
    else:
        spark, have = spark_table(source, "_ocef_s004_log", spark)
        base = "_ocef_s004_log"
        if side is not None:
            spark.createDataFrame(side[0]).createOrReplaceTempView("_ocef_rel_pairs")
            spark.createDataFrame(side[1]).createOrReplaceTempView("_ocef_rel_n")
        run = lambda sql: [r.asDict() for r in spark.sql(sql).collect()]  # noqa: E731

        def run_arrays(sql):
            rows = spark.sql(sql).collect()
            return {c: np.array([r[c] for r in rows], dtype=object if c == "_ug" else None)
                    for c in ("_ug", "_i", "c")}
        dialect = "spark"
    cols = cols_of(have)
    q_groups, q_dups, q_items = seed004_sql(base, cols=cols, dialect=dialect, relevant=side is not None)
    try:
        groups = run(q_groups)
        _check_seed004_groups(groups, cols, dup=int(run(q_dups)[0]["dup"]))
        items = run_arrays(q_items)                  # up to n_items x groups rows: arrays, not dicts
    finally:
        if dialect == "duckdb" and memory_limit is not None:
            con.execute("RESET memory_limit")
    return groups, items, cols


def _duck_arrays(con, sql) -> dict:
    """A DuckDB query's columns as numpy arrays (errors as :func:`fetch_rows`)."""
    import duckdb

    try:
        return con.sql(sql).fetchnumpy()
    except duckdb.Error as exc:
        raise DataError(f"the log cannot be aggregated by DuckDB: {str(exc).splitlines()[0]}") from None


def _check_seed004_groups(groups: list[dict], cols: dict, dup: int | None = None) -> None:
    """The errors of a log for :func:`seed004_from_log` (from the per-group rows; ``dup`` the
    duplicate rows when not in them)."""
    if not groups or sum(r["n_rows"] for r in groups) == 0:
        raise DataError("the log is empty: no recommended item")
    tot = lambda key: sum(int(r.get(key) or 0) for r in groups)  # noqa: E731
    if tot("null_user"):
        raise DataError(f"the log: column {cols['user']!r} has missing values")
    if tot("null_item"):
        raise DataError(f"the log: column {cols['item']!r} has {tot('null_item')} missing value(s)")
    if tot("dup") if dup is None else dup:
        raise DataError("the log lists an item twice for a user (holisticai's exposure is 0/1 per user and item)")
    if "user_group" in cols:
        if tot("bad_ug"):
            raise DataError(f"the log: {tot('bad_ug')} user(s) have several or missing values of "
                            f"{cols['user_group']!r}: a user group must be constant per user")
        if any(r["_ug"] is None or (isinstance(r["_ug"], float) and math.isnan(r["_ug"])) for r in groups):
            raise DataError(f"the log: the user-group column {cols['user_group']!r} has missing values")
    if tot("null_score"):
        raise DataError(f"the log: {tot('null_score')} shown item(s) have no {cols['score']!r} (a score matrix "
                        "never shows an unscored item)")
    ymins = [r["ymin"] for r in groups if r.get("ymin") is not None]
    if tot("null_rel") or (ymins and min(ymins) < 0):
        raise DataError(f"the log: relevance must be a number >= 0 on every row (found {tot('null_rel')} missing, "
                        f"minimum {min(ymins) if ymins else None})")
    if tot("bad_nrel") or tot("null_nrel"):
        raise DataError(f"the log: {cols.get('n_relevant', 'n_relevant')!r} must be given and constant per user "
                        f"({tot('null_nrel')} user(s) with missing values, {tot('bad_nrel')} with several)")
    nmins = [r["nrel_min"] for r in groups if r.get("nrel_min") is not None]
    if nmins and min(nmins) < 0:
        raise DataError(f"the log: n_relevant must be >= 0, found {min(nmins)}")
    if tot("tp_over"):
        raise DataError(f"the log: {tot('tp_over')} user(s) are shown more relevant items than their n_relevant "
                        "(n_relevant counts the user's relevant items in the whole catalog)")


def _ratio_reason(name: str, a: float, b: float) -> str | None:
    """``reason`` of a ratio a / b that is not finite (x/0 = inf, 0/0 = nan, as the matrix path)."""
    if b == 0 and a == 0:
        return f"undefined: both groups' {name} are 0 (0/0)"
    if b == 0:
        return f"infinite: the second group's {name} is 0"
    return None


#: Why :func:`seed004_from_log` prints no interval: it gives holisticai's sample statistics (the
#: ``value`` of :func:`ocef.metrics.recommender_bias`), whose intervals need a bootstrap over users.
SEED004_LOG_NO_INTERVAL = ("no valid interval: holisticai's plug-in values from the log; for intervals use "
                           "recommender_bias on the score matrix (bootstrap over users), exposure_fairness's "
                           "share intervals, or metric_frame on per-user precision/recall")


@validate_params(n_items=Integer(1), normalize=Boolean(), convention=GINI_CONVENTION)
def seed004_from_log(source, *, n_items: int, user_group: str | None = None, item: str = "item", user: str = "user",
                     score: str = "score", relevance: str = "relevance", n_relevant: str = "n_relevant",
                     relevant_items=None, normalize: bool = False, score_bounds=None,
                     convention: str = "holisticai", backend: str = "auto", spark=None,
                     memory_limit: str | None = None):
    """Every holisticai bias metric computed from a top-k log instead of a score matrix.

    The backend reduces the log to a few counts (per item and per user group) and the metrics are
    :mod:`ocef.metrics.recommender`'s functions of them: the item metrics of all users, and for each
    ordered pair ``(a, b)`` of user groups, a relative to b as holisticai (ETV, EKL, MAD, the ratios of
    average precision, recall and F1). A value the log cannot give is ``None`` with a
    ``<metric>_reason`` (:data:`SEED004_LOG_REASONS`). When it equals the matrix path, and why it may
    not: ``docs/guide/metrics.md`` ("From a top-k log at scale").

    Parameters
    ----------
    source : str, path, pandas.DataFrame or Spark DataFrame
        The log (file, folder, glob or DataFrame): ``user, item`` (0..n_items-1) at least; optionally
        ``score``, ``relevance`` (> 0 is relevant), ``n_relevant`` and the user-group column.
    n_items : int
        Size of the catalog (items never recommended count as 0 exposure).
    user_group : str, optional
        Column of the user groups; the pairs need it.
    item, user, score, relevance, n_relevant : str
        Column names.
    relevant_items : pandas.DataFrame, optional
        ``user, item [, relevance]``: the relevant items of each user (instead of the relevance and
        ``n_relevant`` columns).
    normalize : bool, default False
        MAD of min-max scaled scores (holisticai's ``normalize``); needs ``score_bounds``.
    score_bounds : tuple of float, optional
        ``(min, max)`` of the whole score matrix, for ``normalize=True``.
    convention : {"holisticai", "formula"}
        Gini convention (:func:`ocef.metrics.recommender.gini`).
    backend : {"auto", "duckdb", "pandas", "spark"}
        Where the log is reduced (``auto``: DuckDB for files, else the DataFrame's own).
    spark : SparkSession, optional
        For ``backend="spark"``.
    memory_limit : str, optional
        DuckDB ``memory_limit`` (e.g. ``"200MB"``; DuckDB spills to disk beyond it).

    Returns
    -------
    dict
        The item metrics; ``groups`` (``{g: {"n_users", "mean_score", "avg_precision", ...}}``);
        ``pairs`` (``{(a, b): {"exposure_total_variation", ..., "<name>_reason"}}``); ``reason``: plug-in
        values without intervals (:data:`SEED004_LOG_NO_INTERVAL`).

    Raises
    ------
    DataError
        Missing columns, an item listed twice for a user, ids outside 0..n_items-1, a group or
        ``n_relevant`` not constant per user, a score outside ``score_bounds``.
    ParameterError
        A bad ``n_items``, ``backend``, ``score_bounds``, or relevance given twice.

    Examples
    --------
    >>> log = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 0, 2], "ug": ["a", "a", "b", "b"],
    ...                     "score": [0.9, 0.5, 0.8, 0.4], "relevance": [1, 0, 1, 1]})
    >>> out = seed004_from_log(log, n_items=4, user_group="ug")
    >>> out["aggregate_diversity"], round(out["pairs"][("a", "b")]["mad"], 4)
    (0.75, 0.1)
    """
    from ocef.metrics import recommender as rec

    if score_bounds is not None:
        try:
            lo, hi = (float(v) for v in score_bounds)
        except (TypeError, ValueError):
            raise ParameterError(f"score_bounds must be (min, max), two numbers, got {score_bounds!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
            raise ParameterError(f"score_bounds must be finite with min < max, got {score_bounds!r}")
    backend = resolve_backend(backend, source)
    if source_kind(source) not in ("file", "pandas", "spark"):
        raise DataError(f"a top-k log must be a file path, a pandas DataFrame or a Spark DataFrame, got "
                        f"{source_kind(source)}")
    groups, items, cols = _seed004_rows(
        source, backend,
        lambda have: _seed004_names(user, item, user_group, score, relevance, n_relevant, have, relevant_items),
        relevant_items=relevant_items, user=user, item=item, relevance=relevance, spark=spark,
        memory_limit=memory_limit)
    relevant = relevant_items is not None
    has_s = "score" in cols
    has_y, has_nr = relevant or "relevance" in cols, relevant or "n_relevant" in cols
    ids = np.asarray(items["_i"])
    if not np.issubdtype(ids.dtype, np.integer) or ids.min() < 0 or ids.max() >= n_items:
        raise DataError(f"item ids must be integers in [0, {n_items - 1}] for the holisticai metrics")
    if has_s and score_bounds is not None:
        s_min = min(float(r["s_min"]) for r in groups if r.get("s_min") is not None)
        s_max = max(float(r["s_max"]) for r in groups if r.get("s_max") is not None)
        if s_min < lo or s_max > hi:
            raise DataError(f"the log's scores span [{s_min:g}, {s_max:g}], outside score_bounds {score_bounds!r} "
                            "(the bounds must be the min and max of the whole matrix)")
    ids = ids.astype(np.int64)
    c = np.asarray(items["c"], dtype=float)
    ugs = np.asarray(items["_ug"])
    c_all = np.bincount(ids, weights=c, minlength=n_items)
    n_active = sum(int(r["n_users"]) for r in groups)
    out = {k: float(v) for k, v in rec.item_metrics(c_all, np.zeros(n_items), n_active, convention=convention).items()}
    # ARP: rec.avg_popularity's Σ_i pop_i c_i (pop_i = Σ_{u shown i} 1/n_shown_u) summed by user instead of by
    # item, Σ_u Σ_{i shown to u} c_i / n_shown_u, which the backend adds up without a per-item join
    out["avg_recommendation_popularity"] = sum(float(r["arp_sum"]) for r in groups) / n_active
    # the registry's group values (aggregate()'s keys), None with a reason where the log cannot give them
    roles = {"score": has_s, "relevance": has_y, "n_relevant": has_nr}
    columns = {"score": score, "relevance": relevance, "n_relevant": n_relevant}
    values = [m for m in REGISTRY.values() if m.kind == "group" and m.log is not None]
    missing = {}                          # group value -> why the log cannot give it
    for m in values:
        lack = [r for r in m.log.needs if not roles[r]]
        if lack == ["n_relevant"]:
            missing[m.name] = SEED004_LOG_REASONS["no_n_relevant"].format(metric=m.log.noun, col=n_relevant)
        elif lack:
            key = "no_score" if lack[0] == "score" else "no_relevance"
            missing[m.name] = SEED004_LOG_REASONS[key].format(col=columns[lack[0]])
    if has_s and normalize and score_bounds is None:
        missing["mean_score"] = SEED004_LOG_REASONS["normalize"]
    per_group = {}
    for r in sorted(groups, key=lambda r: (str(type(plain_value(r["_ug"]))), plain_value(r["_ug"]))):
        g, n = plain_value(r["_ug"]), float(r["n_users"])
        sel = np.asarray(ugs == g, dtype=bool)
        vals = {"n_users": int(n), "counts": np.bincount(ids[sel], weights=c[sel], minlength=n_items)}
        for m in values:
            vals[m.name] = None if m.name in missing else m.log.value(r, n)
        if vals.get("mean_score") is not None and normalize:        # MAD of min-max scaled scores
            vals["mean_score"] = float(rec._scaled(vals["mean_score"], (lo, hi - lo)))
        per_group[g] = vals
    out["groups"] = {g: {k: v for k, v in vals.items() if k != "counts"} for g, vals in per_group.items()}
    out["pairs"] = {}
    if user_group:
        # the registry's pair metrics that compare a value the log gives (ETV, EKL first: the distributions)
        pairs = sorted((m for m in REGISTRY.values() if m.kind == "pair" and (
            m.compares == "dist" or m.compares in {v.name for v in values})), key=lambda m: m.compares != "dist")
        filled = {g: {k: (math.nan if x is None else x) for k, x in v.items()} for g, v in per_group.items()}
        for a, va in per_group.items():
            for b, vb in per_group.items():
                if a == b:
                    continue
                m = rec.pair_metrics(filled[a], filled[b])
                pair = {}
                for entry in pairs:
                    key, group_key = entry.name, entry.compares
                    if group_key in missing:
                        pair[key], pair[f"{key}_reason"] = None, missing[group_key]
                        continue
                    pair[key] = float(m[key])
                    if key == "exposure_total_variation":
                        continue
                    if key == "exposure_kl":
                        pair[f"{key}_reason"] = (None if math.isfinite(pair[key]) else
                                                 f"infinite: group {b!r} is never shown an item that group {a!r} is shown")
                        continue
                    pair[f"{key}_reason"] = (None if key == "mad" or math.isfinite(pair[key]) else
                                             _ratio_reason(group_key.replace("_", " "), va[group_key], vb[group_key]))
                out["pairs"][(a, b)] = pair
    out["reason"] = SEED004_LOG_NO_INTERVAL
    return out
