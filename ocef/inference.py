"""Inference shared by the audits: multiplicity adjustment, binomial-proportion intervals and the
normal and Student t distribution functions (scipy.stats' values without its import time).

One definition of each formula, used wherever an audit compares many groups (Holm's step-down
adjustment) or reports a proportion (the Wilson score interval, which stays inside [0, 1]).

References
----------
S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal of
Statistics 6(2), 65-70, 1979.

E. B. Wilson, "Probable inference, the law of succession, and statistical inference", Journal of
the American Statistical Association 22(158), 209-212, 1927.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ocef.validation import CONFIDENCE, validate_params
from ocef.errors import ParameterError

__all__ = ["holm_adjust", "wilson_interval", "norm_ppf", "norm_cdf", "norm_sf", "t_ppf", "t_cdf",
           "t_sf"]


def holm_adjust(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate control, any dependence).

    With the m p-values sorted increasingly, ``p_(i)`` gets
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``; rejecting where the adjusted value is at most
    ``1 - confidence`` controls the family-wise error rate at that level (Holm 1979). NaN p-values
    (comparisons that could not be made) stay NaN and do not count in ``m``.

    Parameters
    ----------
    p_values : array_like of float
        Unadjusted p-values in [0, 1], any shape.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    flat = p.ravel()
    out = np.full(flat.shape, np.nan)
    ok = ~np.isnan(flat)
    if np.any((flat[ok] < 0) | (flat[ok] > 1)):
        raise ParameterError(f"p-values must lie in [0, 1], got {flat[ok].min()!r}..{flat[ok].max()!r}")
    vals = flat[ok]
    m = vals.size
    if m:
        order = np.argsort(vals, kind="stable")
        scaled = np.minimum(1.0, (m - np.arange(m)) * vals[order])
        adjusted = np.maximum.accumulate(scaled)
        res = np.empty(m)
        res[order] = adjusted
        out[ok] = res
    return out.reshape(p.shape)


@validate_params(confidence=CONFIDENCE)
def wilson_interval(successes, n, *, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a binomial proportion; always inside [0, 1].

    ``(p̂ + z²/2n ± z sqrt(p̂(1-p̂)/n + z²/4n²)) / (1 + z²/n)`` with ``z`` the two-sided normal
    quantile at ``confidence`` (Wilson 1927). ``n = 0`` gives ``(nan, nan)``: no interval.

    Parameters
    ----------
    successes, n : array_like of int
        Counts, broadcast together; ``0 <= successes <= n``.
    confidence : float, default 0.95
        Two-sided level in (0, 1).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Lower and upper ends.

    Examples
    --------
    >>> low, high = wilson_interval(0, 10)
    >>> float(low), round(float(high), 4)
    (0.0, 0.2775)
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ParameterError("successes must lie in [0, n]")
    z = norm_ppf(0.5 + confidence / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


# --------------------------------------------------------------------------- distribution functions
# Importing scipy.stats takes about a second (more than a small audit's own work); the audits only
# need the normal and Student t distribution functions, which scipy.stats computes with these
# scipy.special functions. The wrappers give scipy.stats' values (tested equal, edge cases
# included: invalid arguments give NaN, the quantiles of 0 and 1 are -inf and inf).

def norm_ppf(q):
    """``scipy.stats.norm.ppf(q)``, without importing scipy.stats.

    Parameters
    ----------
    q : float or array_like
        Probabilities in [0, 1] (others give NaN).

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The standard normal quantiles.

    Examples
    --------
    >>> round(float(norm_ppf(0.975)), 4)
    1.96
    """
    from scipy.special import ndtri

    q = np.asarray(q, dtype=float)
    return (np.where((q >= 0) & (q <= 1), ndtri(q), np.nan) + 0.0)[()]


def norm_cdf(x):
    """``scipy.stats.norm.cdf(x)``, without importing scipy.stats.

    Parameters
    ----------
    x : float or array_like
        Values.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        P(Z <= x) for a standard normal Z.

    Examples
    --------
    >>> float(norm_cdf(0.0))
    0.5
    """
    from scipy.special import ndtr

    return (ndtr(np.asarray(x, dtype=float)) + 0.0)[()]


def norm_sf(x):
    """``scipy.stats.norm.sf(x)`` (1 - cdf, accurate in the upper tail), without importing scipy.stats.

    Parameters
    ----------
    x : float or array_like
        Values, as for :func:`norm_cdf`.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        P(Z > x) = ``norm_cdf(-x)``, computed without the cancellation of 1 - cdf.

    Examples
    --------
    >>> round(float(norm_sf(1.96)), 4)
    0.025
    """
    from scipy.special import ndtr

    return (ndtr(-np.asarray(x, dtype=float)) + 0.0)[()]


def t_ppf(q, df):
    """``scipy.stats.t.ppf(q, df)``, Student's t quantile, without importing scipy.stats.

    Parameters
    ----------
    q : float or array_like
        Probabilities in [0, 1] (others give NaN).
    df : float or array_like
        Degrees of freedom > 0 (others give NaN); broadcast with ``q``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The quantiles.

    Examples
    --------
    >>> round(float(t_ppf(0.975, 10)), 4)
    2.2281
    """
    from scipy.special import stdtrit

    q, df = np.asarray(q, dtype=float), np.asarray(df, dtype=float)
    ok = (df > 0) & (q >= 0) & (q <= 1)
    with np.errstate(invalid="ignore"):
        inner = np.where(q == 0, -np.inf, np.where(q == 1, np.inf, stdtrit(df, q)))
    return (np.where(ok, inner, np.nan) + 0.0)[()]


def t_sf(x, df):
    """``scipy.stats.t.sf(x, df)``, Student's t survival function, without importing scipy.stats.

    Parameters
    ----------
    x, df : float or array_like
        Values and degrees of freedom, as for :func:`t_cdf`.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        P(T > x) = ``t_cdf(-x, df)``.

    Examples
    --------
    >>> float(t_sf(0.0, 5))
    0.5
    """
    return t_cdf(-np.asarray(x, dtype=float), df)


def t_cdf(x, df):
    """``scipy.stats.t.cdf(x, df)``, Student's t distribution function, without importing scipy.stats.

    Parameters
    ----------
    x : float or array_like
        Values.
    df : float or array_like
        Degrees of freedom > 0 (others give NaN); broadcast with ``x``.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        P(T <= x).

    Examples
    --------
    >>> round(float(t_cdf(2.2281, 10)), 3)
    0.975
    """
    from scipy.special import stdtr

    x, df = np.asarray(x, dtype=float), np.asarray(df, dtype=float)
    with np.errstate(invalid="ignore"):
        inner = np.where(x == -np.inf, 0.0, np.where(x == np.inf, 1.0, stdtr(df, x)))
    return (np.where((df > 0) & ~np.isnan(x), inner, np.nan) + 0.0)[()]


#: Drop-in stand-ins for ``scipy.stats.norm`` and ``scipy.stats.t`` (their ``ppf``, ``cdf`` and ``sf``).
normal = SimpleNamespace(ppf=norm_ppf, cdf=norm_cdf, sf=norm_sf)
student_t = SimpleNamespace(ppf=t_ppf, cdf=t_cdf, sf=t_sf)
