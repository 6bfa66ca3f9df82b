"""Helpers shared by the REO simulation experiments (Dong et al. 2024, Sec. 4).

Every formula comes from :mod:`ocef.reo`; this module only turns counts into its inputs and
fits log-log slopes.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ocef import reo

#: The 80% rule threshold of Sec. 4.3 for two groups (U_1 = 0.8 U_2 gives ΔREO = 1/9).
TWO_GROUP_THRESHOLD = 1.0 / 9.0
#: Simulated daily logs of the monitoring figures (Fig. 6-8): 14 days.
N_DAYS = 14


def daily_traffic(quick: bool) -> dict:
    """Per-day traffic settings of the monitoring figures (Fig. 6-8), quick or full."""
    if quick:
        return dict(requests_per_day=4000, k=10, p_act=0.25, log_rate=1.0)
    return dict(requests_per_day=15_000, k=10, p_act=0.15, log_rate=1.0)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log(y) on log(x) (the fitted exponent of Fig. 3-5)."""
    return float(stats.linregress(np.log(np.asarray(x, float)), np.log(np.asarray(y, float))).slope)


def proportions(rand_counts, n_random, rec_counts, n_default) -> tuple[np.ndarray, np.ndarray]:
    """P̂_k and Q̂_k (eq. 5) from positive counts per group (any leading replicate axes)."""
    P = np.asarray(rand_counts, float) / np.asarray(n_random, float)[..., None]
    Q = np.asarray(rec_counts, float) / np.asarray(n_default, float)[..., None]
    return P, Q


def penalty_from_counts(rand_counts, n_random, rec_counts, n_default) -> np.ndarray:
    """ΔREO estimate (eq. 6) for each replicate of positive counts."""
    P, Q = proportions(rand_counts, n_random, rec_counts, n_default)
    return np.asarray(reo.reo_point_estimates(P, Q)[2], float)


def truth_penalty(p, q) -> float:
    """ΔREO of exact proportions (eq. 2, through :mod:`ocef.reo`)."""
    return float(reo.reo_point_estimates(np.asarray(p, float), np.asarray(q, float))[2])
