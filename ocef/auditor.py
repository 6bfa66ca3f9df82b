"""The OCEF auditor (Do et al., Algorithm 1) with an ask/tell interface.

``OCEF`` audits one target group against K other groups (arms 1..K; arm 0 is the
baseline, the group's own recommendations). It only sees the arms it chose and the
group-average rewards it is told, so it runs against a live system as well as a
simulator::

    auditor = OCEF(n_arms=9, delta=0.05, alpha=0.05, epsilon=0.05, rng=0)
    while auditor.verdict is Verdict.RUNNING:
        arm = auditor.next_arm()
        auditor.observe(arm, reward_of(arm))      # group-average reward in [0, 1]

Costs and the conservative constraint (7) need the true means; they are computed by
the simulation layer (:mod:`ocef.simulation`), never here. This module imports
nothing of the project but :mod:`ocef.bounds`.
"""
from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from ocef import bounds


class Verdict(str, enum.Enum):
    """Outcome of an audit. ``TIMEOUT`` is only produced by simulations with a step cap."""

    RUNNING = "running"
    ENVY = "envy"
    NO_ENVY = "no_envy"
    TIMEOUT = "timeout"

    def __str__(self) -> str:  # "envy", not "Verdict.ENVY", in tables and JSON
        return self.value

    @property
    def code(self) -> int:
        """Integer code used by the vectorized and compiled engines (0 running, 1 envy, 2 no envy, 3 timeout)."""
        return _VERDICT_CODES.index(self)

    @classmethod
    def from_code(cls, code: int) -> "Verdict":
        return _VERDICT_CODES[int(code)]


_VERDICT_CODES = (Verdict.RUNNING, Verdict.ENVY, Verdict.NO_ENVY, Verdict.TIMEOUT)


class AuditStateError(RuntimeError):
    """``next_arm``/``observe`` called out of order, or after the verdict."""


def _check_param(name, value, low, high, high_open):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not (low < v < high if high_open else low < v <= high):
        raise ValueError(f"{name} must be in ({low}, {high}{')' if high_open else ']'}, got {value!r}")
    return v


class _Table:
    """Lazily grown lookup table f(0), f(1), ... of a vectorized function of a count."""

    def __init__(self, fn, size: int = 1024):
        self._fn = fn
        self.values = fn(np.arange(size)).tolist()

    def grow(self, n: int) -> None:
        size = len(self.values)
        while size <= n:
            size *= 2
        self.values = self._fn(np.arange(size)).tolist()


class OCEF:
    """Online Certification of Envy-Freeness — Algorithm 1 of Do et al. (2022).

    Parameters
    ----------
    n_arms : int
        K ≥ 1, the number of non-baseline arms (other groups). Arm 0 is the baseline.
    delta : float in (0, 1)
        Confidence: with probability ≥ 1-δ the verdict is correct and constraint (7)
        holds at every step (Theorem 5).
    alpha : float in (0, 1]
        Conservative exploration: the group keeps ≥ (1-α) of its baseline performance.
    epsilon : float in (0, 1]
        Envy tolerance of the ε-NO-ENVY certificate.
    group_size : int ≥ 1
        |g|, the number of users whose rewards are averaged at each step (Lemma 3).
    sigma, omega : float
        Sub-gaussian parameter (1/2 for rewards in [0, 1]) and ω ∈ (0, 1) of Lemma 3.
    rng : seed or numpy.random.Generator
        Draws ℓ_t uniformly from the active set (line 3).

    Attributes exposed: ``t``, ``counts`` (N_k), ``means`` (μ̂_k, 0 when unpulled),
    ``widths`` (β_k), ``lower``/``upper`` (μ̲_k, μ̄_k), ``active`` (S_t), ``verdict``.
    """

    _BUFFER = 4096

    def __init__(self, n_arms: int, delta: float, alpha: float, epsilon: float,
                 group_size: int = 1, sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA,
                 rng=None):
        if isinstance(n_arms, bool) or not isinstance(n_arms, numbers.Integral) or n_arms < 1:
            raise ValueError(f"n_arms (K) must be an integer >= 1, got {n_arms!r}")
        if isinstance(group_size, bool) or not isinstance(group_size, numbers.Integral) or group_size < 1:
            raise ValueError(f"group_size must be an integer >= 1, got {group_size!r}")
        self.delta = _check_param("delta", delta, 0.0, 1.0, high_open=True)
        self.alpha = _check_param("alpha", alpha, 0.0, 1.0, high_open=False)
        self.epsilon = _check_param("epsilon", epsilon, 0.0, 1.0, high_open=False)
        self.sigma = _check_param("sigma", sigma, 0.0, math.inf, high_open=True)
        self.omega = _check_param("omega", omega, 0.0, 1.0, high_open=True)
        self.n_arms = int(n_arms)
        self.group_size = int(group_size)
        if isinstance(rng, np.random.Generator):
            self._rng = rng
        elif rng is None or isinstance(rng, numbers.Integral):
            self._rng = np.random.default_rng(rng)
        else:
            raise TypeError(f"rng must be None, an int seed or a numpy.random.Generator, got {type(rng).__name__}")

        k = self.n_arms
        # β(n) and φ(|A|) depend on a count only: tables keep one definition (ocef.bounds)
        # and make a step cost a few list look-ups.
        self._beta = _Table(lambda n: bounds.beta(n, self.delta, k, self.group_size, self.sigma, self.omega))
        self._phi = _Table(lambda a: bounds.phi(a, self.delta, self.group_size, self.sigma))
        self._n = [0] * (k + 1)
        self._sum = [0.0] * (k + 1)
        self._active = list(range(1, k + 1))          # S_0 = [K]
        self._t = 0
        self._sum_explore = 0.0                       # Σ_{s∈A_t} r_s
        self._sum_beta_n = 0.0                        # Σ_{k≥1} β_k(t) N_k(t)
        self._pending: int | None = None
        self._verdict = Verdict.RUNNING
        self._uniforms = self._rng.random(self._BUFFER).tolist()
        self._u_idx = 0
        self.last_xi = math.nan                       # ξ_t of the last step (eq. 8), for inspection

    # ------------------------------------------------------------------ ask / tell
    def next_arm(self) -> int:
        """Lines 3-5: choose ℓ_t ∈ S_{t-1} uniformly, return k_t (0 = baseline, or ℓ_t)."""
        if self._verdict is not Verdict.RUNNING:
            raise AuditStateError(f"the audit is over (verdict {self._verdict.value}); next_arm() is not allowed")
        if self._pending is not None:
            raise AuditStateError(f"observe() the reward of arm {self._pending} before asking for the next arm")
        if self._u_idx == self._BUFFER:
            self._uniforms = self._rng.random(self._BUFFER).tolist()
            self._u_idx = 0
        u = self._uniforms[self._u_idx]
        self._u_idx += 1
        active = self._active
        ell = active[int(u * len(active))]

        t = self._t + 1
        n, sums, beta_tab = self._n, self._sum, self._beta.values
        beta0 = beta_tab[n[0]]
        if beta0 > min(beta_tab[n[j]] for j in active):
            self.last_xi = math.nan
            arm = 0
        else:
            n_explore = self._t - n[0]                # |A_{t-1}|
            if n_explore >= len(self._phi.values):
                self._phi.grow(n_explore)
            big_phi = min(self._sum_beta_n, self._phi.values[n_explore])
            n_ell = n[ell]
            lower_ell = (sums[ell] / n_ell if n_ell else 0.0) - beta_tab[n_ell]
            upper0 = (sums[0] / n[0] if n[0] else 0.0) + beta0
            self.last_xi = bounds.xi(self._sum_explore, big_phi, lower_ell, n[0], t, self.alpha, upper0)
            arm = 0 if self.last_xi < 0 else ell
        self._pending = arm
        return arm

    def observe(self, arm: int, reward: float) -> Verdict:
        """Lines 6-9: record the group reward of ``arm``, update S_t and the verdict."""
        if self._pending is None:
            raise AuditStateError("observe() called without a pending arm: call next_arm() first")
        if arm != self._pending:
            raise ValueError(f"arm must be the arm returned by next_arm() ({self._pending}), got {arm!r}")
        if isinstance(reward, bool) or not isinstance(reward, numbers.Real) or not (0.0 <= reward <= 1.0):
            raise ValueError(f"reward must be a number in [0, 1], got {reward!r}")
        r = float(reward)
        self._pending = None
        self._t += 1
        n, sums = self._n, self._sum
        n[arm] += 1
        sums[arm] += r
        if n[arm] >= len(self._beta.values):
            self._beta.grow(n[arm])
        beta_tab = self._beta.values
        if arm:
            self._sum_explore += r
            self._sum_beta_n += beta_tab[n[arm]] * n[arm] - beta_tab[n[arm] - 1] * (n[arm] - 1)

        # Line 7: drop arms whose upper bound is at most μ̲_0 + ε. S is kept as a compact list;
        # an arm leaves by swap-remove (the last arm takes its place), in increasing arm order.
        # ℓ_t stays uniform on S; the vectorized runner uses the very same order.
        beta0 = beta_tab[n[0]]
        mean0 = sums[0] / n[0] if n[0] else 0.0
        threshold = mean0 - beta0 + self.epsilon
        upper0 = mean0 + beta0
        active = self._active
        for j in sorted(j for j in active if (sums[j] / n[j] if n[j] else 0.0) + beta_tab[n[j]] <= threshold):
            p = active.index(j)
            active[p] = active[-1]
            active.pop()
        # Line 8: ENVY if an arm of S_t is confidently better than the baseline.
        envy = any((sums[j] / n[j] if n[j] else 0.0) - beta_tab[n[j]] > upper0 for j in active)
        if envy:
            self._verdict = Verdict.ENVY
        elif not active:                              # line 9
            self._verdict = Verdict.NO_ENVY
        return self._verdict

    # ------------------------------------------------------------------ state
    @property
    def verdict(self) -> Verdict:
        return self._verdict

    @property
    def t(self) -> int:
        """Number of completed steps (pulls)."""
        return self._t

    @property
    def counts(self) -> np.ndarray:
        """N_k(t) for k = 0..K."""
        return np.array(self._n, dtype=np.int64)

    @property
    def means(self) -> np.ndarray:
        """μ̂_k(t); 0 for unpulled arms (Lemma 3 convention)."""
        n = self.counts
        return np.divide(self._sum, n, out=np.zeros(len(n)), where=n > 0)

    @property
    def widths(self) -> np.ndarray:
        """β_k(t) of Lemma 3."""
        return np.array([self._beta.values[c] for c in self._n])

    @property
    def lower(self) -> np.ndarray:
        """μ̲_k(t) = μ̂_k(t) − β_k(t)."""
        return self.means - self.widths

    @property
    def upper(self) -> np.ndarray:
        """μ̄_k(t) = μ̂_k(t) + β_k(t)."""
        return self.means + self.widths

    @property
    def active(self) -> list[int]:
        """The active set S_t (arms not yet shown to be below μ_0 + ε)."""
        return list(self._active)

    def __repr__(self) -> str:
        return (f"OCEF(n_arms={self.n_arms}, delta={self.delta}, alpha={self.alpha}, epsilon={self.epsilon}, "
                f"group_size={self.group_size}, t={self._t}, verdict={self._verdict.value})")
