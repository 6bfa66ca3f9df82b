"""Off-policy evaluation: the value of a target policy (per group) estimated from a log of another
policy with logged propensities.

Per-row estimators equal to Open Bandit Pipeline's (:mod:`ocef.offpolicy.estimators`), slate
estimators (:mod:`ocef.offpolicy.slate`), intervals including the finite-sample valid
empirical-likelihood and betting ones of VowpalWabbit/estimators (:mod:`ocef.offpolicy.intervals`),
weight diagnostics and the trust rule (:mod:`ocef.offpolicy.diagnostics`) and a cross-fitted reward
model (:mod:`ocef.offpolicy.reward_model`).

The audit (:func:`offpolicy_audit`, :mod:`ocef.offpolicy.audit`): per-group fairness of a target
policy — exposure of item groups (plug-in), utility per user and item group, merit-aware item
fairness (REO with importance-weighted merit; REO from random traffic is its uniform-logging case)
— with intervals, diagnostics and Holm-adjusted comparisons; its inputs (:mod:`ocef.offpolicy.inputs`:
logs, probability tables, top-k logs, :class:`ScoredTarget`) and per-group sums of a log of any size
through DuckDB (:mod:`ocef.offpolicy.scale`).
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

#: where each public name lives; modules are imported on first use (PEP 562).
_HOME = {
    'estimators': ('importance_weights', 'logged_values', 'rm_terms', 'ips_terms', 'dm_terms', 'dr_terms',
                   'switch_dr_terms', 'dros_terms', 'snips', 'snips_terms', 'sndr', 'sndr_terms',
                   'EstimatorSpec', 'ESTIMATORS', 'OBP_NAMES', 'estimator_terms'),
    'intervals': ('IntervalEstimate', 'wald_interval', 'bootstrap_interval', 'obp_bootstrap_interval',
                  'cressie_read_estimate', 'cressie_read_interval', 'gaussian_interval', 'clopper_pearson_interval',
                  'betting_interval', 'INTERVALS'),
    'slate': ('slate_sums', 'sips_terms', 'iips_terms', 'rips_terms', 'self_normalized_slate_terms',
              'cascade_dr_terms', 'pseudo_inverse_weights', 'pseudo_inverse_terms'),
    'diagnostics': ('effective_sample_size', 'WeightDiagnostics', 'weight_diagnostics', 'support_deficit',
                    'never_logged_mass', 'TRUST_FLOORS', 'trust_reason'),
    'reward_model': ('shrunk_means', 'CrossFitRewardModel', 'cross_fit_reward_model'),
    'simulate': ('BanditEnvironment', 'bandit_environment', 'BanditLog', 'sample_bandit_log', 'COVERAGE_METHODS',
                 'interval_coverage'),
    # the audit (i30-audit)
    "audit": ("OffPolicyResult", "offpolicy_audit", "slate_audit", "SLATE_ESTIMATORS", "ratio_covariance", "utility_cell", "DM_NO_INTERVAL", "TRUST", "FAMILY", "EXPOSURE_NOTE",
              "UTILITY_ESTIMATORS", "AUDIT_INTERVALS"),
    "inputs": ("LOG_COLUMNS", "SAMPLERS", "ScoredTarget", "read_table", "check_log", "target_table"),
    "scale": ("group_sums", "group_values", "SUM_COLUMNS"),
}
_MODULES = ("estimators", "intervals", "slate", "diagnostics", "reward_model", "simulate")

__all__ = [name for names in _HOME.values() for name in names]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
