"""Ranking-based Equal Opportunity (REO) from default + random traffic (Dong et al. 2024).

Definitions (Sec. 2-3, App. D)
------------------------------
For K item groups s_1..s_K:

* ``P_k = P(Y=1, S=s_k)`` estimated on the random traffic D_rand,
  ``Q_k = P(Y=1, S=s_k | R=1)`` estimated on the default traffic D_rec        (eq. 5)
* ``U_k = Q_k / P_k``: the RTPR utility P(R=1 | Y=1, S=s_k) up to the common factor P(R=1)
  (eq. 1, 4, 6); every metric below is invariant to that factor.
* ``delta_U_k = U_k / mean(U) - 1``                                              (eq. 3, 7)
* ``penalty = Delta_REO = std(U) / mean(U)`` with the *population* std (1/K), as the
  gradient H_j = delta_U_j / (K Delta_REO) of App. F requires and as the 11.1% threshold of
  Sec. 4.3 (U_1 = 0.8 U_2 gives 1/9) confirms.                                    (eq. 2, 6)

Standard errors follow Algorithm 1 (App. D, justified in App. F) literally:
``Gamma = diag(U_k^2 ((1-Q_k)/(Q_k n_default) + (1-P_k)/(P_k n_random)))``,
``G_{j,k} = K (delta_{jk} sum(U) - U_k) / sum(U)^2``, ``H_j = delta_U_j / (K penalty)``,
``Sigma = G^T Gamma G`` (covariance of delta_U), ``Xi = H^T Sigma H`` (variance of the
penalty); intervals are estimate +- z(delta/2) SE.

``Gamma`` is diagonal in Algorithm 1: it treats the P_k (and the Q_k) of different groups as
independent, whereas within one log they are multinomial with Cov = -P_j P_k / n. The full
delta method (``interval="delta-full"``, the default of :func:`estimate_reo`;
:func:`utility_covariance`) keeps those covariances:
``Gamma = diag(Q_k/(P_k^2 n_d) + Q_k^2/(P_k^3 n_r)) - (1/n_d + 1/n_r) U U^T``. Its diagonal is
Algorithm 1's; since delta_U and the penalty are invariant to rescaling U the rank-one term
cancels in ``G^T Gamma G``, so Algorithm 1's Sigma is too small by ``(1/n_d + 1/n_r) G^T
diag(U^2) G``, a relative ``~ (Q_k + P_k)/2``. Measured (``tests/ocef/reo/test_coverage.py``,
4,000 replicates): with P = (.25, .15, .20), Q = (.45, .15, .25), 3,000 rows per log, Algorithm 1
covers ~91% (nominal 95%) and the full method ~95%; with rare positives both cover 95%.
``interval="delta"`` keeps Algorithm 1 exactly as printed. The same fix makes the joint
A/B delta method (``"delta-shared"``) reject ~5% of A/A tests instead of 8-11%.

Table 1 of the paper: eq. (2) gives 1/3 for dataset B (U = (1/2, 1)); the paper prints 2/3,
which is |U_1 - U_2| / mean(U) (twice eq. 2 for K = 2). We follow eq. (2), Sec. 4.3 and App. F.

When the delta method is unreliable
-----------------------------------
``Delta_REO`` is a norm of ``delta_U`` (``sqrt(mean(delta_U^2))``): it is not differentiable
at 0, its estimator is biased upward near 0 (by up to about one SE of delta_U_k) and its
sampling distribution is a folded (non-central chi) rather than a normal one. When the true
penalty is within about two standard errors of 0 the symmetric delta interval is wrong: it
reaches below 0 and its coverage is off. A Monte-Carlo check
(``tests/ocef/reo/test_estimators.py``) with a true penalty of 0 finds a 95% interval covering
in ~95% of logs for K = 2 (a folded normal) but ~70% for K = 4 and ~20% for K = 8; from about
2-4 SEs on the coverage is back near 95%.
:class:`ReoResult` flags this (``delta_method_reliable`` is False when the lower end of the
penalty interval is <= 0, and the SE is NaN when the estimate is exactly 0). Then:
(1) read the per-group ``delta_U_k`` intervals, which stay valid (``delta_U`` is smooth at 0);
(2) use a bootstrap interval for the penalty (``estimate_reo(..., interval="bca")`` or
``"percentile"``), which respects the boundary; (3) for a decision, test the penalty against
a threshold (e.g. :func:`eighty_percent_rule_threshold`) instead of against 0; (4) collect more
random traffic (:func:`delta_method_sample_size`).

Public API
----------
Pure array functions (any leading batch shape ``(..., K)``, vectorized over replicates):

* ``rtpr_utilities(P, Q) -> U``; ``relative_group_utilities(U) -> delta_U``;
  ``reo_penalty(U) -> penalty``; ``reo_point_estimates(P, Q) -> ReoPoint(U, delta_U, penalty)``
* ``delta_method_reo(P, Q, n_default, n_random, confidence=0.95, covariance="diagonal"|"full")
  -> ReoArrays`` (fields ``U, delta_U, penalty, gamma, sigma, xi, se_delta_U, se_penalty, z,
  covariance``); ``utility_covariance`` (full Gamma), ``utility_covariance_diagonal``,
  ``reo_jacobians(U) -> ReoJacobians(G, H)``
* ``reo_from_counts(pos_default, n_default, pos_random, n_random, confidence, covariance)``:
  same from positive counts per group (arrays ``(..., K)``) and log sizes (``(...)``).

Logs, counts first (columns ``request, day, user, item, R, Y, S, source``; only the label and
group columns, and ``day`` for per-day estimates, are read). Every log argument may be a pandas
DataFrame, a file (CSV, Parquet, a directory or glob of Parquet partitions), a DuckDB relation,
an :class:`ocef.backends.Sql` query or a Spark DataFrame; ``backend="auto"|"duckdb"|"pandas"|
"spark"`` chooses where the per-group counts are computed (:mod:`ocef.backends`).

* ``reo_counts({name: log, ...}, *, label, group, groups=None, by=None, backend) -> ReoCounts``
  (tidy ``table``; ``group_names``; ``groups``: one row per group with its counts;
  ``positives(log)``, ``rows(log)``, ``category_counts(log)``).
* ``reo_result_from_counts(groups, pos_default, n_default, pos_random, n_random, *, confidence,
  interval) -> ReoResult``: the one estimator every data path ends in.
* ``estimate_reo(default, random, *, label="Y", group="S", confidence=0.95, groups=None,
  interval="delta-full"|"delta", backend="auto", spark=None) -> ReoResult`` with ``.groups``
  (group, P, Q, U, delta_U, se, ci_low, ci_high), ``.penalty``, ``.penalty_se``,
  ``.penalty_ci``, ``.n_default``, ``.n_random``, ``.sigma``, ``.method``,
  ``.delta_method_reliable``, ``.notes``; ``to_frame/to_dict/to_csv`` (:mod:`ocef.results`).
* ``estimate_reo_by(default, random, *, by="day", threshold=None, ...) -> ReoDaily``: one
  estimate per day (Fig. 6), ``significantly_above`` the threshold per day; ``groups``: one row
  per day and group with its estimates.
* ``positive_counts(log, *, label, group, groups) -> PositiveCounts(positives, n)``;
  ``label_indicator(log, label)`` (Y = any of several 0/1 columns).
* ``naive_reo(default, random=None, *, label, group, recommended="R", groups=None)``: the
  estimator that treats every missing label as negative (Sec. 1), for comparison.
* ``bootstrap_reo_ci(default, random, *, interval="standard"|"percentile"|"bca",
  n_resamples=100, confidence, rng, resample="counts"|"rows", backend) -> BootstrapReo(result,
  bootstrap)`` (``BootstrapSummary``: replicates, se, bias, intervals; ``bca_interval`` is the BCa
  formula of scipy.stats.bootstrap computed with an exact count-level jackknife);
  ``category_counts(log, ...)``.
* A/B (App. D, G): ``ab_test(control, treatment, random, *, interval="delta"|"delta-shared"|
  "partition"|"standard"|"percentile"|"bca", label, group, confidence, rng, n_resamples=100,
  n_folds=10, backend) -> AbResult`` with ``.groups`` (group, D, se, ci_low, ci_high, p_value),
  ``.D_reo``, ``.D_reo_se``, ``.D_reo_ci``, ``.D_reo_p_value``; ``shared_random_ab_variance(P,
  Q_control, Q_treatment, n_control, n_treatment, n_random, covariance="full")``.
* Other metrics (App. H): ``ranking_statistical_parity(n_recommended, n_candidates) ->
  RspResult``, ``user_precision_utility(default, *, label, user_group) -> UserPrecision``.
* Planning: ``eighty_percent_rule_threshold(K, ratio=0.8)``,
  ``delta_method_sample_size(P, Q, *, epsilon, confidence, n_default=None, ..., interval)
  -> SamplePlan``, ``theorem_sample_size(P, Q, *, epsilon, delta) -> TheoremSampleSize``,
  ``expected_random_rows(p_act, *, n_requests, k)`` (refuses p_act outside [0, 1]; every
  random pair is logged), ``p_act_for(n_random, ...)``.
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
