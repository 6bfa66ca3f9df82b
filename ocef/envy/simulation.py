"""Simulation layer for the ask/tell auditor: runs :class:`ocef.OCEF` against a
Bernoulli bandit and measures what only a simulator knows — the cost of eq. (10)
and the conservative constraint (7) at every step, from the true means.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.environments.bandits import BernoulliBandit
from ocef.validation import as_generator, check_positive_int
from ocef.envy.auditor import OCEF, Verdict
from ocef.results import Result
from ocef.errors import ParameterError

#: Slack for floating-point round-off when checking constraint (7).
CONSTRAINT_TOL = 1e-9


@dataclass(frozen=True)
class RunResult(Result):
    """Outcome of one simulated audit."""

    verdict: Verdict
    duration: int
    cost: float
    constraint_held: bool
    min_budget: float
    counts: np.ndarray

    def as_row(self) -> dict:
        return {"verdict": self.verdict.value, "duration": self.duration, "cost": self.cost,
                "constraint_held": self.constraint_held}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.as_row()])


def safety_budget(cum_mean_reward, t, alpha, mu0):
    """Z_t = Σ_{s≤t} μ_{k_s} − (1−α) μ_0 t; constraint (7) is Z_t ≥ 0 (App. G.2)."""
    return cum_mean_reward - (1.0 - alpha) * mu0 * t


def audit_cost(cum_mean_reward, t, mu0):
    """C_t = t μ_0 − Σ_{s≤t} μ_{k_s} — eq. (10)."""
    return t * mu0 - cum_mean_reward


def simulate(auditor: OCEF, bandit: BernoulliBandit, rng=None, max_steps: int = 10**7) -> RunResult:
    """Run ``auditor`` on ``bandit`` until a verdict or ``max_steps`` (then TIMEOUT).

    ``bandit.n_arms`` must equal ``auditor.n_arms``; the rewards are group averages over
    ``bandit.group_size`` users.
    """
    if bandit.n_arms != auditor.n_arms:
        raise ParameterError(f"bandit has {bandit.n_arms} non-baseline arms but the auditor expects {auditor.n_arms}")
    max_steps = check_positive_int("max_steps", max_steps)
    rng = as_generator(rng)
    means = bandit.means.tolist()
    mu0, alpha, g = means[0], auditor.alpha, bandit.group_size
    cum, min_budget, t = 0.0, np.inf, 0
    block = 4096
    uniforms, u_i = [], block
    while auditor.verdict is Verdict.RUNNING and t < max_steps:
        arm = auditor.next_arm()
        if g == 1:                        # Bernoulli draw from a pre-drawn block of uniforms
            if u_i == block:
                uniforms, u_i = rng.random(block).tolist(), 0
            reward = 1.0 if uniforms[u_i] < means[arm] else 0.0
            u_i += 1
        else:
            reward = rng.binomial(g, means[arm]) / g
        auditor.observe(arm, reward)
        t += 1
        cum += means[arm]
        budget = safety_budget(cum, t, alpha, mu0)
        if budget < min_budget:
            min_budget = budget
    verdict = auditor.verdict if auditor.verdict is not Verdict.RUNNING else Verdict.TIMEOUT
    return RunResult(verdict, t, audit_cost(cum, t, mu0), bool(min_budget >= -CONSTRAINT_TOL),
                     float(min_budget), auditor.counts)
