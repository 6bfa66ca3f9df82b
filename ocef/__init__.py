"""OCEF: online fairness audits of recommender systems.

- :class:`ocef.OCEF` — the conservative envy-freeness auditor (Do et al., Alg. 1).
- :mod:`ocef.bounds` — confidence bounds and theory (Lemmas 3-4, Theorems 6-7).
- :mod:`ocef.simulation` / :mod:`ocef.runner` — simulated audits, ask/tell and vectorized.
"""
from ocef.auditor import OCEF, AuditStateError, Verdict

__all__ = ["OCEF", "AuditStateError", "Verdict"]
__version__ = "0.1.0"
