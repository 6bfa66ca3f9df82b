"""Compiled OCEF runs (numba): each run simulated to its verdict with its state in cache.

Same semantics as :func:`ocef.runner.run_batch` — Algorithm 1 with the bounds of
:mod:`ocef.bounds` (its formulas are compiled as they are, not rewritten), the active set
as a swap-remove list and the cached extremes of S — with rewards drawn from finite
distributions (:class:`ocef.runner.DiscreteRewards`). Each run has its own seed for
numba's Mersenne Twister (numpy's legacy MT19937 stream): per step it draws one uniform
for ℓ_t, then one for the reward, so a run's result does not depend on the other runs of
the batch, and runs are spread over the cores with ``prange``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ocef import bounds, simulation

_beta_pulled = njit(cache=True)(bounds.beta_pulled)
_phi_pulled = njit(cache=True)(bounds.phi_pulled)
_xi = njit(cache=True)(bounds.xi)
_budget = njit(cache=True)(simulation.safety_budget)


@njit(cache=True)
def _rescan(k, act, n_act, counts, upper, lower):
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
def _run_one(seed, k, delta, alpha, epsilon, scale, factor, omega, sigma_g, flat, starts, denom, blocks,
             true_means, max_steps, counts, sums):
    """One OCEF run; fills ``counts``/``sums`` (length K+1) and returns
    (verdict code, duration, Σ μ_{k_s}, min safety budget)."""
    np.random.seed(seed)
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
                max_n, min_up, arg_up, max_lo, arg_lo = _rescan(k, act, n_act, counts, upper, lower)
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
            max_n, min_up, arg_up, max_lo, arg_lo = _rescan(k, act, n_act, counts, upper, lower)
        if n_act == 0:                                               # line 9
            return 2, t, cum, min_budget
        if max_lo > upper[0]:                                        # line 8
            return 1, t, cum, min_budget
    return 3, max_steps, cum, min_budget


@njit(parallel=True, cache=True)
def run_many(seeds, n_arms, delta, alpha, epsilon, scale, factor, omega, sigma_g, flat, starts, denom,
             blocks, true_means, max_steps, out_verdict, out_duration, out_counts, out_sums, out_cum,
             out_min_budget):
    """Run every run r to its verdict (in parallel over runs)."""
    for r in prange(seeds.size):
        k = n_arms[r]
        v, d, c, m = _run_one(seeds[r], k, delta[r], alpha[r], epsilon[r], scale[r], factor[r], omega,
                              sigma_g[r], flat, starts, denom, blocks[r], true_means[r], max_steps,
                              out_counts[r], out_sums[r])
        out_verdict[r] = v
        out_duration[r] = d
        out_cum[r] = c
        out_min_budget[r] = m
