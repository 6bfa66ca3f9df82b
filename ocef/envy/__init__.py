"""Envy-freeness certificates from a conservative bandit auditor (Do et al. 2022, AAAI 2022).

The audit of the OCEF paper, one subpackage:

* :mod:`ocef.envy.auditor` — :class:`OCEF`, the ask/tell auditor of one group (Alg. 1);
* :mod:`ocef.envy.bounds` — confidence bounds and theory (Lemmas 3-4, Theorems 6-7);
* :mod:`ocef.envy.matching` — transported policies by optimal transport (Def. 4.2);
* :mod:`ocef.envy.exact` — exact envy when the preferences are known (Sec. 3-4, 6);
* :mod:`ocef.envy.audit` — the full audit of every group (Alg. 2, Cor. 7.1);
* :mod:`ocef.envy.live` and :mod:`ocef.envy.service` — checkpointed audits of a live system over HTTP;
* :mod:`ocef.envy.simulation`, :mod:`ocef.envy.runner`, :mod:`ocef.envy.engines` and
  ``ocef.envy._kernel`` — simulated audits (ask/tell, vectorized numpy, compiled numba);
* :mod:`ocef.envy.groups` — partitions of users into groups.

The front doors are re-exported here; modules are imported on first use (PEP 562), so importing
one light module does not load POT or numba.
"""
from __future__ import annotations

from ocef._lazy import lazy_exports

_HOME = {
    "auditor": ("OCEF", "Verdict", "AuditStateError", "AuditorState"),
    "bounds": ("beta", "phi", "duration_bound", "cost_bound"),
    "matching": ("MixtureWeights", "mixture_weights", "transport_weights", "policy_distance"),
    "exact": ("utility_matrix", "individual_envy", "group_utilities", "group_envy", "EnvySummary",
              "envy_summary", "envy_report"),
    "audit": ("AuditProblem", "AuditReport", "run_audit"),
    "live": ("LiveAuditResult", "audit_live", "ask_tell_audit"),
    "service": ("SimulatedService", "ServiceClient", "ServiceError", "RemotePull", "make_server", "toy_service",
                "start_service", "RunningService"),
    "simulation": ("RunResult", "simulate"),
    "runner": ("BanditRuns", "run_bandits", "run_batch"),
    "engines": ("ENGINES",),
    "groups": ("check_partition", "group_members"),
}
_MODULES = ("auditor", "bounds", "matching", "exact", "audit", "live", "service", "simulation", "runner",
            "engines", "groups")

__all__ = [name for names in _HOME.values() for name in names]


__getattr__, __dir__ = lazy_exports(__name__, _HOME, _MODULES)
