"""Bootstrap and BCa intervals of REO (App. G.2, Sec. 4.3), resampling category counts.

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

from ocef.reo.estimators import (_multinomial_resamples, _reo_stat_from_counts, percentile_bounds,
                                  
    ReoResult,
    normal_quantile,
    positive_counts,
    reo_result_from_counts,
)
from ocef.results import Result, presents
from ocef.validation import CONFIDENCE, Integer, Options, Rng, validate_params
from ocef._progress import PROGRESS
from ocef.backends import BACKENDS
from ocef.errors import ParameterError

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is built
    import pandas as pd

# --------------------------------------------------------------------------------------------
# Bootstrap (App. G.2, Sec. 4.3) on category counts
# --------------------------------------------------------------------------------------------
#
# Every REO statistic depends on a log only through its category counts
# ``c = (#{Y=1,S=s_1}, ..., #{Y=1,S=s_K}, #rest)``. Resampling n rows with replacement is then
# exactly a Multinomial(n, c / n) draw of the counts, and a jackknife (leave-one-row-out) takes
# only K + 1 distinct values, each with multiplicity c_j. This makes the bootstrap O(B K) and
# the BCa acceleration O(K) instead of O(B n) and O(n^2) (scipy.stats.bootstrap's jackknife
# on the rows would need n^2 operations: 2e10 for one day of the paper's logs). ``resample=
# "rows"`` runs the literal Algorithm 4 (index resampling and a full recount) for comparison.

#: The bootstrap interval names (``interval=`` of :func:`bootstrap_reo_ci`, :func:`ocef.reo.estimate_reo`
#: and :func:`ocef.reo.ab_test`).
BOOTSTRAP_INTERVALS = ("standard", "percentile", "bca")


def category_counts(log: pd.DataFrame, *, label: str | Sequence[str] = "Y", group: str = "S",
                    groups: Sequence, name: str = "log") -> np.ndarray:
    """The multinomial sufficient statistic of a log (App. G.2): ``(#{Y=1,S=s_1}, ..., #{Y=1,S=s_K},
    #rows with Y=0)``; resampling rows is a ``Multinomial(n, c / n)`` draw of them.

    Parameters
    ----------
    log : pandas.DataFrame
        The log, with the label and group columns.
    label, group, name
        As in :func:`ocef.reo.positive_counts`.
    groups : sequence
        The K groups; the last cell counts every other row.

    Returns
    -------
    numpy.ndarray of int64, shape (K + 1,)

    Examples
    --------
    >>> category_counts(pd.DataFrame({"Y": [1, 0, 1, 1], "S": ["a", "a", "b", "b"]}), groups=["a", "b"]).tolist()
    [1, 2, 1]
    """
    pos, n = positive_counts(log, label=label, group=group, groups=groups, name=name)
    return np.append(pos, n - pos.sum())


def _ab_stat_from_counts(counts_control, counts_treatment, counts_random) -> np.ndarray:
    """``(D_1..D_K, D_REO)`` = treatment minus control statistics sharing D_rand (App. D)."""
    return (_reo_stat_from_counts(counts_treatment, counts_random)
            - _reo_stat_from_counts(counts_control, counts_random))


def _row_resamples(rng: np.random.Generator, counts: np.ndarray, n_resamples: int, bar=None) -> np.ndarray:
    """Literal resampling: draw row indices with replacement and recount (Algorithm 4)."""
    rows = np.repeat(np.arange(counts.size), counts)
    out = np.empty((n_resamples, counts.size), dtype=np.int64)
    for b in range(n_resamples):  # one full recount per bootstrap data set, as in Alg. 4
        out[b] = np.bincount(rows[rng.integers(0, rows.size, rows.size)], minlength=counts.size)
        if bar is not None:
            bar.update()
    return out


def _jackknife_values(statistic, samples: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Leave-one-row-out values of ``statistic`` per sample, one per category, weighted by its count."""
    values, weights = [], []
    for j, c in enumerate(samples):
        keep = c > 0
        removed = c[None, :] - np.eye(c.size, dtype=c.dtype)[keep]      # (m, K+1)
        args = [np.broadcast_to(s, removed.shape) if i != j else removed for i, s in enumerate(samples)]
        values.append(statistic(*args))                                 # (m, d)
        weights.append(c[keep].astype(float))
    return values, weights


def bca_interval(theta_hat: np.ndarray, theta_boot: np.ndarray, jack_values: list[np.ndarray],
                 jack_weights: list[np.ndarray], confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Bias-corrected and accelerated (BCa) bootstrap interval from a weighted jackknife (Efron and Tibshirani 14.3, 15.4).

    The algorithm of ``scipy.stats.bootstrap(method="BCa")`` (tested equal on row-level data), with
    the jackknife as distinct leave-one-row-out values and their multiplicities (K + 1 values for a
    statistic of category counts).

    Parameters
    ----------
    theta_hat : numpy.ndarray, shape (d,)
        The statistic on the original data.
    theta_boot : numpy.ndarray, shape (B, d)
        Bootstrap replicates (NaN dropped).
    jack_values : list of numpy.ndarray, each shape (m_j, d)
        Per sample j, the distinct leave-one-row-out values.
    jack_weights : list of numpy.ndarray, each shape (m_j,)
        Their multiplicities, summing to the size of sample j.
    confidence : float
        Two-sided level, in (0, 1).

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high)``; NaN where no finite replicate exists or the adjusted levels are not finite.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 10.0])                    # the mean of five numbers
    >>> boot = np.random.default_rng(0).choice(x, size=(2000, 5)).mean(axis=1)[:, None]
    >>> jack = np.array([[np.delete(x, i).mean()] for i in range(5)])
    >>> [float(v[0]) for v in bca_interval(np.array([x.mean()]), boot, [jack], [np.ones(5)], 0.9)]
    [2.2, 7.2]
    """
    from ocef.inference import normal  # scipy.stats' values; importing scipy.stats takes ~1 s

    alpha = (1.0 - confidence) / 2.0
    low = np.full(theta_hat.shape, np.nan)
    high = np.full(theta_hat.shape, np.nan)
    nums = np.zeros(theta_hat.shape)
    dens = np.zeros(theta_hat.shape)
    for vals, w in zip(jack_values, jack_weights):
        n = w.sum()
        dot = (w[:, None] * vals).sum(axis=0) / n
        u = (n - 1.0) * (dot - vals)
        nums += (w[:, None] * u ** 3).sum(axis=0) / n ** 3
        dens += (w[:, None] * u ** 2).sum(axis=0) / n ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        a_hat = nums / (6.0 * dens ** 1.5)
    z_alpha = normal.ppf(alpha)
    for i in range(theta_hat.size):
        boot = theta_boot[:, i]
        boot = boot[np.isfinite(boot)]
        if boot.size == 0:
            continue
        pct = (np.count_nonzero(boot < theta_hat[i]) + np.count_nonzero(boot <= theta_hat[i])) / (2.0 * boot.size)
        z0 = normal.ppf(pct)
        a = a_hat[i] if np.isfinite(a_hat[i]) else 0.0
        num1, num2 = z0 + z_alpha, z0 - z_alpha
        a1 = normal.cdf(z0 + num1 / (1 - a * num1))
        a2 = normal.cdf(z0 + num2 / (1 - a * num2))
        if np.isfinite(a1) and np.isfinite(a2):
            low[i], high[i] = np.quantile(boot, [a1, a2])
    return low, high


def check_bootstrap_method(method: str, name: str = "interval") -> str:
    """A bootstrap interval name checked against :data:`BOOTSTRAP_INTERVALS`.

    Parameters
    ----------
    method : str
        ``"standard"`` (estimate +- z SE_boot, eq. 23), ``"percentile"`` or ``"bca"``.
    name : str
        The argument's name in the error message.

    Returns
    -------
    str

    Examples
    --------
    >>> check_bootstrap_method("bca")
    'bca'
    """
    if method not in BOOTSTRAP_INTERVALS:
        raise ParameterError(f"{name} must be one of {BOOTSTRAP_INTERVALS}, got {method!r}")
    return method


@dataclass(frozen=True, eq=False)
class BootstrapSummary(Result):
    """Bootstrap of a vector statistic: estimate, replicates, standard error, bias and interval (Sec. 4.3,
    App. G.2); for REO ``delta_U_1..delta_U_K, penalty`` or ``D_1..D_K, D_REO`` (Algorithm 4).

    Parameters
    ----------
    estimate : numpy.ndarray, shape (d,)
        The statistic on the original data.
    replicates : numpy.ndarray, shape (B, d)
        NaN where a replicate has a group without positives.
    se : numpy.ndarray, shape (d,)
        Standard deviation of the finite replicates (ddof=1), the SE of eq. (23).
    bias : numpy.ndarray, shape (d,)
        ``mean(replicates) - estimate`` (Fig. 8).
    ci_low, ci_high : numpy.ndarray, shape (d,)
        The interval.
    method : str
        ``"standard"``, ``"percentile"`` or ``"bca"``.
    n_undefined : int
        Replicates where the statistic is undefined (dropped).
    names : tuple
        One name per statistic (default: 0..d-1).

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> round(float(bootstrap_reo_ci(*make_toy_reo_logs(), n_resamples=200, rng=0).bootstrap.se[-1]), 3)
    0.154
    """

    estimate: np.ndarray          # (d,) on the original data
    replicates: np.ndarray        # (B, d); NaN where a replicate has a group without positives
    se: np.ndarray                # std of the finite replicates (ddof=1)
    bias: np.ndarray              # mean(replicates) - estimate
    ci_low: np.ndarray
    ci_high: np.ndarray
    method: str
    n_undefined: int              # replicates where the statistic is undefined (dropped)
    names: tuple = ()             # one name per statistic (default: 0..d-1)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The bootstrap as one tidy table, one row per statistic (the replicates stay in ``replicates``).

        Columns ``statistic`` (the name from ``names``, or 0..d-1), ``estimate``, ``se``
        (the SE of eq. 23), ``bias``, ``ci_low``, ``ci_high``, ``method``, ``n_resamples``
        (B) and ``n_undefined``.
        """
        import pandas as pd

        names = list(self.names) if self.names else list(range(len(self.estimate)))
        return pd.DataFrame({"statistic": names, "estimate": self.estimate, "se": self.se, "bias": self.bias,
                             "ci_low": self.ci_low, "ci_high": self.ci_high, "method": self.method,
                             "n_resamples": len(self.replicates), "n_undefined": self.n_undefined})

    @presents
    def to_dict(self) -> dict:
        """The bootstrap as strict-JSON data, without the replicates.

        Keys ``statistics`` (the rows of :meth:`to_frame` as records), ``method``,
        ``n_resamples`` and ``n_undefined``; NaN becomes None.
        """
        from ocef.results import jsonable

        return jsonable({"statistics": self.to_frame(), "method": self.method,
                         "n_resamples": len(self.replicates), "n_undefined": self.n_undefined})


class BootstrapReo(NamedTuple):
    """The output of :func:`bootstrap_reo_ci`: the estimate with bootstrap intervals and the bootstrap itself.

    Parameters
    ----------
    result : ReoResult
        With the bootstrap's ``se, ci_low, ci_high`` and penalty interval
        (``method="bootstrap-<interval>"``).
    bootstrap : BootstrapSummary
        Of ``delta_U_1..delta_U_K, penalty``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_logs
    >>> [round(v, 3) for v in bootstrap_reo_ci(*make_toy_reo_logs(), n_resamples=200, rng=0).result.penalty_ci]
    [0.032, 0.634]
    """

    result: ReoResult
    bootstrap: BootstrapSummary


def _bootstrap_counts(statistic, samples: list[np.ndarray], *, method: str, n_resamples: int,
                      confidence: float, rng, resample: str = "counts", names: Sequence = (),
                      progress=False) -> BootstrapSummary:
    from ocef.validation import as_generator, check_positive_int

    check_bootstrap_method(method)
    if resample not in ("counts", "rows"):
        raise ParameterError(f"resample must be 'counts' or 'rows', got {resample!r}")
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    from ocef.validation import check_resources

    width = sum(int(np.sum(c)) if resample == "rows" else int(np.size(c)) for c in samples)
    check_resources("n_resamples", memory=8.0 * 3 * n_resamples * max(width, 1),
                    work=float(n_resamples) * max(width, 1), what="resampled cells")
    z = normal_quantile(confidence)
    rng = as_generator(rng)
    from ocef._progress import progress_bar

    estimate = statistic(*samples)
    with progress_bar(progress, total=n_resamples * len(samples), desc="bootstrap resamples (per log)",
                      unit="resample") as bar:
        draws = []
        for c in samples:                           # the same draws, in the same order, with or without a bar
            if resample == "counts":
                draws.append(_multinomial_resamples(rng, c, n_resamples))
                bar.update(n_resamples)
            else:
                draws.append(_row_resamples(rng, c, n_resamples, bar))
    replicates = statistic(*draws)
    finite = np.isfinite(replicates)
    n_undefined = int((~finite.all(axis=1)).sum())
    masked = np.where(finite, replicates, np.nan)
    with warnings.catch_warnings():  # all-NaN columns (a statistic never defined) give NaN quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(masked, axis=0, ddof=1)
        bias = np.nanmean(masked, axis=0) - estimate
    if method == "standard":                       # eq. (23)
        low, high = estimate - z * se, estimate + z * se
    elif method == "percentile":
        low, high = percentile_bounds(masked, confidence)
    else:
        vals, weights = _jackknife_values(statistic, samples)
        low, high = bca_interval(estimate, masked, vals, weights, confidence)
    return BootstrapSummary(estimate, replicates, se, bias, low, high, method, n_undefined, tuple(names))


@validate_params(confidence=CONFIDENCE, n_resamples=Integer(2, 10**7), interval=Options(*BOOTSTRAP_INTERVALS),
                 rng=Rng(), resample=Options("counts", "rows"), backend=Options(*BACKENDS), progress=PROGRESS)
def bootstrap_reo_ci(default, random, *, label: str | Sequence[str] = "Y",
                     group: str = "S", confidence: float = 0.95, n_resamples: int = 100,
                     interval: str = "standard", rng=None, groups: Sequence | None = None,
                     resample: str = "counts", backend: str = "auto", spark=None, progress=False) -> BootstrapReo:
    """Bootstrap intervals for ``delta_U_k`` and ``Delta_REO`` of one strategy (Sec. 4.3, App. G.2, Fig. 7-8).

    D_rec and D_rand are resampled independently, as multinomial draws of their category counts
    (:func:`category_counts`); the interval respects the boundary at 0 that the delta-method
    penalty interval ignores. :func:`ocef.reo.estimate_reo` with a bootstrap ``interval`` is the
    same estimate through the one door.

    Parameters
    ----------
    default, random : DataFrame, file path, DuckDB relation, :class:`ocef.backends.Sql` or Spark DataFrame
        Reduced to counts first (:func:`ocef.reo.reo_counts`).
    label, group, confidence, n_resamples, rng, groups, backend, spark
        As in :func:`ocef.reo.ab_test`.
    interval : {"standard", "percentile", "bca"}
        ``"standard"``: estimate +- z SE_boot (eq. 23); ``"bca"``: bias-corrected and accelerated.
    resample : {"counts", "rows"}
        Multinomial draws of the counts, or literal row resampling (Algorithm 4, for comparison).
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    BootstrapReo
        ``result``: the ``"delta-full"`` :class:`ReoResult` with the bootstrap intervals;
        ``bootstrap``: replicates and ``bias`` (Fig. 8).

    Examples
    --------
    >>> from ocef.datasets import make_toy_reo_log as log   # 100 rows a group
    >>> result, boot = bootstrap_reo_ci(log((20, 40)), log((30, 30)), interval="bca", n_resamples=500, rng=0)
    >>> result.method, [round(v, 3) for v in result.penalty_ci]
    ('bootstrap-bca', [0.022, 0.612])
    """
    from ocef.reo.counts import reo_counts

    from ocef._progress import query_progress

    with query_progress(progress, "reo: counting the logs"):             # a long DuckDB query's own bar
        c = reo_counts({"default": default, "random": random}, label=label, group=group, groups=groups,
                       backend=backend, spark=spark)
    result = reo_result_from_counts(c.group_names, c.positives("default"), int(c.rows("default")),
                                    c.positives("random"), int(c.rows("random")),
                                    confidence=confidence, interval="delta-full", small_counts="delta")
    names = [f"delta_U[{g}]" for g in c.group_names] + ["penalty"]
    boot = _bootstrap_counts(_reo_stat_from_counts, [c.category_counts("default"), c.category_counts("random")],
                             method=interval, n_resamples=n_resamples, confidence=confidence, rng=rng,
                             resample=resample, names=names, progress=progress)
    table = {**result.columns, "se": boot.se[:-1], "ci_low": boot.ci_low[:-1], "ci_high": boot.ci_high[:-1]}
    out = ReoResult(table, result.penalty, float(boot.se[-1]), (float(boot.ci_low[-1]), float(boot.ci_high[-1])),
                    result.n_default, result.n_random, result.confidence, None, f"bootstrap-{interval}",
                    result.delta_method_reliable, result.notes)
    return BootstrapReo(out, boot)
