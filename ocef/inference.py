"""Inference shared by the audits: multiplicity adjustment and binomial-proportion intervals.

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

import numpy as np

from ocef.validation import CONFIDENCE, validate_params
from ocef.errors import ParameterError

__all__ = ["holm_adjust", "wilson_interval"]


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
    from scipy.stats import norm

    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > n):
        raise ParameterError("successes must lie in [0, n]")
    z = norm.ppf(0.5 + confidence / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high
