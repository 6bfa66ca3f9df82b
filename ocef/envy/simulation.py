"""Simulation layer for the ask/tell auditor: runs :class:`ocef.OCEF` against a
Bernoulli bandit and measures what only a simulator knows — the cost of eq. (10)
and the conservative constraint (7) at every step, from the true means.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ocef.environments.bandits import BernoulliBandit
from ocef.validation import as_generator, check_positive_int
from ocef.envy.auditor import OCEF, Verdict
from ocef.results import Result, presents
from ocef.errors import ParameterError

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is made
    import pandas as pd

#: Slack for floating-point round-off when checking constraint (7).
CONSTRAINT_TOL = 1e-9


@dataclass(frozen=True)
class RunResult(Result):
    """Outcome of one simulated audit of a Bernoulli bandit (:func:`simulate`).

    Attributes
    ----------
    verdict : Verdict
        ``ENVY``, ``NO_ENVY``, or ``TIMEOUT`` at ``max_steps``.
    duration : int
        τ.
    cost : float
        C_τ = τ μ_0 − Σ_{s≤τ} μ_{k_s} of eq. (10) (negative when the explored arms were better).
    constraint_held : bool
        Constraint (7) at every step (Z_t ≥ 0, up to 1e-9).
    min_budget : float
        min_t Z_t (:func:`safety_budget`).
    counts : numpy.ndarray of int, shape (K+1,)
        N_k(τ).

    Examples
    --------
    >>> from ocef.envy.auditor import OCEF
    >>> from ocef.environments.bandits import BernoulliBandit
    >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, group_size=50, rng=0)
    >>> round(simulate(auditor, BernoulliBandit(np.array([0.3, 0.6, 0.3]), group_size=50), rng=1).cost, 6)
    -1.2
    """

    verdict: Verdict
    duration: int
    cost: float
    constraint_held: bool
    min_budget: float
    counts: np.ndarray

    def as_row(self) -> dict:
        """The run's scalar outcome as one table row: ``verdict`` (its value), ``duration``, ``cost``,
        ``constraint_held``.

        Returns
        -------
        dict

        Examples
        --------
        >>> from ocef.envy.auditor import OCEF
        >>> from ocef.environments.bandits import BernoulliBandit
        >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, group_size=50, rng=0)
        >>> simulate(auditor, BernoulliBandit(np.array([0.3, 0.6, 0.3]), group_size=50), rng=1).as_row()["verdict"]
        'envy'
        """
        return {"verdict": self.verdict.value, "duration": self.duration, "cost": self.cost,
                "constraint_held": self.constraint_held}

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The run as a one-row DataFrame (:meth:`as_row`).

        One row; columns ``verdict``, ``duration``, ``cost`` (eq. (10)) and
        ``constraint_held``.
        """
        import pandas as pd

        return pd.DataFrame([self.as_row()])


def safety_budget(cum_mean_reward, t, alpha, mu0):
    """Safety budget Z_t = Σ_{s≤t} μ_{k_s} − (1−α) μ_0 t of App. G.2; constraint (7) is Z_t ≥ 0 at every t.

    Parameters
    ----------
    cum_mean_reward : float or array_like
        Σ_{s≤t} μ_{k_s}.
    t : int or array_like
        The step t.
    alpha : float or array_like
        α in (0, 1] of constraint (7).
    mu0 : float or array_like
        μ_0, the baseline's true mean.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> safety_budget(9.0, 20, alpha=0.1, mu0=0.5)       # arms averaging 0.45 spend the 10% budget
    0.0
    """
    return cum_mean_reward - (1.0 - alpha) * mu0 * t


def audit_cost(cum_mean_reward, t, mu0):
    """Cost of exploration C_t = t μ_0 − Σ_{s≤t} μ_{k_s} of eq. (10), bounded by Theorem 7
    (:func:`ocef.envy.cost_bound`).

    Parameters
    ----------
    cum_mean_reward : float or array_like
        Σ_{s≤t} μ_{k_s}.
    t : int or array_like
        The step t.
    mu0 : float or array_like
        μ_0, the true mean of the baseline arm.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> audit_cost(9.0, 20, mu0=0.5)
    1.0
    """
    return t * mu0 - cum_mean_reward


def simulate(auditor: OCEF, bandit: BernoulliBandit, *, rng=None, max_steps: int = 10**7) -> RunResult:
    """Run an ask/tell auditor (Algorithm 1) on a Bernoulli bandit until a verdict; the true means give
    the cost of eq. (10) and constraint (7), which the auditor never sees.

    Parameters
    ----------
    auditor : OCEF
        Advanced in place.
    bandit : ocef.environments.bandits.BernoulliBandit
        ``bandit.n_arms`` must equal ``auditor.n_arms``.
    rng : None, int, SeedSequence or numpy.random.Generator
        Of the rewards (the auditor has its own).
    max_steps : int
        Then ``TIMEOUT``.

    Returns
    -------
    RunResult

    Examples
    --------
    >>> from ocef.envy.auditor import OCEF
    >>> from ocef.environments.bandits import BernoulliBandit
    >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, group_size=50, rng=0)
    >>> result = simulate(auditor, BernoulliBandit(np.array([0.3, 0.6, 0.3]), group_size=50), rng=1)
    >>> str(result.verdict), result.duration, result.counts.tolist()
    ('envy', 54, [47, 4, 3])
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
