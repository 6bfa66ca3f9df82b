"""OCEF: online fairness audits of recommender systems.

- :class:`ocef.OCEF` — the conservative envy-freeness auditor (Do et al., Alg. 1).
- :mod:`ocef.envy.bounds` — confidence bounds and theory (Lemmas 3-4, Theorems 6-7).
- :mod:`ocef.envy.simulation` / :mod:`ocef.envy.runner` — simulated audits, ask/tell and vectorized.
"""
__all__ = ["OCEF", "AuditStateError", "Verdict"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # imported on first use (PEP 562): `ocef reo` starts DuckDB before numpy is even loaded
    if name in __all__:
        from ocef.envy import auditor

        return getattr(auditor, name)
    raise AttributeError(f"module 'ocef' has no attribute {name!r}")
