"""Counts first: per-key row and positive-label counts of a log, where the log lives.

Every log-based estimator of the project (REO, and the pairwise and bias-metric audits) depends
on a log only through counts per cell: ``n`` = rows and ``positives`` = rows whose label is 1,
grouped by a few key columns (item group, day, arm, ...). :func:`group_counts` computes exactly
that table with one of three backends and nothing else leaves the backend:

* ``"duckdb"`` (embedded; the default for files): CSV (compression from the suffix), Parquet,
  a directory of Parquet partitions (``dir/**/*.parquet``, hive partitions such as ``day=3/``
  become columns) or a glob; also a pandas DataFrame, a DuckDB relation or an :class:`Sql` query.
  Only the label and key columns are read (projection push-down).
* ``"pandas"`` (the default for DataFrames): a DataFrame, or the same files read batch by batch
  with only the needed columns (hive partition values become columns, typed as DuckDB types them).
* ``"spark"`` (``pip install -e '.[spark]'`` in a checkout, Java 17): a Spark DataFrame, or files read by
  Spark; :func:`spark_session` makes a session for ``master`` (default ``local[*]``).

``backend="auto"`` picks DuckDB for files, relations and SQL, pandas for DataFrames and Spark for
Spark DataFrames. Every backend applies the same checks and returns the same table: the label is
the OR of one or more 0/1 (or boolean) columns, any other value (NULL included) is refused with a
message naming the column and the values; NULL keys are refused; missing columns are named with
the file.
"""
from __future__ import annotations

import contextlib
import glob as _glob
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ocef.log_schema import check_csv_header, label_columns
from ocef.errors import DataError, ParameterError, ParameterTypeError

__all__ = ["BACKENDS", "Sql", "KeyCounts", "Counted", "start_counts", "count_keys", "group_counts", "is_missing", "label_columns", "check_csv_header", "check_parquet_file", "frame_label_indicator", "spark_session", "source_kind", "resolve_backend", "duckdb_cursor",
           "sql_identifier", "sql_literal", "fetch_rows", "plain_value", "log_columns", "log_frame", "duckdb_table",
           "spark_table", "set_memory_limit", "memory_limited"]

BACKENDS = ("auto", "duckdb", "pandas", "spark")


_NUMERIC_DUCKDB = ("BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                   "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "DECIMAL")


@dataclass(frozen=True)
class Sql:
    """A SQL query whose result is a log, run by DuckDB.

    A log source like a file or a DataFrame: :func:`group_counts` (``backend="duckdb"`` or
    ``"pandas"``) runs the query and counts its result, so a log can be filtered or joined in SQL
    before it is counted, e.g. ``Sql("SELECT * FROM 'logs/*.parquet' WHERE day >= 3")``.

    Attributes
    ----------
    query : str
        The SELECT statement whose rows are the log.
    connection : duckdb.DuckDBPyConnection, optional
        Where it runs (default: a cursor on the process's in-memory database,
        :func:`duckdb_cursor`), e.g. a connection holding registered tables.

    Examples
    --------
    >>> q = Sql("SELECT * FROM (VALUES (0, 1), (0, 0), (1, 1)) AS t(S, Y)")
    >>> group_counts(q, by=["S"])
       S  n  positives
    0  0  2          1
    1  1  1          1
    """

    query: str
    connection: Any = None


@dataclass(frozen=True)
class KeyCounts:
    """Counts per key as plain Python values: what :func:`count_keys` returns.

    No pandas: a command that only needs a few numbers from a 10^8-row log does not pay pandas'
    import. :meth:`to_frame` gives the table of :func:`group_counts`.

    Attributes
    ----------
    keys : tuple of str
        The key column names.
    rows : tuple of tuple
        One tuple ``(key values..., n, positives)`` per distinct key, sorted by key: ``n`` rows,
        ``positives`` rows whose label is 1.

    Examples
    --------
    >>> log = pd.DataFrame({"S": ["a", "b", "a"], "Y": [1, 0, 0]})
    >>> counts = count_keys(log, by=["S"])
    >>> counts.keys, counts.rows
    (('S',), (('a', 2, 1), ('b', 1, 0)))
    """

    keys: tuple
    rows: tuple

    def to_frame(self):
        """The table of :func:`group_counts`: columns ``keys``, ``n``, ``positives`` (int64).

        Returns
        -------
        pandas.DataFrame
            One row per distinct key, sorted by key: the key columns (named by ``keys``), ``n``
            (rows with that key) and ``positives`` (those whose label is 1). No rows (with the
            same columns) for an empty log.

        Examples
        --------
        >>> log = pd.DataFrame({"S": ["a", "b", "a"], "G": [0, 0, 1], "Y": [1, 0, 0]})
        >>> count_keys(log, by=["S", "G"]).to_frame()
           S  G  n  positives
        0  a  0  1          1
        1  a  1  1          0
        2  b  0  1          0
        """
        import numpy as np
        import pandas as pd

        cols = list(zip(*self.rows)) if self.rows else [()] * (len(self.keys) + 2)
        frame = pd.DataFrame({k: pd.Series(list(c), dtype=object if not c else None)
                              for k, c in zip(self.keys, cols)})
        frame["n"] = np.asarray(cols[-2], dtype=np.int64)
        frame["positives"] = np.asarray(cols[-1], dtype=np.int64)
        return frame


@dataclass(frozen=True)
class Counted:
    """Counts already computed by :func:`count_keys`, usable as a log source.

    Returned as is when the same keys and labels are asked for (e.g. counts started in a
    background thread by :func:`start_counts` while the estimator is imported); other keys or
    labels are refused with a ``ParameterError``.

    Attributes
    ----------
    table : KeyCounts
        The counts.
    by : tuple of str
        The key columns they were computed by.
    label : tuple of str
        The label columns (Y = any of them).

    Examples
    --------
    >>> log = pd.DataFrame({"S": ["a", "b", "a"], "Y": [1, 0, 0]})
    >>> done = Counted(count_keys(log, by=["S"]), ("S",), ("Y",))
    >>> count_keys(done, by=["S"]).rows
    (('a', 2, 1), ('b', 1, 0))
    """

    table: KeyCounts
    by: tuple
    label: tuple


def source_kind(source) -> str:
    """The kind of a log source, which decides the backend ``"auto"`` picks.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame, DuckDB relation, Sql, Spark DataFrame or Counted
        A log.

    Returns
    -------
    str
        ``"file"`` (a path), ``"pandas"``, ``"duckdb"`` (a relation or an :class:`Sql` query),
        ``"spark"``, or ``"counted"`` (a :class:`Counted`).

    Raises
    ------
    ocef.errors.ParameterTypeError
        For anything else, naming its type.

    Examples
    --------
    >>> source_kind("logs/default.parquet"), source_kind(pd.DataFrame()), source_kind(Sql("SELECT 1"))
    ('file', 'pandas', 'duckdb')
    """
    if isinstance(source, (str, os.PathLike)):
        return "file"
    if isinstance(source, Sql):
        return "duckdb"
    if isinstance(source, Counted):
        return "counted"
    mod = type(source).__module__
    if mod.startswith("pandas") and type(source).__name__ == "DataFrame":
        return "pandas"
    if mod.startswith("duckdb"):
        return "duckdb"
    if mod.startswith("pyspark") and type(source).__name__ == "DataFrame":
        return "spark"
    raise ParameterTypeError(f"a log must be a file path, a pandas DataFrame, a DuckDB relation, an ocef.backends.Sql "
                    f"query or a Spark DataFrame, got {type(source).__name__}")


def resolve_backend(backend: str, source) -> str:
    """The backend that counts ``source``: the one ``"auto"`` picks, or ``backend`` checked.

    ``"auto"`` picks DuckDB for files, relations and :class:`Sql` queries, pandas for DataFrames
    and Spark for Spark DataFrames.

    Parameters
    ----------
    backend : {"auto", "duckdb", "pandas", "spark"}
        The counting backend asked for.
    source : str, os.PathLike, DataFrame, DuckDB relation, Sql, Spark DataFrame or Counted
        The log.

    Returns
    -------
    str
        ``"duckdb"``, ``"pandas"`` or ``"spark"``; ``"counted"`` for a :class:`Counted` source.

    Raises
    ------
    ocef.errors.ParameterError
        For a backend outside :data:`BACKENDS`, or one that cannot read the source (a Spark
        DataFrame needs ``"spark"``; a DuckDB relation or query cannot go to Spark).

    Examples
    --------
    >>> resolve_backend("auto", "log.csv"), resolve_backend("auto", pd.DataFrame())
    ('duckdb', 'pandas')
    >>> resolve_backend("pandas", "log.csv")
    'pandas'
    """
    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {BACKENDS}, got {backend!r}")
    kind = source_kind(source)
    if kind == "counted":
        return "counted"
    if backend == "auto":
        return {"file": "duckdb", "pandas": "pandas", "duckdb": "duckdb", "spark": "spark"}[kind]
    if kind == "spark" and backend != "spark":
        raise ParameterError(f"a Spark DataFrame needs backend='spark', got backend={backend!r}")
    if kind == "duckdb" and backend == "spark":
        raise ParameterError("a DuckDB relation or Sql query needs backend='duckdb' or 'pandas', got backend='spark'")
    return backend


def group_counts(source, *, by: Sequence[str], label: str | Sequence[str] = "Y", backend: str = "auto",
                 name: str = "log", spark=None):
    """Counts per key of a log: rows ``n`` and positives (rows with Y = 1) per distinct key.

    The sufficient statistics of every log-based estimate (REO's P_k, Q_k are ``positives / n`` of
    the random and default logs per item group); every backend applies the same checks.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame, DuckDB relation, Sql or Spark DataFrame
        The log: a file path (CSV, Parquet, a directory or glob of Parquet files), a pandas
        DataFrame, a DuckDB relation, an :class:`Sql` query or a Spark DataFrame.
    by : list of str
        The key columns (e.g. ``["day", "S"]``); a NULL key is refused.
    label : str or list of str, default "Y"
        A 0/1 (or boolean) column, or several (Y = their OR); any other value is refused.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        The counting backend (:func:`resolve_backend`).
    name : str, default "log"
        Names the log in error messages.
    spark : SparkSession, optional
        For ``backend="spark"`` (default: :func:`spark_session`).

    Returns
    -------
    DataFrame
        The columns ``by``, then ``n`` and ``positives`` (int64), one row per key, sorted by key.

    Raises
    ------
    ocef.errors.ParameterError, ocef.errors.DataError
        Missing columns, labels outside {0, 1}, NULL keys, an unknown backend, a file that changed
        while it was read.

    Examples
    --------
    >>> log = pd.DataFrame({"day": [0, 0, 1, 1], "S": ["a", "b", "a", "a"], "Y": [1, 0, 0, 1]})
    >>> group_counts(log, by=["S"], backend="duckdb")
       S  n  positives
    0  a  3          2
    1  b  1          0
    """
    return count_keys(source, by=by, label=label, backend=backend, name=name, spark=spark).to_frame()


def count_keys(source, *, by: Sequence[str], label: str | Sequence[str] = "Y", backend: str = "auto",
               name: str = "log", spark=None) -> KeyCounts:
    """:func:`group_counts` as plain Python rows (:class:`KeyCounts`).

    DuckDB's results are fetched as tuples, so counting a file imports neither pandas nor pyarrow. A
    :class:`Counted` source is returned as is when its keys and labels are the ones asked for.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame, DuckDB relation, Sql, Spark DataFrame or Counted
        The log (see :func:`group_counts`).
    by : list of str
        The key columns (e.g. ``["day", "S"]``); a NULL key is refused.
    label : str or list of str, default "Y"
        A 0/1 (or boolean) column, or several (Y = their OR); any other value is refused.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        The counting backend (:func:`resolve_backend`).
    name : str, default "log"
        Names the log in error messages.
    spark : SparkSession, optional
        For ``backend="spark"``.

    Returns
    -------
    KeyCounts
        One ``(key values..., n, positives)`` tuple per distinct key, sorted.

    Examples
    --------
    >>> log = pd.DataFrame({"S": [1, 0, 1], "click": [1, 1, 0], "buy": [0, 0, 1]})
    >>> count_keys(log, by=["S"], label=["click", "buy"]).rows       # Y = click OR buy
    ((0, 1, 1), (1, 2, 2))
    """
    keys = list(by)
    if not keys or not all(isinstance(k, str) for k in keys):
        raise ParameterTypeError(f"by must be a non-empty list of column names, got {by!r}")
    labels = label_columns(label)
    backend = resolve_backend(backend, source)
    if backend == "counted":
        if not isinstance(source.table, KeyCounts):
            raise ParameterTypeError(f"Counted.table must be KeyCounts, got {type(source.table).__name__}")
        if tuple(source.by) != tuple(keys) or tuple(source.label) != tuple(labels):
            raise ParameterError(f"{name} log: counts were computed by {list(source.by)} with label "
                             f"{list(source.label)}, not by {keys} with label {labels}")
        return source.table
    before = None
    if isinstance(source, (str, os.PathLike)):
        source = _check_path(source)
        before = file_state(source)
    dup = sorted({c for c in keys + labels if (keys + labels).count(c) > 1})
    if dup:
        raise ParameterError(f"column(s) {dup} used both as key and label (or twice)")
    if backend == "duckdb":
        rows = _duckdb_counts(source, keys, labels, name)
    elif backend == "pandas":
        rows = _frame_rows(_pandas_counts(source, keys, labels, name), keys)
    else:
        rows = _spark_counts(source, keys, labels, name, spark)
    if before is not None and file_state(source) != before:
        # a log appended (or rewritten) while it was read was counted as far as seen
        raise DataError(f"{name} log {source} changed while it was read; count it once it is complete "
                        f"(or a copy)")
    return _finish(rows, keys, name)


def file_state(path) -> tuple:
    """``(file, size, mtime_ns)`` of every file a log path stands for (a file, a folder of Parquet
    files, a glob), to notice a log that changes while it is read.

    Examples
    --------
    >>> file_state("/nonexistent/x.csv")
    ()
    """
    text = os.fspath(path)
    if _is_glob(text):
        files = sorted(_glob.glob(text, recursive=True))
    elif os.path.isdir(text):
        files = sorted(str(f) for f in Path(text).rglob("*") if f.is_file())
    else:
        files = [text]
    out = []
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            continue
        out.append((f, st.st_size, st.st_mtime_ns))
    return tuple(out)


def start_counts(sources: dict, *, by: Sequence[str], label: str | Sequence[str] = "Y", backend: str = "auto"):
    """Start counting several logs in background threads; collect the counts later.

    Each source is counted by :func:`count_keys` in its own thread (DuckDB releases the GIL while it
    scans), so a command can import its estimator (numpy, ...) meanwhile.

    Parameters
    ----------
    sources : dict
        Log name -> log source (see :func:`group_counts`); the name is used in error messages.
    by : list of str
        The key columns (e.g. ``["day", "S"]``); a NULL key is refused.
    label : str or list of str, default "Y"
        A 0/1 (or boolean) column, or several (Y = their OR); any other value is refused.
    backend : {"auto", "duckdb", "pandas", "spark"}, default "auto"
        The counting backend (:func:`resolve_backend`).

    Returns
    -------
    callable
        ``finish()``: waits for the threads and returns ``{name: Counted}``; a counting error is
        raised there.

    Examples
    --------
    >>> finish = start_counts({"default": pd.DataFrame({"S": [0, 1, 1], "Y": [1, 1, 0]})}, by=["S"])
    >>> finish()["default"].table.rows
    ((0, 1, 1), (1, 2, 1))
    """
    from concurrent.futures import ThreadPoolExecutor

    keys, labels = tuple(by), tuple(label_columns(label))
    pool = ThreadPoolExecutor(max_workers=len(sources))
    futures = {name: pool.submit(count_keys, src, by=keys, label=list(labels), backend=backend, name=name)
               for name, src in sources.items()}
    pool.shutdown(wait=False)

    def finish() -> dict:
        return {name: Counted(f.result(), keys, labels) for name, f in futures.items()}

    return finish


# ------------------------------------------------------------------------------------ shared


def _check_path(path) -> str:
    text = os.fspath(path)
    if _is_glob(text):
        if not _glob.glob(text, recursive=True):
            raise FileNotFoundError(f"no log file matches {text}")
        return text
    p = Path(text)
    if not p.exists():
        raise FileNotFoundError(f"log file not found: {p}")
    if p.is_dir() and not any(p.rglob("*.parquet")):
        raise FileNotFoundError(f"log directory {p} holds no .parquet file")
    if p.is_file() and p.stat().st_size == 0:
        raise ParameterError(f"log file {p} is empty")
    if p.is_file() and not _is_parquet(text):
        check_csv_header(p)
    if p.is_file() and _is_parquet(text):
        check_parquet_file(p)
    return text


def _looks_like(head: bytes) -> str:
    """What the first bytes of a file look like: ``"CSV"``, ``"gzip"``, ``"JSON"``, ``"text"`` or
    ``""`` (unknown)."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"PK\x03\x04"):
        return "a ZIP archive"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if first.lstrip().startswith(("{", "[")):
        return "JSON"
    if any(sep in first for sep in (",", "\t", ";")):
        return "CSV"
    return "text"


def check_parquet_file(path) -> None:
    r"""Refuse a file named as Parquet that is not one (Parquet files start and end with ``PAR1``),
    naming what it looks like, instead of DuckDB's or pyarrow's "No magic bytes found".

    Parameters
    ----------
    path : str or Path
        A file whose name says Parquet (``.parquet``, ``.pq``).

    Raises
    ------
    ocef.errors.DataError
        ``"X.parquet is not a Parquet file (it looks like CSV)"``.

    Examples
    --------
    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "log.parquet"
    >>> _ = bad.write_text("user,item,rank\n1,2,1\n")
    >>> check_parquet_file(bad)
    Traceback (most recent call last):
    ...
    ocef.errors.DataError: .../log.parquet is not a Parquet file (it looks like CSV): name it .csv, or write it with DataFrame.to_parquet
    """
    with open(path, "rb") as f:
        head = f.read(4096)
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(size - 4, 0))
        tail = f.read(4)
    if head[:4] == b"PAR1" and tail == b"PAR1":
        return
    kind = _looks_like(head)
    if head[:4] == b"PAR1":
        raise DataError(f"{path} is not a complete Parquet file (no closing PAR1 footer: truncated or still being "
                        "written)")
    what = f"it looks like {kind}" if kind else "it does not start with Parquet's PAR1 bytes"
    hint = ": name it .csv, or write it with DataFrame.to_parquet" if kind == "CSV" else ""
    raise DataError(f"{path} is not a Parquet file ({what}){hint}")


def _is_glob(text: str) -> bool:
    # an existing path is a path, whatever characters its name holds (a file named "[x].csv")
    return any(ch in text for ch in "*?[") and not os.path.exists(text)


def _literal(path: str) -> str:
    """``path`` for DuckDB's readers, which glob every name: an existing path's ``[``, ``*``, ``?`` are
    escaped as one-character classes (``[[]``), so the file itself is read."""
    if os.path.exists(path) and not os.path.isdir(path):
        return "".join(f"[{ch}]" if ch in "[*?" else ch for ch in path)
    return path


def _is_parquet(text: str) -> bool:
    low = text.lower()
    return low.endswith((".parquet", ".pq")) or os.path.isdir(text) or (
        _is_glob(text) and not low.endswith((".csv", ".csv.gz", ".tsv")))


def _missing(columns: Sequence[str], have: Sequence[str], name: str, where) -> None:
    missing = [c for c in columns if c not in have]
    if missing:
        src = f" {where}" if where is not None else ""
        raise ParameterError(f"{name} log{src} is missing column(s) {missing}; it has {list(have)}")


def _bad_labels(name: str, col: str, values) -> DataError:
    shown = [None if v is None else (v.item() if hasattr(v, "item") else v) for v in list(values)[:5]]
    return DataError(f"{name} label column {col!r} must hold only 0 and 1, found {shown}")


def _finish(rows, keys: list[str], name: str) -> KeyCounts:
    """Common output of every backend from ``rows`` = iterable of ``(key values..., n,
    positives)``: keys as plain Python values, int counts, NULL keys refused, sorted by key."""
    out = []
    for row in rows:
        key = tuple(_plain(v) for v in row[:len(keys)])
        for k, v in zip(keys, key):
            if is_missing(v):
                raise ParameterError(f"{name} log: column {k!r} has missing values")
        out.append(key + (int(row[-2]), int(row[-1])))
    out.sort(key=lambda r: tuple((str(type(v)), v) for v in r[:len(keys)]))
    return KeyCounts(tuple(keys), tuple(out))


def is_missing(v) -> bool:
    """Whether a key value is missing (the backends refuse missing keys).

    Parameters
    ----------
    v : object
        A key value as a backend returns it.

    Returns
    -------
    bool
        True for None (SQL NULL), a float NaN, pandas' ``NA`` or ``NaT``.

    Examples
    --------
    >>> [is_missing(v) for v in (None, float("nan"), pd.NA, pd.NaT, 0, "a")]
    [True, True, True, True, False, False]
    """
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def _frame_rows(table, keys: list[str]):
    """``(key values..., n, positives)`` tuples of a (small) counts DataFrame."""
    return table[keys + ["n", "positives"]].itertuples(index=False, name=None)


def _plain(v):
    """A key value as a plain Python scalar (numpy ints -> int, bools -> int like DuckDB sums)."""
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, bool):
        return int(v)
    return v


# ------------------------------------------------------------------------------------ pandas


def frame_label_indicator(frame, labels: Sequence[str], name: str = "log"):
    """The label Y of each row of a DataFrame: the OR of its 0/1 (or boolean) label columns.

    Parameters
    ----------
    frame : DataFrame
        The log.
    labels : list of str
        The label columns; nullable integer and boolean dtypes are accepted.
    name : str, default "log"
        Names the log in error messages.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(len(frame),)``.

    Raises
    ------
    ocef.errors.ParameterError
        For a non-numeric column or a value other than 0/1 (NaN included), naming the column and
        the values found.

    Examples
    --------
    >>> frame = pd.DataFrame({"click": [1, 0, 0], "buy": [False, False, True]})
    >>> frame_label_indicator(frame, ["click", "buy"]).tolist()
    [True, False, True]
    """
    import numpy as np
    import pandas as pd

    y = np.zeros(len(frame), dtype=bool)
    for col in labels:
        series = frame[col]
        if series.dtype == bool:
            y |= series.to_numpy()
            continue
        if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
            raise ParameterError(f"{name} label column {col!r} must hold 0/1 values, got dtype {series.dtype}")
        values = series.to_numpy(dtype=float, na_value=np.nan)            # nullable Int/boolean too
        bad = ~np.isin(values, (0.0, 1.0))
        if bad.any():
            raise _bad_labels(name, col, pd.unique(values[bad]))
        y |= values == 1.0
    return y


def _pandas_counts(source, keys, labels, name):
    import pandas as pd

    need = keys + labels
    if isinstance(source, (str, os.PathLike)):
        # file by file, batch by batch: memory bounded by one batch, whatever the log size
        parts = [_frame_counts(chunk, keys, labels, name, os.fspath(source))
                 for chunk in _pandas_chunks(os.fspath(source), need, name)]
        parts = [p for p in parts if len(p)]
        if not parts:
            return pd.DataFrame(columns=keys + ["n", "positives"])
        if len(parts) == 1:
            return parts[0]
        return pd.concat(parts, ignore_index=True).groupby(keys, dropna=False, sort=False)[
            ["n", "positives"]].sum().reset_index()
    if isinstance(source, Sql) or type(source).__module__.startswith("duckdb"):
        rel = _duckdb_relation(source)[0]
        _missing(need, rel.columns, name, None)
        source = rel.select(", ".join(_q(c) for c in need)).df()
    elif len(set(source.columns)) != len(source.columns):
        dups = sorted({str(c) for c in source.columns if list(source.columns).count(c) > 1})
        raise ParameterError(f"{name} log has duplicate column names {dups}")
    return _frame_counts(source, keys, labels, name, None)


def _frame_counts(frame, keys, labels, name, where):
    import numpy as np
    import pandas as pd

    _missing(keys + labels, frame.columns, name, where)
    if len(frame) == 0:                         # an empty CSV has untyped (object) columns
        return pd.DataFrame(columns=keys + ["n", "positives"])
    y = frame_label_indicator(frame, labels, name)
    # factorize the keys and count with bincount: one int64 code per row, not a groupby's copies
    codes, uniques = zip(*(pd.factorize(frame[k], use_na_sentinel=False) for k in keys))
    if len(keys) == 1:
        cell, first = codes[0], None
    else:                                          # a dense code per distinct key combination
        cell, first = pd.factorize(np.ravel_multi_index(codes, [len(u) for u in uniques]))
    n = np.bincount(cell)
    positives = np.bincount(cell, weights=y, minlength=len(n)).astype(np.int64)
    if first is None:
        table = {keys[0]: uniques[0]}
    else:
        idx = np.unravel_index(first, [len(u) for u in uniques])
        table = {k: np.asarray(u)[i] for k, u, i in zip(keys, uniques, idx)}
    return pd.DataFrame({**table, "n": n, "positives": positives})


_BATCH_ROWS = 4_000_000


def _pandas_chunks(path: str, need, name):
    """DataFrames of at most ``_BATCH_ROWS`` rows holding only the ``need`` columns of a file,
    a directory of Parquet files or a glob."""
    import pandas as pd

    if _is_parquet(path):
        import pyarrow.parquet as pq

        if _is_glob(path):
            files = sorted(_glob.glob(path, recursive=True))
        elif os.path.isdir(path):
            files = sorted(str(f) for f in Path(path).rglob("*.parquet"))
        else:
            files = [path]
        import pyarrow as pa

        for f, hive in zip(files, _hive_partitions(files)):
            try:
                pf = pq.ParquetFile(f)
            except (pa.ArrowInvalid, OSError) as exc:    # e.g. a half-written file (no footer yet)
                raise DataError(f"{name} log {f} cannot be read as Parquet: {exc}") from None
            have = pf.schema_arrow.names
            hive = {k: v for k, v in hive.items() if k in need and k not in have}
            _missing(need, have + list(hive), name, f)
            for batch in pf.iter_batches(batch_size=_BATCH_ROWS, columns=[c for c in need if c not in hive]):
                yield batch.to_pandas().assign(**hive)
        return
    try:
        head = pd.read_csv(path, nrows=0)
    except pd.errors.EmptyDataError:
        raise ParameterError(f"log file {path} is empty") from None
    _missing(need, head.columns, name, path)
    yield from pd.read_csv(path, usecols=need, chunksize=_BATCH_ROWS)


def _hive_partitions(files: Sequence[str]) -> list[dict]:
    """The hive partition values of each file (``logs/day=3/part.parquet`` -> ``{"day": 3}``),
    typed as DuckDB's ``hive_partitioning`` types them: a key whose values are all integers gets
    ints, all ISO dates ``datetime.date``, otherwise the text."""
    import datetime
    import re

    parts = [dict(seg.split("=", 1) for seg in Path(f).parent.parts if "=" in seg) for f in files]
    for key in {k for p in parts for k in p}:
        values = [p[key] for p in parts if key in p]
        if all(re.fullmatch(r"[+-]?\d+", v) for v in values):
            cast = int
        elif all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) for v in values):
            cast = datetime.date.fromisoformat
        else:
            continue
        for p in parts:
            if key in p:
                p[key] = cast(p[key])
    return parts


# ------------------------------------------------------------------------------------ duckdb


def sql_identifier(col: str, dialect: str = "duckdb") -> str:
    """A column name quoted for SQL: double quotes in DuckDB, backticks in Spark SQL.

    Parameters
    ----------
    col : str
        The column name.
    dialect : {"duckdb", "spark"}, default "duckdb"
        The SQL dialect.

    Returns
    -------
    str

    Examples
    --------
    >>> sql_identifier('a"b'), sql_identifier("x", "spark")
    ('"a""b"', '`x`')
    """
    return "`" + col.replace("`", "``") + "`" if dialect == "spark" else '"' + col.replace('"', '""') + '"'


def sql_literal(v) -> str:
    """A Python or numpy scalar as an SQL literal (booleans, integers, floats, else a quoted string).

    Parameters
    ----------
    v : scalar
        The value.

    Returns
    -------
    str

    Examples
    --------
    >>> sql_literal(True), sql_literal(3), sql_literal(0.5), sql_literal("it's")
    ('TRUE', '3', '0.5', "'it''s'")
    """
    import numpy as np

    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return "'" + str(v).replace("'", "''") + "'"


def plain_value(v):
    """A numpy scalar as the plain Python scalar (strings and Python scalars unchanged).

    Parameters
    ----------
    v : scalar
        The value.

    Returns
    -------
    scalar

    Examples
    --------
    >>> type(plain_value(np.int64(3))).__name__, plain_value("a")
    ('int', 'a')
    """
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    return v


def fetch_rows(con, sql: str) -> list[dict]:
    """The rows of a DuckDB query as dicts; a DuckDB error becomes a one-line :class:`ocef.errors.DataError`.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        The connection (e.g. :func:`duckdb_cursor`).
    sql : str
        The query.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> fetch_rows(duckdb_cursor(), "SELECT 1 AS a, 'x' AS b")
    [{'a': 1, 'b': 'x'}]
    """
    import duckdb

    try:
        res = con.sql(sql)
        names = res.columns
        return [dict(zip(names, r)) for r in res.fetchall()]
    except duckdb.Error as exc:
        raise DataError(f"the log cannot be aggregated by DuckDB: {str(exc).splitlines()[0]}") from None


def log_frame(source):
    """A log as a pandas DataFrame: a file (checked, read by DuckDB), a DuckDB relation or query, or the frame.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame, DuckDB relation or Sql
        The log.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> log_frame(Sql("SELECT 1 AS user")).columns.tolist()
    ['user']
    """
    if type(source).__module__.startswith("pandas"):
        return source
    return _duckdb_relation(_check_path(source) if isinstance(source, (str, os.PathLike)) else source)[0].df()


def log_columns(source) -> list:
    """The columns of a log without reading its rows (a file's header or schema, a frame's columns).

    Parameters
    ----------
    source : str, os.PathLike, DataFrame, DuckDB relation, Sql or Spark DataFrame
        The log.

    Returns
    -------
    list of str

    Examples
    --------
    >>> log_columns(pd.DataFrame({"user": [1], "item": [2]}))
    ['user', 'item']
    """
    if hasattr(source, "columns") and not isinstance(source, (str, os.PathLike)):
        return list(source.columns)
    return list(_duckdb_relation(_check_path(source) if isinstance(source, (str, os.PathLike)) else source)[0].columns)


def duckdb_table(con, source, name: str) -> tuple[str, list]:
    """A log as a relation of DuckDB queries on ``con``, and its columns: a file is read in place
    (``read_parquet``/``read_csv``: never loaded into Python), a DataFrame or relation is registered as ``name``.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        The connection (:func:`duckdb_cursor`).
    source : str, os.PathLike, DataFrame, DuckDB relation or Sql
        The log.
    name : str
        The view name of an in-memory log.

    Returns
    -------
    (str, list of str)
        The relation's SQL text and its columns.

    Examples
    --------
    >>> con = duckdb_cursor()
    >>> duckdb_table(con, pd.DataFrame({"user": [1]}), "_log")
    ('_log', ['user'])
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(_check_path(source))
        base = (f"read_parquet({_lit(_parquet_pattern(path))}, hive_partitioning = true)" if _is_parquet(path)
                else f"read_csv({_lit(_literal(path))}, header = true)")
        import duckdb

        try:
            return base, list(con.sql(f"SELECT * FROM {base} LIMIT 0").columns)
        except duckdb.Error as exc:             # issue 28: a zipped log ended in a traceback
            raise DataError(f"log {path} cannot be read by DuckDB: {str(exc).splitlines()[0][:160]}"
                            + ("; unzip it (gzip- and zstd-compressed CSV are read as they are)"
                               if path.lower().endswith(".zip") else "")) from None
    rel = _duckdb_relation(source)[0]
    con.register(name, rel)
    return name, list(rel.columns)


def spark_table(source, name: str, spark=None):
    """A log as the Spark temporary view ``name``: ``(spark, columns)`` (files read by Spark).

    Parameters
    ----------
    source : str, os.PathLike, Spark DataFrame or pandas DataFrame
        The log.
    name : str
        The view's name.
    spark : SparkSession, optional
        Default: :func:`spark_session`.

    Returns
    -------
    (SparkSession, list of str)

    Examples
    --------
    >>> spark, cols = spark_table("log.parquet", "_log")           # doctest: +SKIP
    """
    return _spark_view(source, name, spark)


_q, _lit = sql_identifier, sql_literal              # the DuckDB spelling of a column and of a string


_DATABASE: dict = {}                    # pid -> the process's in-memory DuckDB database
_DATABASE_LOCK = threading.Lock()


_MEMORY_LIMIT: dict[str, float | None] = {"bytes": None}      # None: DuckDB's default (80% of RAM)


def set_memory_limit(limit: str | float | None) -> None:
    """Bound the memory DuckDB may use to count logs in this process; above it DuckDB spills to disk.

    The command line's ``--memory-limit`` of every command that reads logs (``ocef reo``,
    ``reo-ab``, ``pairwise``, ``exposure``, ``mitigate``, ``offpolicy``). Applies to the process's DuckDB database
    (:func:`duckdb_cursor`) as ``SET memory_limit``, with a temporary directory to spill to (in
    the system's temporary folder, removed by DuckDB); peaks measured in docs/guide (benchmarks/
    memory_limit.py). pandas frames are in memory already, and Spark has its own settings
    (``spark.driver.memory``, ``spark.executor.memory``).

    Parameters
    ----------
    limit : str, float or None
        Bytes, or a size such as ``"2GB"`` (:func:`ocef.validation.parse_size`); None restores
        DuckDB's default (80% of the machine's memory).

    Returns
    -------
    None

    Examples
    --------
    >>> set_memory_limit("256MB")
    >>> duckdb_cursor().sql("SELECT current_setting('memory_limit')").fetchall()
    [('256.0 MiB',)]
    >>> set_memory_limit(None)
    """
    from ocef.validation import parse_size

    if limit is None:
        _MEMORY_LIMIT["bytes"] = None
    else:
        _MEMORY_LIMIT["bytes"] = parse_size(limit, "memory limit") if isinstance(limit, str) else \
            parse_size(str(float(limit)), "memory limit")
    with _DATABASE_LOCK:
        database = _DATABASE.get(os.getpid())
    if database is not None:
        _apply_memory_limit(database)


@contextlib.contextmanager
def memory_limited(limit: str | float | None):
    """:func:`set_memory_limit` for the duration of a ``with`` block, the one way a library call
    bounds DuckDB's memory (``memory_limit=``); the limit in force before (the command line's
    ``--memory-limit`` or none) is restored after. None leaves the limit in force unchanged.

    Parameters
    ----------
    limit : str, float or None
        Bytes or a size such as ``"2GB"`` (:func:`ocef.validation.parse_size`).

    Yields
    ------
    None

    Examples
    --------
    >>> with memory_limited("300MB"):
    ...     duckdb_cursor().sql("SELECT current_setting('memory_limit')").fetchall()
    [('300.0 MiB',)]
    """
    if limit is None:
        yield
        return
    before = _MEMORY_LIMIT["bytes"]
    set_memory_limit(limit)
    try:
        yield
    finally:
        set_memory_limit(before)


def _apply_memory_limit(database) -> None:
    limit = _MEMORY_LIMIT["bytes"]
    if limit is None:
        database.execute("RESET memory_limit")
        return
    import tempfile

    spill = os.path.join(tempfile.gettempdir(), f"ocef-duckdb-{os.getpid()}")
    database.execute(f"SET memory_limit = '{max(1, int(limit) // 2**20)}MiB'")
    database.execute(f"SET temp_directory = {_lit(spill)}")


#: The active watchers of :func:`ocef._progress.query_progress`, innermost last: the cursors opened
#: meanwhile are handed to the last one (a module-level setting: it applies to other threads too).
QUERY_WATCHERS: list = []


def duckdb_cursor():
    """A connection to the process's one in-memory DuckDB database, without the progress bar.

    Opening a database costs about 22 ms of CPU, a cursor on it nothing; each cursor is its own
    connection, so threads count in parallel. Keyed by process id: a forked worker opens its own
    database. DuckDB's own progress bar is off because it would write to the terminal; inside
    :func:`ocef._progress.query_progress` the cursor reports its progress to OCEF's bar instead.

    Returns
    -------
    duckdb.DuckDBPyConnection
        A new cursor on the shared database.

    Examples
    --------
    >>> con = duckdb_cursor()
    >>> con.execute("SELECT 40 + 2").fetchall()
    [(42,)]
    """
    import duckdb

    with _DATABASE_LOCK:
        database = _DATABASE.get(os.getpid())
        if database is None:
            database = _DATABASE[os.getpid()] = duckdb.connect()
            if _MEMORY_LIMIT["bytes"] is not None:
                _apply_memory_limit(database)
    con = database.cursor()
    if QUERY_WATCHERS:           # a bar is on (ocef._progress.query_progress): DuckDB's estimate, not its print
        QUERY_WATCHERS[-1].cursors.append(con)
        con.execute("SET enable_progress_bar = true")
        con.execute("SET enable_progress_bar_print = false")
        con.execute("SET progress_bar_time = 0")
    else:
        con.execute("SET enable_progress_bar = false")
    return con


def _duckdb_relation(source):
    """``(relation, where)``: a DuckDB relation over ``source`` and the file it reads (or None)."""
    if isinstance(source, Sql):
        con = source.connection if source.connection is not None else duckdb_cursor()
        return con.sql(source.query), None
    if type(source).__module__.startswith("duckdb"):
        return source, None
    con = duckdb_cursor()
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if _is_parquet(path):
            return con.sql(f"SELECT * FROM read_parquet({_lit(_parquet_pattern(path))}, hive_partitioning = true)"), path
        return con.sql(f"SELECT * FROM read_csv({_lit(_literal(path))}, header = true)"), path
    return con.from_df(source), None                                     # pandas DataFrame


def _parquet_pattern(path: str) -> str:
    """The files DuckDB reads for a Parquet path: every ``.parquet`` under a directory."""
    return os.path.join(path, "**", "*.parquet") if os.path.isdir(path) else _literal(path)


_INTEGER_DUCKDB = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                   "UBIGINT")


def _labels_proven_binary(source, labels, types: dict) -> bool:
    """True when the Parquet footers alone prove every ``labels`` value is 0 or 1: an integer
    (or boolean) column whose row groups all carry statistics with min >= 0, max <= 1 and no
    NULL. Reads only the footers (about 20 ms for 400 row groups), and spares the scan the
    per-value label check (about 15% of the counting time). DuckDB trusts the same statistics
    to skip row groups in filters."""
    if not isinstance(source, (str, os.PathLike)) or not _is_parquet(os.fspath(source)):
        return False
    if not all(types[c].startswith(_INTEGER_DUCKDB + ("BOOLEAN",)) for c in labels):
        return False
    import duckdb

    names = ", ".join(_lit(c) for c in labels)
    try:
        rows = duckdb_cursor().sql(
            f"SELECT path_in_schema, type, stats_min, stats_max, stats_null_count "
            f"FROM parquet_metadata({_lit(_parquet_pattern(os.fspath(source)))}) "
            f"WHERE path_in_schema IN ({names})").fetchall()
    except duckdb.Error:
        return False
    seen = set()
    for col, physical, lo, hi, nulls in rows:          # physical: the type stored in that file
        if lo is None or hi is None or nulls is None or nulls != 0 or physical not in ("BOOLEAN", "INT32", "INT64"):
            return False
        if physical != "BOOLEAN" and not (0 <= int(lo) and int(hi) <= 1):
            return False
        seen.add(col)
    return seen == set(labels)


def _duckdb_counts(source, keys, labels, name):
    import duckdb

    try:
        rel, where = _duckdb_relation(source)
        columns, types = rel.columns, [str(t).upper() for t in rel.types]
    except duckdb.Error as exc:
        raise ParameterError(f"{name} log {source if isinstance(source, (str, os.PathLike)) else ''}"
                         f" cannot be read by DuckDB: {str(exc).splitlines()[0]}") from None
    _missing(keys + labels, columns, name, where)
    for col in labels:
        t = types[columns.index(col)]
        if not t.startswith(_NUMERIC_DUCKDB):
            if rel.query("_ocef_log", "SELECT count(*) FROM _ocef_log").fetchall()[0][0] == 0:
                return []                               # an empty CSV has untyped (VARCHAR) columns
            raise ParameterError(f"{name} label column {col!r} must hold 0/1 values, got type {t}")
    # count_if(l = 1) and count_if(l = 0) per label: every other value (NULL included) is
    # n - ones - zeros. Plain comparisons, no casts: about as fast as a bare count_if.
    for col in labels:
        if types[columns.index(col)].startswith("BOOLEAN") and isinstance(where, str) and not _is_parquet(where):
            # DuckDB's CSV sniffer reads yes/no, y/n, t/f as booleans; the pandas backend refuses them:
            # accept only true/false (which pandas reads as booleans too)
            raw = duckdb_cursor().sql(f"SELECT DISTINCT lower(trim({_q(col)})) FROM read_csv({_lit(where)}, "
                                      f"header = true, all_varchar = true) LIMIT 10").fetchall()
            odd = sorted(str(v[0]) for v in raw if v[0] is not None and v[0] not in ("true", "false"))
            if odd:
                raise DataError(f"{name} label column {col!r} must hold 0/1 values, found {odd[:3]}")
    one, zero = {}, {}
    for col in labels:
        boolean = types[columns.index(col)].startswith("BOOLEAN")
        one[col] = f"{_q(col)} = {'true' if boolean else '1'}"
        zero[col] = f"{_q(col)} = {'false' if boolean else '0'}"
    pos = " OR ".join(f"({one[c]})" for c in labels)
    proven = _labels_proven_binary(where, labels, dict(zip(columns, types)))
    checks = "".join(f", count_if({one[c]}) AS \"_one{i}\", count_if({zero[c]}) AS \"_zero{i}\""
                     for i, c in enumerate(labels)) if not proven else ""
    group = ", ".join(_q(k) for k in keys)
    sql = (f"SELECT {group}, count(*) AS n, "
           f"{'count_if(' + pos + ')' if len(labels) > 1 else f'count_if({one[labels[0]]})'} AS positives{checks} "
           f"FROM _ocef_log GROUP BY {group}")
    try:
        rows = rel.query("_ocef_log", sql).fetchall()       # a few rows: tuples, no pandas/pyarrow
    except duckdb.Error as exc:
        raise ParameterError(f"{name} log{' ' + where if where else ''} cannot be aggregated by DuckDB: "
                         f"{str(exc).splitlines()[0]}") from None
    width = len(keys) + 2                                   # keys, n, positives, then (one, zero) per label
    for i, col in enumerate(labels if not proven else ()):
        if sum(r[len(keys)] - r[width + 2 * i] - r[width + 2 * i + 1] for r in rows) > 0:
            vals = rel.query("_ocef_log", f"SELECT DISTINCT {_q(col)} FROM _ocef_log WHERE {_q(col)} IS NULL "
                                          f"OR NOT ({one[col]} OR {zero[col]}) LIMIT 5").fetchall()
            raise _bad_labels(name, col, [v[0] for v in vals])
    return [r[:width] for r in rows]


# ------------------------------------------------------------------------------------ spark

def _spark_view(source, name: str, spark=None):
    """Register a log as the Spark temporary view ``name``; returns ``(spark, columns)``.

    ``source``: a CSV or Parquet path (file, folder, glob), a Spark DataFrame or a pandas one;
    ``spark``: a session (default :func:`spark_session`).
    """
    spark = spark if spark is not None else spark_session()
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(_check_path(source))
        frame = spark.read.parquet(path) if _is_parquet(path) else spark.read.csv(path, header=True, inferSchema=True)
    elif type(source).__module__.startswith("pyspark"):
        frame = source
    else:
        frame = spark.createDataFrame(source)
    frame.createOrReplaceTempView(name)
    return spark, list(frame.columns)


def spark_session(master: str = "local[*]"):
    """A SparkSession for counting logs with ``backend="spark"``.

    The Spark UI and console progress bars are off and shuffles use 8 partitions (the counts are
    small); the log level is ERROR.

    Parameters
    ----------
    master : str, default "local[*]"
        The Spark master: ``local[*]`` (all local cores), ``spark://host:7077``, ``yarn``, ...

    Returns
    -------
    pyspark.sql.SparkSession
        The (possibly existing) session.

    Raises
    ------
    ocef.errors.ParameterError
        When pyspark (``pip install -e '.[spark]'``) or Java (17) is missing.

    Examples
    --------
    >>> spark = spark_session("local[2]")                       # doctest: +SKIP
    >>> group_counts(spark.createDataFrame([(0, 1)], ["S", "Y"]), by=["S"])   # doctest: +SKIP
       S  n  positives
    0  0  1          1
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ParameterError("backend='spark' needs pyspark: pip install -e '.[spark]' in a checkout") from None
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        raise ParameterError("backend='spark' needs Java (17): no java on PATH and JAVA_HOME is not set")
    session = (SparkSession.builder.master(master).appName("ocef")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")      # no progress bars in CLI output
               .config("spark.sql.shuffle.partitions", "8")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def _spark_counts(source, keys, labels, name, spark):
    try:
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ImportError:              # was a bare ModuleNotFoundError traceback
        raise ParameterError("backend='spark' needs pyspark: pip install -e '.[spark]' in a checkout") from None

    where = None
    if type(source).__module__.startswith("pyspark"):
        frame = source
    else:
        spark = spark if spark is not None else spark_session()
        if isinstance(source, (str, os.PathLike)):
            where = os.fspath(source)
            frame = (spark.read.option("recursiveFileLookup", "false").parquet(where) if _is_parquet(where)
                     else spark.read.csv(where, header=True, inferSchema=True))
        else:                                                           # pandas DataFrame
            frame = spark.createDataFrame(source[keys + labels])
    _missing(keys + labels, frame.columns, name, where)
    numeric = (T.NumericType, T.BooleanType)
    for col in labels:
        dtype = frame.schema[col].dataType
        if not isinstance(dtype, numeric):
            raise ParameterError(f"{name} label column {col!r} must hold 0/1 values, got type {dtype.simpleString()}")
    ys = [F.col(c).cast("double") for c in labels]
    pos = ys[0] == 1
    for y in ys[1:]:
        pos = pos | (y == 1)
    aggs = [F.count(F.lit(1)).alias("n"), F.sum(F.when(pos, 1).otherwise(0)).alias("positives")]
    aggs += [F.sum(F.when(y.isNull() | ~y.isin(0.0, 1.0), 1).otherwise(0)).alias(f"_bad{i}")
             for i, y in enumerate(ys)]
    rows = [tuple(r) for r in frame.groupBy(*[F.col(k) for k in keys]).agg(*aggs).collect()]
    width = len(keys) + 2                                   # keys, n, positives, then one _bad per label
    for i, (col, y) in enumerate(zip(labels, ys)):
        if sum(r[width + i] for r in rows) > 0:
            vals = frame.where(y.isNull() | ~y.isin(0.0, 1.0)).select(col).distinct().limit(5).collect()
            raise _bad_labels(name, col, [v[0] for v in vals])
    return [r[:width] for r in rows]
