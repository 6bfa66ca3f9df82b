"""``estimate_reo``: the one door to REO estimates with intervals — the delta method
(:mod:`ocef.reo.estimators`) or the bootstrap (:mod:`ocef.reo.bootstrap`, imported only when a
bootstrap interval is asked for, so that ``ocef reo`` on a file stays light)."""
from __future__ import annotations

from typing import Sequence

from ocef.backends import BACKENDS
from ocef.reo.estimators import INTERVALS, ReoResult, reo_result_from_counts
from ocef.validation import CONFIDENCE, Integer, Options, Rng, validate_params
from ocef._progress import PROGRESS

#: Every interval :func:`estimate_reo` offers: the delta method (:data:`INTERVALS`) and the bootstrap
#: (:data:`ocef.reo.bootstrap.BOOTSTRAP_INTERVALS`, by :func:`ocef.reo.bootstrap_reo_ci`).
ALL_INTERVALS = INTERVALS + ("standard", "percentile", "bca")
#: Most bootstrap resamples one call takes.
MAX_RESAMPLES = 10**7


@validate_params(confidence=CONFIDENCE, interval=Options(*ALL_INTERVALS), backend=Options(*BACKENDS), n_resamples=Integer(2, MAX_RESAMPLES), rng=Rng(),
                 resample=Options("counts", "rows"), progress=PROGRESS)
def estimate_reo(default, random, *, label: str | Sequence[str] = "Y", group: str = "S",
                 confidence: float = 0.95, groups: Sequence | None = None, interval: str = "delta-full",
                 n_resamples: int = 100, rng=None, resample: str = "counts",
                 backend: str = "auto", spark=None, progress=False) -> ReoResult:
    """Estimate ``U_k``, ``delta_U_k`` and ``Delta_REO`` with intervals (eq. 5-7, Algorithm 1)
    from the default traffic log D_rec and the random traffic log D_rand.

    Parameters
    ----------
    default, random : DataFrame, file path, DuckDB relation, :class:`ocef.backends.Sql` or Spark DataFrame
        Reduced to per-group counts first (:func:`ocef.reo.reo_counts`); a file is CSV, Parquet,
        or a directory or glob of Parquet partitions.
    label : str or list of str
        A 0/1 column, or several (Y = any of them).
    group : str
        The item-group column S.
    confidence : float
        Two-sided level of the intervals.
    groups : list, optional
        The groups and their order (default: the sorted values found in both logs).
    interval : str
        ``"delta-full"`` (the delta method with the full multinomial covariance,
        :func:`utility_covariance`), ``"delta"`` (Algorithm 1 as printed, diagonal Gamma: it
        under-covers when positive labels are common), or a bootstrap interval of Sec. 4.3 --
        ``"standard"`` (eq. 23), ``"percentile"``, ``"bca"`` -- by :func:`ocef.reo.bootstrap_reo_ci`
        (with the next three options).
    n_resamples : int
        Bootstrap resamples (bootstrap intervals only).
    rng : None, int, SeedSequence or Generator
        Randomness of the bootstrap.
    resample : "counts" or "rows"
        How the bootstrap resamples (see :func:`ocef.reo.bootstrap_reo_ci`).
    backend : "auto", "duckdb", "pandas" or "spark"
        "auto": DuckDB for files, pandas for frames.
    spark : SparkSession, optional
        For ``backend="spark"``.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    ReoResult

    Raises
    ------
    ocef.errors.DataError
        For missing columns, empty logs, labels outside {0, 1}, and groups without positives in
        the random traffic.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> res = estimate_reo(*make_toy_reo_logs())
    >>> res.groups["U"].round(4).tolist(), round(res.penalty, 4)
    ([0.6667, 1.3333], 0.3333)
    """
    if interval not in INTERVALS:
        from ocef.reo.bootstrap import bootstrap_reo_ci

        return bootstrap_reo_ci(default, random, label=label, group=group, confidence=confidence,
                                n_resamples=n_resamples, interval=interval, rng=rng, groups=groups,
                                resample=resample, backend=backend, spark=spark, progress=progress).result
    from ocef._progress import query_progress
    from ocef.reo.counts import reo_counts

    with query_progress(progress, "reo: counting the logs"):             # a long DuckDB query's own bar
        c = reo_counts({"default": default, "random": random}, label=label, group=group, groups=groups,
                       backend=backend, spark=spark)
    return reo_result_from_counts(c.group_names, c.positives("default"), int(c.rows("default")),
                                  c.positives("random"), int(c.rows("random")),
                                  confidence=confidence, interval=interval, rng=rng)
