"""Checks of a log's format shared by the counting backends (:mod:`ocef.backends`) and the loaders
(:mod:`ocef.environments.logs`); plumbing, below both. Imports pandas only when a CSV header is
read, so that the commands that count logs start fast."""
from __future__ import annotations

import zlib
from pathlib import Path
from typing import Sequence
from ocef.errors import ParameterError, ParameterTypeError


def label_columns(label: str | Sequence[str]) -> list[str]:
    """The label columns of a log as a list: Y = 1 when any of them is 1.

    Parameters
    ----------
    label : str or list of str
        One column name, or several (a non-empty list or tuple of names).

    Returns
    -------
    list of str
        The column names, in order.

    Raises
    ------
    ocef.errors.ParameterTypeError
        For anything but a name or a non-empty sequence of names.

    Examples
    --------
    >>> label_columns("Y"), label_columns(("click", "buy"))
    (['Y'], ['click', 'buy'])
    """
    if not isinstance(label, (str, list, tuple)):
        raise ParameterTypeError(f"label must be a column name or a non-empty list of column names, got {label!r}")
    labels = [label] if isinstance(label, str) else list(label)
    if not labels or not all(isinstance(c, str) for c in labels):
        raise ParameterTypeError(f"label must be a column name or a non-empty list of column names, got {label!r}")
    return labels


def read_errors() -> tuple:
    """The exceptions pandas raises on a corrupt or unreadable log file.

    A truncated or fake ``.gz`` (``OSError``, ``EOFError``, ``zlib.error``), bytes that are not
    text in the file's encoding (``UnicodeError``) and a malformed CSV (``ParserError``). The log
    readers (:func:`check_csv_header`, :func:`ocef.environments.logs.read_log`) catch exactly
    these and raise a one-line :class:`~ocef.errors.ParameterError` naming the file, instead of a
    traceback from deep inside pandas. A function, not a constant, so that pandas is imported
    only when a log is read.

    Returns
    -------
    tuple of type
        The exception classes, for an ``except`` clause.

    Examples
    --------
    >>> [e.__name__ for e in read_errors()]
    ['OSError', 'EOFError', 'UnicodeError', 'error', 'ParserError']
    >>> with open("log.csv.gz", "wb") as f:
    ...     _ = f.write(b"not gzip at all")
    >>> try:
    ...     pd.read_csv("log.csv.gz")
    ... except read_errors() as exc:
    ...     print(type(exc).__name__)
    BadGzipFile
    """
    import pandas as pd

    return (OSError, EOFError, UnicodeError, zlib.error, pd.errors.ParserError)


#: compressed CSV files read with the standard library (pandas infers the same from the suffix)
_OPENERS = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


def _csv_header(path: Path) -> list[str]:
    """The names of a CSV file's first non-blank row, stripped (``pandas.read_csv(nrows=1, header=None)``'s),
    read with the standard library: pandas is imported only for a compression it alone reads (.zip, .zst)."""
    import csv
    import importlib

    suffix = path.suffix.lower()
    if suffix in (".zip", ".zst", ".tar"):
        import pandas as pd

        try:
            first = pd.read_csv(path, nrows=1, header=None, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            raise ParameterError(f"log file {path} is empty") from None
        except read_errors() as exc:
            raise ParameterError(f"cannot read log file {path}: {exc}") from None
        return [str(v).strip() for v in first.iloc[0]] if len(first) else []
    module = importlib.import_module(_OPENERS[suffix]) if suffix in _OPENERS else None
    try:
        with (module.open if module else open)(path, "rt", encoding="utf-8-sig", newline="") as fh:
            row = next((r for r in csv.reader(fh) if r), None)
    except (OSError, EOFError, UnicodeError, zlib.error, csv.Error, getattr(module, "LZMAError", OSError)) as exc:
        raise ParameterError(f"cannot read log file {path}: {exc}") from None
    if row is None:
        raise ParameterError(f"log file {path} is empty")
    return [v.strip() for v in row]


def check_csv_header(path: Path) -> None:
    """Check that a CSV log can be read and that its header names each column once.

    Every counting backend would silently keep one of two columns of the same name, and a corrupt
    ``.gz`` is better named here than deep in a backend.

    Parameters
    ----------
    path : pathlib.Path or str
        The CSV file (compression from the suffix).

    Raises
    ------
    ocef.errors.ParameterError
        For an empty or unreadable file, or duplicate column names (naming them).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("S,Y,Y\\n0,1,1\\n")
    >>> check_csv_header(path)
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: log file ... has duplicate column name(s) ['Y']
    """
    names = _csv_header(Path(path))
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ParameterError(f"log file {path} has duplicate column name(s) {dupes}")
