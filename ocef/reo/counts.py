"""Counts first: REO's sufficient statistics (per-group positive counts and log sizes) of several
logs, computed where the logs live (:mod:`ocef.logs_engine`: DuckDB, pandas or Spark).

Every REO quantity -- ``P_k``, ``Q_k`` (eq. 5), Algorithm 1, the bootstrap (App. G.2) and the
A/B methods (Alg. 2-4) -- depends on a log only through ``#{Y=1, S=s_k}`` and its number of
rows, optionally per day (Fig. 6). See :mod:`ocef.reo` for the whole API.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ocef.logs_engine import group_counts
from ocef.reo.estimators import resolve_groups
from ocef.results import Result


@dataclass(frozen=True, eq=False)
class ReoCounts(Result):
    """Per-group counts of named logs.

    ``table``: tidy DataFrame ``log, [by], group, n, positives`` (rows of the group in the log,
    and of them rows with Y = 1), one row per log, key and group (zeros included); ``groups``:
    the K groups in order; ``by``: the name of the extra key (e.g. ``"day"``) or None, and
    ``index`` its values in order.
    """

    table: pd.DataFrame
    groups: tuple
    logs: tuple
    by: str | None = None
    index: tuple | None = None

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def _cube(self, log: str, column: str) -> np.ndarray:
        if log not in self.logs:
            raise KeyError(f"no log named {log!r}; logs are {list(self.logs)}")
        part = self.table[self.table["log"] == log]
        values = part[column].to_numpy(dtype=np.int64)
        return values.reshape(-1, len(self.groups)) if self.by is not None else values

    def positives(self, log: str) -> np.ndarray:
        """``#{Y=1, S=s_k}`` per group (K,), or per key and group (D, K) when ``by`` is set."""
        return self._cube(log, "positives")

    def group_rows(self, log: str) -> np.ndarray:
        """Rows per group (K,) or (D, K)."""
        return self._cube(log, "n")

    def rows(self, log: str) -> np.ndarray:
        """Rows of the log: a scalar, or one per key (D,) when ``by`` is set."""
        return self.group_rows(log).sum(axis=-1)

    def category_counts(self, log: str) -> np.ndarray:
        """``(#{Y=1,S=s_1}, ..., #{Y=1,S=s_K}, #rows with Y=0)``: the multinomial sufficient
        statistic of the log (App. G.2), shape (K+1,) or (D, K+1)."""
        pos = self.positives(log)
        return np.concatenate([pos, (self.rows(log) - pos.sum(axis=-1))[..., None]], axis=-1)


def reo_counts(logs: Mapping[str, object], *, label: str | Sequence[str] = "Y", group: str = "S",
               groups: Sequence | None = None, by: str | None = None, engine: str = "auto",
               spark=None) -> ReoCounts:
    """Per-group counts of each log in ``logs`` (name -> a DataFrame, a file, a DuckDB relation or
    :class:`~ocef.logs_engine.Sql` query, or a Spark DataFrame), optionally per value of ``by``
    (e.g. ``"day"``), with one engine (:func:`ocef.logs_engine.group_counts`).

    ``groups``: the groups and their order (default: the sorted values found in the logs; at
    least 2). Every log needs at least one row (``ValueError`` "<name> log is empty").
    """
    if by is not None and (not isinstance(by, str) or by == group):
        raise ValueError(f"by must be a column name other than the group column {group!r}, got {by!r}")
    keys = [by, group] if by is not None else [group]
    tables = {}
    for name, source in logs.items():
        t = group_counts(source, by=keys, label=label, engine=engine, name=name, spark=spark)
        if t["n"].sum() == 0:
            raise ValueError(f"{name} log is empty: REO needs at least one row")
        tables[name] = t
    names = resolve_groups([pd.unique(t[group].to_numpy(dtype=object)) for t in tables.values()], group, groups)
    if by is not None:
        index = sorted(set().union(*[set(t[by].tolist()) for t in tables.values()]),
                       key=lambda v: (str(type(v)), v))
        full = pd.MultiIndex.from_product([index, names], names=[by, "group"])
    else:
        index = None
        full = pd.Index(names, name="group", dtype=object)
    parts = []
    for name, t in tables.items():
        t = t.rename(columns={group: "group"}).set_index(["group"] if by is None else [by, "group"])
        t = t.reindex(full, fill_value=0).reset_index()
        t.insert(0, "log", name)
        parts.append(t)
    table = pd.concat(parts, ignore_index=True)
    table["n"] = table["n"].astype(np.int64)
    table["positives"] = table["positives"].astype(np.int64)
    return ReoCounts(table, tuple(names), tuple(logs), by, tuple(index) if index is not None else None)
