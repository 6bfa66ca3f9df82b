"""The off-policy audit's tables as numpy columns: reading, keys, joins and group sums, without pandas.

A table is a ``dict`` of equal-length 1-d numpy arrays, one per column (files are read by DuckDB's
``fetchnumpy``, DataFrames taken apart by :func:`frame_columns`). The audit needs few table
operations — a left join on a key that is unique on the right (:func:`lookup`), the sums of a
column per key (:func:`sum_by`) and the distinct values of a column in their order of first
appearance (:func:`unique`) — and importing pandas for them costs more than a small audit's work
(``docs/guide/large-logs.md``, "Fixed costs").

Sums per key are ``numpy.bincount``'s, in row order; pandas' ``groupby().sum()`` adds with Kahan
compensation, so a sum of many terms may differ from the pandas value in its last bits.
"""
from __future__ import annotations

import numbers
import os
import sys

import numpy as np

from ocef.errors import DataError, ParameterTypeError

__all__ = ["read_columns", "read_file", "frame_columns", "n_rows", "to_float", "factorize", "key_codes", "joint_codes",
           "lookup", "gather", "unique", "sum_by", "missing", "check_keys"]


def read_columns(source, *, name: str = "log", columns: dict | None = None) -> dict:
    """A log or target table as columns (CSV or Parquet file, folder, glob, a DataFrame, or columns).

    Parameters
    ----------
    source : str, path, pandas.DataFrame or dict of str to array_like
        A file, folder or glob read by DuckDB (:func:`ocef.backends._duckdb_relation`), a
        DataFrame (:func:`frame_columns`), or columns of one length.
    name : str, default "log"
        The argument's name, for messages.
    columns : dict, optional
        ``{role: column}`` renames (e.g. ``{"propensity": "propensity_score"}``).

    Returns
    -------
    dict of str to numpy.ndarray
        A missing value is NaN (in a numeric column, which is then float) or ``nan`` (in others).

    Raises
    ------
    ocef.errors.DataError
        A file DuckDB cannot read, or columns of different lengths.
    ocef.errors.ParameterTypeError
        For anything else.

    Examples
    --------
    >>> sorted(read_columns({"uid": [1, 2], "item": [2, 3]}, columns={"user": "uid"}))
    ['item', 'user']
    """
    if isinstance(source, (str, os.PathLike)):
        table = {c: _unmasked(a) for c, a in read_file(source, name=name, as_="numpy").items()}
    elif isinstance(source, dict):
        table = {c: np.asarray(a) for c, a in source.items()}
        if len({len(a) for a in table.values()}) > 1 or any(a.ndim != 1 for a in table.values()):
            raise DataError(f"{name}: the columns must be 1-d and of one length")
    elif "pandas" in sys.modules and isinstance(source, sys.modules["pandas"].DataFrame):   # (no import)
        table = frame_columns(source, name=name)
    else:
        raise ParameterTypeError(f"{name} must be a file path or a pandas DataFrame, got {type(source).__name__}")
    rename = {v: k for k, v in (columns or {}).items()}
    return {rename.get(c, c): a for c, a in table.items()}


def read_file(source, *, name: str = "log", as_: str = "numpy"):
    """A CSV or Parquet file, folder or glob read by DuckDB, as numpy columns or a DataFrame.

    Parameters
    ----------
    source : str or path
        Read by :func:`ocef.backends._duckdb_relation` after :func:`ocef.backends._check_path`.
    name : str, default "log"
        The argument's name, for messages.
    as_ : {"numpy", "pandas"}, default "numpy"
        DuckDB's ``fetchnumpy()`` (masked arrays where a column has NULLs) or ``df()``.

    Returns
    -------
    dict of str to numpy.ndarray, or pandas.DataFrame

    Raises
    ------
    ocef.errors.DataError
        A value DuckDB cannot convert (e.g. "inf" in a column of numbers).

    Examples
    --------
    >>> _ = open("t.csv", "w").write("user,item\\n1,2\\n")
    >>> read_file("t.csv")["item"].tolist()
    [2]
    """
    import duckdb

    from ocef.backends import _check_path, _duckdb_relation

    relation = _duckdb_relation(_check_path(source))[0]
    try:
        return relation.fetchnumpy() if as_ == "numpy" else relation.df()
    except duckdb.Error as exc:     # e.g. a value DuckDB's CSV sniffer cannot convert ("inf" in a column)
        raise DataError(f"{name} {os.fspath(source)} cannot be read: {str(exc).splitlines()[0][:200]}; every "
                        "column must hold one type (numbers: finite values only)") from None


def _unmasked(a) -> np.ndarray:
    """DuckDB's column with its NULLs as NaN (a numeric column with NULLs becomes float)."""
    if not isinstance(a, np.ma.MaskedArray):
        return np.asarray(a)
    if not np.ma.getmaskarray(a).any():
        return np.asarray(a.data)
    if a.dtype.kind in "biuf":
        return a.astype(float).filled(np.nan)
    out = np.asarray(a.data).astype(object)
    out[np.ma.getmaskarray(a)] = np.nan
    return out


def frame_columns(frame, *, name: str = "log") -> dict:
    """The columns of a pandas DataFrame as numpy arrays (nullable numbers as float with NaN).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    name : str, default "log"
        For messages.

    Returns
    -------
    dict of str to numpy.ndarray

    Raises
    ------
    ocef.errors.DataError
        Two columns of one name.

    Examples
    --------
    >>> import pandas as pd
    >>> frame_columns(pd.DataFrame({"k": pd.array([1, None], dtype="Int64")}))["k"].tolist()
    [1.0, nan]
    """
    labels = list(frame.columns)
    if len(set(labels)) < len(labels):
        twice = next(c for c in labels if labels.count(c) > 1)
        raise DataError(f"{name} has two columns named {twice!r}")
    out = {}
    for c in labels:
        s = frame[c]
        if isinstance(s.dtype, np.dtype):
            out[c] = s.to_numpy()
        elif s.dtype.kind in "biuf":                # pandas' nullable numbers
            out[c] = s.to_numpy(dtype=float, na_value=np.nan)
        else:                                       # strings, categories, ...: objects, missing as nan
            out[c] = s.to_numpy(dtype=object, na_value=np.nan)
    return out


def n_rows(table: dict) -> int:
    """The number of rows of a table.

    Parameters
    ----------
    table : dict of str to numpy.ndarray

    Returns
    -------
    int

    Examples
    --------
    >>> n_rows({"a": np.zeros(3)})
    3
    """
    return len(next(iter(table.values()))) if table else 0


def _number(x) -> float:
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return float(x)
    if isinstance(x, str):
        try:
            return float(x)
        except ValueError:
            return np.nan
    return np.nan


def to_float(values) -> np.ndarray:
    """Values as floats, NaN for what is not a number (``pandas.to_numeric(errors="coerce")``).

    Parameters
    ----------
    values : array_like

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> to_float(np.array([1, "0.5", "x", None], dtype=object)).tolist()
    [1.0, 0.5, nan, nan]
    """
    a = np.asarray(values)
    if a.dtype.kind in "biuf":
        return a.astype(float)
    return np.fromiter((_number(x) for x in a.tolist()), dtype=float, count=a.size)


def factorize(values) -> tuple[np.ndarray, int]:
    """Integer codes of the distinct values of a column (equal values, equal codes).

    The codes follow the values' sorted order (pandas' ``groupby`` order): numbers, strings and dates
    by ``numpy.unique``, Python objects by a dictionary whose keys are then sorted (kept in order of
    first appearance when they cannot be compared, e.g. numbers and text; ``1`` and ``1.0`` are one
    value, ``1`` and ``"1"`` two).

    Parameters
    ----------
    values : array_like, 1-d

    Returns
    -------
    codes : numpy.ndarray of int64
    n : int
        How many distinct values.

    Examples
    --------
    >>> factorize(np.array([3, 1, 3]))[0].tolist(), factorize(np.array(["b", 1, "b"], dtype=object))[0].tolist()
    ([1, 0, 1], [0, 1, 0])
    >>> factorize(np.array(["b", "a", "b"], dtype=object))[0].tolist()
    [1, 0, 1]
    """
    a = np.asarray(values)
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.dtype.kind in "iu" and a.size:
        lo, hi = int(a.min()), int(a.max())
        if hi - lo <= max(4 * a.size, 1024):           # a small range: no sort
            shifted = (a - lo).astype(np.int64)
            present = np.bincount(shifted, minlength=hi - lo + 1) > 0
            return (np.cumsum(present) - 1)[shifted], int(present.sum())
    if a.dtype.kind in "biufUSmM":
        uniq, codes = np.unique(a, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), len(uniq)
    values = a.tolist()
    uniques = list(dict.fromkeys(values))
    try:
        uniques.sort()
    except TypeError:                                  # numbers and text: first appearance
        pass
    index = {v: i for i, v in enumerate(uniques)}
    return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=a.size), len(uniques)


def key_codes(columns, *, in_order: bool = False) -> tuple[np.ndarray, int]:
    """Codes of the distinct rows of several columns (a composite key).

    Parameters
    ----------
    columns : sequence of array_like
        Columns of one length (at least one).
    in_order : bool, default False
        Number the keys in their order of first appearance (``pandas.factorize``'s order).

    Returns
    -------
    codes : numpy.ndarray of int64
    n : int

    Examples
    --------
    >>> key_codes([np.array([2, 2, 1]), np.array(["a", "b", "a"])], in_order=True)
    (array([0, 1, 2]), 3)
    """
    code, n = factorize(columns[0])
    for col in columns[1:]:
        c, k = factorize(col)
        code, n = factorize(code * k + c)
    if in_order and n:
        first = np.full(n, code.size, dtype=np.int64)
        np.minimum.at(first, code, np.arange(code.size))
        rank = np.empty(n, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(n)
        code = rank[code]
    return code, n


def _kind(a: np.ndarray) -> str:
    if a.dtype.kind in "biuf":
        return "numbers"
    if a.dtype.kind in "US":
        return "text"
    if a.dtype.kind == "O":
        kinds = {"text" if isinstance(x, str) else "numbers" if isinstance(x, numbers.Number) else "other"
                 for x in a[:1000].tolist()}
        return kinds.pop() if len(kinds) == 1 else "other"
    return "other"


def joint_codes(left, right, *, names=("left", "right"), keys=()) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of a composite key over two tables: equal keys on either side, equal codes.

    Parameters
    ----------
    left, right : sequence of array_like
        The key columns of each side, in the same order (at least one).
    names : (str, str)
        The two tables' names, for messages.
    keys : sequence of str
        The key columns' names, for messages.

    Returns
    -------
    left_codes, right_codes : numpy.ndarray of int64
    n : int
        How many distinct keys on the two sides together.

    Raises
    ------
    ocef.errors.DataError
        A key that holds numbers on one side and text on the other (no row would match).

    Examples
    --------
    >>> joint_codes([np.array([2, 5])], [np.array([5, 7])])
    (array([0, 1]), array([1, 2]), 3)
    """
    left = [np.asarray(c) for c in left]
    right = [np.asarray(c) for c in right]
    for j, (a, b) in enumerate(zip(left, right)):
        ka, kb = _kind(a), _kind(b)
        if len(a) and len(b) and {ka, kb} == {"numbers", "text"}:
            key = keys[j] if j < len(keys) else f"key {j}"
            raise DataError(f"{names[1]}: {key} holds {kb} but the {names[0]}'s {key} holds {ka}: no row would "
                            f"match; give both as numbers or both as text")
    nl = len(left[0])
    codes, n = key_codes([np.concatenate([a, b]) for a, b in zip(left, right)])
    return codes[:nl], codes[nl:], n


def lookup(left, right, *, names=("left", "right"), keys=()) -> np.ndarray:
    """For each row of ``left``, the first row of ``right`` with the same key (``-1`` when none).

    A left join's row index: ``right``'s columns gathered with it give the joined table.

    Parameters
    ----------
    left, right : sequence of array_like
        The key columns of each side, in the same order (at least one).
    names : (str, str)
        The two tables' names, for messages.
    keys : sequence of str
        The key columns' names, for messages.

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    ocef.errors.DataError
        As :func:`joint_codes`.

    Examples
    --------
    >>> lookup([np.array([2, 5, 1])], [np.array([1, 2, 2])]).tolist()
    [1, -1, 0]
    """
    lc, rc, n = joint_codes(left, right, names=names, keys=keys)
    first = np.full(n, -1, dtype=np.int64)
    first[rc[::-1]] = np.arange(rc.size - 1, -1, -1)
    return first[lc]


def gather(values, index, fill) -> np.ndarray:
    """``values[index]``, with ``fill`` where ``index`` is ``-1`` (a left join's missing rows).

    Parameters
    ----------
    values : numpy.ndarray
    index : numpy.ndarray of int
        From :func:`lookup`.
    fill : scalar

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> gather(np.array([0.5, 0.25]), np.array([1, -1]), 0.0).tolist()
    [0.25, 0.0]
    """
    values, index = np.asarray(values), np.asarray(index)
    hit = index >= 0
    if hit.all():
        return values[index]
    out = np.full(len(index), fill, dtype=float if values.dtype.kind in "biuf" else object)
    out[hit] = values[index[hit]]
    return out


def unique(values) -> np.ndarray:
    """The distinct values of a column in their order of first appearance (``pandas.unique``).

    Parameters
    ----------
    values : array_like, 1-d

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> unique(np.array(["b", "a", "b"])).tolist()
    ['b', 'a']
    """
    a = np.asarray(values)
    if a.dtype.kind == "O":
        return np.array(list(dict.fromkeys(a.tolist())) or [], dtype=object)
    codes, n = factorize(a)
    first = np.full(n, a.size, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(a.size))
    return a[np.sort(first)]


def sum_by(codes, n: int, values) -> np.ndarray:
    """The sum of ``values`` per code ``0..n-1`` (0 for a code without rows), as pandas 3.1 adds a group.

    pandas' ``groupby(...).sum()``, the codes numbered in the keys' sorted order: with the rows
    sorted by code and no NaN, ``numpy.add.reduceat`` over each run of rows; else a Kahan-compensated
    sum in row order that skips NaN. The audit's sums are therefore the ones it gave with pandas,
    bit for bit (e.g. 0.6 + 0.3 + 0.1 is 1.0, not the 0.9999999999999999 of a plain sum).

    Parameters
    ----------
    codes : array_like of int
        Group codes in the sorted order of the group keys (:func:`factorize`, :func:`key_codes`).
    n : int
        How many groups.
    values : array_like of float

    Returns
    -------
    numpy.ndarray of float, shape (n,)

    Examples
    --------
    >>> sum_by([0, 2, 0, 0], 3, [0.6, 1.0, 0.3, 0.1]).tolist()
    [1.0, 0.0, 1.0]
    """
    codes = np.asarray(codes, dtype=np.int64)
    v = np.asarray(values, dtype=float)
    out = np.zeros(n)
    if codes.size == 0:
        return out
    if (codes[1:] >= codes[:-1]).all() and not np.isnan(v).any():
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        out[codes[starts]] = np.add.reduceat(v, starts)
        return out
    order = np.argsort(codes, kind="stable")
    c = codes[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    lengths = np.diff(np.r_[starts, c.size])
    by_length = np.argsort(-lengths, kind="stable")       # the groups still adding at step k: a prefix
    starts, lengths, groups = starts[by_length], lengths[by_length], c[starts][by_length]
    v = v[order]
    total, comp = np.zeros(len(starts)), np.zeros(len(starts))
    for k in range(int(lengths[0])):
        live = int(np.searchsorted(-lengths, -k, side="left"))
        at = np.arange(live)
        x = v[starts[:live] + k]
        keep = ~np.isnan(x)
        at, x = at[keep], x[keep]
        y = x - comp[at]
        t = total[at] + y
        cp = t - total[at] - y
        cp[np.isnan(cp)] = 0.0                            # pandas GH#53606: inf and -inf
        comp[at], total[at] = cp, t
    out[groups] = total
    return out


def missing(values) -> np.ndarray:
    """Where a column has no value (NaN, None).

    Parameters
    ----------
    values : array_like, 1-d

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> missing(np.array(["a", None, np.nan], dtype=object)).tolist()
    [False, True, True]
    """
    a = np.asarray(values)
    if a.dtype.kind in "fc":
        return np.isnan(a)
    if a.dtype.kind == "O":
        return np.fromiter((x is None or (isinstance(x, float) and x != x) for x in a.tolist()), dtype=bool,
                           count=a.size)
    if a.dtype.kind in "mM":
        return np.isnat(a)
    return np.zeros(a.size, dtype=bool)


def check_keys(table: dict, columns, *, name: str) -> None:
    """Refuse a missing value (NaN, None) in a key column.

    Parameters
    ----------
    table : dict of str to numpy.ndarray
    columns : sequence of str
        The key columns present in ``table`` are checked.
    name : str
        For messages.

    Raises
    ------
    ocef.errors.DataError
        The first row with a missing key.

    Examples
    --------
    >>> check_keys({"user": np.array([1.0, np.nan])}, ["user"], name="log")
    Traceback (most recent call last):
    ...
    ocef.errors.DataError: log: user is missing in row 1 (every row needs its user)
    """
    for c in columns:
        if c in table:
            bad = missing(table[c])
            if bad.any():
                raise DataError(f"{name}: {c} is missing in row {int(np.argmax(bad))} (every row needs its {c})")
