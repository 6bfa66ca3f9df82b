"""Planning: the 80% rule threshold, sample sizes (Theorem D.2, delta method) and p_act (Sec. 4.3).

See :mod:`ocef.reo` for the whole API and the references."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.reo.estimators import _COVARIANCE_OF, check_interval, delta_method_reo, normal_quantile, reo_penalty, rtpr_utilities
from ocef.results import Result
from ocef.validation import check_delta, check_in_interval, check_positive_int, renamed_keywords
from ocef.errors import DataError, ParameterError


class _OneRow(Result):
    """A result whose tidy frame is its one row of fields."""

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


@dataclass(frozen=True)
class SamplePlan(_OneRow):
    """Log sizes from :func:`delta_method_sample_size`: ``n_default``, ``n_random`` and the
    ``half_width`` they give (<= ``epsilon``) for ``target`` with the ``interval`` method."""

    n_default: int
    n_random: int
    half_width: float
    epsilon: float
    confidence: float
    target: str
    interval: str


@dataclass(frozen=True)
class TheoremSampleSize(_OneRow):
    """Sizes from :func:`theorem_sample_size` (Theorem E.4, eq. 21 and 8): ``n``, ``n_default``,
    ``n_random``."""

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

    The rule asks ``min_k U_k >= ratio * max_k U_k``. The coefficient of variation is convex,
    so its maximum over that box is at a vertex: m groups at ``ratio`` and K - m at 1; this
    returns the max over m. K = 2 gives 1/9 = 11.1% (the seed's threshold). A penalty above
    the threshold therefore proves that some pair of groups violates the rule.
    """
    K = check_positive_int("K", K, minimum=2)
    ratio = check_in_interval("ratio", ratio, 0.0, 1.0, low_open=False, high_open=True)
    m = np.arange(1, K)
    U = np.where(np.arange(K)[None, :] < m[:, None], ratio, 1.0)
    return float(reo_penalty(U).max())


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
    """``Var = A / |D_rec| + B / |D_rand|`` for the penalty (A, B scalars) and for each delta_U_k
    (A_k, B_k): Gamma is linear in 1/|D_rec| and 1/|D_rand| (Alg. 1, and the full covariance)."""
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
    """Log sizes for which the delta-method interval (``interval``: ``"delta-full"``, the
    default of :func:`ocef.reo.estimate_reo`, or ``"delta"``, Algorithm 1) has half-width <= epsilon.

    ``P``, ``Q``: planning values of P_k, Q_k (a pilot estimate). ``target``: ``"penalty"``
    or ``"delta_U"`` (all groups). Give either ``n_default`` (the default log you will have;
    returns the random log needed) or ``random_to_default`` (the ratio |D_rand| / |D_rec|;
    returns both). Returns a :class:`SamplePlan`.
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
    """Sizes that Theorem E.4 (eq. 21) and eq. (8) give for ``|Delta_REO_hat - Delta_REO| <=
    epsilon`` with probability >= 1 - delta (the constant-explicit form of Theorem D.2):

    ``n = 4 K^2 / (sum_k U_k)^2 / epsilon^2 * log(1/delta)``,
    ``|D_rec| = n max_k U_k^2 (1-q_k)/q_k``, ``|D_rand| = n max_k U_k^2 (1-p_k)/p_k``.

    The product is invariant to rescaling U, so ``U = Q/P`` may be used. It bounds the
    covariance crudely (App. E) and is far more conservative than
    :func:`delta_method_sample_size`.
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


@renamed_keywords(n_show="k")
def expected_random_rows(p_act: float, *, n_requests: int, k: int) -> float:
    """Expected |D_rand| when each of ``n_requests`` requests is activated with probability
    ``p_act`` and then shows ``k`` random items (the list length) (Sec. 3.2, App. I). Every random pair is
    logged: only D_rec is a uniform sample of the recommended pairs."""
    p = check_in_interval("p_act", p_act, 0.0, 1.0, low_open=False, high_open=False)
    return p * check_positive_int("n_requests", n_requests) * check_positive_int("k", k)


@renamed_keywords(n_show="k")
def p_act_for(n_random: int, *, n_requests: int, k: int) -> float:
    """The activation probability p_act that yields ``n_random`` random rows in expectation
    (inverse of :func:`expected_random_rows`); refuses targets needing p_act > 1."""
    nr = check_positive_int("n_random", n_random)
    full = expected_random_rows(1.0, n_requests=n_requests, k=k)
    p = nr / full
    if p > 1.0:
        raise ParameterError(f"n_random={nr} needs p_act={p:.3g} > 1: at most {full:.0f} random rows "
                         f"come from {n_requests} requests x {k} items")
    return float(p)
