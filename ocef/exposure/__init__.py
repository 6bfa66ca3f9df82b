"""Position-aware exposure fairness of top-k logs.

Provider side: the exposure share of each item group under a browsing model (Diaz et al. 2020,
Sapiezynski et al. 2019, Geyik et al. 2019, Singh & Joachims 2018), its target and ratio to merit,
with intervals. Consumer side: any per-user metric (precision, recall, nDCG, hit rate, AWRF, NDKL,
expected exposure) by user group. Small pure functions define each formula once on the rankings of
one user (:mod:`ocef.exposure.rank_exposure`); :mod:`ocef.exposure.rankings` reduces a log of any
size to sufficient statistics where it lives (DuckDB, pandas, Spark);
:mod:`ocef.exposure.rank_metrics` adds the per-user ranking metrics over a whole log;
:mod:`ocef.exposure.by_group` gives any per-user metric by group with intervals.
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562), so that
#: ``ocef exposure`` on a log loads only the log reduction, not pandas' and scipy's machinery.
_HOME = {
    'by_group': ('MetricFrameResult', 'metric_frame', 'metric_frame_from_moments'),
    'rank_exposure': ('awrf', 'cascade_weights', 'expected_exposure', 'expected_exposure_metrics', 'exposure_fairness', 'exposure_merit_ratios', 'exposure_shares', 'group_exposure', 'ndkl', 'position_weights', 'share_disparity', 'target_exposure'),
    'rank_metrics': ('RankingFairnessResult', 'hall_interval', 'per_user_fairness', 'ranking_fairness'),
    'rankings': ('ExposureResult', 'RankingStats', 'ranking_statistics'),
}
_MODULES = ("rank_exposure", "rankings", "rank_metrics", "by_group")

__all__ = [
    "exposure_fairness", "ExposureResult", "ranking_statistics", "RankingStats",
    "position_weights", "cascade_weights", "expected_exposure", "target_exposure", "expected_exposure_metrics",
    "group_exposure", "exposure_shares", "share_disparity", "awrf", "ndkl", "exposure_merit_ratios",
    "metric_frame", "metric_frame_from_moments", "MetricFrameResult",
    # AWRF, NDKL and expected exposure over a whole log, with intervals
    "ranking_fairness", "per_user_fairness", "RankingFairnessResult", "hall_interval",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
