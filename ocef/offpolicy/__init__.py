"""Off-policy fairness audit: per-group fairness of a target policy from a log with logged propensities.

* :func:`offpolicy_audit` (:mod:`ocef.offpolicy.audit`): exposure of item groups under the target
  (plug-in), utility per user and item group (IPS, SNIPS, DM, DR, Switch-DR, DRos), merit-aware
  item fairness (REO with importance-weighted merit; REO from random traffic is its
  uniform-logging case), with intervals, diagnostics and Holm-adjusted comparisons;
  :class:`OffPolicyResult`.
* Inputs (:mod:`ocef.offpolicy.inputs`): logs and target policies (probability tables, top-k logs,
  :class:`ScoredTarget`).
* Scale (:mod:`ocef.offpolicy.scale`): :func:`group_sums` and :func:`group_values`, the per-group
  sums of a log of any size through DuckDB.
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

_HOME = {
    "audit": ("OffPolicyResult", "offpolicy_audit", "ratio_covariance", "TRUST", "FAMILY", "EXPOSURE_NOTE",
              "UTILITY_ESTIMATORS", "AUDIT_INTERVALS"),
    "inputs": ("LOG_COLUMNS", "SAMPLERS", "ScoredTarget", "read_table", "check_log", "target_table"),
    "scale": ("group_sums", "group_values"),
}

__all__ = [name for names in _HOME.values() for name in names]

__getattr__, __dir__ = lazy_exports(__name__, _HOME)
