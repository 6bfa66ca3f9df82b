"""Intervals for off-policy estimates: Wald on the per-row pseudo-outcomes, the percentile bootstrap
(and Open Bandit Pipeline's exact bootstrap), and the importance-weighted intervals of
VowpalWabbit/estimators (@8ce3871: empirical likelihood with the Cressie–Read divergence,
Gaussian, Clopper–Pearson, the betting confidence sequence of Waudby-Smith & Ramdas 2020 as used by
Karampatziakis, Mineiro & Ramdas, ICML 2021).

Every function returns an :class:`IntervalEstimate` ``(estimate, ci_low, ci_high, reason)``;
where no interval can be given (too few rows, zero variance from a single value, ...) the bounds are
NaN (``null`` in strict JSON) and ``reason`` says why. Which interval to trust where (the measured
floors on effective sample size and clicks) is decided by :mod:`ocef.offpolicy.diagnostics`; the
coverage of each method is measured by ``benchmarks/offpolicy_coverage.py``.

The VWE functions take the importance weights and rewards of the rows, not per-row pseudo-outcomes:
they are intervals for the IPS value (the Cressie–Read one for its own estimate). They are
computed in batch with exactly rounded sums (``math.fsum``) where VWE streams with its incremental
fsum; VWE's ``p_drop``/``n_drop`` (dropped-event corrections) are not offered.
"""
from __future__ import annotations

import math
from math import inf
from typing import NamedTuple

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.validation import as_generator, as_real_array, check_in_interval, check_positive_int

__all__ = [
    "IntervalEstimate", "wald_interval", "bootstrap_interval", "obp_bootstrap_interval",
    "cressie_read_estimate", "cressie_read_interval", "gaussian_interval", "clopper_pearson_interval",
    "betting_interval", "INTERVALS",
]

NAN = float("nan")


def _fsum(values: np.ndarray) -> float:
    """Exactly rounded sum (``math.fsum``; a list is iterated faster than an array)."""
    return math.fsum(values.tolist())


class IntervalEstimate(NamedTuple):
    """An estimate with its interval, or null bounds (NaN) and the ``reason``.

    Attributes
    ----------
    estimate : float
        The point estimate.
    ci_low, ci_high : float
        The bounds (NaN when no interval is given).
    reason : str or None
        Why there is no interval (None when there is one).

    Examples
    --------
    >>> IntervalEstimate(0.5, 0.4, 0.6, None).ci_high
    0.6
    """
    estimate: float
    ci_low: float
    ci_high: float
    reason: str | None = None


def _null(estimate: float, reason: str) -> IntervalEstimate:
    return IntervalEstimate(float(estimate), NAN, NAN, reason)


def _rows(name: str, values) -> np.ndarray:
    out = np.atleast_1d(as_real_array(name, values)).astype(float, copy=False)
    if out.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {out.shape}")
    if not np.all(np.isfinite(out)):
        raise DataError(f"{name} must be finite (a NaN row: see the estimator's documentation)")
    return out


def _weights_rewards(weight, reward) -> tuple[np.ndarray, np.ndarray]:
    w = _rows("weight", weight)
    r = _rows("reward", reward)
    if w.shape != r.shape:
        raise DataError(f"weight and reward must have one value per row, got {w.shape[0]} and {r.shape[0]}")
    if np.any(w < 0):
        raise DataError("weight must be >= 0")
    return w, r


def _alpha(confidence) -> float:
    return 1.0 - check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)


def wald_interval(rows, *, confidence: float = 0.95, quantile: str = "t") -> IntervalEstimate:
    """Wald interval mean ± q·s/√n on the per-row pseudo-outcomes.

    Parameters
    ----------
    rows : array_like, shape (n,)
        The pseudo-outcomes ŷ_i of an estimator (:mod:`ocef.offpolicy.estimators`).
    confidence : float, default 0.95
        Two-sided level.
    quantile : {"t", "normal"}, default "t"
        Student's t with n − 1 degrees of freedom, or the normal quantile (VWE's
        ``gaussian.Interval`` on the IPS rows w_i r_i).

    Returns
    -------
    IntervalEstimate
        Null with a reason for fewer than 2 rows or rows all equal (zero-width interval).

    Examples
    --------
    >>> e = wald_interval([0.5, 2.0, 0.0, 2.0, 0.0, 0.0], quantile="normal")
    >>> round(e.estimate, 6), round(e.ci_low, 6), round(e.ci_high, 6)
    (0.75, -0.040087, 1.540087)
    """
    y = _rows("rows", rows)
    alpha = _alpha(confidence)
    if quantile not in ("t", "normal"):
        raise ParameterError(f"quantile must be 't' or 'normal', got {quantile!r}")
    n = y.shape[0]
    if n == 0:
        return _null(NAN, "no rows")
    mean = float(y.mean())
    if n < 2:
        return _null(mean, "one row: no variance")
    sd = float(y.std(ddof=1))
    if sd == 0:
        return _null(mean, "all rows equal: a zero-width interval is not a confidence interval")
    from ocef.inference import normal, student_t      # scipy.stats' values, without its second of import

    q = student_t.ppf(1 - alpha / 2, n - 1) if quantile == "t" else normal.ppf(1 - alpha / 2)
    half = float(q) * sd / math.sqrt(n)
    return IntervalEstimate(mean, mean - half, mean + half, None)


def bootstrap_interval(rows, *, confidence: float = 0.95, n_resamples: int = 10000,
                       rng=None) -> IntervalEstimate:
    """Percentile bootstrap of the mean of the per-row pseudo-outcomes (rows resampled i.i.d.).

    The estimate is the rows' mean (not the mean of the bootstrap means, as OBP reports: see
    :func:`obp_bootstrap_interval`). Resamples are drawn as row indices, in blocks.

    Parameters
    ----------
    rows : array_like, shape (n,)
        The pseudo-outcomes.
    confidence : float, default 0.95
        Two-sided level.
    n_resamples : int, default 10000
        Bootstrap replicates.
    rng : None, int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    IntervalEstimate
        Null with a reason for fewer than 2 rows or all rows equal.

    Examples
    --------
    >>> e = bootstrap_interval([0.0, 1.0, 2.0, 1.0], n_resamples=2000, rng=0)
    >>> e.estimate, bool(e.ci_low < 1 < e.ci_high)
    (1.0, True)
    """
    y = _rows("rows", rows)
    alpha = _alpha(confidence)
    b = check_positive_int("n_resamples", n_resamples)
    gen = as_generator(rng)
    n = y.shape[0]
    if n == 0:
        return _null(NAN, "no rows")
    mean = float(y.mean())
    if n < 2:
        return _null(mean, "one row: no variance")
    if np.all(y == y[0]):
        return _null(mean, "all rows equal: a zero-width interval is not a confidence interval")
    block = max(1, min(b, 2_000_000 // n))
    means = np.empty(b)
    for start in range(0, b, block):
        m = min(block, b - start)
        means[start:start + m] = y[gen.integers(0, n, size=(m, n))].mean(axis=1)
    low, high = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return IntervalEstimate(mean, float(low), float(high), None)


def obp_bootstrap_interval(rows, *, confidence: float = 0.95, n_resamples: int = 10000,
                           rng: int | None = None) -> IntervalEstimate:
    """Open Bandit Pipeline's bootstrap (``obp.utils.estimate_confidence_interval_by_bootstrap``),
    draw for draw: legacy ``np.random.RandomState(rng)``, one ``choice(rows, size=n)`` per replicate,
    ``np.percentile`` bounds; the estimate is OBP's ``"mean"``, the mean of the bootstrap means.

    For equality with OBP's numbers (its ``estimate_interval`` defaults: 10000 replicates; 100 for
    ``ReplayMethod`` and in ``OffPolicyEvaluation.estimate_intervals``). Prefer
    :func:`bootstrap_interval`.

    Parameters
    ----------
    rows : array_like, shape (n,)
        The pseudo-outcomes (OBP's ``_estimate_round_rewards``).
    confidence : float, default 0.95
        1 − OBP's ``alpha``.
    n_resamples : int, default 10000
        OBP's ``n_bootstrap_samples``.
    rng : int or None
        OBP's ``random_state`` (an int seed; None uses numpy's global RandomState, as OBP).

    Returns
    -------
    IntervalEstimate
        Never null (OBP gives an interval for any rows).

    Examples
    --------
    >>> e = obp_bootstrap_interval([0.5, 2.0, 0.0, 2.0, 0.0, 0.0], rng=12345)
    >>> round(e.estimate, 6), round(e.ci_low, 6), round(e.ci_high, 6)
    (0.751042, 0.083333, 1.416667)
    """
    y = _rows("rows", rows)
    alpha = 1.0 - check_in_interval("confidence", confidence, 0.0, 1.0, low_open=True, high_open=True)
    alpha = round(alpha, 12)                        # 1 - 0.95 is 0.05000000000000004; OBP is given 0.05
    b = check_positive_int("n_resamples", n_resamples)
    if rng is not None and (isinstance(rng, bool) or not isinstance(rng, (int, np.integer))):
        raise ParameterError(f"rng must be an int seed or None for OBP's legacy RandomState, got {rng!r}")
    state = np.random.RandomState(rng)
    boot = [np.mean(state.choice(y, size=y.shape[0])) for _ in range(b)]
    low = np.percentile(boot, 100 * (alpha / 2))
    high = np.percentile(boot, 100 * (1.0 - alpha / 2))
    return IntervalEstimate(float(np.mean(boot)), float(low), float(high), None)


def _check_w_bounds(wmin: float, wmax: float) -> tuple[float, float]:
    wmin = float(wmin)
    wmax = float(wmax)
    if not (wmin < 1 < wmax):
        raise ParameterError(f"wmin and wmax must satisfy wmin < 1 < wmax, got {wmin} and {wmax}")
    return wmin, wmax


def _cr_sums(w: np.ndarray, r: np.ndarray, wmin: float, wmax: float):
    """The weight range widened to the observed weights, and Σw, Σw², Σwr, Σw²r (exact sums)."""
    return (min(wmin, float(w.min())), max(wmax, float(w.max())), _fsum(w), _fsum(w ** 2), _fsum(w * r),
            _fsum(w ** 2 * r))


def cressie_read_estimate(weight, reward, *, wmin: float = 0.0, wmax: float = inf) -> float:
    """The empirical-likelihood (Cressie–Read, power −2) point estimate of Karampatziakis, Mineiro
    & Ramdas (ICML 2021, §3), as VWE ``bandits/cressieread.Estimator``.

    With n rows, sums Σw, Σw², Σwr, Σw²r, Σr and the phantom weight w̃ = wmax if Σw < n else wmin
    (both widened to the observed weights): γ = −(1+n)/n, β = 0 if w̃ = inf, else
    A = (w̃+Σw)/(1+n), B = (w̃²+Σw²)/(1+n), γ = (B−A)/(A²−B), β = (1−A)/(A²−B);
    V̂ = (−γΣwr − βΣw²r)/(1+n) + max(0, 1 − (−γΣw − βΣw²)/(1+n))·Σr/n.

    Parameters
    ----------
    weight, reward : array_like, shape (n,)
        Importance weights and rewards.
    wmin, wmax : float, default 0, inf
        The smallest and largest possible weights (wmin < 1 < wmax).

    Returns
    -------
    float
        The estimate (NaN for no rows; VWE returns None).

    Examples
    --------
    >>> round(cressie_read_estimate([.5, 2, .8, 2, 0, .9], [1, 1, 0, 1, 1, 0]), 6)
    0.758656
    """
    w, r = _weights_rewards(weight, reward)
    wmin, wmax = _check_w_bounds(wmin, wmax)
    n = float(w.shape[0])
    if n == 0:
        return NAN
    wmin, wmax, sumw, sumwsq, sumwr, sumwsqr = _cr_sums(w, r, wmin, wmax)
    sumr = _fsum(r)
    wfake = wmax if sumw < n else wmin
    if wfake == inf:
        gamma, beta = -(1 + n) / n, 0.0
    else:
        a = (wfake + sumw) / (1 + n)
        b = (wfake ** 2 + sumwsq) / (1 + n)
        gamma = (b - a) / (a * a - b)
        beta = (1 - a) / (a * a - b)
    vhat = (-gamma * sumwr - beta * sumwsqr) / (1 + n)
    missing = max(0.0, 1 - (-gamma * sumw - beta * sumwsq) / (1 + n))
    return float(vhat + missing * (sumr / n))


def _reward_bounds(r: np.ndarray, rmin: float, rmax: float, empirical_r_bounds: bool) -> tuple[float, float]:
    """[rmin, rmax], widened to the observed rewards if ``empirical_r_bounds``, else checked (VWE)."""
    rmin, rmax = float(rmin), float(rmax)
    if not rmin <= rmax:
        raise ParameterError(f"rmin must be <= rmax, got {rmin} and {rmax}")
    if not empirical_r_bounds and r.shape[0] and (r.min() < rmin or r.max() > rmax):
        raise DataError(f"reward must lie in [rmin, rmax] = [{rmin}, {rmax}] (or set empirical_r_bounds)")
    if r.shape[0] and empirical_r_bounds:
        return min(rmin, float(r.min())), max(rmax, float(r.max()))
    return rmin, rmax


def cressie_read_interval(weight, reward, *, confidence: float = 0.95, wmin: float = 0.0, wmax: float = inf,
                          rmin: float = 0.0, rmax: float = 1.0, empirical_r_bounds: bool = False,
                          atol: float = 1e-9) -> IntervalEstimate:
    """Empirical-likelihood interval with the Cressie–Read(−2) divergence (Karampatziakis, Mineiro
    & Ramdas, ICML 2021, §3-4), as VWE ``bandits/cressieread.Interval``: the extremes of Σq w r over
    the n rows and one phantom row (weight w̃ ∈ {wmin, wmax}, reward rmin or rmax) subject to
    Σq w = 1 within the divergence budget δ = F⁻¹_{1,n}(1 − α) (closed form of the spec §3).

    Asymptotically exact, and its bounds never leave [rmin, rmax]. The estimate is
    :func:`cressie_read_estimate`.

    Parameters
    ----------
    weight, reward : array_like, shape (n,)
        Importance weights and rewards.
    confidence : float, default 0.95
        1 − α.
    wmin, wmax : float, default 0, inf
        Smallest and largest possible weights.
    rmin, rmax : float, default 0, 1
        Reward range; a reward outside raises unless ``empirical_r_bounds``.
    empirical_r_bounds : bool, default False
        Widen [rmin, rmax] to the observed rewards.
    atol : float, default 1e-9
        VWE's tolerance for a degenerate (zero) discriminant.

    Returns
    -------
    IntervalEstimate
        Null with a reason for no rows.

    Raises
    ------
    ocef.errors.DataError
        A reward outside [rmin, rmax] (without ``empirical_r_bounds``).

    Examples
    --------
    >>> e = cressie_read_interval([.5, 2, .8, 2, 0, .9], [1, 1, 0, 1, 1, 0])
    >>> round(e.ci_low, 6), round(e.ci_high, 6)
    (0.046622, 1.0)
    """
    w, r = _weights_rewards(weight, reward)
    alpha = _alpha(confidence)
    wmin, wmax = _check_w_bounds(wmin, wmax)
    rmin, rmax = _reward_bounds(r, rmin, rmax, empirical_r_bounds)
    n = float(w.shape[0])
    if n == 0:
        return _null(NAN, "no rows")
    estimate = cressie_read_estimate(w, r, wmin=wmin, wmax=wmax)
    wmin, wmax, sumw, sumwsq, sumwr, sumwsqr = _cr_sums(w, r, wmin, wmax)
    sumwsqrsq = _fsum(w ** 2 * r ** 2)

    uncwfake = wmax if sumw < n else wmin
    if uncwfake == inf:
        uncgstar = 1 + 1 / n
    else:
        unca = (uncwfake + sumw) / (1 + n)
        uncb = (uncwfake ** 2 + sumwsq) / (1 + n)
        uncgstar = (1 + n) * (unca - 1) ** 2 / (uncb - unca * unca)
    from scipy import stats

    delta = stats.f.isf(q=alpha, dfn=1, dfd=n)
    phi = (-uncgstar - delta) / (2 * (1 + n))

    bounds = []
    for rho, sign in ((rmin, 1), (rmax, -1)):
        candidates = []
        for wfake in (wmin, wmax):
            if wfake == inf:
                x = sign * (rho + (sumwr - sumw * rho) / n)
                y = (rho * sumw - sumwr) ** 2 / (n * (1 + n)) - (
                    rho ** 2 * sumwsq - 2 * rho * sumwsqr + sumwsqrsq) / (1 + n)
                z = phi + 1 / (2 * n)
            else:
                barw = (wfake + sumw) / (1 + n)
                barwsq = (wfake * wfake + sumwsq) / (1 + n)
                barwr = sign * (wfake * rho + sumwr) / (1 + n)
                barwsqr = sign * (wfake * wfake * rho + sumwsqr) / (1 + n)
                barwsqrsq = (wfake * wfake * rho * rho + sumwsqrsq) / (1 + n)
                if not barwsq > barw ** 2:
                    continue
                x = barwr + (1 - barw) * (barwsqr - barw * barwr) / (barwsq - barw ** 2)
                y = (barwsqr - barw * barwr) ** 2 / (barwsq - barw ** 2) - (barwsqrsq - barwr ** 2)
                z = phi + 0.5 * (1 - barw) ** 2 / (barwsq - barw ** 2)
            if math.isclose(y * z, 0, abs_tol=atol * atol):
                candidates.append(x - math.sqrt(2) * atol)
            elif z <= 0 and y * z >= 0:
                candidates.append(x - math.sqrt(2 * y * z))
        best = min(candidates) if candidates else rmin          # sic (VWE), also for the upper bound
        bounds.append(min(rmax, max(rmin, sign * best)))
    return IntervalEstimate(estimate, float(bounds[0]), float(bounds[1]), None)


def gaussian_interval(weight, reward, *, confidence: float = 0.95) -> IntervalEstimate:
    """VWE ``bandits/gaussian.Interval``: the normal-quantile Wald interval of the IPS rows w_i r_i
    (:func:`wald_interval` with ``quantile="normal"``; VWE's s² from the sums, clamped at 0).

    Parameters
    ----------
    weight, reward : array_like, shape (n,)
        Importance weights and rewards.
    confidence : float, default 0.95
        1 − α.

    Returns
    -------
    IntervalEstimate
        Null with a reason for fewer than 2 rows or equal rows.

    Examples
    --------
    >>> e = gaussian_interval([.5, 2, .8, 2, 0, .9], [1, 1, 0, 1, 1, 0])
    >>> round(e.ci_low, 6), round(e.ci_high, 6)
    (-0.040087, 1.540087)
    """
    w, r = _weights_rewards(weight, reward)
    return wald_interval(w * r, confidence=confidence, quantile="normal")


def clopper_pearson_interval(weight, reward, *, confidence: float = 0.95, rmin: float = 0.0, rmax: float = 1.0,
                             empirical_r_bounds: bool = False) -> IntervalEstimate:
    """VWE ``bandits/clopper_pearson.Interval``: a Clopper–Pearson interval on the weight-rescaled
    counts S = Σ w r' / max w, N = n / max w (r' = (r − rmin)/(rmax − rmin)), rescaled to
    [rmin, rmax]. A heuristic (exact only for constant weights); its coverage is measured in the
    guide.

    Parameters
    ----------
    weight, reward : array_like, shape (n,)
        Importance weights and rewards.
    confidence : float, default 0.95
        1 − α.
    rmin, rmax : float, default 0, 1
        Reward range; a reward outside raises unless ``empirical_r_bounds``.
    empirical_r_bounds : bool, default False
        Widen the range to the observed rewards.

    Returns
    -------
    IntervalEstimate
        The estimate is the IPS value Σwr/n; null with a reason for no rows. (VWE returns
        (rmin, rmax) when every weight is 0; so do we.)

    Examples
    --------
    >>> e = clopper_pearson_interval([.5, 2, .8, 2, 0, .9], [1, 1, 0, 1, 1, 0])
    >>> round(e.ci_low, 6), round(e.ci_high, 6)
    (0.131932, 0.997908)
    """
    w, r = _weights_rewards(weight, reward)
    alpha = _alpha(confidence)
    rmin, rmax = _reward_bounds(r, rmin, rmax, empirical_r_bounds)
    n = w.shape[0]
    if n == 0:
        return _null(NAN, "no rows")
    estimate = _fsum(w * r) / n
    w_max = float(w.max())
    if w_max == 0 or rmax == rmin:
        return IntervalEstimate(estimate, rmin, rmax, None)
    successes = _fsum(w * (r - rmin) / (rmax - rmin)) / w_max
    trials = n / w_max
    from scipy import stats

    low = stats.beta.ppf(alpha / 2, successes, trials - successes + 1) if successes > 0 else 0
    high = stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes) if successes < trials else 1
    return IntervalEstimate(estimate, float(rmin + (rmax - rmin) * low), float(rmin + (rmax - rmin) * high), None)


def _log_wealth(s: float, v: float, rho: float) -> float:
    """log W(s, v) of the betting martingale with a gamma-mixture over bets (VWE ``cs._logwealth``)."""
    from scipy import special

    def log_lower_gamma(a: float, x: float) -> float:
        return math.log(special.gammainc(a, x)) + float(special.loggamma(a))
    return (s + v + rho * math.log(rho) - (v + rho) * math.log(s + v + rho)
            + log_lower_gamma(v + rho, s + v + rho) - log_lower_gamma(rho, rho))


def _lower_bound(t: float, sum_x: float, v: float, rho: float, alpha: float) -> float:
    """The smallest μ not rejected: log W(ΣX − tμ, v) < ln(1/α) (VWE ``cs._lblogwealth``)."""
    threshold = -math.log(alpha)
    if _log_wealth(sum_x, v, rho) <= threshold:
        return 0.0
    mu_max = min(1.0, sum_x / t)
    if _log_wealth(sum_x - t * mu_max, v, rho) >= threshold:
        return mu_max
    from scipy import optimize

    return float(optimize.brentq(lambda mu: _log_wealth(sum_x - t * mu, v, rho) - threshold, 0.0, mu_max))


def betting_interval(weight, reward, *, confidence: float = 0.95, rmin: float = 0.0, rmax: float = 1.0,
                     empirical_r_bounds: bool = False) -> IntervalEstimate:
    """Betting confidence sequence for the IPS value (Waudby-Smith & Ramdas 2020; the off-policy
    version of Karampatziakis, Mineiro & Ramdas, ICML 2021), as VWE ``bandits/cs.Interval`` (ρ = 1).

    With Δ = rmax − rmin, X_t = w_t(r_t − rmin)/Δ for the lower bound, Y_t = w_t(rmax − r_t)/Δ for
    the upper one, the predictable means X̂_t = (Σ_{j<t} X_j + ½)/t and v = Σ(X_t − X̂_t)²: the
    bound is the root of log W(ΣX − tμ, v) = ln(2/α) (gamma-mixture wealth). Valid at every n
    simultaneously (so conservative at a fixed n); depends on the order of the rows.

    Parameters
    ----------
    weight, reward : array_like, shape (n,)
        Importance weights and rewards, in logging order.
    confidence : float, default 0.95
        1 − α.
    rmin, rmax : float, default 0, 1
        Reward range; without ``empirical_r_bounds`` rewards are clipped to it (as VWE).
    empirical_r_bounds : bool, default False
        Widen the range with each observed reward (as VWE's ``adjust``).

    Returns
    -------
    IntervalEstimate
        The estimate is the IPS value Σwr/n; null with a reason for no rows or rmin = rmax.

    Examples
    --------
    >>> e = betting_interval([.5, 2, .8, 2, 0, .9] * 50, [1, 1, 0, 1, 1, 0] * 50)
    >>> round(e.ci_low, 6), round(e.ci_high, 6)
    (0.552808, 0.805636)
    """
    w, r = _weights_rewards(weight, reward)
    alpha = _alpha(confidence)
    rmin, rmax = float(rmin), float(rmax)
    if not rmin <= rmax:
        raise ParameterError(f"rmin must be <= rmax, got {rmin} and {rmax}")
    n = w.shape[0]
    if n == 0:
        return _null(NAN, "no rows")
    estimate = _fsum(w * r) / n
    if empirical_r_bounds:
        lo = np.minimum.accumulate(np.minimum(r, rmin))     # the range after example t is added
        hi = np.maximum.accumulate(np.maximum(r, rmax))
        rmin_end, rmax_end = float(lo[-1]), float(hi[-1])
    else:
        r = np.clip(r, rmin, rmax)
        lo = np.full(n, rmin)
        hi = np.full(n, rmax)
        rmin_end, rmax_end = rmin, rmax
    if rmin_end == rmax_end:
        return _null(estimate, "rmin = rmax: the rewards carry no information")
    with np.errstate(divide="ignore", invalid="ignore"):
        span = hi - lo
        before_wr = np.concatenate(([0.0], np.cumsum(w * r)[:-1]))   # sums before example t
        before_w = np.concatenate(([0.0], np.cumsum(w)[:-1]))
        t1 = np.arange(1, n + 1, dtype=float)
        xhat_low = ((before_wr - before_w * lo) / span + 0.5) / t1
        xhat_high = ((before_w * hi - before_wr) / span + 0.5) / t1
    if np.any(span == 0):                      # VWE divides by zero there: only with empirical bounds
        return _null(estimate, "rmin = rmax at the start of the sequence")
    f = _fsum
    sumwsqrsq, sumwsqr, sumwsq = f((w * r) ** 2), f(w ** 2 * r), f(w ** 2)
    sumwr, sumw = f(w * r), f(w)
    delta = rmax_end - rmin_end
    v_low = ((sumwsqrsq - 2 * rmin_end * sumwsqr + rmin_end ** 2 * sumwsq) / delta ** 2
             - 2 * (f(w * r * xhat_low) - rmin_end * f(w * xhat_low)) / delta + f(xhat_low ** 2))
    v_high = ((sumwsqrsq - 2 * rmax_end * sumwsqr + rmax_end ** 2 * sumwsq) / delta ** 2
              + 2 * (f(w * r * xhat_high) - rmax_end * f(w * xhat_high)) / delta + f(xhat_high ** 2))
    sum_x_low = (sumwr - sumw * rmin_end) / delta
    sum_x_high = (sumw * rmax_end - sumwr) / delta
    low = _lower_bound(float(n), sum_x_low, v_low, 1.0, alpha / 2)
    high = 1 - _lower_bound(float(n), sum_x_high, v_high, 1.0, alpha / 2)
    return IntervalEstimate(estimate, rmin_end + low * delta, rmin_end + high * delta, None)


#: interval name -> (function, takes per-row pseudo-outcomes (True) or (weight, reward) (False)).
INTERVALS = {
    "wald": (wald_interval, True),
    "bootstrap": (bootstrap_interval, True),
    "cressie-read": (cressie_read_interval, False),
    "gaussian": (gaussian_interval, False),
    "clopper-pearson": (clopper_pearson_interval, False),
    "betting": (betting_interval, False),
}
