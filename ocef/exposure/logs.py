"""Reading a top-k log: the one prologue every exposure computation starts with.

The log (docs/formats/rankings.md) is long: one row per (user, ranked item) with the roles
:data:`ROLES` (``user, item, rank`` and optionally ``relevance, sample, n_relevant, score``), the
item-group and user-group columns (or side tables ``item_groups``/``user_groups`` joined on
``item``/``user``) and, for expected exposure, a ``judgments`` table. :func:`open_sql` opens it
where it lives (DuckDB or Spark) and profiles it in one light scan (item groups, list length,
items per group, the checks of single rows); :func:`pandas_log` is the same prologue in numpy
(codes of users, rankings and item groups, every check of a ranking). Both name what is wrong
with a log the same way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ocef.backends import BACKENDS, fetch_rows, plain_value, sql_identifier
from ocef.errors import DataError, ParameterError, ResourceLimitError
from ocef.validation import Instance, Name, Options, fill_doc

__all__ = ["LOG_PARAMS", "ROLES", "rows_select", "MAX_ITEM_GROUPS", "read_log", "check_side", "check_judgments", "log_roles", "LogProfile",
           "SqlLog", "open_sql", "PandasLog", "pandas_log", "raise_checks", "sort_labels"]

#: The columns a log may carry, by role (renamed with ``columns={role: column}``).
ROLES = ("user", "item", "rank", "relevance", "sample", "n_relevant", "score")
#: The declarations of the parameters that say where and how to read a log (every front door).
LOG_PARAMS = {"item_group": Name(), "user_group": Name(none=True), "backend": Options(*BACKENDS),
              "columns": Instance(dict, none=True), "memory_limit": Instance(str, none=True)}
#: The docstring blocks of the parameters the exposure front doors share (``%(name)s``).
fill_log_doc = fill_doc(
    sides="""
item_groups, user_groups : pandas.DataFrame, optional
    Side tables ``item, <item_group>`` and ``user, <user_group>``.""",
    browsing="""
browsing : {"geometric", "dcg", "cascade"}, default "geometric"
    Browsing model of the exposure (:class:`ocef.exposure.browsing.BrowsingModel`); the cascade
    reads the log's relevance.
patience, stop : float, default 0.5
    ``p`` in (0, 1) of the geometric and cascade models; the cascade's stop probability ``u``.""",
    judgments="""
judgments : pandas.DataFrame, optional
    ``user, item, relevance`` of every judged item of each user (TREC qrels): the target of
    expected exposure. Default: the log's ``relevance`` of the items shown.""",
    ranking="""
attention : {"trec", "browsing"}, default "trec"
    AWRF position weights: TREC 2022's ``1/log2(max(k, 2))`` or the browsing model's exposure.
awrf_target : "equal" or dict, default "equal"
    AWRF target distribution over the item groups (renormalised to sum 1).
ndkl_desired : dict, optional
    NDKL's desired distribution ``{item group: proportion}`` (default: each ranking's own).
complete : bool, default False
    Keep judgments with relevance <= 0 in the target (expeval ``-C``).""",
    backend="""
backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
    Counting backend: DuckDB for files, pandas or Spark for their DataFrames.
columns : dict, optional
    Role renames ``{"user": ..., "item": ..., "rank": ..., "relevance": ..., "sample": ...}``.
spark : SparkSession, optional
    For ``backend="spark"`` (default: a local session).
memory_limit : str, optional
    DuckDB ``memory_limit`` for the queries (e.g. ``"200MB"``).""")
#: Largest number of item groups (the statistics grow as (2G)²).
MAX_ITEM_GROUPS = 64
_ITEM_TABLE, _USER_TABLE, _JUDGMENTS, _LOG = "_ocef_item_groups", "_ocef_user_groups", "_ocef_judgments", "_ocef_rank_log"


def sort_labels(labels) -> list:
    """Labels sorted as every table of the audit sorts them (by type name, then value).

    Parameters
    ----------
    labels : iterable
        Group labels (plain Python scalars).

    Returns
    -------
    list

    Examples
    --------
    >>> sort_labels(["b", 2, "a", 1])
    [1, 2, 'a', 'b']
    """
    return sorted(labels, key=lambda v: (str(type(v)), v))


def read_log(source, *, columns=None):
    """A top-k log as a pandas DataFrame with the standard column names (small logs, tests, recipes).

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        CSV or Parquet file, folder or glob of Parquet files, or a DataFrame.
    columns : dict, optional
        ``{role: column}`` renames, roles :data:`ROLES`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> read_log(pd.DataFrame({"uid": [1], "iid": [2], "pos": [1]}),
    ...          columns={"user": "uid", "item": "iid", "rank": "pos"}).columns.tolist()
    ['user', 'item', 'rank']
    """
    from ocef.backends import Sql, log_frame

    if not (isinstance(source, (str, os.PathLike, Sql)) or type(source).__module__.split(".")[0] in ("pandas", "duckdb")):
        raise DataError(f"a log must be a file path or a pandas DataFrame here, got {type(source).__name__}")
    frame = log_frame(source)
    renames = {v: k for k, v in (columns or {}).items()}
    return frame.rename(columns=renames)


def check_side(table, key: str, col: str, name: str):
    """A side table ``key -> col`` checked (a DataFrame with both columns, each key once), or None.

    Parameters
    ----------
    table : pandas.DataFrame or None
        The side table.
    key, col : str
        Its key column (``item`` or ``user``) and its group column.
    name : str
        Its name, for the messages.

    Returns
    -------
    pandas.DataFrame or None
        The two columns.

    Examples
    --------
    >>> check_side(pd.DataFrame({"item": [1, 2], "g": ["a", "b"], "x": 0}), "item", "g", "item_groups").columns.tolist()
    ['item', 'g']
    """
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


def check_judgments(judgments, columns=None):
    """The judgments table ``user, item, relevance`` (TREC qrels) checked, or None.

    Parameters
    ----------
    judgments : pandas.DataFrame or None
        One row per judged (user, item).
    columns : dict, optional
        Role renames (as the log's).

    Returns
    -------
    pandas.DataFrame or None
        The three columns, in the order user, item, relevance.

    Examples
    --------
    >>> check_judgments(pd.DataFrame({"user": [1], "item": [2], "relevance": [1.0]})).shape
    (1, 3)
    """
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
    if (y < 0).any():                 # relevance grades of expected exposure are >= 0 (issue 28's campaign: accepted)
        raise DataError(f"judgments: column {roles['relevance']!r} must be >= 0 (relevance grades); found "
                        f"{float(y.min()):g}")
    if j.duplicated([roles["user"], roles["item"]]).any():
        raise DataError("judgments lists some (user, item) more than once")
    return j


def log_roles(columns, have, *, item_group, user_group=None, item_table=None, user_table=None) -> dict:
    """Role -> column of the (joined) log: the required roles checked, the optional ones present.

    Parameters
    ----------
    columns : dict or None
        Role renames.
    have : sequence of str
        The log's columns.
    item_group, user_group : str
        The group columns (of the log or of the side tables).
    item_table, user_table : pandas.DataFrame, optional
        The side tables.

    Returns
    -------
    dict
        ``user, rank, item, item_group`` always; ``relevance, sample, n_relevant, user_group`` when present.

    Examples
    --------
    >>> log_roles(None, ["user", "item", "rank", "g"], item_group="g")
    {'user': 'user', 'rank': 'rank', 'item_group': 'g', 'item': 'item'}
    """
    cols = {r: r for r in ROLES}
    cols.update(columns or {})
    unknown = set(columns or {}) - set(ROLES)
    if unknown:
        raise ParameterError(f"columns keys must be among {ROLES}, got {sorted(unknown)}")
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


def raise_checks(bad_rank, bad_ug, bad_item, names) -> None:
    """Raise the :class:`~ocef.errors.DataError` of the first failed check of the rankings (counts of users).

    Parameters
    ----------
    bad_rank, bad_ug, bad_item : int
        Users whose ranks are not 1..n, whose user group varies, who have an item twice in a ranking.
    names : dict
        ``rank`` and ``user_group`` column names.

    Returns
    -------
    None

    Examples
    --------
    >>> raise_checks(0, 0, 0, {"rank": "rank", "user_group": None})
    """
    if bad_rank:
        raise DataError(f"log: {int(bad_rank)} user(s) have a ranking whose ranks are not exactly 1..n (column "
                        f"{names['rank']!r}: each sampled ranking must list ranks 1, 2, ..., n once)")
    if bad_ug:
        raise DataError(f"log: {int(bad_ug)} user(s) have several values of {names['user_group']!r}: a user group "
                        "must be constant per user")
    if bad_item:
        raise DataError(f"log: {int(bad_item)} user(s) have an item twice in one ranking, or an item whose "
                        "relevance differs between the user's rankings")


def _labels(labels, item_table, item_group) -> list:
    """The item groups of the log and, with a side table, every group it lists (a group never shown
    gets exposure 0 instead of being absent)."""
    if item_table is not None:
        labels = set(labels) | {plain_value(v) for v in item_table[item_group].dropna().unique()}
    labels = sort_labels(labels)
    if len(labels) > MAX_ITEM_GROUPS:
        raise ResourceLimitError(f"item_group {item_group!r} has {len(labels)} groups; at most {MAX_ITEM_GROUPS} "
                                 "are supported (the statistics grow as their square)")
    return labels


def _catalogue(labels, counts: dict, item_table, item_key, item_group):
    """Items per item group: of the side table when given (the catalogue), else distinct items of the log."""
    if item_table is not None:
        sizes = item_table.dropna(subset=[item_group]).groupby(item_group)[item_key].nunique()
        counts = {plain_value(g): int(n) for g, n in sizes.items()}
        source = "the item_groups table"
    elif counts is None:
        return None, None
    else:
        source = "the items of the log"
    return tuple(int(counts.get(g, 0)) for g in labels), source


@dataclass(frozen=True)
class LogProfile:
    """What the prologue learnt of a log before any metric: roles, item groups, list length, catalogue.

    Attributes
    ----------
    cols : dict
        Role -> column (:func:`log_roles`).
    labels : list
        Item-group labels, sorted.
    kmax : int
        The largest rank.
    item_counts : tuple of int or None
        Items per item group (None without an item column or side table).
    catalogue_source : str or None
        Where ``item_counts`` come from.
    names : dict
        Column names for the messages.
    nrel_max : float or None
        The largest ``n_relevant`` (None without the column).

    Examples
    --------
    >>> LogProfile({"user": "user"}, ["a"], 3, (2,), "the items of the log", {}).kmax
    3
    """

    cols: dict
    labels: list
    kmax: int
    item_counts: tuple | None
    catalogue_source: str | None
    names: dict = field(repr=False)
    nrel_max: float | None = None


def _names(cols, item_group, user_group) -> dict:
    return {"log": "log", "item_group": item_group, "user_group": user_group, "rank": cols["rank"]}


# ------------------------------------------------------------------ DuckDB and Spark

@dataclass
class SqlLog:
    """A log opened where it lives: ``run(sql)`` returns rows as dicts, ``table`` is the relation with
    the side tables joined, ``judgments`` the name of the judgments table (or None), ``close()``
    resets the memory limit. Made by :func:`open_sql`.

    Attributes
    ----------
    run : callable
        ``sql -> list of dict``.
    table : str
        The joined relation (a name or a parenthesised query).
    dialect : {"duckdb", "spark"}
        SQL dialect.
    profile : LogProfile
        The log's profile.
    have : list
        The log's own columns.
    judgments : str or None
        The registered judgments table.
    close : callable
        Undo the session settings.

    Examples
    --------
    >>> log = open_sql(pd.DataFrame({"user": [1, 1], "item": [3, 4], "rank": [1, 2], "g": ["a", "b"]}),
    ...                "duckdb", item_group="g")
    >>> log.profile.labels, log.profile.kmax, log.profile.item_counts
    (['a', 'b'], 2, (1, 1))
    """

    run: object
    table: str
    dialect: str
    profile: LogProfile
    have: list
    judgments: str | None
    close: object


def _profile_sql(table: str, *, cols: dict, have, dialect: str) -> str:
    """One row per item group: rows, largest and smallest rank, missing users, ranks and relevances,
    distinct items (one scan of a few columns, few groups)."""
    q = lambda c: sql_identifier(c, dialect)  # noqa: E731
    rel = q(cols["relevance"]) if "relevance" in cols else None
    parts = [f"{q(cols['item_group'])} AS g", "count(*) AS n", f"count({q(cols['user'])}) AS n_user",
             f"count({q(cols['rank'])}) AS n_rank", f"max({q(cols['rank'])}) AS kmax",
             f"min({q(cols['rank'])}) AS kmin"]
    if rel:
        # max: NaN sorts above every number in DuckDB and Spark, so a NaN or infinite relevance shows here
        parts += [f"count({rel}) AS n_rel", f"min({rel}) AS ymin", f"max({rel}) AS ymax"]
    if "n_relevant" in cols:
        nrel = f"CAST({q(cols['n_relevant'])} AS DOUBLE)"
        parts += [f"count({nrel}) AS n_nrel", f"min({nrel}) AS nrel_min", f"max({nrel}) AS nrel_max"]
    if cols["item"] in have:
        parts.append(f"count(DISTINCT {q(cols['item'])}) AS n_items")
    return f"SELECT {', '.join(parts)} FROM {table} GROUP BY {q(cols['item_group'])}"


#: The short name (and SQL type) each role takes in the queries' first common table.
_ALIASES = {"user": ("_u", None), "rank": ("_k", "DOUBLE"), "item_group": ("_ig", None), "sample": ("_s", None),
            "relevance": ("_y", "DOUBLE"), "user_group": ("_ug", None), "n_relevant": ("_nrel", "DOUBLE"),
            "item": ("_i", None)}


def rows_select(cols: dict, dialect: str, roles=("user", "rank", "item_group", "sample", "relevance", "user_group")):
    """The SELECT list of the queries' first common table: each role present in ``cols`` under its short
    name (``_u, _k, _ig, _s, _y, _ug, _nrel, _i``), the numbers cast to DOUBLE.

    Parameters
    ----------
    cols : dict
        Role -> column (:func:`log_roles`).
    dialect : {"duckdb", "spark"}
        SQL dialect.
    roles : sequence of str
        The roles wanted (those absent from ``cols`` are left out).

    Returns
    -------
    str

    Examples
    --------
    >>> rows_select({"user": "uid", "rank": "pos", "item_group": "g"}, "duckdb")
    '"uid" AS _u, CAST("pos" AS DOUBLE) AS _k, "g" AS _ig'
    """
    out = []
    for role in roles:
        if role in cols:
            alias, cast = _ALIASES[role]
            col = sql_identifier(cols[role], dialect)
            out.append(f"CAST({col} AS {cast}) AS {alias}" if cast else f"{col} AS {alias}")
    return ", ".join(out)


def _check_profile(rows: list[dict], names: dict, has_rel: bool) -> tuple[list, int]:
    """Item-group labels and the largest rank from the profile's rows, or the error."""
    if not rows or sum(r["n"] for r in rows) == 0:
        raise DataError(f"{names['log']} is empty: no ranked item")
    labels = [plain_value(r["g"]) for r in rows]
    missing = sum(r["n"] for r, lab in zip(rows, labels) if lab is None or lab != lab)
    if missing:
        raise DataError(f"{names['log']}: {missing} row(s) have no item group "
                        f"(column {names['item_group']!r} missing or not in the item_groups table)")
    if sum(r["n"] - r["n_user"] for r in rows):
        raise DataError(f"{names['log']}: the user column has missing values")
    text = [r[c] for r in rows for c in ("kmin", "kmax") if r[c] is not None and not isinstance(r[c], (int, float))]
    if text:                          # a text rank column (issue 28's campaign: a ValueError traceback)
        first = min(text, key=str)    # the same value whatever order DuckDB returns the groups in
        raise DataError(f"{names['log']}: column {names['rank']!r} must hold numeric ranks 1, 2, ...; found "
                        f"{type(first).__name__} values such as {first!r}")
    ks = [float(r[c]) for r in rows for c in ("kmin", "kmax") if r[c] is not None]
    if sum(r["n"] - r["n_rank"] for r in rows) or not all(v == v and abs(v) < float("inf") for v in ks) \
            or min(ks) < 1:                  # NaN, inf and 1e400 ranks: a one-line error, not an int() overflow
        raise DataError(f"{names['log']}: column {names['rank']!r} must hold ranks 1, 2, ... (no missing, NaN or "
                        f"infinite value, none below 1); found values from {min(ks, default=float('nan')):g} to "
                        f"{max(ks, default=float('nan')):g}")
    n_rows = sum(r["n"] for r in rows)
    kmax = max(r["kmax"] for r in rows)
    def span(count, low, high):       # NaN-aware over the item groups (Python's max ignores a NaN after a number)
        lows = [float(r[low]) for r in rows if r[low] is not None]
        highs = [float(r[high]) for r in rows if r[high] is not None]
        nan = any(v != v for v in lows + highs)
        return (sum(r["n"] - r[count] for r in rows), min(lows, default=0.0),
                float("nan") if nan else max(highs, default=0.0))

    check_values(names, n_rows=n_rows, kmax=kmax, relevance=span("n_rel", "ymin", "ymax") if has_rel else None,
                 n_relevant=span("n_nrel", "nrel_min", "nrel_max") if "n_nrel" in rows[0] else None)
    return labels, int(kmax)


#: The largest relevance accepted: its squares and cubes (the moments of the intervals) stay finite.
MAX_RELEVANCE = 1e100


def check_values(names, *, n_rows, kmax, relevance=None, n_relevant=None) -> None:
    """Refuse a log whose numbers no answer can be computed from, before any work proportional to them.

    Parameters
    ----------
    names : dict
        Column names for the messages (``log``, ``rank``).
    n_rows : int
        Rows of the log.
    kmax : float
        The largest rank (larger than the rows of the whole log: not a rank of a 1..n ranking).
    relevance, n_relevant : tuple, optional
        ``(missing, minimum, maximum)`` of the column, when the log has it.

    Raises
    ------
    ocef.errors.DataError
        For a rank above the number of rows, a missing, negative, NaN or infinite (or above
        :data:`MAX_RELEVANCE`) relevance, a missing, negative or non-finite ``n_relevant``.

    Examples
    --------
    >>> check_values({"log": "log", "rank": "rank"}, n_rows=200, kmax=1e9)
    Traceback (most recent call last):
    ...
    ocef.errors.DataError: log: column 'rank' reaches 1000000000 but the log has 200 rows: ranks must be exactly 1..n per ranking
    """
    log = names.get("log", "log")
    if kmax > n_rows:
        raise DataError(f"{log}: column {names.get('rank', 'rank')!r} reaches {kmax:.0f} but the log has {n_rows} "
                        "rows: ranks must be exactly 1..n per ranking")
    if relevance is not None:
        nulls, low, high = relevance
        if nulls or low < 0 or not high <= MAX_RELEVANCE:
            raise DataError(f"{log}: relevance must be a finite number >= 0 and <= {MAX_RELEVANCE:g} on every row "
                            f"(found {nulls} missing, minimum {low}, maximum {high}); rescale or clean the column")
    if n_relevant is not None:
        nulls, low, high = n_relevant
        if nulls or low < 0 or not high < 2 ** 53:
            raise DataError(f"{log}: n_relevant must be a finite count >= 0 on every row "
                            f"(found {nulls} missing, minimum {low}, maximum {high})")


def open_sql(source, backend: str, *, item_group: str, user_group=None, item_table=None, user_table=None,
             judgments=None, columns=None, spark=None, memory_limit=None) -> SqlLog:
    """Open a log with DuckDB or Spark, join the side tables and profile it (the log never enters Python).

    Parameters
    ----------
    source : str, path, pandas.DataFrame, DuckDB relation or Spark DataFrame
        The log.
    backend : {"duckdb", "spark"}
        Where to run the queries.
    item_group, user_group : str
        Group columns (of the log or of the side tables).
    item_table, user_table, judgments : pandas.DataFrame, optional
        Checked side tables (:func:`check_side`, :func:`check_judgments`).
    columns : dict, optional
        Role renames.
    spark : SparkSession, optional
        For ``backend="spark"``.
    memory_limit : str, optional
        DuckDB ``memory_limit`` while the log is open (e.g. ``"200MB"``).

    Returns
    -------
    SqlLog

    Examples
    --------
    >>> log = open_sql(pd.DataFrame({"user": [1], "rank": [1], "g": ["a"]}), "duckdb", item_group="g")
    >>> log.run(f"SELECT count(*) AS n FROM {log.table}")
    [{'n': 1}]
    """
    from ocef.backends import duckdb_cursor, duckdb_table, memory_limited, spark_table

    tables = ((_ITEM_TABLE, item_table), (_USER_TABLE, user_table), (_JUDGMENTS, judgments))
    if backend == "duckdb":
        dialect = "duckdb"
        con = duckdb_cursor()
        base, have = duckdb_table(con, source, _LOG)
        for name, tab in tables:
            if tab is not None:
                con.register(name, tab)
        limited = memory_limited(memory_limit)      # the one mechanism of every memory limit
        limited.__enter__()

        def run(sql):
            return fetch_rows(con, sql)

        def close():
            limited.__exit__(None, None, None)
    else:
        dialect = "spark"
        spark, have = spark_table(source, _LOG, spark)
        base = _LOG
        for name, tab in tables:
            if tab is not None:
                spark.createDataFrame(tab).createOrReplaceTempView(name)

        def run(sql):
            return [r.asDict() for r in spark.sql(sql).collect()]

        def close():
            return None
    try:
        cols = log_roles(columns, have, item_group=item_group, user_group=user_group, item_table=item_table,
                         user_table=user_table)
        q = lambda c: sql_identifier(c, dialect)  # noqa: E731
        select, joins = "SELECT l.*", ""
        if item_group not in have:
            select += f", it.{q(item_group)}"
            joins += f" LEFT JOIN {_ITEM_TABLE} it ON l.{q(cols['item'])} = it.{q(cols['item'])}"
        if user_group is not None and user_group not in have:
            select += f", ut.{q(user_group)}"
            joins += f" LEFT JOIN {_USER_TABLE} ut ON l.{q(cols['user'])} = ut.{q(cols['user'])}"
        table = f"({select} FROM {base} l{joins})" if joins else base
        names = _names(cols, item_group, user_group)
        rows = run(_profile_sql(table, cols=cols, have=have, dialect=dialect))
        labels, kmax = _check_profile(rows, names, "relevance" in cols)
        nrel_max = max((float(r["nrel_max"]) for r in rows if r.get("nrel_max") is not None), default=None)
        counts = ({plain_value(r["g"]): int(r["n_items"]) for r in rows} if cols["item"] in have else None)
        labels = _labels(labels, item_table, item_group)
        item_counts, source_of = _catalogue(labels, counts, item_table, cols["item"], item_group)
    except BaseException:
        close()
        raise
    profile = LogProfile(cols=cols, labels=labels, kmax=kmax, item_counts=item_counts,
                         catalogue_source=source_of, names=names, nrel_max=nrel_max)
    return SqlLog(run=run, table=table, dialect=dialect, profile=profile, have=have,
                  judgments=None if judgments is None else _JUDGMENTS, close=close)


# ------------------------------------------------------------------ numpy

@dataclass
class PandasLog:
    """A log read into numpy: the rows coded by user, ranking and item group, every check of a
    ranking made. Made by :func:`pandas_log`.

    Attributes
    ----------
    frame : pandas.DataFrame
        The log with the side tables joined.
    profile : LogProfile
        Roles, item groups, list length, catalogue.
    rank, relevance : numpy.ndarray
        Per row (relevance 0 without a relevance column).
    user, ranking, group, sample : numpy.ndarray of int
        Per row: code of the user, of the ranking (user × sample), of the item group, of the sample.
    users : pandas.Index
        The users, in code order.
    ranking_user : numpy.ndarray of int
        The user of each ranking.
    n_rankings : numpy.ndarray of float
        Rankings per user (``S_u``).
    ranking_size : numpy.ndarray of float
        Rows per ranking.
    user_group : numpy.ndarray
        The user group of each user (``"(all)"`` without a user-group column).

    Examples
    --------
    >>> lg = pandas_log(pd.DataFrame({"user": [1, 1, 2], "rank": [1, 2, 1], "g": ["a", "b", "a"]}), item_group="g")
    >>> lg.group.tolist(), lg.n_rankings.tolist()
    ([0, 1, 0], [1.0, 1.0])
    """

    frame: object
    profile: LogProfile
    rank: np.ndarray
    relevance: np.ndarray
    user: np.ndarray
    ranking: np.ndarray
    group: np.ndarray
    sample: np.ndarray
    users: object
    ranking_user: np.ndarray
    n_rankings: np.ndarray
    ranking_size: np.ndarray
    user_group: np.ndarray


def pandas_log(source, *, item_group: str, user_group=None, item_table=None, user_table=None,
               columns=None) -> PandasLog:
    """The prologue in numpy: read, join the side tables, check and code the log (the independent
    check of :func:`open_sql` and the SQL).

    Parameters
    ----------
    source : str, path, pandas.DataFrame or DuckDB relation
        The log.
    item_group, user_group : str
        Group columns.
    item_table, user_table : pandas.DataFrame, optional
        Checked side tables.
    columns : dict, optional
        Role renames.

    Returns
    -------
    PandasLog

    Examples
    --------
    >>> pandas_log(pd.DataFrame({"user": [1, 1], "rank": [1, 2], "g": ["a", "b"]}), item_group="g").profile.labels
    ['a', 'b']
    """
    import pandas as pd

    frame = read_log(source) if not isinstance(source, pd.DataFrame) else source
    cols = log_roles(columns, frame.columns, item_group=item_group, user_group=user_group, item_table=item_table,
                     user_table=user_table)
    if item_group not in frame.columns:
        frame = frame.merge(item_table, how="left", left_on=cols["item"], right_on=cols["item"])
    if user_group is not None and user_group not in frame.columns:
        frame = frame.merge(user_table, how="left", left_on=cols["user"], right_on=cols["user"])
    names = _names(cols, item_group, user_group)
    if len(frame) == 0:
        raise DataError("log is empty: no ranked item")
    if frame[item_group].isna().any():
        raise DataError(f"log: {int(frame[item_group].isna().sum())} row(s) have no item group "
                        f"(column {item_group!r} missing or not in the item_groups table)")
    labels = _labels({plain_value(v) for v in frame[item_group].unique()}, item_table, item_group)
    counts = None
    if cols["item"] in frame.columns:
        counts = {plain_value(g): int(n) for g, n in frame.groupby(item_group)[cols["item"]].nunique().items()}
    item_counts, source_of = _catalogue(labels, counts, item_table, cols["item"], item_group)
    try:
        rank = frame[cols["rank"]].to_numpy(dtype=float)
    except (TypeError, ValueError):   # a text rank column (issue 28's campaign: a ValueError traceback)
        bad = frame[cols["rank"]].dropna().iloc[0]
        raise DataError(f"log: column {cols['rank']!r} must hold numeric ranks 1, 2, ...; found "
                        f"{type(bad).__name__} values such as {bad!r}") from None
    if np.isnan(rank).any() or (rank < 1).any():
        raise DataError(f"log: column {cols['rank']!r} must hold ranks 1, 2, ... (no missing value, none below 1)")
    has_rel = "relevance" in cols
    y = frame[cols["relevance"]].to_numpy(dtype=float) if has_rel else np.zeros(len(frame))

    def span(v):
        ok = ~np.isnan(v)
        return (int((~ok).sum()), float(v[ok].min()) if ok.any() else 0.0,
                float(np.nan if (~ok).any() else v.max()) if len(v) else 0.0)

    nrel = frame[cols["n_relevant"]].to_numpy(dtype=float) if "n_relevant" in cols else None
    check_values(names, n_rows=len(frame), kmax=float(rank.max()), relevance=span(y) if has_rel else None,
                 n_relevant=None if nrel is None else span(nrel))
    ucode, users = pd.factorize(frame[cols["user"]])
    if (ucode < 0).any():
        raise DataError(f"log: column {cols['user']!r} has missing values")
    scode = pd.factorize(frame[cols["sample"]])[0] if "sample" in cols else np.zeros(len(frame), dtype=np.int64)
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
    raise_checks(np.unique(user_of_r[bad_r]).size, 0, 0, names)
    if cols["item"] in frame.columns:             # an item twice in one ranking: refused whatever is asked
        dup = pd.DataFrame({"r": rcode, "i": frame[cols["item"]].to_numpy()}).duplicated().to_numpy()
        if dup.any():
            raise DataError(f"log: {np.unique(user_of_r[rcode[dup]]).size} user(s) have an item twice in one "
                            "ranking; each ranking must list an item once")
    if user_group is not None:
        ug = pd.Series(frame[user_group].to_numpy()).groupby(ucode)
        n_values = ug.nunique(dropna=False)
        raise_checks(0, int((n_values > 1).sum()), 0, names)
        ug_of_user = ug.first().to_numpy()
        if pd.isna(ug_of_user).any():
            raise DataError(f"log: the user-group column {user_group!r} has missing values")
        ug_of_user = np.array([plain_value(v) for v in ug_of_user], dtype=object)
    else:
        ug_of_user = np.array(["(all)"] * nu, dtype=object)
    lab = {v: j for j, v in enumerate(labels)}
    gcode = np.array([lab[plain_value(v)] for v in frame[item_group].to_numpy()], dtype=np.int64)
    profile = LogProfile(cols=cols, labels=labels, kmax=int(rank.max()), item_counts=item_counts,
                         catalogue_source=source_of, names=names)
    return PandasLog(frame=frame, profile=profile, rank=rank, relevance=y, user=ucode, ranking=rcode, group=gcode,
                     sample=scode, users=users, ranking_user=user_of_r,
                     n_rankings=np.bincount(user_of_r, minlength=nu).astype(float), ranking_size=cnt,
                     user_group=ug_of_user)
