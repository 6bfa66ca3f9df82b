"""Position-aware exposure fairness of top-k logs.

Provider side: the exposure share of each item group under a browsing model (Diaz et al. 2020,
Sapiezynski et al. 2019, Geyik et al. 2019, Singh & Joachims 2018) against a target (catalogue,
equal or merit), with intervals. Consumer side: any per-user metric (precision, recall, nDCG, hit
rate, AWRF, NDKL, expected exposure) by user group. One front door, :func:`exposure_fairness`
(:mod:`ocef.exposure.audit`); its pieces, one module each:

- :mod:`~ocef.exposure.browsing`: the browsing model, its weights for numpy and SQL;
- :mod:`~ocef.exposure.logs`: reading a log (roles, side tables, checks) with DuckDB, Spark or numpy;
- :mod:`~ocef.exposure.formulas`: the numpy reference formulas on the rankings of one user;
- :mod:`~ocef.exposure.user_metrics`: the registry of per-user metrics (one entry per metric);
- :mod:`~ocef.exposure.statistics`: a log reduced to the sufficient statistics of exposure and list metrics;
- :mod:`~ocef.exposure.shares`: the provider-side shares, targets and intervals;
- :mod:`~ocef.exposure.ranking_metrics`: AWRF, NDKL and expected exposure over a whole log;
- :mod:`~ocef.exposure.frame`: any per-user metric by group with intervals (the metric frame).
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562), so that
#: ``ocef exposure`` on a log loads only the log reduction, not pandas' and scipy's machinery.
_HOME = {
    'audit': ('ExposureResult', 'exposure_fairness'),
    'browsing': ('BrowsingModel',),
    'formulas': ('awrf', 'cascade_weights', 'expected_exposure', 'expected_exposure_metrics', 'exposure_merit_ratios',
                 'exposure_shares', 'group_exposure', 'ndkl', 'position_weights', 'share_disparity',
                 'target_exposure'),
    'frame': ('MetricFrameResult', 'hall_interval', 'metric_frame', 'metric_frame_from_moments'),
    'logs': ('read_log',),
    'ranking_metrics': ('RankingFairnessResult', 'per_user_fairness', 'ranking_fairness'),
    'statistics': ('RankingStats', 'ranking_statistics'),
    'user_metrics': ('REGISTRY', 'UserMetric'),
}
_MODULES = ("audit", "browsing", "formulas", "frame", "logs", "ranking_metrics", "shares", "statistics",
            "user_metrics")

__all__ = [
    "exposure_fairness", "ExposureResult", "ranking_statistics", "RankingStats", "BrowsingModel", "read_log",
    "REGISTRY", "UserMetric",
    "position_weights", "cascade_weights", "expected_exposure", "target_exposure", "expected_exposure_metrics",
    "group_exposure", "exposure_shares", "share_disparity", "awrf", "ndkl", "exposure_merit_ratios",
    "metric_frame", "metric_frame_from_moments", "MetricFrameResult",
    # AWRF, NDKL and expected exposure over a whole log, with intervals
    "ranking_fairness", "per_user_fairness", "RankingFairnessResult", "hall_interval",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
