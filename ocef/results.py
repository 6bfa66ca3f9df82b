"""One result protocol for every audit.

Every public result is an immutable (``frozen``) dataclass deriving from :class:`Result`:

- ``to_frame()`` — a tidy :class:`pandas.DataFrame` (one row per group / cell / setting, group
  *names* included); each result class defines it.
- ``to_dict()`` — strict JSON: NaN and ±inf become ``None``, numpy scalars and arrays become
  Python numbers and lists, DataFrames become lists of records, enums their value. By default
  every dataclass field is converted; a class may override it to choose its keys.
- ``to_json(path=None)`` — ``to_dict()`` as text that ``json.loads`` reads without NaN constants;
  written atomically when ``path`` is given.
- ``to_csv(path)`` — ``to_frame()`` written atomically.

:func:`jsonable` and :func:`dumps` are the one conversion used by results and by every ``--json``
output of the command line.
"""
from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import json
import re
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from ocef.files import atomic_write, atomic_write_text
from ocef.errors import ParameterTypeError

__all__ = ["Result", "jsonable", "dumps", "records", "column_records", "column_frame", "rows_to_columns", "presents"]


def jsonable(obj: Any) -> Any:
    """Convert ``obj`` to plain, strict-JSON data (NaN/inf → None, numpy → Python).

    Handles results (through their ``to_dict``), dataclasses, mappings, sequences, numpy
    arrays and scalars, pandas DataFrames (records) and Series (lists), enums, paths, dates and
    times (ISO 8601). A non-finite number becomes ``None`` (strict JSON has no NaN or Infinity);
    a result that must tell an infinite value from an undefined one carries a ``reason`` field.

    Parameters
    ----------
    obj : object
        The value to convert.

    Returns
    -------
    object
        ``None``, ``bool``, ``int``, ``float``, ``str``, or lists and dicts of these.

    Raises
    ------
    TypeError
        For a value with no JSON form (a complex number, an arbitrary object).

    Examples
    --------
    >>> jsonable({"n": np.int64(3), "x": np.array([0.5, np.nan, np.inf])})
    {'n': 3, 'x': [0.5, None, None]}
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, Result):
        return obj.to_dict()
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, complex):
        raise ParameterTypeError(f"cannot convert a complex number to JSON: {obj}")
    if isinstance(obj, dict):
        return {str(jsonable(k)) if not isinstance(k, str) else k: jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()] if obj.ndim else jsonable(obj.item())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.repr}
    # pandas is imported lazily: the bottom of the CLI does not need it.
    mod = type(obj).__module__
    if mod.startswith("pandas"):
        import pandas as pd

        if isinstance(obj, pd.DataFrame):
            return records(obj)
        if isinstance(obj, (pd.Series, pd.Index)):
            return [jsonable(v) for v in obj.tolist()]
        if obj is pd.NA or obj is pd.NaT:
            return None
        if isinstance(obj, pd.Timestamp):
            return obj.isoformat()
    if isinstance(obj, (datetime.date, datetime.time)):     # e.g. a log's day key read as a DATE
        return obj.isoformat()
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    raise ParameterTypeError(f"cannot convert {type(obj).__name__} to JSON")


def records(frame) -> list[dict]:
    """The rows of a DataFrame as strict-JSON dicts.

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table; its column names become the keys.

    Returns
    -------
    list of dict
        One dict per row, values converted by :func:`jsonable`.

    Examples
    --------
    >>> records(pd.DataFrame({"group": ["a", "b"], "estimate": [0.25, float("nan")]}))
    [{'group': 'a', 'estimate': 0.25}, {'group': 'b', 'estimate': None}]
    """
    return [{str(k): jsonable(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def column_records(columns) -> list[dict]:
    """The rows of a table held as equal-length columns, as strict-JSON dicts, without pandas.

    What :func:`records` gives for ``pandas.DataFrame(columns)``, for results that keep their small
    tables as columns and build the DataFrame only when it is asked for (importing pandas takes
    longer than a small audit's work).

    Parameters
    ----------
    columns : mapping of str to sequence
        Column name to values (lists or 1-d arrays of one length).

    Returns
    -------
    list of dict
        One dict per row, keys in column order, values converted by :func:`jsonable`.

    Examples
    --------
    >>> column_records({"group": ["a", "b"], "estimate": np.array([0.25, np.nan])})
    [{'group': 'a', 'estimate': 0.25}, {'group': 'b', 'estimate': None}]
    """
    names = list(columns)
    return [jsonable(dict(zip(names, row))) for row in zip(*columns.values())]


def rows_to_columns(rows: list[dict], columns: list) -> dict:
    """A table given as row dicts (all with the keys ``columns``) as columns: ``{name: [values]}``.

    Parameters
    ----------
    rows : list of dict
        The rows.
    columns : list of str
        The column names, in order.

    Returns
    -------
    dict

    Examples
    --------
    >>> rows_to_columns([{"a": 1, "b": 2}, {"a": 3, "b": 4}], ["a", "b"])
    {'a': [1, 3], 'b': [2, 4]}
    """
    return {c: [r[c] for r in rows] for c in columns}


def column_frame(columns, *, objects=()):
    """The DataFrame of a table kept as columns (``objects``: columns kept as Python objects, e.g.
    ``significant``'s True, False and None).

    Parameters
    ----------
    columns : mapping of str to sequence
        Column name to values.
    objects : sequence of str
        Columns of dtype object.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> column_frame({"a": [1, 2], "significant": [True, None]}, objects=("significant",)).dtypes.tolist()
    [dtype('int64'), dtype('O')]
    """
    import pandas as pd

    # an empty list is an object column (as in a DataFrame made from no rows); arrays keep their dtype
    frame = pd.DataFrame({c: np.array(v, dtype=object) if isinstance(v, list) and not v else v
                          for c, v in columns.items() if c not in objects}, columns=list(columns))
    for c in objects:
        if c in columns:
            values = np.empty(len(columns[c]), dtype=object)
            values[:] = list(columns[c])
            frame[c] = values
    return frame


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """Strict JSON text of ``obj`` (never ``NaN`` or ``Infinity``).

    Parameters
    ----------
    obj : object
        Anything :func:`jsonable` converts: a result, a dict, arrays, a DataFrame, ...
    indent : int, optional
        Indentation of nested levels; ``None`` (default) writes one line.

    Returns
    -------
    str
        JSON text that every strict parser reads.

    Examples
    --------
    >>> dumps({"estimate": float("inf"), "reason": "infinite: no exposure in group b"})
    '{"estimate": null, "reason": "infinite: no exposure in group b"}'
    """
    return json.dumps(jsonable(obj), indent=indent, allow_nan=False)


class Result:
    """Base of every public result (frozen dataclasses): ``to_frame``, ``to_dict``, ``to_csv``.

    Each audit's result is a frozen dataclass deriving from this class. It defines ``to_frame()``
    (a tidy DataFrame) and inherits the strict-JSON ``to_dict()``/``to_json()`` and the atomic
    ``to_csv()``; the views ``overall``, ``groups`` and ``pairs`` and the method ``summary()`` have
    one meaning across results (see the glossary).

    Examples
    --------
    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class Share(Result):
    ...     group: str
    ...     estimate: float
    ...     def to_frame(self):
    ...         return pd.DataFrame([self.to_dict()])
    >>> Share("a", float("nan")).to_json(indent=None)
    '{"group": "a", "estimate": null}'
    """

    def to_frame(self):
        """The result as a tidy DataFrame; each result class defines it.

        One row per group, cell, arm or setting (whatever the result is a table of), with the
        group *names* as a column and the uncertainty columns of the glossary (``estimate``,
        ``ci_low``, ``ci_high``, ``confidence``, ``p_value``, ...) where the result has them.

        Returns
        -------
        pandas.DataFrame
            The columns are listed by each result class's ``to_frame``.

        Raises
        ------
        NotImplementedError
            On a subclass that does not define it.

        Examples
        --------
        >>> import dataclasses
        >>> from ocef.results import Result
        >>> @dataclasses.dataclass(frozen=True)
        ... class Share(Result):
        ...     group: str
        ...     estimate: float
        ...     def to_frame(self):
        ...         return pd.DataFrame({"group": [self.group], "estimate": [self.estimate]})
        >>> Share("a", 0.25).to_frame()
          group  estimate
        0     a      0.25
        """
        raise NotImplementedError(f"{type(self).__name__} must define to_frame()")

    def to_dict(self) -> dict:
        """The result as a strict-JSON dict: one key per public dataclass field.

        Every field shown in the ``repr`` whose name does not start with ``_`` becomes a key,
        in field order, its value converted by :func:`jsonable` (NaN and ±inf become ``None``,
        arrays lists, DataFrames lists of records, enums their value). A class may override it to
        choose its keys.

        Returns
        -------
        dict
            ``{field name: JSON value}``; ``json.dumps(..., allow_nan=False)`` accepts it.

        Examples
        --------
        >>> import dataclasses
        >>> from ocef.results import Result
        >>> @dataclasses.dataclass(frozen=True)
        ... class Share(Result):
        ...     group: str
        ...     estimate: float
        ...     counts: np.ndarray
        >>> Share("a", float("inf"), np.array([3, 4])).to_dict()
        {'group': 'a', 'estimate': None, 'counts': [3, 4]}
        """
        return {f.name: jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)
                if f.repr and not f.name.startswith("_")}

    def to_json(self, path: str | os.PathLike | None = None, *, indent: int | None = 2) -> str:
        """The result as strict JSON text (``to_dict()``), written atomically to ``path`` if given.

        The text never holds ``NaN`` or ``Infinity`` (strict parsers refuse them): a non-finite
        number is ``null``, and a result that must tell an infinite value from an undefined one
        carries a ``reason`` field.

        Parameters
        ----------
        path : str or os.PathLike, optional
            File to write (its parent folder is created if needed), through a temporary file and a
            rename, with a final newline. ``None`` (default) writes nothing.
        indent : int or None, default 2
            Indentation of nested levels; ``None`` writes one line.

        Returns
        -------
        str
            The JSON text (without the final newline written to ``path``).

        Raises
        ------
        OSError
            When ``path`` cannot be written.

        Examples
        --------
        >>> from ocef.datasets import make_toy_rankings
        >>> from ocef.exposure import metric_frame
        >>> res = metric_frame(make_toy_rankings(), metrics="relevance", by="gender")
        >>> res.to_json("frame.json", indent=None)[:40]
        '{"overall": [{"metric": "relevance", "n_'
        """
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)
        if path is not None:
            atomic_write_text(path, text + "\n")
        return text

    def to_csv(self, path: str | os.PathLike) -> Path:
        """Write ``to_frame()`` to a CSV file atomically (no index column).

        The columns are those of ``to_frame()``; a missing value is an empty field.

        Parameters
        ----------
        path : str or os.PathLike
            File to write (its parent folder is created if needed), through a temporary file and a
            rename, so a reader never sees half a file.

        Returns
        -------
        pathlib.Path
            The path written.

        Raises
        ------
        OSError
            When ``path`` cannot be written.

        Examples
        --------
        >>> from ocef.datasets import make_toy_rankings
        >>> from ocef.exposure import metric_frame
        >>> path = metric_frame(make_toy_rankings(), metrics="relevance", by="gender").to_csv("frame.csv")
        >>> path.read_text().splitlines()[0]
        'gender,metric,n_users,estimate,ci_low,ci_high,reason'
        """
        frame = self.to_frame()
        return atomic_write(path, lambda p: frame.to_csv(p, index=False))


_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.M)


def _sections(doc: str) -> dict[str, str]:
    """The numpydoc sections of a docstring: title -> the section's text (title and rule included)."""
    doc = inspect.cleandoc(doc or "")
    heads = list(_SECTION.finditer(doc))
    return {h.group(1): doc[h.start():(heads[i + 1].start() if i + 1 < len(heads) else len(doc))].rstrip()
            for i, h in enumerate(heads)}


def presents(method):
    """Decorator of a result class's view (``to_frame``, ``to_dict``, ``to_json``, ``to_csv``): the
    protocol's documentation, written once on :class:`Result`, completes the view's own docstring.

    The view's docstring says what it presents (its rows, columns or keys); the sections it does
    not write itself (``Parameters``, ``Returns``, ``Raises``, ``Examples``) are :class:`Result`'s
    method of the same name, so the API reference and the doctests see one numpydoc docstring.

    Parameters
    ----------
    method : callable
        A method named as one of :class:`Result`'s.

    Returns
    -------
    callable
        ``method``, its ``__doc__`` completed.

    Examples
    --------
    >>> from ocef.reo.daily import ReoDaily          # its to_frame is decorated
    >>> doc = ReoDaily.to_frame.__doc__
    >>> doc.splitlines()[0][:23], [title for title in ("Returns", "Examples") if title in doc.splitlines()]
    ('The per-day penalties a', ['Returns', 'Examples'])
    """
    base = getattr(Result, method.__name__)
    own = inspect.cleandoc(method.__doc__ or "")
    have = _sections(own)
    extra = [text for title, text in _sections(base.__doc__).items()
             if title not in have and not (title == "Raises" and method.__name__ == "to_frame")]
    method.__doc__ = "\n\n".join([own] + extra) + "\n"
    return method
