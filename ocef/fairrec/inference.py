"""Selection-adjusted inference for the unfairness UF found by a search (Guo et al. 2023, eq. 1).

UF is ``max − min`` of group values over the groups a search evaluated; the search picks the two
extremes among many noisy group means, so UF is biased upwards (under no unfairness at all,
exhaustive search over 294 MovieLens-like cells reports UF ≈ 0.55 at ``min_users = 5``). Two
findings are valid whatever groups the search looked at:

- **Simultaneous intervals and ``uf_lower``.** Every valid group ``g`` (at least ``min_users``
  users with a defined metric; their number ``G`` is known before any evaluation) gets an interval
  ``[ci_low_g, ci_high_g]`` for its population mean ``μ_g`` from the Chernoff-Hoeffding bound in
  its Kullback-Leibler form (Hoeffding 1963, Thm. 1: for independent values in ``[a, b]`` with mean
  ``μ``, ``P(X̄ ≥ x) ≤ exp(−n kl(x, μ))`` for ``x > μ`` after rescaling to ``[0, 1]``), each side at
  level ``(1 − confidence) / (2G)`` (Bonferroni over the ``2G`` one-sided statements). With
  probability at least ``confidence`` all ``G`` intervals hold at once, and then the population
  ``UF = max_g μ_g − min_g μ_g`` is at least ``max ci_low − min ci_high`` over *any* subset of
  groups, in particular the ones the search evaluated: that is ``uf_lower`` (clipped at 0, since
  UF ≥ 0). The bound needs only each group's mean, size and the metric's range ``[a, b]`` (no
  extra query); it holds in finite samples for any distribution on ``[a, b]`` (no normal
  approximation, so 5-user groups are covered), and is conservative (measured: see the tests).
- **p-value.** ``test="permutation"``: under the null that the metric's distribution does not
  depend on the attributes, the users' attribute rows are exchangeable; the search is re-run
  (same method and settings, fresh randomness) on ``n_resamples`` permutations of the users'
  metric values and ``p = (1 + #{UF* ≥ UF}) / (1 + n_resamples)`` (exact level for any search).
  Its extra black-box cost is one query of the users the search had not queried yet (their
  metric values); the re-runs then cost computation only. ``test="bound"``: the smallest level
  ``1 − confidence`` at which ``uf_lower`` would be positive (a test of equal group means; no
  extra query, less power).

References
----------
W. Hoeffding, "Probability inequalities for sums of bounded random variables", Journal of the
American Statistical Association 58(301), 13-30, 1963.
"""
from __future__ import annotations

import numpy as np

from ocef.fairrec import TESTS
from ocef.validation import check_in_interval
from ocef.errors import ParameterError

__all__ = ["kl_bernoulli", "kl_interval", "simultaneous_intervals", "uf_lower_bound", "bound_p_value",
           "permutation_p_value", "TESTS"]

_BISECTIONS = 60


def kl_bernoulli(p, q) -> np.ndarray:
    """Kullback-Leibler divergence between Bernoulli(p) and Bernoulli(q), ``0 log 0 = 0``.

    Parameters
    ----------
    p, q : array_like of float
        Means in [0, 1] (broadcast).

    Returns
    -------
    numpy.ndarray
        ``p log(p/q) + (1 − p) log((1 − p)/(1 − q))`` (``inf`` where q is 0 or 1 and p is not).

    Examples
    --------
    >>> float(kl_bernoulli(0.5, 0.5))
    0.0
    >>> round(float(kl_bernoulli(1.0, 0.5)), 6)
    0.693147
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)
    return a + b


def kl_interval(mean, n, delta, low: float = 0.0, high: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Chernoff-Hoeffding confidence bounds (Hoeffding 1963, Thm. 1) for the mean of ``n``
    independent values in ``[low, high]``, each one-sided at level ``delta``.

    With ``m`` the sample mean rescaled to [0, 1], the lower bound is the smallest ``q <= m`` and the
    upper the largest ``q >= m`` with ``n · kl(m, q) <= log(1 / delta)`` (:func:`kl_bernoulli`),
    mapped back to ``[low, high]``; valid for every ``n >= 1`` and every distribution on the range.

    Parameters
    ----------
    mean : array_like of float
        Sample means, inside ``[low, high]``.
    n : array_like of int
        Sample sizes (>= 1).
    delta : float or array_like
        One-sided error level in (0, 1).
    low, high : float
        The range of a single value.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper bounds.

    Examples
    --------
    >>> lo, hi = kl_interval([0.5], [100], 0.025)
    >>> [round(float(lo[0]), 3), round(float(hi[0]), 3)]
    [0.367, 0.633]
    """
    mean = np.asarray(mean, dtype=float)
    n = np.asarray(n, dtype=float)
    if not high > low:
        raise ParameterError(f"high must exceed low, got low={low}, high={high}")
    m = np.clip((mean - low) / (high - low), 0.0, 1.0)       # guards round-off only; inputs are means
    level = np.log(1.0 / np.asarray(delta, dtype=float)) / n
    lo_a, lo_b = np.zeros_like(m), m.copy()                    # kl(m, q) decreases on [0, m]
    hi_a, hi_b = m.copy(), np.ones_like(m)                     # and increases on [m, 1]
    for _ in range(_BISECTIONS):
        mid = (lo_a + lo_b) / 2
        out = kl_bernoulli(m, mid) > level
        lo_a = np.where(out, mid, lo_a)
        lo_b = np.where(out, lo_b, mid)
        mid = (hi_a + hi_b) / 2
        out = kl_bernoulli(m, mid) > level
        hi_b = np.where(out, mid, hi_b)
        hi_a = np.where(out, hi_a, mid)
    return low + (high - low) * lo_a, low + (high - low) * hi_b


def simultaneous_intervals(mean, n, n_groups: int, *, confidence: float = 0.95, bounds=(0.0, 1.0)):
    """Intervals for group means that hold all at once, with probability >= ``confidence``, over
    ``n_groups`` groups: :func:`kl_interval` with each side at ``(1 − confidence) / (2 n_groups)``.

    Parameters
    ----------
    mean, n : array_like
        Means and sizes of the groups to report (any subset of the ``n_groups`` valid groups).
    n_groups : int
        Number of valid groups the family covers (the Bonferroni count).
    confidence : float
        Simultaneous level in (0, 1).
    bounds : (float, float)
        Range of a single user's metric value.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``ci_low``, ``ci_high``.

    Examples
    --------
    >>> lo, hi = simultaneous_intervals([0.2, 0.8], [50, 50], 2)
    >>> bool(lo[1] > hi[0])
    True
    """
    check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    if int(n_groups) < 1:
        raise ParameterError(f"n_groups must be >= 1, got {n_groups}")
    return kl_interval(mean, n, (1.0 - confidence) / (2 * int(n_groups)), *bounds)


def uf_lower_bound(ci_low, ci_high) -> float:
    """Lower confidence bound of the population UF (eq. 1) from simultaneous intervals:
    ``max(0, max ci_low − min ci_high)``.

    When the intervals hold all at once (probability >= ``confidence`` for
    :func:`simultaneous_intervals`), every group's population value lies in its interval, so the
    largest population value is at least ``max ci_low`` and the smallest at most ``min ci_high``:
    the population UF is at least their difference, over any subset of the valid groups (in
    particular the ones a search evaluated). Clipped at 0 since UF >= 0.

    Parameters
    ----------
    ci_low, ci_high : array_like of float, shape (n_evaluated,)
        The simultaneous intervals of the evaluated groups (same order).

    Returns
    -------
    float
        The bound (>= 0); NaN with fewer than two groups (UF is undefined).

    Examples
    --------
    >>> round(uf_lower_bound([0.1, 0.6], [0.3, 0.9]), 12)
    0.3
    >>> uf_lower_bound([0.1, 0.2], [0.5, 0.9])
    0.0
    """
    ci_low = np.asarray(ci_low, dtype=float)
    ci_high = np.asarray(ci_high, dtype=float)
    if ci_low.size < 2:
        return float("nan")
    return float(max(0.0, ci_low.max() - ci_high.min()))


def bound_p_value(mean, n, n_groups: int, *, bounds=(0.0, 1.0)) -> float:
    """p-value of equal population means from the simultaneous intervals: the smallest
    ``1 − confidence`` at which :func:`uf_lower_bound` is positive (1 if none below 1).

    Valid whatever groups ``mean`` holds (a subset of the ``n_groups`` valid groups chosen by
    any search): under equal means all intervals cover the common mean with probability
    ``>= confidence``, and then ``uf_lower`` is 0. Found by bisection on ``log10(1 − confidence)``
    down to ``1e-300`` (a smaller p-value is reported as 0). No extra query of the model, but less
    power than the permutation test (:func:`permutation_p_value`).

    Parameters
    ----------
    mean, n : array_like, shape (n_evaluated,)
        The evaluated groups' values (means of their users' metric) and sizes (users with a
        defined metric, >= 1).
    n_groups : int
        Number of valid groups the simultaneous family covers (the Bonferroni count, >= 1).
    bounds : (float, float), default (0.0, 1.0)
        Range ``[low, high]`` of one user's metric value.

    Returns
    -------
    float
        The p-value in [0, 1]; NaN with fewer than two groups.

    Examples
    --------
    >>> p = bound_p_value([0.2, 0.8], [200, 200], 2)
    >>> bool(p < 1e-6)
    True
    >>> bound_p_value([0.5, 0.52], [10, 10], 2)
    1.0
    """
    mean = np.asarray(mean, dtype=float)
    n = np.asarray(n, dtype=float)
    if mean.size < 2:
        return float("nan")

    def positive(alpha: float) -> bool:
        lo, hi = kl_interval(mean, n, alpha / (2 * int(n_groups)), *bounds)
        return bool(lo.max() > hi.min())

    if not positive(1.0 - 1e-12):
        return 1.0
    a, b = -300.0, 0.0                     # log10 alpha; positive(10**b) True
    if positive(10.0 ** a):
        return 0.0
    for _ in range(_BISECTIONS):
        mid = (a + b) / 2
        if positive(10.0 ** mid):
            b = mid
        else:
            a = mid
    return float(min(1.0, 10.0 ** b))


def permutation_p_value(observed: float, null) -> float:
    """``(1 + #{null >= observed}) / (1 + len(null))``: the permutation p-value, exact at every
    level that is a multiple of ``1 / (1 + len(null))`` under exchangeability.

    Counting the observed statistic among the resamples (the ``1 +``) keeps the test exact and the
    p-value above 0 (Phipson and Smyth 2010). Ties count as at least as extreme (an absolute
    tolerance of ``1e-12`` absorbs round-off of re-computed UFs).

    Parameters
    ----------
    observed : float
        The statistic on the data (e.g. the UF a search found, eq. 1).
    null : array_like of float, shape (n_resamples,)
        The statistic on each permutation (e.g. the search re-run on permuted metric values).

    Returns
    -------
    float
        The p-value in ``[1 / (1 + n_resamples), 1]``.

    Examples
    --------
    >>> permutation_p_value(0.5, [0.1, 0.2, 0.6])
    0.5
    """
    null = np.asarray(null, dtype=float)
    return float((1 + np.count_nonzero(null >= observed - 1e-12)) / (1 + null.size))
