"""Compiled OCEF runs (numba): each run simulated to its verdict with its state in cache.

Same semantics as :func:`ocef.envy.runner.run_batch` — Algorithm 1 with the bounds of
:mod:`ocef.envy.bounds` (its formulas are compiled as they are, not rewritten), the active set
as a swap-remove list and the cached extremes of S — with rewards drawn from finite
distributions (:class:`ocef.envy.runner.DiscreteRewards`). Each run has its own seed for a
Mersenne Twister (numpy's legacy MT19937 stream, the one numba's ``np.random.seed`` gives): per
step it draws one uniform for ℓ_t, then one for the reward, so a run's result does not depend on
the other runs of the batch, and runs are spread over the cores with ``prange``.

A run is resumable (issue 28): its whole state — the generator's 624 words and position
included, kept in :class:`State` rather than in numba's hidden thread-local generator — lives
in arrays, and :func:`run_many` advances every run up to a step ``t_stop``. Calling it with
``t_stop`` growing in slices gives the very same results as one call to ``max_steps`` (bit for
bit; ``tests/ocef/envy/test_runner.py``), so a single long run can show its progress and honour
Ctrl-C between slices.
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

#: Columns of ``State.ints`` and ``State.reals``; ``STATUS`` is FRESH, RUNNING or DONE.
T, N_ACT, MAX_N, ARG_UP, ARG_LO, MTI, STATUS = range(7)
MIN_UP, MAX_LO, SUM_EXPLORE, SUM_BETA_N = range(4)
FRESH, RUNNING, DONE = 0, 1, 2
#: Words of the MT19937 state.
MT_N = 624


class State(NamedTuple):
    """Everything a run carries from one step to the next, one row per run (resumable runs).

    ``ints`` (R, 7) and ``reals`` (R, 4) hold the scalars (columns :data:`T` ... :data:`STATUS`,
    :data:`MIN_UP` ... :data:`SUM_BETA_N`); ``width``, ``upper``, ``lower``, ``act``, ``pos`` are
    (R, K+1); ``mt`` (R, 624) the generator's words (int64 holding uint32 values).
    """

    ints: np.ndarray
    reals: np.ndarray
    width: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    act: np.ndarray
    pos: np.ndarray
    mt: np.ndarray

    @classmethod
    def empty(cls, r: int, k1: int) -> "State":
        """The state of ``r`` runs not started yet (``STATUS`` = FRESH), for at most ``k1 - 1`` arms."""
        return cls(np.zeros((r, 7), dtype=np.int64), np.zeros((r, 4)), np.zeros((r, k1)), np.zeros((r, k1)),
                   np.zeros((r, k1)), np.zeros((r, k1), dtype=np.int64), np.zeros((r, k1), dtype=np.int64),
                   np.zeros((r, MT_N), dtype=np.int64))


@njit(cache=True)
def _mt_seed(mt, seed):
    """MT19937's ``init_genrand`` (numpy's legacy seeding of an integer, numba's ``np.random.seed``)."""
    x = seed & 0xFFFFFFFF
    for i in range(MT_N):
        mt[i] = x
        x = (1812433253 * (x ^ (x >> 30)) + i + 1) & 0xFFFFFFFF


@njit(cache=True)
def _mt_twist(mt):
    """The MT19937 recurrence over the 624 words, in place."""
    for i in range(MT_N):
        y = (mt[i] & 0x80000000) | (mt[(i + 1) % MT_N] & 0x7FFFFFFF)
        v = mt[(i + 397) % MT_N] ^ (y >> 1)
        if y & 1:
            v ^= 0x9908B0DF
        mt[i] = v


@njit(cache=True)
def _mt_int32(mt, idx):
    """The next 32-bit output (tempered) and the new position."""
    if idx >= MT_N:
        _mt_twist(mt)
        idx = 0
    y = mt[idx]
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y, idx + 1


@njit(cache=True)
def _mt_random(mt, idx):
    """A uniform in [0, 1) with 53 bits (``genrand_res53``, numpy's ``random_sample``) and the new position."""
    a, idx = _mt_int32(mt, idx)
    b, idx = _mt_int32(mt, idx)
    return ((a >> 5) * 67108864.0 + (b >> 6)) / 9007199254740992.0, idx


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
def _run_one(runs, r, rewards, omega, max_steps, t_stop, counts, sums, cum_out, budget_out,
             ints, reals, width, upper, lower, act, pos, mt):
    """Advance run ``r`` (its rows of :class:`State`) to ``t_stop`` or its verdict: (verdict code or 0, step)."""
    k, delta, alpha, epsilon = runs.n_arms[r], runs.delta[r], runs.alpha[r], runs.epsilon[r]
    scale, factor, sigma_g = runs.scale[r], runs.factor[r], runs.sigma_g[r]
    blocks, true_means = runs.blocks[r], runs.true_means[r]
    flat, starts, denom = rewards.flat, rewards.starts, rewards.denom
    if ints[STATUS] == FRESH:
        _mt_seed(mt, runs.seed[r])
        w0 = _beta_pulled(1.0, scale, factor, omega) + bounds.UNPULLED_EXTRA_WIDTH
        for j in range(k + 1):
            counts[j] = 0
            sums[j] = 0.0
            width[j] = w0
            upper[j] = w0
            lower[j] = -w0
            act[j] = j + 1
            pos[j] = j - 1
        ints[T], ints[N_ACT], ints[MAX_N], ints[ARG_UP], ints[ARG_LO], ints[MTI] = 0, k, 0, 1, 1, MT_N
        reals[MIN_UP], reals[MAX_LO], reals[SUM_EXPLORE], reals[SUM_BETA_N] = upper[1], lower[1], 0.0, 0.0
        cum_out[0], budget_out[0] = 0.0, np.inf
        ints[STATUS] = RUNNING
    n_act, max_n, arg_up, arg_lo, mti = ints[N_ACT], ints[MAX_N], ints[ARG_UP], ints[ARG_LO], ints[MTI]
    min_up, max_lo, sum_explore, sum_beta_n = reals[MIN_UP], reals[MAX_LO], reals[SUM_EXPLORE], reals[SUM_BETA_N]
    cum, min_budget = cum_out[0], budget_out[0]
    code, t, last = 0, ints[T], min(t_stop, max_steps)
    while t < last:
        t += 1
        u, mti = _mt_random(mt, mti)
        ell = act[int(u * n_act)]                                    # line 3
        n0 = counts[0]
        arm = 0
        if not n0 < max_n:                                           # line 4 (β_0 > min_S β_k ⟺ N_0 < max_S N_k)
            a = t - 1 - n0
            phi = _phi_pulled(float(a), delta, sigma_g) if a > 0 else 0.0
            big_phi = min(sum_beta_n, phi)
            if _xi(sum_explore, big_phi, lower[ell], n0, t, alpha, upper[0]) >= 0:
                arm = ell
        b = blocks[arm]                                              # line 6: PULL-ARM
        u, mti = _mt_random(mt, mti)
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
                    last_arm = act[n_act - 1]
                    act[p] = last_arm
                    pos[last_arm] = p
                    pos[j] = -1
                    n_act -= 1
            max_n, min_up, arg_up, max_lo, arg_lo = _rescan(act, n_act, counts, upper, lower)
        if n_act == 0:                                               # line 9
            code = _NO_ENVY
            break
        if max_lo > upper[0]:                                        # line 8
            code = _ENVY
            break
    if code == 0 and t >= max_steps:
        code = _TIMEOUT
    ints[T], ints[N_ACT], ints[MAX_N], ints[ARG_UP], ints[ARG_LO], ints[MTI] = t, n_act, max_n, arg_up, arg_lo, mti
    reals[MIN_UP], reals[MAX_LO], reals[SUM_EXPLORE], reals[SUM_BETA_N] = min_up, max_lo, sum_explore, sum_beta_n
    cum_out[0], budget_out[0] = cum, min_budget
    if code > 0:
        ints[STATUS] = DONE
    return code, t


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


def run_many(runs: Runs, rewards: RewardTable, omega: float, max_steps: int, out: Outcomes,
             state: State | None = None, t_stop: int | None = None) -> int:
    """Advance every run of ``runs`` (in parallel over runs) to step ``t_stop`` (default
    ``max_steps``) or its verdict, writing the decided runs into ``out``; returns how many runs go on.

    ``state`` (:class:`State`) carries the runs from one call to the next: calls with a growing
    ``t_stop`` give the results of one call to ``max_steps``, bit for bit. Without it, every run
    goes to its verdict in this call."""
    # The outputs go in as plain arrays: numba's parallel loops drop writes made to arrays
    # reached through a tuple argument (numba 0.68).
    if state is None:
        state = State.empty(runs.seed.size, out.counts.shape[1])
    stop = max_steps if t_stop is None else min(int(t_stop), max_steps)
    _run_many(runs, rewards, omega, max_steps, stop, out.verdict, out.duration, out.counts, out.sums, out.cum,
              out.min_budget, *state)
    return int(np.count_nonzero(state.ints[:, STATUS] != DONE))


@njit(parallel=True, cache=True)
def _run_many(runs, rewards, omega, max_steps, t_stop, verdict, duration, counts, sums, cum, min_budget,
              ints, reals, width, upper, lower, act, pos, mt):
    for r in prange(runs.seed.size):
        if ints[r, STATUS] == DONE:
            continue
        code, t = _run_one(runs, r, rewards, omega, max_steps, t_stop, counts[r], sums[r], cum[r:r + 1],
                           min_budget[r:r + 1], ints[r], reals[r], width[r], upper[r], lower[r], act[r], pos[r],
                           mt[r])
        if code > 0:
            verdict[r] = code
            duration[r] = t
