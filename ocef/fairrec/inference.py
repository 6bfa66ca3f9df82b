"""Selection-adjusted inference for the unfairness UF found by a search (Guo et al. 2023, eq. 1).

UF is ``max − min`` of group values over the groups a search evaluated; picking the two extremes
among many noisy group means biases it upwards (under no unfairness at all, exhaustive search
over 294 MovieLens-like cells reports UF ≈ 0.55 at ``min_users = 5``). Two findings are valid
whatever groups the search looked at: ``uf_lower`` and ``p_value`` from one studentized max-t
statistic (:func:`maxt_inference`: permutation and bootstrap references over all valid cells),
and, as a fallback needing no extra query, simultaneous Chernoff-Hoeffding intervals
(Hoeffding 1963, Thm. 1; :func:`simultaneous_intervals`, :func:`uf_lower_bound`,
:func:`bound_p_value`). Construction and measured levels: docs/guide/fairrec.md.

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
           "group_moments", "deviations", "excess", "maxt_lower_bound", "maxt_inference", "MODERATION_DF",
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
    """Chernoff-Hoeffding confidence bounds (Hoeffding 1963, Thm. 1) for the mean of ``n`` independent
    values in ``[low, high]``, each one-sided at level ``delta``.

    With ``m`` the mean rescaled to [0, 1], the smallest ``q <= m`` and the largest ``q >= m`` with
    ``n · kl(m, q) <= log(1 / delta)`` (:func:`kl_bernoulli`), mapped back; valid for every ``n >= 1``
    and every distribution on the range.

    Parameters
    ----------
    mean : array_like of float
        Sample means, inside ``[low, high]``.
    n : array_like of int
        Sample sizes (>= 1).
    delta : float or array_like
        One-sided error level.
    low, high : float
        The range of a single value.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

    Examples
    --------
    >>> [round(float(b[0]), 3) for b in kl_interval([0.5], [100], 0.025)]
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
    """Intervals for group means that hold all at once with probability >= ``confidence`` over
    ``n_groups`` groups: :func:`kl_interval` with each side at ``(1 − confidence) / (2 n_groups)``.

    Parameters
    ----------
    mean, n : array_like
        Of the groups to report (any subset of the ``n_groups`` valid groups).
    n_groups : int
        The Bonferroni count.
    confidence : float
        Simultaneous level in (0, 1).
    bounds : (float, float)
        Range of a single user's metric value.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)

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
    """Lower confidence bound of the population UF (eq. 1) from simultaneous intervals, ``max(0, max
    ci_low − min ci_high)``; valid over any subset of the valid groups, e.g. those a search evaluated.

    Parameters
    ----------
    ci_low, ci_high : array_like of float, shape (n_evaluated,)
        The simultaneous intervals of the evaluated groups (same order).

    Returns
    -------
    float
        NaN with fewer than two groups.

    Examples
    --------
    >>> round(uf_lower_bound([0.1, 0.6], [0.3, 0.9]), 12)
    0.3
    """
    ci_low = np.asarray(ci_low, dtype=float)
    ci_high = np.asarray(ci_high, dtype=float)
    if ci_low.size < 2:
        return float("nan")
    return float(max(0.0, ci_low.max() - ci_high.min()))


def bound_p_value(mean, n, n_groups: int, *, bounds=(0.0, 1.0)) -> float:
    """p-value of equal population means from the simultaneous intervals: the smallest ``1 − confidence``
    at which :func:`uf_lower_bound` is positive (1 if none), by bisection on ``log10(1 − confidence)``
    down to ``1e-300``. Valid whatever groups ``mean`` holds; less power than
    :func:`permutation_p_value`, but no extra query.

    Parameters
    ----------
    mean, n : array_like, shape (n_evaluated,)
        The evaluated groups' values and sizes.
    n_groups : int
        The Bonferroni count.
    bounds : (float, float)
        Range of one user's metric value.

    Returns
    -------
    float
        NaN with fewer than two groups.

    Examples
    --------
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
    """``(1 + #{null >= observed}) / (1 + len(null))``: the permutation p-value, exact at every multiple
    of ``1 / (1 + len(null))`` under exchangeability (Phipson and Smyth 2010); ties within ``1e-12``
    count as at least as extreme.

    Parameters
    ----------
    observed : float
        E.g. the UF a search found (eq. 1).
    null : array_like of float, shape (n_resamples,)
        E.g. the search re-run on permuted metric values.

    Returns
    -------
    float

    Examples
    --------
    >>> permutation_p_value(0.5, [0.1, 0.2, 0.6])
    0.5
    """
    null = np.asarray(null, dtype=float)
    return float((1 + np.count_nonzero(null >= observed - 1e-12)) / (1 + null.size))


#: Prior degrees of freedom of the moderated variance (Smyth 2004, eq. 6 with a fixed ``d0``): a
#: cell's variance is shrunk towards the pooled within-cell variance with the weight of ``d0`` users,
#: so that a 5-user cell whose few values happen to be equal does not get a standard error near 0
#: (its t statistic would explode and drown the max-t in noise from tiny cells). Measured with
#: ``benchmarks/fairrec_power.py`` (MRR-like 0.20 drop in a 90-user cell, 294 cells, ``min_users=5``,
#: 100 populations): power 0.69 at ``d0 = 4`` (null-max t of ~30 five-user cells of a discrete,
#: skewed metric reached 4.0-4.4), 0.88 at 16, 0.86 with the pooled variance alone (``d0 = ∞``);
#: the null rejection stays at the permutation test's exact level whatever ``d0``.
MODERATION_DF = 16.0


def group_moments(values, codes, n_codes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Size, mean and moderated standard error of each group (the studentization of :func:`maxt_inference`).

    Moderated variance (Smyth 2004, eq. 6, fixed prior degrees of freedom ``d0 =``
    :data:`MODERATION_DF`): ``s̃²_g = ((n_g − 1) s²_g + d0 s²_0) / (n_g − 1 + d0)``, ``s²_0`` the pooled
    within-group variance; standard error ``s̃_g / √n_g``.

    Parameters
    ----------
    values : array_like of float, shape (n_users,) or (n_resamples, n_users)
        Per-user metric values (one row per resample).
    codes : array_like of int, shape (n_users,)
        Group index of each user (every group non-empty).
    n_codes : int
        Number of groups.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ``n``, ``mean`` and ``se``.

    Examples
    --------
    >>> [round(float(x), 4) for x in group_moments([0.0, 1.0, 0.0, 1.0, 0.5, 0.5], [0, 0, 0, 0, 1, 1], 2)[2]]
    [0.2565, 0.343]
    """
    v = np.atleast_2d(np.asarray(values, dtype=float))
    codes = np.asarray(codes, dtype=np.int64)
    n = np.bincount(codes, minlength=n_codes).astype(np.int64)
    if np.any(n < 1):
        raise ParameterError("group_moments: every group needs at least one user")
    rows = v.shape[0]
    flat = (codes[None, :] + n_codes * np.arange(rows)[:, None]).ravel()
    s1 = np.bincount(flat, weights=v.ravel(), minlength=rows * n_codes).reshape(rows, n_codes)
    mean = s1 / n
    dev = v - mean[:, codes]
    ss = np.bincount(flat, weights=(dev * dev).ravel(), minlength=rows * n_codes).reshape(rows, n_codes)
    df = n - 1.0
    s0 = ss.sum(axis=1, keepdims=True) / max(df.sum(), 1.0)     # pooled within-group variance
    var = (ss + MODERATION_DF * s0) / (df + MODERATION_DF)
    se = np.sqrt(var / n)
    if np.asarray(values).ndim == 1:
        return n, mean[0], se[0]
    return n, mean, se


def deviations(n, mean, se) -> tuple[np.ndarray, np.ndarray]:
    """Each group's deviation from the grand mean ``m̄ = Σ w_h m_h`` (``w_g = n_g / N``) and its standard
    error, ``Var(m_g − m̄) = (1 − w_g)² se²_g + Σ_{h≠g} w²_h se²_h``.

    Parameters
    ----------
    n : array_like of int, shape (n_groups,)
        Group sizes.
    mean, se : array_like of float, shape (n_groups,) or (n_resamples, n_groups)
        Group means and standard errors.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``d = m − m̄`` and its standard error.

    Examples
    --------
    >>> d, s = deviations([1, 1], [0.0, 1.0], [0.1, 0.1])
    >>> d.tolist(), s.round(6).tolist()
    ([-0.5, 0.5], [0.070711, 0.070711])
    """
    n = np.asarray(n, dtype=float)
    w = n / n.sum()
    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    grand = (mean * w).sum(axis=-1, keepdims=True)
    v = se * se
    rest = (v * w * w).sum(axis=-1, keepdims=True) - w * w * v
    return mean - grand, np.sqrt((1 - w) ** 2 * v + np.maximum(rest, 0.0))


def excess(d, s, c) -> np.ndarray:
    """``max_g (|d_g| − c·s_g)``: positive iff ``c`` is below the max-t statistic ``max_g |d_g| / s_g``
    (non-increasing in ``c``, also in floating point).

    Parameters
    ----------
    d, s : array_like of float, shape (n_groups,)
        :func:`deviations`.
    c : float or array_like of float
        Critical values.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> excess([-0.3, 0.1], [0.1, 0.1], [0.0, 2.0, 4.0]).round(6).tolist()
    [0.3, 0.1, -0.1]
    """
    d = np.abs(np.asarray(d, dtype=float))[None, :]
    s = np.asarray(s, dtype=float)[None, :]
    c = np.atleast_1d(np.asarray(c, dtype=float))[:, None]
    with np.errstate(invalid="ignore"):
        out = (d - c * s).max(axis=1)
    return np.where(np.isinf(c[:, 0]) & (c[:, 0] > 0), -np.inf, out)


def maxt_lower_bound(d, s, c) -> float:
    """Lower bound of the population UF from simultaneous intervals ``d_g ± c s_g`` of ``δ_g = μ_g − μ̄``:
    ``max(0, max_g (d_g − c s_g)) − min(0, min_h (d_h + c s_h))``.

    When every interval holds, ``max_g μ_g − μ̄ >= max(0, max_g (d_g − c s_g))`` (``μ̄`` is at most the
    largest ``μ_g``) and likewise at the bottom, so UF (eq. 1) is at least the bound; it is positive
    iff ``excess(d, s, c) > 0``.

    Parameters
    ----------
    d, s : array_like of float, shape (n_groups,)
        Deviations and standard errors of the groups looked at.
    c : float
        ``inf``: no bound, 0 returned.

    Returns
    -------
    float
        NaN with fewer than two groups.

    Examples
    --------
    >>> round(maxt_lower_bound([-0.3, 0.1], [0.1, 0.1], 2.0), 12)
    0.1
    """
    d = np.asarray(d, dtype=float)
    s = np.asarray(s, dtype=float)
    if d.size < 2:
        return float("nan")
    if not np.isfinite(c):
        return 0.0
    top = (d - c * s).max()
    bottom = (d + c * s).min()
    return float(max(0.0, top) - min(0.0, bottom))


def _allowed(alpha: float, n_resamples: int) -> int:
    """Largest count ``k`` with ``(1 + count) / (1 + B) <= alpha`` (round-off of ``1 − confidence`` absorbed)."""
    return int(np.floor(alpha * (1 + n_resamples) * (1 + 1e-12))) - 1


def _critical(null, alpha: float) -> float:
    """Threshold ``c`` with ``#{null >= t} <= k`` iff ``t > c`` (``inf`` when ``k < 0``: no test)."""
    null = np.sort(np.asarray(null, dtype=float))[::-1]
    k = _allowed(alpha, null.size)
    if k < 0:
        return float("inf")
    return float(null[k]) if k < null.size else -float("inf")


def maxt_inference(values, codes, n_codes: int, searched, *, confidence: float = 0.95, n_resamples: int = 199,
                   rng=None, bounds=None, progress=False) -> dict:
    """Studentized max-t inference for UF (eq. 1) over searched cells, valid whatever the search looked at.

    ``T = max_{g ∈ S} |d_g| / s_g`` over the searched cells ``S``, with ``d_g = m_g − m̄`` and ``s_g``
    from :func:`group_moments` and :func:`deviations`. Two reference distributions, each over *all*
    valid cells (a superset of ``S``, hence valid for any search):

    - **permutation** (null: the metric does not depend on the attributes): ``p_perm = (1 + #{D* >=
      T}) / (1 + B)`` with the permuted ``D* = max_g |d*_g| / s*_g``, exact under exchangeability
      (Phipson and Smyth 2010);
    - **bootstrap** (simultaneous intervals of ``δ_g = μ_g − μ̄``): users resampled within cells,
      ``M* = max_g |d*_g − d_g| / s*_g`` (Romano and Wolf 2005).

    ``c = max(c_perm, c_boot)`` gives ``uf_lower`` (:func:`maxt_lower_bound`) and ``p_value =
    max(p_perm, p_boot)``, so that ``uf_lower > 0`` iff ``p_value <= 1 − confidence`` (both go through
    :func:`excess`). The group intervals ``m_g ± c_g se_g`` hold jointly with probability ≈
    ``confidence``.

    Parameters
    ----------
    values : array_like of float, shape (n_users,)
        Per-user metric values of the valid cells' users.
    codes : array_like of int, shape (n_users,)
        Each user's cell index ``0 .. n_codes − 1``.
    n_codes : int
        Number of valid (non-empty) cells.
    searched : array_like of int
        The cells the search evaluated (at least two).
    confidence : float
        Level of the intervals and of ``uf_lower``; the test's level is ``1 − confidence``.
    n_resamples : int
        Permutations and bootstrap resamples (each).
    rng : None, int, SeedSequence or Generator
        Randomness.
    bounds : (float, float), optional
        Range of one value: the group intervals are clipped to it.
    progress : bool or "auto"
        A progress bar over the resamples; never changes the result.

    Returns
    -------
    dict
        ``statistic`` (T), ``critical`` (c), ``p_value``, ``significant`` (decided on the counts,
        so round-off cannot split it from ``uf_lower > 0``), ``p_permutation``, ``p_bootstrap``,
        ``uf_lower``, ``ci_low``, ``ci_high`` (per searched cell) and ``reason``.

    Examples
    --------
    >>> codes = np.repeat(np.arange(4), 50)
    >>> values = np.random.default_rng(0).random(200) - 0.3 * (codes == 2)
    >>> out = maxt_inference(values, codes, 4, [0, 1, 2, 3], rng=0)
    >>> out["p_value"] <= 0.05, out["uf_lower"] > 0
    (True, True)
    """
    from ocef.validation import as_generator

    gen = as_generator(rng)
    values = np.asarray(values, dtype=float)
    codes = np.asarray(codes, dtype=np.int64)
    searched = np.asarray(searched, dtype=np.int64)
    alpha = 1.0 - confidence
    order = np.argsort(codes, kind="stable")
    values, codes = values[order], codes[order]
    n, mean, se = group_moments(values, codes, n_codes)
    tiny = 1e-12 * max(float(np.abs(values).max()) if values.size else 0.0, 1e-300)
    se = np.maximum(se, tiny)                                   # a constant metric: no division by 0
    d, s = deviations(n, mean, se)
    ds, ss = d[searched], s[searched]
    T = float((np.abs(ds) / ss).max()) if ds.size >= 2 else float("nan")
    B = int(n_resamples)
    chunk = max(1, min(B, int(2e7 // max(values.size, 1))))
    d_null, m_null, g_null = np.empty(B), np.empty(B), np.empty(B)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    from ocef._progress import progress_bar

    bar = progress_bar(progress, total=B, desc="max-t permutation test", unit="resample")
    for a in range(0, B, chunk):
        b = min(B, a + chunk)
        perm = np.stack([values[gen.permutation(values.size)] for _ in range(b - a)])
        _, pm, pse = group_moments(perm, codes, n_codes)
        pd_, ps = deviations(n, pm, np.maximum(pse, tiny))
        d_null[a:b] = (np.abs(pd_) / ps).max(axis=1)
        idx = start[codes] + np.floor(gen.random((b - a, values.size)) * n[codes]).astype(np.int64)
        _, bm, bse = group_moments(values[idx], codes, n_codes)
        bse = np.maximum(bse, tiny)
        bd, bs = deviations(n, bm, bse)
        m_null[a:b] = (np.abs(bd - d) / bs).max(axis=1)
        g_null[a:b] = (np.abs(bm - mean) / bse).max(axis=1)
        bar.update(b - a)
    bar.close()
    c = max(_critical(d_null, alpha), _critical(m_null, alpha))
    # #{null >= T} counted through excess(): null >= T iff excess(null) <= 0
    count_perm = int(np.count_nonzero(excess(ds, ss, d_null) <= 0))
    count_boot = int(np.count_nonzero(excess(ds, ss, m_null) <= 0))
    p_perm, p_boot = (1 + count_perm) / (1 + B), (1 + count_boot) / (1 + B)
    significant = max(count_perm, count_boot) <= _allowed(alpha, B)
    c_group = _critical(g_null, alpha)
    ms, se_s = mean[searched], se[searched]
    lo, hi = ms - c_group * se_s, ms + c_group * se_s
    if bounds is not None:
        lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    reason = ""
    if not np.isfinite(c):
        reason = (f"n_resamples={B} is too few for a test at level {alpha:g} (needs at least "
                  f"{int(np.ceil(1 / alpha)) - 1}): no gap can be established")
        lo, hi = np.full(ms.size, np.nan), np.full(ms.size, np.nan)
    return {"statistic": T, "critical": c, "p_value": max(p_perm, p_boot), "significant": bool(significant),
            "p_permutation": p_perm,
            "p_bootstrap": p_boot, "uf_lower": maxt_lower_bound(ds, ss, c), "ci_low": lo, "ci_high": hi,
            "reason": reason}
