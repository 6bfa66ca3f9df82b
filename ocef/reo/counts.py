"""Counts first: REO's sufficient statistics (per-group positive counts and log sizes) of several
logs, computed where the logs live (:mod:`ocef.backends`: DuckDB, pandas or Spark).

Every REO quantity -- ``P_k``, ``Q_k`` (eq. 5), Algorithm 1, the bootstrap (App. G.2) and the
A/B methods (Alg. 2-4) -- depends on a log only through ``#{Y=1, S=s_k}`` and its number of
rows, optionally per day (Fig. 6). See :mod:`ocef.reo` for the whole API.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from ocef.backends import BACKENDS, count_keys
from ocef.reo.groups import resolve_groups
from ocef.results import Result, presents
from ocef.errors import ParameterError, ParameterTypeError
from ocef.validation import Instance, OrNone, Options, validate_params

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class ReoCounts(Result):
    """Per-group counts of named logs, from :func:`reo_counts`: the sufficient statistics of every REO
    estimate (eq. 5, App. G.2).

    The methods read one log (with a leading key axis when ``by`` is set).

    Parameters
    ----------
    cube : numpy.ndarray of int64, shape (n_logs, [n_keys,] K, 2)
        Rows and positives of every log, key and group, zeros included.
    group_names : tuple
        The K groups, in order.
    logs : tuple of str
        The log names, in order.
    by : str, optional
        The extra key (e.g. ``"day"``).
    index : tuple, optional
        The key values in order.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> reo_counts(dict(zip(["default", "random"], make_toy_reo_logs((1, 3), (2, 2), n_per_group=3)))).groups.values.tolist()
    [['a', 3, 1, 3, 2], ['b', 3, 3, 3, 2]]
    """

    cube: np.ndarray
    group_names: tuple
    logs: tuple
    by: str | None = None
    index: tuple | None = None

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group: ``group`` (name), then ``n_<log>`` (rows) and ``positives_<log>``
        (rows with Y = 1) for each log in order, summed over the values of ``by`` when it is set."""
        import pandas as pd

        per_group = self.cube.sum(axis=1) if self.by is not None else self.cube     # (log, group, 2)
        columns = {"group": list(self.group_names)}
        for li, log in enumerate(self.logs):
            columns[f"n_{log}"] = per_group[li, :, 0].astype(np.int64)
            columns[f"positives_{log}"] = per_group[li, :, 1].astype(np.int64)
        return pd.DataFrame(columns)

    @cached_property
    def table(self) -> pd.DataFrame:
        """Tidy counts: one row per log, [key] and group."""
        import pandas as pd

        rows = []
        for li, log in enumerate(self.logs):
            keys = [(None, self.cube[li])] if self.by is None else zip(self.index, self.cube[li])
            for key, per_group in keys:
                for g, (n, pos) in zip(self.group_names, per_group):
                    rows.append((log,) + (() if self.by is None else (key,)) + (g, int(n), int(pos)))
        columns = ["log"] + ([] if self.by is None else [self.by]) + ["group", "n", "positives"]
        table = pd.DataFrame(rows, columns=columns)
        table["n"] = table["n"].astype(np.int64)
        table["positives"] = table["positives"].astype(np.int64)
        return table

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The tidy counts: one row per log, [key] and group (a copy of ``table``).

        Columns ``log``, the key column ``by`` when it is set, ``group``, ``n`` (rows, int64)
        and ``positives`` (rows with Y = 1, int64): the counts behind ``P_k`` and ``Q_k``
        (eq. 5). Groups without rows in a log appear with zeros.
        """
        return self.table.copy()

    def _cube(self, log: str, column: int) -> np.ndarray:
        if log not in self.logs:
            raise ParameterError(f"log must be one of {list(self.logs)}, got {log!r}")
        return self.cube[self.logs.index(log), ..., column].copy()

    def positives(self, log: str) -> np.ndarray:
        """The positives ``#{Y=1, S=s_k}`` of one log per group (per key and group with ``by``): the
        numerators of ``P_k`` and ``Q_k`` (eq. 5).

        Parameters
        ----------
        log : str
            One of ``logs``.

        Returns
        -------
        numpy.ndarray of int64, shape (K,) or (D, K)

        Examples
        --------
        >>> from ocef.datasets import make_toy_reo_logs
        >>> reo_counts(dict(zip(["default", "random"], make_toy_reo_logs((1, 3))))).positives("default").tolist()
        [1, 3]
        """
        return self._cube(log, 1)

    def group_rows(self, log: str) -> np.ndarray:
        """The rows of one log per group ``#{S=s_k}`` (per key and group with ``by``).

        Parameters
        ----------
        log : str
            The name of a log, one of ``logs``.

        Returns
        -------
        numpy.ndarray of int64, shape (K,) or (D, K)

        Examples
        --------
        >>> from ocef.datasets import make_toy_reo_logs
        >>> reo_counts(dict(zip(["default", "random"], make_toy_reo_logs()))).group_rows("default").tolist()
        [100, 100]
        """
        return self._cube(log, 0)

    def rows(self, log: str) -> np.ndarray:
        """The rows of one log, ``|D_rec|`` or ``|D_rand|`` (per key with ``by``): the denominators of eq. (5).

        Parameters
        ----------
        log : str
            The name of a log, one of ``logs``.

        Returns
        -------
        numpy.int64 or numpy.ndarray of int64, shape (D,)

        Examples
        --------
        >>> from ocef.datasets import make_toy_reo_logs
        >>> int(reo_counts(dict(zip(["default", "random"], make_toy_reo_logs()))).rows("random"))
        200
        """
        return self.group_rows(log).sum(axis=-1)

    def category_counts(self, log: str) -> np.ndarray:
        """The multinomial sufficient statistic of one log (App. G.2): ``(#{Y=1,S=s_1}, ...,
        #{Y=1,S=s_K}, #{Y=0})``, per key with ``by``.

        Parameters
        ----------
        log : str
            The name of a log, one of ``logs``.

        Returns
        -------
        numpy.ndarray of int64, shape (K+1,) or (D, K+1)

        Examples
        --------
        >>> from ocef.datasets import make_toy_reo_logs
        >>> reo_counts(dict(zip(["default", "random"], make_toy_reo_logs()))).category_counts("default").tolist()
        [20, 40, 140]
        """
        pos = self.positives(log)
        return np.concatenate([pos, (self.rows(log) - pos.sum(axis=-1))[..., None]], axis=-1)


@validate_params(group=Instance(str), by=OrNone(Instance(str)), backend=Options(*BACKENDS))
def reo_counts(logs: Mapping[str, object], *, label: str | Sequence[str] = "Y", group: str = "S",
               groups: Sequence | None = None, by: str | None = None, backend: str = "auto",
               spark=None) -> ReoCounts:
    """Per-group counts of named logs, computed where the logs live (:func:`ocef.backends.group_counts`:
    DuckDB for files, pandas for DataFrames, or Spark): REO's sufficient statistics (eq. 5, App. G.2).

    Parameters
    ----------
    logs : mapping of str to log
        Name -> a DataFrame, a file (CSV, Parquet, a directory or glob of Parquet partitions), a
        DuckDB relation, an :class:`ocef.backends.Sql` query or a Spark DataFrame.
    label : str or sequence of str
        The 0/1 label column(s); with several, ``Y`` is their OR.
    group : str
        The item-group column.
    groups : sequence, optional
        Default: the sorted values found (at least 2).
    by : str, optional
        An extra key column (e.g. ``"day"``).
    backend : {"auto", "duckdb", "pandas", "spark"}
        Where the counts are computed.
    spark : SparkSession, optional
        For ``backend="spark"``.

    Returns
    -------
    ReoCounts

    Raises
    ------
    ValueError
        For labels other than 0 and 1 (:class:`ocef.errors.DataError` from DuckDB and Spark).

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> default, random = make_toy_reo_logs()
    >>> reo_counts({"default": default, "random": random}).positives("random").tolist()
    [30, 30]
    """
    if not isinstance(group, str) or not group:
        raise ParameterTypeError(f"group must be the name of the item-group column (a non-empty str), got {group!r}")
    if by is not None and (not isinstance(by, str) or by == group):
        raise ParameterError(f"by must be a column name other than the group column {group!r}, got {by!r}")
    keys = [by, group] if by is not None else [group]
    tables = {}
    for name, source in logs.items():
        t = count_keys(source, by=keys, label=label, backend=backend, name=name, spark=spark)
        if sum(r[-2] for r in t.rows) == 0:
            raise ParameterError(f"{name} log is empty: REO needs at least one row")
        tables[name] = t.rows
    names = resolve_groups([[r[-3] for r in rows] for rows in tables.values()], group, groups)
    col = {g: i for i, g in enumerate(names)}
    if by is not None:
        index = sorted({r[0] for rows in tables.values() for r in rows}, key=lambda v: (str(type(v)), v))
        row_of = {v: i for i, v in enumerate(index)}
        cube = np.zeros((len(tables), len(index), len(names), 2), dtype=np.int64)
        for li, rows in enumerate(tables.values()):
            for key, g, n, pos in rows:
                cube[li, row_of[key], col[g]] = (n, pos)
    else:
        index = None
        cube = np.zeros((len(tables), len(names), 2), dtype=np.int64)
        for li, rows in enumerate(tables.values()):
            for g, n, pos in rows:
                cube[li, col[g]] = (n, pos)
    return ReoCounts(cube, tuple(names), tuple(logs), by, tuple(index) if index is not None else None)
