"""Ranking-based Equal Opportunity (REO) from default + random traffic (Dong et al. 2024).

``U_k = Q_k / P_k`` (eq. 1, 4-6) is each item group's recall utility, with ``P_k`` from the random
traffic and ``Q_k`` from the default traffic; ``delta_U_k = U_k / mean(U) - 1`` (eq. 3, 7) and the
penalty ``Delta_REO = std(U) / mean(U)`` (eq. 2, 6) follow, with delta-method standard errors
(Algorithm 1, App. D; ``interval="delta-full"`` keeps the multinomial covariances Algorithm 1
drops), bootstrap intervals, A/B comparisons (App. D, G) and sample-size planning. The
definitions, the paper's Table 1 erratum, when the delta method fails and the full list of
functions are in docs/guide/reo.md ("Definitions and standard errors", "Public API").

Examples
--------
>>> from ocef.datasets import make_toy_reo_logs
>>> from ocef.reo import estimate_reo
>>> round(estimate_reo(*make_toy_reo_logs()).penalty, 4)
0.3333
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562), so ``ocef reo``
#: on a file needs only the counts and the estimator, not pandas and the bootstrap machinery.
_HOME = {
    "ab": ("AB_INTERVALS", "AbResult", "_fold_counts", "ab_test", "shared_random_ab_variance"),
    "bootstrap": ("BOOTSTRAP_INTERVALS", "BootstrapReo", "BootstrapSummary", "_reo_stat_from_counts", "bca_interval",
                  "bootstrap_reo_ci", "category_counts"),
    "counts": ("ReoCounts", "reo_counts"),
    "estimate": ("ALL_INTERVALS", "estimate_reo"),
    "daily": ("ReoDaily", "estimate_reo_by"),
    "estimators": ("COVARIANCES", "INTERVALS", "PositiveCounts", "ReoArrays", "ReoJacobians", "ReoPoint",
                   "ReoResult", "reo_result_from_counts", "utility_covariance", "delta_method_reo",
                   "label_indicator", "naive_reo", "normal_quantile", "positive_counts",
                   "relative_group_utilities", "reo_from_counts", "reo_jacobians", "reo_penalty",
                   "reo_point_estimates", "rtpr_utilities", "utility_covariance_diagonal"),
    "parity": ("RspResult", "UserPrecision", "ranking_statistical_parity", "user_precision_utility"),
    "simulate": ("TrafficWorld", "TrafficTruth", "TrafficLogs", "AbTrafficLogs", "StreamedTraffic", "as_world",
                 "make_traffic_world", "default_recommendations", "ground_truth", "expected_relevance",
                 "simulate_traffic", "simulate_ab", "stream_traffic", "draw_log_counts"),
    "planning": ("SamplePlan", "TheoremSampleSize", "delta_method_sample_size", "eighty_percent_rule_threshold",
                 "expected_random_rows", "p_act_for", "theorem_sample_size"),
}

__all__ = [
    "rtpr_utilities", "relative_group_utilities", "reo_penalty", "reo_point_estimates",
    "ReoPoint", "ReoJacobians", "ReoArrays", "reo_jacobians", "utility_covariance_diagonal", "utility_covariance",
    "COVARIANCES", "INTERVALS", "PositiveCounts", "reo_result_from_counts", "ReoCounts", "reo_counts",
    "ReoDaily", "estimate_reo_by", "BootstrapReo", "SamplePlan", "TheoremSampleSize", "RspResult",
    "UserPrecision", "delta_method_reo", "reo_from_counts", "normal_quantile",
    "label_indicator", "positive_counts", "ReoResult", "estimate_reo", "naive_reo",
    "category_counts", "bca_interval", "BootstrapSummary", "bootstrap_reo_ci",
    "AbResult", "ab_test", "shared_random_ab_variance", "ranking_statistical_parity", "user_precision_utility",
    "eighty_percent_rule_threshold", "delta_method_sample_size", "theorem_sample_size",
    "expected_random_rows", "p_act_for",
    "TrafficWorld", "TrafficTruth", "TrafficLogs", "AbTrafficLogs", "StreamedTraffic", "as_world",
    "make_traffic_world", "default_recommendations", "ground_truth", "expected_relevance",
    "simulate_traffic", "simulate_ab", "stream_traffic", "draw_log_counts",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOME)
