"""Planning: the 80% rule threshold, sample sizes (Theorem D.2, delta method) and p_act (Sec. 4.3).

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ocef.reo.estimators import _COVARIANCE_OF, check_interval, delta_method_reo, normal_quantile, rtpr_utilities
from ocef.results import Result
from ocef.validation import Integer, Real, check_delta, check_in_interval, check_positive_int, validate_params
from ocef.errors import DataError, ParameterError


class _OneRow(Result):
    """A result whose tidy frame is its one row of fields."""

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


@dataclass(frozen=True)
class SamplePlan(_OneRow):
    """Log sizes planned by :func:`delta_method_sample_size` (Algorithm 1's delta method).

    Parameters
    ----------
    n_default, n_random : int
        Planned ``|D_rec|`` and ``|D_rand|``.
    half_width : float
        The half-width those sizes give, ``<= epsilon``.
    epsilon : float
        The half-width asked for.
    confidence : float
        Two-sided level of the interval.
    target : {"penalty", "delta_U"}
        ``"delta_U"``: the widest group.
    interval : {"delta-full", "delta"}
        The delta-method covariance planned with.

    Examples
    --------
    >>> delta_method_sample_size([0.05, 0.03], [0.12, 0.05], epsilon=0.05, random_to_default=0.5).n_default
    48542
    """

    n_default: int
    n_random: int
    half_width: float
    epsilon: float
    confidence: float
    target: str
    interval: str


@dataclass(frozen=True)
class TheoremSampleSize(_OneRow):
    """Sizes from Theorem E.4 (eq. 21) and eq. (8), the output of :func:`theorem_sample_size`.

    Parameters
    ----------
    n : float
        ``n = 4 K^2 / ((sum_k U_k)^2 epsilon^2) log(1/delta)`` (eq. 21).
    n_default, n_random : int
        ``|D_rec|`` and ``|D_rand|`` of eq. (8), rounded up.
    epsilon, delta : float
        The error bound and failure probability asked for.

    Examples
    --------
    >>> theorem_sample_size([0.05, 0.03], [0.12, 0.05], epsilon=0.05, delta=0.05).n_random
    126877
    """

    n: float
    n_default: int
    n_random: int
    epsilon: float
    delta: float

# --------------------------------------------------------------------------------------------
# Planning: thresholds and sample sizes (Sec. 4.3, Theorem D.2 / App. E, Alg. 1)
# --------------------------------------------------------------------------------------------

def eighty_percent_rule_threshold(K: int, ratio: float = 0.8) -> float:
    """Largest ``Delta_REO`` compatible with the 80% rule among K groups (Sec. 4.3).

    The rule asks ``min_k U_k >= ratio * max_k U_k``; the maximum of the convex eq. (2) over that box
    is at a vertex. A penalty significantly above it proves that some pair violates the rule.

    Parameters
    ----------
    K : int
        Number of groups, >= 2.
    ratio : float
        In [0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> round(eighty_percent_rule_threshold(2), 4)                # the paper's 11.1%
    0.1111
    """
    K = check_positive_int("K", K, minimum=2)
    ratio = check_in_interval("ratio", ratio, 0.0, 1.0, low_open=False, high_open=True)
    # With a share f = m/K of the groups at `ratio` and the rest at 1, eq. (2) is
    # sqrt(f(1-f)) (1-ratio) / (1 - f(1-ratio)), unimodal in f with its maximum at f* = 1/(1+ratio):
    # only the two integers around K f* need evaluating (O(1) memory for any K; a K x K grid of
    # vertices needed 931 GiB at K = 350,000).
    best = K / (1.0 + ratio)
    m = np.unique(np.clip(np.array([math.floor(best), math.ceil(best)]), 1, K - 1))
    return float(_two_level_penalty(m / K, ratio).max())


def _two_level_penalty(f, ratio: float):
    """Eq. (2) for U with a share ``f`` of its entries at ``ratio`` and the rest at 1 (population std)."""
    f = np.asarray(f, dtype=float)
    return np.sqrt(f * (1.0 - f)) * (1.0 - ratio) / (1.0 - f * (1.0 - ratio))


def _check_rates(P, Q) -> tuple[np.ndarray, np.ndarray]:
    """Planning values of P_k, Q_k: same shape, every entry in (0, 1] (U_k = Q_k / P_k)."""
    P, Q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)
    if P.shape != Q.shape or P.ndim != 1 or P.size < 2:
        raise ParameterError(f"P and Q must be 1-d arrays of the same length K >= 2, got shapes {P.shape} and {Q.shape}")
    for name, v in (("P", P), ("Q", Q)):
        if not np.all((v > 0) & (v <= 1)):
            raise ParameterError(f"{name} must have every entry in (0, 1], got {v.tolist()}")
    return P, Q


def _variance_coefficients(P, Q, covariance: str = "diagonal") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(A, B)`` with ``Var = A / |D_rec| + B / |D_rand|`` for the penalty and each delta_U_k."""
    P, Q = _check_rates(P, Q)
    a = delta_method_reo(P, Q, 1.0, np.inf, covariance=covariance)
    b = delta_method_reo(P, Q, np.inf, 1.0, covariance=covariance)
    diag = lambda s: np.diagonal(s, axis1=-2, axis2=-1)  # noqa: E731
    return a.xi, b.xi, diag(a.sigma), diag(b.sigma)


#: Plans above this many rows are refused (no log of 10**15 rows exists to plan for).
MAX_PLANNED_ROWS = 10**15


def _rows(name: str, value, epsilon: float) -> int:
    """A planned number of rows: at least 1, at most :data:`MAX_PLANNED_ROWS` (else DataError)."""
    v = float(value)
    if not v <= MAX_PLANNED_ROWS:
        raise DataError(f"epsilon={epsilon:g} needs {name} above {MAX_PLANNED_ROWS:.0e} rows "
                        f"(got {v:.3g}): choose a larger epsilon")
    return max(1, int(np.ceil(v)))


def delta_method_sample_size(P, Q, *, epsilon: float, confidence: float = 0.95,
                             n_default: int | None = None, random_to_default: float | None = None,
                             target: str = "penalty", interval: str = "delta-full") -> SamplePlan:
    """Log sizes for which the delta-method interval of ``target`` has half-width at most ``epsilon`` (Algorithm 1).

    Solves ``z(delta/2) sqrt(A / |D_rec| + B / |D_rand|) <= epsilon``; far less conservative than
    :func:`theorem_sample_size`.

    Parameters
    ----------
    P, Q : array_like, shape (K,)
        Planning values of ``P_k`` and ``Q_k`` (a pilot estimate), in (0, 1].
    epsilon : float
        Target half-width.
    confidence : float
        Two-sided level, in (0, 1).
    n_default : int, optional
        The default log you will have: the random log needed is returned. Give this or
        ``random_to_default``.
    random_to_default : float, optional
        The ratio ``|D_rand| / |D_rec|``: both sizes are returned.
    target : {"penalty", "delta_U"}
        The penalty, or every group's ``delta_U_k``.
    interval : {"delta-full", "delta"}
        As :func:`estimate_reo`.

    Returns
    -------
    SamplePlan

    Raises
    ------
    ocef.errors.DataError
        If the plan exceeds 10**15 rows.

    Examples
    --------
    >>> delta_method_sample_size([0.05, 0.03], [0.12, 0.05], epsilon=0.05, n_default=100_000).n_random
    21353
    """
    eps = check_in_interval("epsilon", epsilon, 0.0, np.inf, low_open=True, high_open=True)
    z = normal_quantile(confidence)
    A, B, Ak, Bk = _variance_coefficients(P, Q, _COVARIANCE_OF[check_interval(interval)])
    if target == "delta_U":
        pass
    elif target == "penalty":
        if not np.isfinite(A) or not np.isfinite(B):
            raise ParameterError("the penalty's delta-method variance is undefined at Delta_REO = 0; "
                             "plan with target='delta_U'")
        Ak, Bk = np.atleast_1d(A), np.atleast_1d(B)
    else:
        raise ParameterError(f"target must be 'penalty' or 'delta_U', got {target!r}")
    with np.errstate(over="ignore"):
        budget = float(np.float64(eps / z) ** 2)          # epsilon = 1e308: inf, not OverflowError
    if (n_default is None) == (random_to_default is None):
        raise ParameterError("give exactly one of n_default and random_to_default")
    if n_default is not None:
        nd = check_positive_int("n_default", n_default)
        room = budget - Ak / nd                        # <= 0 for a tiny epsilon: refused below
        if np.any(room <= 0):
            best = float(z * np.sqrt(np.max(Ak) / nd))
            raise ParameterError(f"n_default={nd} is too small: even unlimited random traffic gives a "
                             f"half-width of {best:.4g} > epsilon={eps}")
        nr = _rows("n_random", np.max(Bk / room), eps)
    else:
        r = check_in_interval("random_to_default", random_to_default, 0.0, np.inf, low_open=True, high_open=True)
        with np.errstate(divide="ignore", over="ignore"):      # budget underflows to 0 for a tiny epsilon
            need = np.max((Ak + Bk / r) / budget) if budget > 0 else np.inf
        nd = _rows("n_default", need, eps)
        nr = _rows("n_random", r * nd, eps)
    half = float(z * np.sqrt(np.max(Ak / nd + Bk / nr)))
    return SamplePlan(nd, nr, half, eps, float(confidence), target, interval)


def theorem_sample_size(P, Q, *, epsilon: float, delta: float) -> TheoremSampleSize:
    """Sizes that Theorem E.4 (eq. 21) and eq. (8) give for ``|Delta_REO_hat - Delta_REO| <= epsilon`` with probability at least ``1 - delta``.

    The constant-explicit form of Theorem D.2::

        n = 4 K^2 / (sum_k U_k)^2 / epsilon^2 * log(1/delta),
        |D_rec| = n max_k U_k^2 (1-q_k)/q_k,  |D_rand| = n max_k U_k^2 (1-p_k)/p_k.

    ``U = Q/P`` may be used (the product is invariant to rescaling U).

    Parameters
    ----------
    P, Q : array_like, shape (K,)
        Planning values of ``P_k`` and ``Q_k``, in (0, 1].
    epsilon : float
        Error bound, > 0.
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    TheoremSampleSize

    Raises
    ------
    ocef.errors.DataError
        If a size exceeds 10**15 rows.

    Examples
    --------
    >>> th = theorem_sample_size([0.05, 0.03], [0.12, 0.05], epsilon=0.05, delta=0.05)
    >>> round(th.n, 1), th.n_default, th.n_random
    (1159.3, 61187, 126877)
    """
    P, Q = _check_rates(P, Q)
    eps = check_in_interval("epsilon", epsilon, 0.0, np.inf, low_open=True, high_open=True)
    d = check_delta(delta)
    U = rtpr_utilities(P, Q)
    K = U.shape[-1]
    with np.errstate(over="ignore", divide="ignore"):
        n = 4.0 * K ** 2 / np.float64(U.sum()) ** 2 / np.float64(eps) ** 2 * np.log(1.0 / d)
        nd, nr = n * np.max(U ** 2 * (1 - Q) / Q), n * np.max(U ** 2 * (1 - P) / P)
    return TheoremSampleSize(float(n), _rows("|D_rec|", nd, eps), _rows("|D_rand|", nr, eps), eps, d)


@validate_params(p_act=Real(0, 1), n_requests=Integer(1, 2**53), k=Integer(1, 2**53))     # 2**53: float counts
def expected_random_rows(p_act: float, *, n_requests: int, k: int) -> float:
    """Expected size of the random log, ``E|D_rand| = p_act * n_requests * k`` (Sec. 3.2, App. I).

    Parameters
    ----------
    p_act : float
        Activation probability.
    n_requests, k : int

    Returns
    -------
    float

    Examples
    --------
    >>> expected_random_rows(0.01, n_requests=1_000_000, k=10)
    100000.0
    """
    return float(p_act) * n_requests * k


@validate_params(n_random=Integer(1, 2**53), n_requests=Integer(1, 2**53), k=Integer(1, 2**53))
def p_act_for(n_random: int, *, n_requests: int, k: int) -> float:
    """The activation probability giving ``n_random`` random rows in expectation (inverse of
    :func:`expected_random_rows`).

    Parameters
    ----------
    n_random, n_requests, k : int

    Returns
    -------
    float

    Examples
    --------
    >>> p_act_for(50_000, n_requests=1_000_000, k=10)
    0.005
    """
    nr = n_random
    full = expected_random_rows(1.0, n_requests=n_requests, k=k)
    p = nr / full
    if p > 1.0:
        raise ParameterError(f"n_random={nr} needs p_act={p:.3g} > 1: at most {full:.0f} random rows "
                         f"come from {n_requests} requests x {k} items")
    return float(p)
