"""Per-group sums of a propensity log of any size, in one DuckDB scan, and the group values from them.

:func:`group_sums` joins the log with the target's probability table inside DuckDB and returns, per
group, the sufficient statistics of IPS and SNIPS and of their Wald intervals (``n``, ``Σw``,
``Σw²``, ``Σwr``, ``(Σwr)²``-terms, ``Σw²r``, ``max w``, clicks) together with the checks of the
log (propensities in (0, 1], no missing reward) in the same scan; only one row per group reaches
Python. The same SQL (:func:`sums_sql`) runs on Spark for logs on a cluster (``backend="spark"``). :func:`group_values` turns them into IPS and SNIPS estimates with Wald intervals — the
same numbers as :func:`ocef.offpolicy.offpolicy_audit` with ``interval="wald"`` on the same rows (a
test). Measured by ``benchmarks/offpolicy_scale.py``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ocef.errors import DataError, ParameterError
from ocef.validation import CONFIDENCE, validate_params

__all__ = ["group_sums", "group_values", "sums_sql", "SUM_COLUMNS"]

#: Columns of :func:`group_sums` besides the group columns.
SUM_COLUMNS = ("n", "sum_w", "sum_w2", "sum_wr", "sum_wr2", "sum_w2r", "max_w", "clicks")


def _relation(source, con, name):
    from ocef.backends import _check_path, _lit, _parquet_pattern, _is_parquet

    if isinstance(source, pd.DataFrame):
        return con.from_df(source)
    path = _check_path(source)
    if _is_parquet(path):
        return con.sql(f"SELECT * FROM read_parquet({_lit(_parquet_pattern(path))}, hive_partitioning = true)")
    return con.sql(f"SELECT * FROM read_csv({_lit(path)}, header = true)")


def sums_sql(by: Sequence[str], keys: Sequence[str], *, log: str = "ocef_offpolicy_log",
             target: str = "ocef_offpolicy_target", dialect: str = "duckdb") -> str:
    """The one SQL query of :func:`group_sums` (DuckDB or Spark dialect): the log ``log`` LEFT JOIN the
    target's probabilities ``target`` on ``keys`` and ``item``, grouped by ``by``.

    Parameters
    ----------
    by : sequence of str
        Group columns of the log.
    keys : sequence of str
        Context columns joining the target (besides ``item``).
    log, target : str
        The names of the two tables (views).
    dialect : {"duckdb", "spark"}, default "duckdb"
        Identifier quoting.

    Returns
    -------
    str

    Examples
    --------
    >>> sums_sql(["g"], [], dialect="spark").split(" FROM ")[1]
    'ocef_offpolicy_log l LEFT JOIN ocef_offpolicy_target t ON l.`item` = t.`item` GROUP BY l.`g` ORDER BY l.`g`'
    """
    from ocef.backends import sql_identifier

    def q(c):
        return sql_identifier(c, dialect)

    on = " AND ".join(f"l.{q(c)} = t.{q(c)}" for c in [*keys, "item"])
    g = ", ".join(f"l.{q(c)}" for c in by)
    sel = (g + ", ") if by else ""
    w = "(coalesce(t.probability, 0.0) / l.propensity)"
    return (f"SELECT {sel}count(*) AS n, sum({w}) AS sum_w, sum({w} * {w}) AS sum_w2, sum({w} * l.reward) AS sum_wr, "
            f"sum(({w} * l.reward) * ({w} * l.reward)) AS sum_wr2, sum({w} * {w} * l.reward) AS sum_w2r, "
            f"max({w}) AS max_w, count_if(l.reward > 0) AS clicks, min(l.propensity) AS _pmin, "
            f"max(l.propensity) AS _pmax, count_if(l.reward IS NULL OR l.propensity IS NULL) AS _null "
            f"FROM {log} l LEFT JOIN {target} t ON {on}"
            + (f" GROUP BY {g} ORDER BY {g}" if by else ""))


def group_sums(log, target, *, by: Sequence[str] = (), keys: Sequence[str] | None = None,
               backend: str = "duckdb", spark=None) -> pd.DataFrame:
    """Per-group sums of the importance weights ``w = pi(a|x) / p`` and weighted rewards, in one SQL query.

    Parameters
    ----------
    log : str, path, pandas.DataFrame or Spark DataFrame
        ``user, item, reward, propensity`` [, ``position``] and the ``by`` columns; a CSV or Parquet
        file, folder or glob of any size.
    target : str, path, pandas.DataFrame or Spark DataFrame
        Action probabilities ``[user,] item [, position], probability`` (form (a) of
        :mod:`ocef.offpolicy.inputs`).
    by : sequence of str, default ()
        Group columns of the log (none: one row for the whole log).
    keys : sequence of str, optional
        Context columns joining the target (default: those of ``user``, ``position`` the target has).
    backend : {"duckdb", "spark"}, default "duckdb"
        Where the same SQL (:func:`sums_sql`) runs: DuckDB in this process, or Spark.
    spark : SparkSession, optional
        The session of ``backend="spark"`` (default :func:`ocef.backends.spark_session`).

    Returns
    -------
    pandas.DataFrame
        The ``by`` columns and :data:`SUM_COLUMNS`, one row per group.

    Raises
    ------
    ocef.errors.DataError
        A propensity outside (0, 1] or a missing reward anywhere in the log.
    ocef.errors.ParameterError
        An unknown backend; ``backend="spark"`` without pyspark or Java.

    Examples
    --------
    >>> from ocef.datasets import make_toy_propensity_log
    >>> s = group_sums(*make_toy_propensity_log(), by=["g"])
    >>> s[["g", "n", "sum_w", "sum_wr"]].round(2).values.tolist()
    [['a', 100, 92.4, 34.8], ['b', 100, 89.7, 22.2]]
    """
    if backend not in ("duckdb", "spark"):
        raise ParameterError(f"backend must be 'duckdb' or 'spark', got {backend!r}")
    if backend == "spark":
        from ocef.backends import spark_table

        spark, lcols = spark_table(log, "ocef_offpolicy_log", spark)
        _, tcols = spark_table(target, "ocef_offpolicy_target", spark)
    else:
        from ocef.backends import duckdb_cursor

        con = duckdb_cursor()
        con.register("ocef_offpolicy_log", _relation(log, con, "log"))
        con.register("ocef_offpolicy_target", _relation(target, con, "target"))
        tcols = [c[0] for c in con.execute("SELECT * FROM ocef_offpolicy_target LIMIT 0").description]
        lcols = [c[0] for c in con.execute("SELECT * FROM ocef_offpolicy_log LIMIT 0").description]
    for c in ("user", "item", "reward", "propensity", *by):
        if c not in lcols:
            raise DataError(f"log has no column {c}")
    if keys is None:
        keys = [c for c in ("user", "position") if c in tcols and c in lcols]
    sql = sums_sql(by, keys, dialect=backend)
    if backend == "spark":
        out = spark.sql(sql).toPandas()
        spark.catalog.dropTempView("ocef_offpolicy_log")
        spark.catalog.dropTempView("ocef_offpolicy_target")
    else:
        out = con.execute(sql).df()
        con.unregister("ocef_offpolicy_log")
        con.unregister("ocef_offpolicy_target")
    if (out["_null"] > 0).any():
        raise DataError("log: a reward or propensity is missing")
    if (out["_pmin"] <= 0).any() or (out["_pmax"] > 1).any():
        raise DataError(f"log: propensity must lie in (0, 1], got values in [{out['_pmin'].min()!r}, "
                        f"{out['_pmax'].max()!r}]")
    return out.drop(columns=["_pmin", "_pmax", "_null"]).astype({"n": "int64", "clicks": "int64"})


@validate_params(confidence=CONFIDENCE)
def group_values(sums: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """IPS and SNIPS per group with Wald intervals (Student t, ``n - 1`` degrees of freedom, as
    :func:`ocef.offpolicy.intervals.wald_interval`), from :func:`group_sums`.

    IPS ``= Σwr / n`` with the sample variance of ``w r``; SNIPS ``= Σwr / Σw`` with the variance of
    its linearization ``w (r - V) / mean(w)`` (delta method), both with ``n - 1`` degrees of freedom.

    Parameters
    ----------
    sums : pandas.DataFrame
        The output of :func:`group_sums`.
    confidence : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        The group columns, ``estimator`` (ips, snips), ``estimate, ci_low, ci_high, confidence,
        n_rows, ess, max_weight, clicks``.

    Examples
    --------
    >>> s = pd.DataFrame({"n": [4], "sum_w": [4.0], "sum_w2": [8.0], "sum_wr": [2.0], "sum_wr2": [4.0],
    ...                   "sum_w2r": [4.0], "max_w": [2.0], "clicks": [1]})
    >>> group_values(s)[["estimator", "estimate", "ess"]].values.tolist()
    [['ips', 0.5, 2.0], ['snips', 0.5, 2.0]]
    """
    from ocef.inference import student_t as student

    by = [c for c in sums.columns if c not in SUM_COLUMNS]
    n = sums["n"].to_numpy(dtype=float)
    s_w, s_w2, s_wr, s_wr2, s_w2r = (sums[c].to_numpy(dtype=float) for c in
                                     ("sum_w", "sum_w2", "sum_wr", "sum_wr2", "sum_w2r"))
    out = []
    with np.errstate(divide="ignore", invalid="ignore"):
        ips = s_wr / n
        var_ips = np.maximum(s_wr2 - n * ips * ips, 0.0) / (n - 1)
        sn = s_wr / s_w
        wbar = s_w / n
        # Σ (w r - sn w)^2 / wbar^2; the linearized terms have mean sn
        var_sn = np.maximum(s_wr2 - 2 * sn * s_w2r + sn * sn * s_w2, 0.0) / (wbar * wbar) / (n - 1)
        ess = s_w * s_w / s_w2
    with np.errstate(invalid="ignore"):
        z = student.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1))
    for name, est, var in (("ips", ips, var_ips), ("snips", sn, var_sn)):
        se = np.sqrt(var / n)
        frame = sums[by].copy()
        frame["estimator"] = name
        frame["estimate"] = est
        frame["ci_low"] = np.where(n > 1, est - z * se, np.nan)
        frame["ci_high"] = np.where(n > 1, est + z * se, np.nan)
        frame["confidence"] = confidence
        frame["n_rows"] = sums["n"].to_numpy()
        frame["ess"] = ess
        frame["max_weight"] = sums["max_w"].to_numpy()
        frame["clicks"] = sums["clicks"].to_numpy()
        out.append(frame)
    return pd.concat(out, ignore_index=True)
