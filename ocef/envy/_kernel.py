"""Compiled OCEF runs (numba): each run simulated to its verdict with its state in cache.

Same semantics as :func:`ocef.envy.runner.run_batch` — Algorithm 1 with the bounds of
:mod:`ocef.envy.bounds` (its formulas are compiled as they are, not rewritten), the active set
as a swap-remove list and the cached extremes of S — with rewards drawn from finite
distributions (:class:`ocef.envy.runner.DiscreteRewards`). Each run has its own seed for
numba's Mersenne Twister (numpy's legacy MT19937 stream): per step it draws one uniform
for ℓ_t, then one for the reward, so a run's result does not depend on the other runs of
the batch, and runs are spread over the cores with ``prange``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ocef.envy import bounds
from ocef.envy import simulation
from ocef.envy.auditor import Verdict

# Verdict codes are the Verdict enum's (frozen as compile-time constants).
_ENVY, _NO_ENVY, _TIMEOUT = Verdict.ENVY.code, Verdict.NO_ENVY.code, Verdict.TIMEOUT.code


class Runs(NamedTuple):
    """The settings of R runs, one entry per run (arrays of length R, ``blocks``/``true_means`` (R, K+1))."""

    seed: np.ndarray          # int64: numba's Mersenne Twister seed of each run
    n_arms: np.ndarray        # int64: K
    delta: np.ndarray
    alpha: np.ndarray
    epsilon: np.ndarray
    scale: np.ndarray         # constants of β (ocef.envy.bounds.beta_constants)
    factor: np.ndarray
    sigma_g: np.ndarray       # σ/√|g|
    blocks: np.ndarray        # reward distribution of each (run, arm): a block of the RewardTable
    true_means: np.ndarray    # μ_k, for the cost (10) and the constraint (7)

    def slice(self, sl: slice) -> "Runs":
        return Runs(*(a[sl] for a in self))


class RewardTable(NamedTuple):
    """Finite reward distributions (see :class:`ocef.envy.runner.DiscreteRewards`)."""

    flat: np.ndarray
    starts: np.ndarray
    denom: np.ndarray


class Outcomes(NamedTuple):
    """What each run returns (filled in place): verdict code, τ, N_k(τ), Σ rewards, Σ μ_{k_s}, min Z_t."""

    verdict: np.ndarray
    duration: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    cum: np.ndarray
    min_budget: np.ndarray

    def slice(self, sl: slice) -> "Outcomes":
        return Outcomes(*(a[sl] for a in self))

_beta_pulled = njit(cache=True)(bounds.beta_pulled)
_phi_pulled = njit(cache=True)(bounds.phi_pulled)
_xi = njit(cache=True)(bounds.xi)
_budget = njit(cache=True)(simulation.safety_budget)


@njit(cache=True)
def _rescan(act, n_act, counts, upper, lower):
    """(max N, min μ̄ and its arm, max μ̲ and its arm) over the active list."""
    max_n, min_up, arg_up, max_lo, arg_lo = -1, np.inf, 1, -np.inf, 1
    for q in range(n_act):
        j = act[q]
        if counts[j] > max_n:
            max_n = counts[j]
        if upper[j] < min_up or (upper[j] == min_up and j < arg_up):
            min_up, arg_up = upper[j], j
        if lower[j] > max_lo or (lower[j] == max_lo and j < arg_lo):
            max_lo, arg_lo = lower[j], j
    return max_n, min_up, arg_up, max_lo, arg_lo


@njit(cache=True)
def _run_one(runs, r, rewards, omega, max_steps, counts, sums):
    """Run ``r`` to its verdict, filling ``counts``/``sums``: (verdict code, duration, Σ μ_{k_s}, min budget)."""
    k, delta, alpha, epsilon = runs.n_arms[r], runs.delta[r], runs.alpha[r], runs.epsilon[r]
    scale, factor, sigma_g = runs.scale[r], runs.factor[r], runs.sigma_g[r]
    blocks, true_means = runs.blocks[r], runs.true_means[r]
    flat, starts, denom = rewards.flat, rewards.starts, rewards.denom
    np.random.seed(runs.seed[r])
    width = np.empty(k + 1)
    upper = np.empty(k + 1)
    lower = np.empty(k + 1)
    w0 = _beta_pulled(1.0, scale, factor, omega) + bounds.UNPULLED_EXTRA_WIDTH
    for j in range(k + 1):
        counts[j] = 0
        sums[j] = 0.0
        width[j] = w0
        upper[j] = w0
        lower[j] = -w0
    act = np.arange(1, k + 1)
    pos = np.arange(-1, k)
    n_act = k
    max_n, min_up, arg_up, max_lo, arg_lo = 0, upper[1], 1, lower[1], 1
    sum_explore = 0.0
    sum_beta_n = 0.0
    cum = 0.0
    min_budget = np.inf
    for t in range(1, max_steps + 1):
        ell = act[int(np.random.random() * n_act)]                 # line 3
        n0 = counts[0]
        arm = 0
        if not n0 < max_n:                                           # line 4 (β_0 > min_S β_k ⟺ N_0 < max_S N_k)
            a = t - 1 - n0
            phi = _phi_pulled(float(a), delta, sigma_g) if a > 0 else 0.0
            big_phi = min(sum_beta_n, phi)
            if _xi(sum_explore, big_phi, lower[ell], n0, t, alpha, upper[0]) >= 0:
                arm = ell
        b = blocks[arm]                                              # line 6: PULL-ARM
        u = np.random.random()
        reward = (np.searchsorted(flat, b + u, side="right") - starts[b]) / denom[b]
        n_arm = counts[arm] + 1
        counts[arm] = n_arm
        sums[arm] += reward
        new_w = _beta_pulled(float(n_arm), scale, factor, omega)
        new_mean = sums[arm] / n_arm
        if arm > 0:
            sum_beta_n += new_w * n_arm - width[arm] * (n_arm - 1)
            sum_explore += reward
        width[arm] = new_w
        new_up = new_mean + new_w
        new_lo = new_mean - new_w
        upper[arm] = new_up
        lower[arm] = new_lo
        cum += true_means[arm]
        budget = _budget(cum, t, alpha, true_means[0])
        if budget < min_budget:
            min_budget = budget
        if arm > 0:
            if n_arm > max_n:
                max_n = n_arm
            stale = (arg_up == arm and new_up > min_up) or (arg_lo == arm and new_lo < max_lo)
            if new_up <= min_up:
                min_up, arg_up = new_up, arm
            if new_lo >= max_lo:
                max_lo, arg_lo = new_lo, arm
            if stale:
                max_n, min_up, arg_up, max_lo, arg_lo = _rescan(act, n_act, counts, upper, lower)
        threshold = lower[0] + epsilon                               # line 7
        if min_up <= threshold:
            for j in range(1, k + 1):                                # increasing arm order
                p = pos[j]
                if p < n_act and p >= 0 and act[p] == j and upper[j] <= threshold:
                    last = act[n_act - 1]
                    act[p] = last
                    pos[last] = p
                    pos[j] = -1
                    n_act -= 1
            max_n, min_up, arg_up, max_lo, arg_lo = _rescan(act, n_act, counts, upper, lower)
        if n_act == 0:                                               # line 9
            return _NO_ENVY, t, cum, min_budget
        if max_lo > upper[0]:                                        # line 8
            return _ENVY, t, cum, min_budget
    return _TIMEOUT, max_steps, cum, min_budget


def is_cached() -> bool:
    """Whether numba's cache holds the compiled kernel for this source (and this machine).

    A run then loads it in about a second; otherwise its first call compiles it (7 s on a quiet
    16-core machine, 38 s on a loaded 2-core one), which :func:`ocef.envy.engines.resolve_engine`
    counts when it chooses the engine for ``"auto"``. Reads numba's cache index (its stamp is the
    source file's), which numba's own loader checks the same way.

    Returns
    -------
    bool
        True when the index of the kernel's cache has an entry for the current source.

    Examples
    --------
    >>> isinstance(is_cached(), bool)
    True
    """
    try:
        return bool(_run_many._cache._cache_file._load_index())
    except (AttributeError, OSError, EOFError, ValueError):    # no cache (NullCache) or an unreadable index
        return False


def run_many(runs: Runs, rewards: RewardTable, omega: float, max_steps: int, out: Outcomes) -> None:
    """Run every run of ``runs`` to its verdict (in parallel over runs), writing into ``out``."""
    # The outputs go in as plain arrays: numba's parallel loops drop writes made to arrays
    # reached through a tuple argument (numba 0.68).
    _run_many(runs, rewards, omega, max_steps, out.verdict, out.duration, out.counts, out.sums, out.cum,
              out.min_budget)


@njit(parallel=True, cache=True)
def _run_many(runs, rewards, omega, max_steps, verdict, duration, counts, sums, cum, min_budget):
    for r in prange(runs.seed.size):
        v, d, c, m = _run_one(runs, r, rewards, omega, max_steps, counts[r], sums[r])
        verdict[r] = v
        duration[r] = d
        cum[r] = c
        min_budget[r] = m
