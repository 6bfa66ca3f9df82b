"""Loaders for recommendation logs with default and random traffic (Dong et al. 2024, Sec. 3.2, 4.2).

A log is a CSV (optionally compressed) or Parquet table with one row per logged (request, item)
impression: 0/1 label column(s) Y, an item-group column S, and optionally ``source``
(``"default"`` or ``"random"``, when both traffics share one file, :func:`split_by_source`) and
``day``; other columns are kept. The full schema: docs/formats/reo-logs.md. Coat and the Open
Bandit Dataset are read by :mod:`ocef.datasets`; the paper's published TikTok data by
:func:`load_published` (Y = any of :data:`PUBLISHED_SIGNALS`, S = ``young_adult``, creators
aged 18-24).
"""
from __future__ import annotations


from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ocef.log_schema import check_csv_header, label_columns, read_errors
from ocef.errors import ParameterError

__all__ = [
    "SOURCE_DEFAULT", "SOURCE_RANDOM", "PUBLISHED_SIGNALS", "PUBLISHED_GROUP",
    "read_log", "split_by_source", "load_logs", "load_published",
]

SOURCE_DEFAULT = "default"
SOURCE_RANDOM = "random"
PUBLISHED_SIGNALS = ("like_video", "share", "follow", "finish", "download", "long_view")
PUBLISHED_GROUP = "young_adult"


def read_log(path: str | Path, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read one log file of the generic schema (module docstring) into a DataFrame.

    ``.parquet``/``.pq`` with pyarrow, anything else as CSV (compression from the suffix, header
    checked first by :func:`~ocef.log_schema.check_csv_header`).

    Parameters
    ----------
    path : str or Path
        The log file.
    columns : sequence of str, optional
        Columns the log must have (the error names the missing ones and the file).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_log
    >>> make_toy_reo_log().to_csv("log.csv", index=False)
    >>> read_log("log.csv", columns=["Y", "S"]).shape
    (200, 2)
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"log {path} is a directory, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"log file not found: {path}")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            log = pd.read_parquet(path)
        else:
            check_csv_header(path)          # duplicate column names, unreadable or empty file
            log = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ParameterError(f"log {path} is empty") from None
    except read_errors() as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ParameterError(f"cannot read log {path}: {exc}") from None
    if columns is not None:
        missing = [c for c in columns if c not in log.columns]
        if missing:
            raise ParameterError(f"log {path} is missing column(s) {missing}; it has {list(log.columns)}")
    return log


def split_by_source(log: pd.DataFrame, *, source: str = "source") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a log holding both traffics into its default and random rows (Dong et al. 2024, Sec. 3.2), order kept.

    Parameters
    ----------
    log : pandas.DataFrame
        With a traffic-source column holding only ``"default"`` and ``"random"``.
    source : str
        That column.

    Returns
    -------
    default, random : pandas.DataFrame
        Re-indexed from 0.

    Examples
    --------
    >>> log = pd.DataFrame({"Y": [1, 0, 0, 1], "source": ["default", "random", "default", "random"]})
    >>> [part["Y"].tolist() for part in split_by_source(log)]
    [[1, 0], [0, 1]]
    """
    if source not in log.columns:
        raise ParameterError(f"log is missing the traffic-source column {source!r}; it has {list(log.columns)}")
    values = set(pd.unique(log[source]))
    unknown = values - {SOURCE_DEFAULT, SOURCE_RANDOM}
    if unknown:
        raise ParameterError(f"column {source!r} must hold {SOURCE_DEFAULT!r} or {SOURCE_RANDOM!r}, "
                         f"found {sorted(map(str, unknown))}")
    is_default = (log[source] == SOURCE_DEFAULT).to_numpy()
    return log[is_default].reset_index(drop=True), log[~is_default].reset_index(drop=True)


def load_logs(default: str | Path | None = None, random: str | Path | None = None, *,
              combined: str | Path | None = None, label: str | Sequence[str] = "Y",
              group: str = "S", source: str = "source") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Load the default and the random traffic of a REO audit (Dong et al. 2024, Sec. 3.2, 4.2).

    Two files, or one ``combined`` file split by its ``source`` column (:func:`split_by_source`),
    in the generic schema (module docstring).

    Parameters
    ----------
    default, random : str or Path, optional
        The files of D_rec and D_rand.
    combined : str or Path, optional
        One file with both traffics, instead.
    label : str or sequence of str
        The 0/1 preference column(s) (Y = 1 when any of them is 1).
    group : str
        The item-group column.
    source : str
        The traffic-source column of ``combined``.

    Returns
    -------
    default, random : pandas.DataFrame

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> default, random = make_toy_reo_logs()
    >>> default.to_parquet("default.parquet"); random.to_csv("random.csv.gz", index=False)
    >>> [len(part) for part in load_logs("default.parquet", "random.csv.gz")]
    [200, 200]
    """
    need = label_columns(label) + [group]
    if combined is not None:
        if default is not None or random is not None:
            raise ParameterError("give either combined or default and random, not both")
        return split_by_source(read_log(combined, columns=need + [source]), source=source)
    if default is None or random is None:
        raise ParameterError("give both default and random log files (or combined)")
    return read_log(default, columns=need), read_log(random, columns=need)


def load_published(default: str | Path, random: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Load the TikTok logs published with Dong et al. 2024 (Sec. 1, 4.2) in the generic schema.

    Y = any of the six engagement signals (:data:`PUBLISHED_SIGNALS`), S = ``young_adult``
    (:data:`PUBLISHED_GROUP`), ``source`` = ``"default"`` or ``"random"``; other columns are kept.

    Parameters
    ----------
    default, random : str or Path
        The files of the recommended and the uniformly random videos.

    Returns
    -------
    default, random : pandas.DataFrame

    Examples
    --------
    >>> rows = [[1, 0, 0, 0, 0, 0, 1], [0, 0, 0, 1, 0, 1, 0]]
    >>> pd.DataFrame(rows, columns=[*PUBLISHED_SIGNALS, PUBLISHED_GROUP]).to_csv("log.csv", index=False)
    >>> load_published("log.csv", "log.csv")[0][["Y", "S"]].values.tolist()
    [[1, 1], [1, 0]]
    """
    need = list(PUBLISHED_SIGNALS) + [PUBLISHED_GROUP]
    out = []
    for path, src in ((default, SOURCE_DEFAULT), (random, SOURCE_RANDOM)):
        log = read_log(path, columns=need)
        for col in need:
            bad = ~log[col].isin([0, 1])
            if bad.any():
                raise ParameterError(f"{src} log {path}: column {col!r} must hold only 0/1, "
                                 f"found {pd.unique(log[col][bad])[:5].tolist()}")
        y = log[list(PUBLISHED_SIGNALS)].astype(bool).any(axis=1)
        out.append(log.assign(Y=y.astype(np.int8), S=log[PUBLISHED_GROUP].astype(np.int8), source=src))
    return out[0], out[1]
