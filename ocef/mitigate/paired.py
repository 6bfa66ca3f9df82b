"""Paired inference of a remedy against its baseline over the same users, and the equivalence
certificate of an exposure target.

A re-ranked list and the unmitigated list are two measurements of the *same* user, so a
difference of any per-user metric (nDCG, precision, AWRF, ...) is judged on the per-user
differences ``D_u = m_u - b_u`` (the paired t interval: mean of ``D``, ``t_{n-1}`` quantile, standard
error ``sd(D)/√n``), which is far narrower than comparing two unpaired intervals when the two lists
are correlated. Pooled quantities such as the exposure share of an item group (a ratio of sums over
users, ``Σ_u X_ug / Σ_u T_u``) are smooth functions of the means of a per-user vector ``Z_u``; their
difference is judged by the delta method on the joint sample covariance of ``Z`` (the linearised
per-user differences), which reduces exactly to the paired t interval for a difference of means.

Everything streams: :class:`Moments` keeps the count, the sum and the cross-products of ``Z`` (a
shifted accumulation for numerical stability), so users are never held in memory together.

The certificate (:func:`equivalence_certificate`) is Schuirmann's two one-sided tests (TOST, 1987)
of ``|θ| < ε`` for ``θ`` = the exposure share minus its target: *within* when both one-sided tests
reject at level δ (the ``1 - 2δ`` interval lies inside ``(-ε, ε)``), *outside* when the one-sided
test of ``|θ| > ε`` rejects at level δ, else *inconclusive*. Over several item groups the
certificate is *within* only when every group is (an intersection-union test, level δ without
adjustment), and *outside* when some group is outside at level δ/G (Bonferroni).

References
----------
D. J. Schuirmann, "A comparison of the two one-sided tests procedure and the power approach for
assessing the equivalence of average bioavailability", J. Pharmacokinetics and Biopharmaceutics
15(6), 657-680, 1987.
R. L. Berger, J. C. Hsu, "Bioequivalence trials, intersection-union tests and equivalence
confidence sets", Statistical Science 11(4), 283-319, 1996.
"""
from __future__ import annotations

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.validation import Real, validate_params

__all__ = ["Moments", "MIN_USERS", "delta_interval", "paired_interval", "equivalence_certificate", "share_certificate"]

#: Fewest users for which a paired interval is printed (below: null + reason). Measured by
#: ``benchmarks/mitigate_coverage.py`` (1000 samples per size, a planted boost world): at 30 users
#: the 95% paired intervals of the nine statistics covered 0.942-0.957; at 10 users down to 0.921
#: (the total variation) and 0.929 (expected score).
MIN_USERS = 30


class Moments:
    """Streaming count, sum and cross-products of per-user vectors ``Z_u`` (shifted for stability).

    Parameters
    ----------
    dim : int
        Length of ``Z_u``.

    Examples
    --------
    >>> m = Moments(2)
    >>> m.add(np.array([[1.0, 2.0], [3.0, 5.0]]))
    >>> m.add(np.array([[5.0, 8.0]]))
    >>> m.n, m.mean().tolist(), m.cov().tolist()
    (3, [3.0, 5.0], [[4.0, 6.0], [6.0, 9.0]])
    """

    def __init__(self, dim: int) -> None:
        self.dim = int(dim)
        self.n = 0
        self.shift: np.ndarray | None = None
        self.s1 = np.zeros(self.dim)
        self.s2 = np.zeros((self.dim, self.dim))

    def add(self, z) -> None:
        """Add the rows of ``z``, one per user.

        Parameters
        ----------
        z : array_like of float, shape (n, dim)

        Examples
        --------
        >>> m = Moments(1)
        >>> m.add([[1.0], [3.0]])
        >>> m.n
        2
        """
        z = np.asarray(z, dtype=float)
        if z.ndim != 2 or z.shape[1] != self.dim:
            raise DataError(f"per-user vectors must have shape (n, {self.dim}), got {z.shape}")
        if not z.shape[0]:
            return
        if np.isnan(z).any():
            raise DataError("per-user vectors must not hold NaN (undefined users are left out before)")
        if self.shift is None:
            self.shift = z.mean(axis=0)
        c = z - self.shift
        self.n += z.shape[0]
        self.s1 += c.sum(axis=0)
        self.s2 += c.T @ c

    def mean(self) -> np.ndarray:
        """The mean of ``Z`` (NaN without users).

        Returns
        -------
        numpy.ndarray, shape (dim,)

        Examples
        --------
        >>> m = Moments(1)
        >>> m.add([[1.0], [3.0]])
        >>> m.mean().tolist()
        [2.0]
        """
        if not self.n:
            return np.full(self.dim, np.nan)
        return self.shift + self.s1 / self.n

    def cov(self) -> np.ndarray:
        """The sample covariance of ``Z`` (divisor ``n - 1``; NaN below 2 users).

        Returns
        -------
        numpy.ndarray, shape (dim, dim)

        Examples
        --------
        >>> m = Moments(1)
        >>> m.add([[1.0], [3.0]])
        >>> m.cov().tolist()
        [[2.0]]
        """
        if self.n < 2:
            return np.full((self.dim, self.dim), np.nan)
        c = self.s1 / self.n
        return (self.s2 - self.n * np.outer(c, c)) / (self.n - 1)


def _gradient(fn, x: np.ndarray) -> np.ndarray:
    """Central finite-difference gradient of a smooth statistic of the means."""
    g = np.zeros(x.size)
    for i in range(x.size):
        h = 1e-6 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        g[i] = (fn(up) - fn(down)) / (2 * h)
    return g


def delta_interval(moments: Moments, fn, *, confidence: float = 0.95, null: float | None = 0.0,
                   min_users: int = MIN_USERS) -> dict:
    """Delta-method t interval of a smooth statistic ``fn(mean Z)`` of per-user means.

    ``se = √(∇fᵀ Σ̂ ∇f / n)`` with ``Σ̂`` the sample covariance of ``Z`` and the ``t_{n-1}``
    quantile; for ``fn = mean(m) - mean(b)`` it is the paired t interval of the per-user differences.

    Parameters
    ----------
    moments : Moments
        The accumulated per-user vectors.
    fn : callable
        ``fn(mean vector) -> float``, the statistic (smooth near the mean).
    confidence : float, default 0.95
    null : float or None, default 0.0
        Value of the statistic under the null of the two-sided t test (``p_value``); None: no test.
    min_users : int, default :data:`MIN_USERS`
        Fewest users for an interval (below: null bounds and a ``reason``).

    Returns
    -------
    dict
        ``estimate, se, ci_low, ci_high, confidence, p_value, n_users, df, reason``.

    Examples
    --------
    >>> m = Moments(2)
    >>> m.add(np.array([[0.5, 0.4], [0.7, 0.4], [0.6, 0.5], [0.9, 0.6]]))
    >>> r = delta_interval(m, lambda z: z[0] - z[1], min_users=2)
    >>> round(r["estimate"], 4), round(r["se"], 4)
    (0.2, 0.0577)
    """
    from ocef.inference import student_t

    n = moments.n
    mean = moments.mean()
    with np.errstate(all="ignore"):            # a group without exposure or merit: inf/NaN, reported below
        est = float(fn(mean)) if n else float("nan")
    out = {"estimate": est, "se": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"),
           "confidence": confidence, "p_value": float("nan"), "n_users": int(n), "df": max(n - 1, 0), "reason": None}
    if not np.isfinite(est):
        out["reason"] = "undefined: no user (or no exposure / no merit in a group)" if n else "no user"
        return out
    if n < min_users:
        out["reason"] = f"{n} users: below the measured floor of {min_users} users for a paired interval"
        return out
    with np.errstate(all="ignore"):
        grad = _gradient(fn, mean)
    var = float(grad @ moments.cov() @ grad) / n
    if not np.isfinite(var) or var <= 1e-30:
        out["reason"] = "no variation between users: the statistic is the same for every user (no interval)"
        return out
    se = var ** 0.5
    q = float(student_t.ppf(0.5 + confidence / 2, n - 1))
    out.update(se=se, ci_low=est - q * se, ci_high=est + q * se)
    if null is not None:
        out["p_value"] = float(2 * student_t.sf(abs(est - null) / se, n - 1))
    return out


def paired_interval(mitigated, baseline, *, confidence: float = 0.95, min_users: int = MIN_USERS) -> dict:
    """Paired t interval of ``mean(mitigated - baseline)`` over the same users.

    Parameters
    ----------
    mitigated, baseline : array_like of float, shape (n_users,)
        A per-user metric under the remedy and the baseline, user by user.
    confidence : float, default 0.95
    min_users : int, default :data:`MIN_USERS`

    Returns
    -------
    dict
        As :func:`delta_interval` (``p_value``: paired t test of no difference).

    Examples
    --------
    >>> r = paired_interval([0.5, 0.7, 0.6, 0.9], [0.4, 0.4, 0.5, 0.6], min_users=2)
    >>> round(r["estimate"], 4), round(r["ci_low"], 4), round(r["ci_high"], 4)
    (0.2, 0.0163, 0.3837)
    """
    m = np.asarray(mitigated, dtype=float)
    b = np.asarray(baseline, dtype=float)
    if m.shape != b.shape or m.ndim != 1:
        raise DataError(f"mitigated and baseline must be 1-d of one value per user, got {m.shape} and {b.shape}")
    mom = Moments(2)
    mom.add(np.column_stack([m, b]))
    return delta_interval(mom, lambda z: z[0] - z[1], confidence=confidence, min_users=min_users)


@validate_params(margin=Real(0.0, 1.0, closed="neither"), delta=Real(0.0, 0.5, closed="neither"))
def equivalence_certificate(estimates, ses, df, *, margin: float = 0.05, delta: float = 0.05) -> dict:
    """Certificate "within ±ε of the target at 1-δ": TOST per item group, intersection-union over groups.

    For each group's ``θ_g`` (exposure share minus target) with standard error ``s_g``: the two
    one-sided t tests of ``H0: θ ≤ -ε`` and ``H0: θ ≥ ε`` give ``p_within = max(p_low, p_high)``
    (Schuirmann 1987); the one-sided test of ``H0: |θ| ≤ ε`` rejects when ``θ̂ - t s > ε`` or
    ``θ̂ + t s < -ε`` (each side at δ/2; ``p_outside``). Verdict: ``"within"`` when every group's ``p_within ≤ δ``
    (intersection-union: level δ), ``"outside"`` when some group's ``p_outside ≤ δ/G``
    (Bonferroni), else ``"inconclusive"``; a missing standard error gives ``"inconclusive"``.

    Parameters
    ----------
    estimates, ses : array_like of float, shape (G,)
        ``θ̂_g`` and its standard error.
    df : int
        Degrees of freedom of the t tests (users - 1).
    margin : float, default 0.05
        ε, the equivalence margin on the share scale, in (0, 1).
    delta : float, default 0.05
        δ, the error level, in (0, 0.5).

    Returns
    -------
    dict
        ``certificate, p_within, p_outside, margin, delta, test, reason`` (why no test was made).

    Examples
    --------
    >>> equivalence_certificate([0.01, -0.01], [0.005, 0.005], 999, margin=0.05)["certificate"]
    'within'
    >>> equivalence_certificate([0.20, -0.20], [0.01, 0.01], 999, margin=0.05)["certificate"]
    'outside'
    >>> equivalence_certificate([0.04, -0.04], [0.05, 0.05], 999, margin=0.05)["certificate"]
    'inconclusive'
    """
    from ocef.inference import student_t

    est = np.atleast_1d(np.asarray(estimates, dtype=float))
    se = np.atleast_1d(np.asarray(ses, dtype=float))
    if est.shape != se.shape or est.ndim != 1 or est.size == 0:
        raise ParameterError(f"estimates and ses must be 1-d of one value per group, got {est.shape} and {se.shape}")
    test = ("TOST (Schuirmann's two one-sided t tests) of |share - target| < margin per item group; "
            "within: every group (intersection-union, level delta); outside: some group at delta/G (Bonferroni)")
    out = {"certificate": "inconclusive", "p_within": float("nan"), "p_outside": float("nan"),
           "margin": margin, "delta": delta, "test": test, "reason": None}
    if not (np.all(np.isfinite(est)) and np.all(np.isfinite(se)) and np.all(se > 0) and df >= 1):
        out["reason"] = ("no test: a share is undefined, or has no standard error (below the floor of users, or the "
                         "same for every user)")
        return out
    p_low = student_t.sf((est + margin) / se, df)        # H0: θ <= -ε
    p_high = student_t.cdf((est - margin) / se, df)      # H0: θ >= ε
    p_within = np.maximum(p_low, p_high)
    # H0: |θ| <= ε, rejected on either side: both sides at δ/2 (Bonferroni), so that at θ = 0 with
    # ε small against the standard error the two tails together stay at δ
    p_out = np.minimum(1.0, 2 * np.minimum(student_t.sf((est - margin) / se, df), student_t.cdf((est + margin) / se, df)))
    G = est.size
    out["p_within"] = float(p_within.max())
    out["p_outside"] = float(min(1.0, G * p_out.min()))
    if out["p_within"] <= delta:
        out["certificate"] = "within"
    elif out["p_outside"] <= delta:
        out["certificate"] = "outside"
    return out


def share_certificate(moments: Moments, differences, *, margin: float = 0.05, confidence: float = 0.95) -> dict:
    """The certificate of one policy from its per-user moments: :func:`equivalence_certificate` of
    the delta-method estimates and standard errors of ``differences`` (one function per item group,
    ``fn(mean Z) = share_g - target_g``), at δ = 1 - confidence.

    Parameters
    ----------
    moments : Moments
        Per-user vectors of the policy (exposure of each group, and merit for a merit target).
    differences : sequence of callable
        ``θ_g(mean Z)`` for each item group.
    margin : float, default 0.05
    confidence : float, default 0.95

    Returns
    -------
    dict
        As :func:`equivalence_certificate`, plus ``estimates`` and ``ses``.

    Examples
    --------
    >>> m = Moments(2)
    >>> m.add(np.random.default_rng(0).dirichlet([50, 50], size=400))
    >>> share_certificate(m, [lambda z: z[0] / z.sum() - 0.5, lambda z: z[1] / z.sum() - 0.5])["certificate"]
    'within'
    """
    est, se = [], []
    for fn in differences:
        r = delta_interval(moments, fn, confidence=confidence, null=None)
        est.append(r["estimate"])
        se.append(r["se"])
    out = equivalence_certificate(est, se, max(moments.n - 1, 1), margin=margin, delta=1 - confidence)
    return {**out, "estimates": est, "ses": se}
