"""Many independent OCEF audits at once: :func:`run_batch` (and :func:`run_bandits` on it).

Same semantics as :class:`ocef.OCEF` (Algorithm 1, bounds of :mod:`ocef.envy.bounds`), for a
whole figure's grid (trials × α × δ × K × instances) in one call. Runs may differ in K
(shorter runs are padded with arms that are never active), δ, α, ε and group size. Two
engines (:mod:`ocef.envy.engines`; ``"auto"`` chooses):

* ``"numpy"``: the state of R runs lives in (R, K+1) arrays and each step is a handful of
  array operations on every run still going (finished runs are dropped, so the cost of a
  step follows the number of runs left). Rewards come from any callback
  ``sample(runs, arms, rng)`` returning the group-average rewards of the given runs for the
  given arms.
* ``"numba"``: each run goes to its verdict in compiled code (:mod:`ocef.envy._kernel`), for rewards
  given as finite distributions (:class:`DiscreteRewards`): a Bernoulli/binomial bandit
  (:func:`run_bandits`), the exact fast PULL-ARM of a recommender in the full audit.

:func:`run_bandits` also offers ``engine="ask-tell"``: one :class:`ocef.OCEF` per run.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from ocef.envy import bounds
from ocef.envy.auditor import Verdict
from ocef.envy.engines import check_engine, resolve_engine
from ocef.results import Result, jsonable, presents
from ocef.envy.simulation import CONSTRAINT_TOL, audit_cost, safety_budget
from ocef.validation import (Integer, Options, Real, Rng, as_generator, check_alpha, check_delta,
                             check_epsilon, check_positive_int, check_resources, check_unit_array, validate_params)
from ocef._progress import PROGRESS
from ocef.envy.engines import ENGINES
from ocef.errors import DataError, ParameterError, ParameterTypeError

if TYPE_CHECKING:                 # annotations only: pandas is imported where a DataFrame is made
    import pandas as pd

#: Bytes per run and arm held by the simulation engines (counts, sums, bounds, rewards, ...).
BYTES_PER_RUN_ARM = 12 * 8
#: Largest step cap (``max_steps``): 10**15 pulls exceed any audit (the work limit refuses far less).
MAX_STEPS = 10**15
#: Largest number of trials of one call.
MAX_TRIALS = 10**8


def estimated_work(means, delta, alpha, epsilon, group_size, max_steps) -> np.ndarray:
    """Steps each run may take: ``min(max_steps, Theorem 6's duration bound)`` (the bound holds with
    probability 1 − δ), to refuse a call over the work limit before running it.

    Parameters
    ----------
    means : array_like, shape (R, K+1)
        True arm means of each run (``means[:, 0]`` the baseline).
    delta, alpha, epsilon : float or array_like
        The OCEF parameters of each run.
    group_size : int or array_like
        |g| of each run.
    max_steps : int
        The step cap of the simulation.

    Returns
    -------
    numpy.ndarray, shape (R,)
        ``max_steps`` where a gap is zero (infinite bound).

    Examples
    --------
    >>> estimated_work(np.array([[0.5, 0.8, 0.2], [0.5, 0.52, 0.3]]), 0.05, 0.05, 0.05, 20, 10**6).round(0).tolist()
    [4800.0, 45601.0]
    """
    with np.errstate(all="ignore"):
        tau = np.asarray(bounds.duration_bound(means, delta, alpha, epsilon, group_size), dtype=float)
    tau = np.where(np.isfinite(tau), tau, np.inf)
    return np.minimum(tau, float(max_steps))


#: Cost of one step in arm-pull equivalents for the engines that run Python per step: the numpy
#: engine's lock-step (about 10**4 steps per second measured, all runs together, vs about 10**8 pulls per
#: second compiled) and the ask-tell engine (Python per pull).
PYTHON_STEP_COST = 10**4
#: Steps between two moves of the lock-step's bar of steps (when a bar is shown).
STEP_TICK = 4096
#: Steps a compiled run advances per call (issue 28): between two calls the bars move and Ctrl-C is
#: honoured; results do not depend on it (the runs' state is carried over, bit for bit).
COMPILED_STEPS = 2**21
#: The ask-tell engine's cost of one pull in compiled-pull equivalents (Python per pull, a few µs).
ASK_TELL_PULL_COST = 100


def check_run_resources(n_runs: int, n_arms_max: int, work, *, argument: str, engine: str = "numba",
                        longest=None) -> None:
    """Refuse a simulation of ``n_runs`` runs with up to ``n_arms_max`` arms whose memory or work
    exceeds the limits, naming ``argument``; the work is weighted by :data:`PYTHON_STEP_COST` for
    the engines that run Python per step.

    Parameters
    ----------
    n_runs : int
        Runs simulated at once.
    n_arms_max : int
        The largest K (state arrays are (R, K_max+1)).
    work : float or array_like
        Steps of each configuration (summed), e.g. :func:`estimated_work` times the trials.
    argument : str
        What the user should lower.
    engine : {"numba", "numpy", "ask-tell"}
        The resolved engine, which weighs the work.
    longest : float, optional
        Most steps of one run (the numpy engine's lock-step length); default the total work.

    Raises
    ------
    ResourceLimitError
        If the memory or the work exceeds the limits of :func:`ocef.validation.check_resources`.

    Examples
    --------
    >>> check_run_resources(10**9, 100, [1e6], argument="trials")
    Traceback (most recent call last):
    ...
    ocef.errors.ResourceLimitError: trials: needs about 8.82 TiB of memory, above the limit ...
    """
    total = float(np.sum(work))
    if engine == "numpy":
        total += PYTHON_STEP_COST * float(total if longest is None else longest)
    elif engine == "ask-tell":
        total *= ASK_TELL_PULL_COST
    check_resources(argument, memory=float(n_runs) * (n_arms_max + 1) * BYTES_PER_RUN_ARM,
                    work=total, what="arm pulls")

_ENVY, _NO_ENVY, _TIMEOUT = Verdict.ENVY.code, Verdict.NO_ENVY.code, Verdict.TIMEOUT.code

Sampler = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]


def binomial_pmf(n: int, p: float) -> np.ndarray:
    """P(X = k), k = 0..n, for X ~ Binomial(n, p), from log-factorials: equal to
    ``scipy.stats.binom.pmf`` (tested), without scipy's import time.

    Parameters
    ----------
    n : int
        Number of trials n ≥ 0.
    p : float
        0 and 1 give point masses.

    Returns
    -------
    numpy.ndarray, shape (n+1,)

    Examples
    --------
    >>> binomial_pmf(3, 0.5).round(6).tolist()
    [0.125, 0.375, 0.375, 0.125]
    """
    k = np.arange(n + 1)
    if p <= 0.0 or p >= 1.0:
        return (k == (0 if p <= 0.0 else n)).astype(float)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    log_pmf = log_fact[n] - log_fact[k] - log_fact[n - k] + k * math.log(p) + (n - k) * math.log1p(-p)
    return np.exp(log_pmf)


@dataclass
class DiscreteRewards:
    """Group rewards with finite distributions: block b is a distribution on {0, 1/d_b, ..., 1}; run r
    pulling arm k draws from block ``blocks[r, k]``. A sampler ``(runs, arms, rng)``, built by
    :meth:`from_pmfs` or :meth:`binomial`.

    Attributes
    ----------
    flat : numpy.ndarray
        Concatenation of b + cdf_b over the blocks b (increasing).
    starts : numpy.ndarray of int
        Start of each block's cdf in ``flat``.
    denom : numpy.ndarray
        d_b.
    blocks : numpy.ndarray of int, shape (R, K+1)
        The block of each (run, arm).

    Examples
    --------
    >>> rewards = DiscreteRewards.binomial(np.array([[0.5, 0.9]]), group_size=4)
    >>> rewards(np.array([0, 0, 0]), np.array([0, 1, 1]), np.random.default_rng(0))
    array([0.5 , 0.75, 0.5 ])
    """

    flat: np.ndarray
    starts: np.ndarray
    denom: np.ndarray
    blocks: np.ndarray

    @classmethod
    def from_pmfs(cls, pmfs, blocks) -> "DiscreteRewards":
        """``pmfs[b]`` = probabilities of 0, 1/d_b, ..., 1 (d_b = len − 1); ``blocks`` (R, K+1)."""
        pieces, starts, offset = [], np.zeros(len(pmfs), dtype=np.int64), 0
        for b, pmf in enumerate(pmfs):
            cdf = np.cumsum(pmf, dtype=float)
            cdf[-1] = 1.0
            starts[b] = offset
            pieces.append(b + cdf)
            offset += cdf.size
        denom = np.array([len(p) - 1 for p in pmfs], dtype=float)
        return cls(np.concatenate(pieces), starts, denom, np.asarray(blocks, dtype=np.int64))

    @classmethod
    def binomial(cls, means, group_size=1) -> "DiscreteRewards":
        """Binomial(|g|, μ_{r,k}) / |g| for every run r and arm k (Bernoulli for |g| = 1)."""
        means = np.asarray(means, dtype=float)
        g = np.broadcast_to(np.asarray(group_size, dtype=np.int64), (means.shape[0],))
        keys = np.stack([np.broadcast_to(g[:, None], means.shape).ravel(), means.ravel()], axis=1)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        pmfs = [binomial_pmf(int(n), mu) for n, mu in uniq]
        return cls.from_pmfs(pmfs, inverse.reshape(means.shape))

    def __call__(self, runs, arms, rng) -> np.ndarray:
        b = self.blocks[runs, arms]
        successes = np.searchsorted(self.flat, b + rng.random(np.size(runs)), side="right") - self.starts[b]
        return successes / self.denom[b]


@dataclass
class BatchResult:
    """Per-run outcome arrays of :func:`run_batch` (index = run r).

    Attributes
    ----------
    verdict : numpy.ndarray of int8, shape (R,)
        :attr:`ocef.envy.Verdict.code`: 1 envy, 2 no envy, 3 timeout.
    duration : numpy.ndarray of int, shape (R,)
        τ (or the cap).
    counts : numpy.ndarray of int, shape (R, K_max+1)
        N_k(τ).
    means : numpy.ndarray, shape (R, K_max+1)
        μ̂_k(τ).
    cost, constraint_held, min_budget : numpy.ndarray or None
        C_τ of eq. (10), constraint (7) at every step, and min_t Z_t
        (:func:`ocef.envy.simulation.safety_budget`), with the true means.

    Examples
    --------
    >>> means = np.array([[0.5, 0.8, 0.2]])
    >>> run_batch(np.array([2]), 0.05, 0.05, 0.05, DiscreteRewards.binomial(means, 20), group_size=20,
    ...           true_means=means, rng=0).constraint_held
    array([ True])
    """

    verdict: np.ndarray          # Verdict codes (Verdict.code)
    duration: np.ndarray         # τ, steps until the verdict (or the cap)
    counts: np.ndarray           # N_k(τ), shape (R, K_max+1)
    means: np.ndarray            # μ̂_k(τ)
    cost: np.ndarray | None      # eq. (10), when true means are given
    constraint_held: np.ndarray | None   # (7) at every step, when true means are given
    min_budget: np.ndarray | None

    def verdict_names(self) -> np.ndarray:
        """The verdict codes as strings: ``running``, ``envy``, ``no_envy`` or ``timeout``.

        Returns
        -------
        numpy.ndarray of str, shape (R,)
            The :class:`~ocef.envy.Verdict` value of each run's code.

        Examples
        --------
        >>> means = np.array([[0.5, 0.8, 0.2], [0.5, 0.2, 0.2]])
        >>> res = run_batch(np.array([2, 2]), 0.05, 0.05, 0.05, DiscreteRewards.binomial(means, 20),
        ...                 group_size=20, rng=0, engine="numpy")
        >>> res.verdict_names()
        array(['envy', 'no_envy'], dtype='<U7')
        """
        names = np.array([Verdict.from_code(c).value for c in range(4)])
        return names[self.verdict]


def _broadcast(value, size, check):
    """``value`` (a scalar or one per run) as a float array of ``size`` runs, each distinct value checked."""
    arr = np.broadcast_to(np.asarray(value, dtype=float), (size,)).copy()
    for v in np.unique(arr):
        check(float(v))
    return arr


class _Lockstep:
    """State of the numpy engine's unfinished runs; O(1) a step with S as a compact list and cached extremes."""

    FIELDS = ("idx", "scale", "factor", "delta", "alpha", "epsilon", "gsize", "active", "act", "pos", "n_act",
              "counts", "sums", "width", "upper", "lower", "max_n", "min_up", "arg_up", "max_lo", "arg_lo",
              "sum_explore", "sum_beta_n", "cum_mu", "min_budget")
    __slots__ = FIELDS

    def __init__(self, **fields: np.ndarray):
        if set(fields) != set(self.FIELDS):
            raise ParameterTypeError(f"_Lockstep needs exactly the fields {self.FIELDS}")
        for name, value in fields.items():
            setattr(self, name, value)

    def keep(self, rows: np.ndarray) -> None:
        """Keep only ``rows`` (a boolean mask) in every field."""
        for name in self.FIELDS:
            setattr(self, name, getattr(self, name)[rows])

    def rescan(self, rows: np.ndarray) -> None:
        """Recompute the cached extremes of S for ``rows`` (O(K) each)."""
        a = self.active[rows]
        up = np.where(a, self.upper[rows, 1:], np.inf)
        lo = np.where(a, self.lower[rows, 1:], -np.inf)
        self.arg_up[rows] = 1 + up.argmin(axis=1)
        self.min_up[rows] = up.min(axis=1)
        self.arg_lo[rows] = 1 + lo.argmax(axis=1)
        self.max_lo[rows] = lo.max(axis=1)
        self.max_n[rows] = np.where(a, self.counts[rows, 1:], -1).max(axis=1)


def _longest_run(true_means, delta, alpha, epsilon, gsize, max_steps) -> int:
    """The most steps one of the runs may take (:func:`estimated_work`; ``max_steps`` without the
    true means): the total of the bar of steps."""
    if true_means is None:
        return int(max_steps)
    keys = np.stack([delta, alpha, epsilon, gsize], axis=1)
    return int(max(np.max(estimated_work(true_means[(keys == key).all(axis=1)], *key[:3], int(key[3]), max_steps))
                   for key in np.unique(keys, axis=0)))


def run_batch(n_arms, delta, alpha, epsilon, sample: Sampler, *, group_size=1, true_means=None,
              rng=None, max_steps: int = 10**6, sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA,
              progress: bool = False, desc: str = "audits", engine: str = "auto") -> BatchResult:
    """Run R independent OCEF audits in lock-step (Algorithm 1, vectorized over runs).

    Parameters
    ----------
    n_arms : int array (R,)
        K of each run (padding arms beyond K are never active).
    delta, alpha, epsilon, group_size : scalars or arrays (R,)
        The OCEF parameters δ in (0, 1), α and ε in (0, 1], and |g| ≥ 1 of each run.
    sample : callable(runs, arms, rng) -> rewards in [0, 1], or DiscreteRewards
        Group-average rewards of original run indices ``runs`` pulling ``arms``.
    true_means : array (R, K_max+1), optional
        Only to measure the cost (10) and check constraint (7) at every step.
    max_steps : int
        Runs still going get ``timeout`` with duration = cap.
    engine : "auto", "numba" or "numpy"
        "auto": numba for a :class:`DiscreteRewards` and enough runs (:mod:`ocef.envy.engines`).
    rng : None, int, SeedSequence or numpy.random.Generator
        Randomness of the runs (line 3 of Algorithm 1 and the rewards).
    sigma, omega : float
        Sub-gaussian parameter and ω of Lemma 3.
    progress : bool
        A progress bar of the runs decided, and one of the longest run's steps with the time left
        (numba: one run per thread at a time, advanced :data:`COMPILED_STEPS` steps a call).
    desc : str
        Label of the progress bar.

    Returns
    -------
    BatchResult

    Examples
    --------
    >>> means = np.array([[0.5, 0.8, 0.2], [0.5, 0.52, 0.3]])       # envious; 0.05-envy-free
    >>> res = run_batch(np.array([2, 2]), 0.05, 0.05, 0.05, DiscreteRewards.binomial(means, 20),
    ...                 group_size=20, true_means=means, rng=0, engine="numpy")
    >>> res.verdict_names().tolist(), res.duration.tolist()
    (['envy', 'no_envy'], [221, 5255])
    """
    n_arms = np.atleast_1d(np.asarray(n_arms))
    if not np.issubdtype(n_arms.dtype, np.integer) or n_arms.ndim != 1 or np.any(n_arms < 1):
        raise ParameterError("n_arms must be a 1-d array of integers >= 1 (K of each run)")
    r_total = n_arms.size
    k_max = int(n_arms.max())
    delta = _broadcast(delta, r_total, check_delta)
    alpha = _broadcast(alpha, r_total, check_alpha)
    epsilon = _broadcast(epsilon, r_total, check_epsilon)
    # |g| is a count: 1.5 is refused (int(1.5) = 1 used to pass the check and audit with |g| = 1.5)
    gsize = _broadcast(group_size, r_total,
                       lambda v: check_positive_int("group_size", int(v) if v.is_integer() else v))
    max_steps = check_positive_int("max_steps", max_steps)
    rng = as_generator(rng)
    if true_means is not None:
        true_means = np.asarray(true_means, dtype=float)
        if true_means.shape != (r_total, k_max + 1):
            raise ParameterError(f"true_means must have shape {(r_total, k_max + 1)}, got {true_means.shape}")
    engine = resolve_engine(check_engine(engine, ("auto", "numba", "numpy")), isinstance(sample, DiscreteRewards),
                            r_total)
    if engine == "numba" and not isinstance(sample, DiscreteRewards):
        raise ParameterError("engine='numba' needs rewards given as a DiscreteRewards, not a callback")
    if engine == "numba":
        return _run_compiled(n_arms, delta, alpha, epsilon, gsize, sample, true_means, rng, max_steps, sigma,
                             omega, progress, desc)

    # ---- per-run state of the runs still going (see _Lockstep).
    scale, factor = (np.broadcast_to(c, (r_total,)).copy()
                     for c in bounds.beta_constants(delta, n_arms, gsize, sigma, omega))
    k1 = k_max + 1
    arms_range = np.arange(1, k1)
    width = np.repeat(bounds.beta_from_constants(0, scale, factor, omega)[:, None], k1, axis=1)
    st = _Lockstep(
        idx=np.arange(r_total), scale=scale, factor=factor, delta=delta, alpha=alpha, epsilon=epsilon, gsize=gsize,
        active=arms_range[None, :] <= n_arms[:, None],             # S_0 = [K]
        act=np.tile(arms_range, (r_total, 1)),                     # S as a compact list
        pos=np.tile(np.arange(-1, k_max), (r_total, 1)),           # pos[r, k] = index of arm k in act
        n_act=n_arms.astype(np.int64).copy(),
        counts=np.zeros((r_total, k1), dtype=np.int64), sums=np.zeros((r_total, k1)),
        width=width, upper=width.copy(), lower=-width,             # μ̂ = 0 while unpulled (Lemma 3)
        max_n=np.zeros(r_total, dtype=np.int64),                   # max_{k∈S} N_k
        min_up=width[:, 1].copy(), arg_up=np.ones(r_total, dtype=np.int64),     # min_{k∈S} μ̄_k
        max_lo=-width[:, 1], arg_lo=np.ones(r_total, dtype=np.int64),           # max_{k∈S} μ̲_k
        sum_explore=np.zeros(r_total), sum_beta_n=np.zeros(r_total),
        cum_mu=np.zeros(r_total), min_budget=np.full(r_total, np.inf))

    out_verdict = np.zeros(r_total, dtype=np.int8)
    out_duration = np.zeros(r_total, dtype=np.int64)
    out_counts = np.zeros((r_total, k1), dtype=np.int64)
    out_sums = np.zeros((r_total, k1))
    out_cum = np.zeros(r_total)
    out_min_budget = np.full(r_total, np.inf)

    from ocef._progress import progress_bar, shown

    bar = progress_bar(progress, total=r_total, desc=desc, unit="run")
    # issue 28: a few long runs left the bar of runs decided at 0 for minutes; the lock-step's steps
    # have their own bar, up to the longest run's bound (Theorem 6, or max_steps), with the time left
    longest = _longest_run(true_means, delta, alpha, epsilon, gsize, max_steps) if shown(progress) else max_steps
    steps = progress_bar(progress, total=longest, desc=f"{desc}: steps (at most)", unit="step")

    t = 0
    while st.idx.size and t < max_steps:
        if st.idx.size <= PYTHON_TAIL_RUNS:      # a few runs left: array calls cost more than they save
            _python_tail(st, t, sample, true_means, rng, max_steps, sigma, omega,
                         (out_verdict, out_duration, out_counts, out_sums, out_cum, out_min_budget), bar, steps)
            break
        t += 1
        if t % STEP_TICK == 0:
            steps.update(min(t, longest) - steps.n)
        rows = np.arange(st.idx.size)
        # Line 3: ℓ_t uniform in S_{t-1}.
        ell = st.act[rows, (rng.random(st.idx.size) * st.n_act).astype(np.int64)]
        # Line 4: baseline if its interval is not the tightest, or if ξ_t < 0 (eq. 8).
        n0 = st.counts[:, 0]
        wider = n0 < st.max_n
        big_phi = bounds.big_phi(st.sum_beta_n, (t - 1) - n0, st.delta, st.gsize, sigma)
        xi = bounds.xi(st.sum_explore, big_phi, st.lower[rows, ell], n0, t, st.alpha, st.upper[:, 0])
        arm = np.where(wider | (xi < 0), 0, ell)
        # Line 6: PULL-ARM and update of the pulled arm's interval (Lemma 3).
        reward = np.asarray(sample(st.idx, arm, rng), dtype=float)
        flat = rows * k1 + arm                                     # (run, pulled arm) in raveled state
        n_arm = st.counts.ravel()[flat] + 1
        st.counts.ravel()[flat] = n_arm
        arm_sum = st.sums.ravel()[flat] + reward
        st.sums.ravel()[flat] = arm_sum
        new_width = bounds.beta_from_constants(n_arm, st.scale, st.factor, omega)
        new_mean = arm_sum / n_arm
        explore = arm > 0
        st.sum_beta_n += explore * (new_width * n_arm - st.width.ravel()[flat] * (n_arm - 1))
        st.sum_explore += explore * reward
        st.width.ravel()[flat] = new_width
        new_up, new_lo = new_mean + new_width, new_mean - new_width
        st.upper.ravel()[flat] = new_up
        st.lower.ravel()[flat] = new_lo
        if true_means is not None:
            st.cum_mu += true_means[st.idx, arm]
            np.minimum(st.min_budget, safety_budget(st.cum_mu, t, st.alpha, true_means[st.idx, 0]),
                       out=st.min_budget)
        # Cached extremes of S after the pull (the pulled arm ℓ_t is in S).
        np.maximum(st.max_n, np.where(explore, n_arm, 0), out=st.max_n)
        stale = explore & (((st.arg_up == arm) & (new_up > st.min_up)) | ((st.arg_lo == arm) & (new_lo < st.max_lo)))
        better_up = explore & (new_up <= st.min_up)
        st.min_up = np.where(better_up, new_up, st.min_up)
        st.arg_up = np.where(better_up, arm, st.arg_up)
        better_lo = explore & (new_lo >= st.max_lo)
        st.max_lo = np.where(better_lo, new_lo, st.max_lo)
        st.arg_lo = np.where(better_lo, arm, st.arg_lo)
        if stale.any():
            st.rescan(np.flatnonzero(stale))
        # Line 7: arms with μ̄_k ≤ μ̲_0 + ε leave S (only rows whose smallest μ̄_k is that low).
        threshold = st.lower[:, 0] + st.epsilon
        hit = np.flatnonzero(st.min_up <= threshold)
        if hit.size:
            leaving = st.active[hit] & (st.upper[hit, 1:] <= threshold[hit, None])
            st.active[hit] &= ~leaving
            while leaving.any():                                   # increasing arm order per row
                r_has = np.flatnonzero(leaving.any(axis=1))
                rr = hit[r_has]
                k = 1 + leaving[r_has].argmax(axis=1)
                leaving[r_has, k - 1] = False
                p, last = st.pos[rr, k], st.act[rr, st.n_act[rr] - 1]
                st.act[rr, p] = last
                st.pos[rr, last] = p
                st.n_act[rr] -= 1
            st.rescan(hit)
        # Line 8: ENVY if some arm of S_t has μ̲_k > μ̄_0; line 9: ε-NO-ENVY if S_t = ∅.
        no_envy = st.n_act == 0
        envy = ~no_envy & (st.max_lo > st.upper[:, 0])
        done = envy | no_envy
        if t == max_steps:
            done = np.ones_like(done)
        if done.any():
            d = st.idx[done]
            out_verdict[d] = np.where(envy[done], _ENVY, np.where(no_envy[done], _NO_ENVY, _TIMEOUT))
            out_duration[d] = t
            out_counts[d] = st.counts[done]
            out_sums[d] = st.sums[done]
            out_cum[d] = st.cum_mu[done]
            out_min_budget[d] = st.min_budget[done]
            st.keep(~done)
            if bar is not None:
                bar.update(int(done.sum()))
    steps.close()
    if bar is not None:
        bar.close()

    return _result(out_verdict, out_duration, out_counts, out_sums, out_cum, out_min_budget, true_means)


#: The numpy engine continues in plain Python once this few runs are still going (from the start
#: for a batch this small): a step of array operations costs about 100 µs whatever the number of
#: runs, a plain-Python step a few µs per run. Same arithmetic, same random stream, bit-identical
#: results (tests/ocef/envy/test_runner.py); the one-trial audit of ``ocef bandit`` goes from
#: about 0.5 s to a few tens of ms.
PYTHON_TAIL_RUNS = 16


class _Widths:
    """β(n) of Lemma 3 and φ(a) of Lemma 4 as tables grown by doubling, with the lock-step's float operations."""

    __slots__ = ("scale", "factor", "delta", "gsize", "sigma", "omega", "beta", "phi")

    def __init__(self, scale, factor, delta, gsize, sigma, omega):
        from array import array

        self.scale, self.factor, self.delta, self.gsize, self.sigma, self.omega = \
            scale, factor, delta, gsize, sigma, omega
        self.beta, self.phi = array("d"), array("d")

    def grow(self, upto: int) -> None:
        """Extend both tables to hold index ``upto``."""
        lo = len(self.beta)
        n = np.arange(lo, max(upto + 1, 2 * lo, 1024))
        self.beta.frombytes(np.ascontiguousarray(
            bounds.beta_from_constants(n, self.scale, self.factor, self.omega), dtype=float).tobytes())
        self.phi.frombytes(np.ascontiguousarray(
            bounds.phi(n, self.delta, self.gsize, self.sigma), dtype=float).tobytes())


class _Row:
    """One run of :func:`_python_tail`: a :class:`_Lockstep` row as Python numbers and lists."""

    __slots__ = ("idx", "alpha", "epsilon", "active", "act", "pos", "n_act", "counts", "sums", "width", "upper",
                 "lower", "max_n", "min_up", "arg_up", "max_lo", "arg_lo", "sum_explore", "sum_beta_n", "cum_mu",
                 "min_budget", "tables", "blocks", "mu")

    def rescan(self) -> None:
        """:meth:`_Lockstep.rescan` of this row (first arm of the extreme, as ``argmin``/``argmax``)."""
        min_up, arg_up, max_lo, arg_lo, max_n = math.inf, 1, -math.inf, 1, -1
        for k in range(1, len(self.active)):
            if self.active[k]:
                if self.upper[k] < min_up:
                    min_up, arg_up = self.upper[k], k
                if self.lower[k] > max_lo:
                    max_lo, arg_lo = self.lower[k], k
                max_n = max(max_n, self.counts[k])
        self.min_up, self.arg_up, self.max_lo, self.arg_lo, self.max_n = min_up, arg_up, max_lo, arg_lo, max_n


def _python_tail(st: _Lockstep, t: int, sample, true_means, rng, max_steps, sigma, omega, outs, bar,
                 steps=None) -> None:
    """Finish the runs of ``st`` one Python step at a time, bit for bit as the array lock-step would."""
    from bisect import bisect_right

    out_verdict, out_duration, out_counts, out_sums, out_cum, out_min_budget = outs
    discrete = isinstance(sample, DiscreteRewards)
    if discrete:
        flat, starts, denom = sample.flat.tolist(), sample.starts.tolist(), sample.denom.tolist()
        blocks = sample.blocks[st.idx].tolist()
    mus = true_means[st.idx].tolist() if true_means is not None else None
    tables: dict = {}
    rows = []
    for i in range(st.idx.size):
        row = _Row()
        for name in ("idx", "alpha", "epsilon", "n_act", "max_n", "min_up", "arg_up", "max_lo", "arg_lo",
                     "sum_explore", "sum_beta_n", "cum_mu", "min_budget", "active", "act", "pos", "counts", "sums",
                     "width", "upper", "lower"):
            setattr(row, name, getattr(st, name)[i].tolist())
        row.active = [False] + row.active                      # indexed by arm, as the other lists
        key = (float(st.scale[i]), float(st.factor[i]), float(st.delta[i]), float(st.gsize[i]))
        if key not in tables:
            tables[key] = _Widths(st.scale[i], st.factor[i], st.delta[i], st.gsize[i], sigma, omega)
        row.tables = tables[key]
        row.blocks = blocks[i] if discrete else None
        row.mu = mus[i] if mus is not None else None
        rows.append(row)

    while rows and t < max_steps:
        t += 1
        if steps is not None and t % STEP_TICK == 0:
            steps.update(min(t, steps.total or t) - steps.n)
        # Line 3: ℓ_t uniform in S_{t-1} (one draw per run, in row order).
        uniforms = rng.random(len(rows)).tolist()
        arms = []
        for row, u in zip(rows, uniforms):
            ell = row.act[int(u * row.n_act)]
            # Line 4: baseline if its interval is not the tightest, or if ξ_t < 0 (eq. 8).
            n0 = row.counts[0]
            explored = (t - 1) - n0
            if t >= len(row.tables.beta):                      # every count and |A_t| is at most t
                row.tables.grow(t)
            phi_t = row.tables.phi[explored]
            big_phi = phi_t if phi_t < row.sum_beta_n else row.sum_beta_n
            xi = bounds.xi(row.sum_explore, big_phi, row.lower[ell], n0, t, row.alpha, row.upper[0])
            arms.append(0 if (n0 < row.max_n or xi < 0) else ell)
        # Line 6: PULL-ARM (all runs' rewards, in row order).
        if discrete:
            rewards = []
            for row, arm, u in zip(rows, arms, rng.random(len(rows)).tolist()):
                b = row.blocks[arm]
                rewards.append((bisect_right(flat, b + u) - starts[b]) / denom[b])
        else:
            rewards = np.asarray(sample(np.array([row.idx for row in rows], dtype=np.int64),
                                        np.array(arms, dtype=np.int64), rng), dtype=float).tolist()
        finished = []
        for row, arm, reward in zip(rows, arms, rewards):
            n_arm = row.counts[arm] + 1
            row.counts[arm] = n_arm
            arm_sum = row.sums[arm] + reward
            row.sums[arm] = arm_sum
            new_width = row.tables.beta[n_arm]
            new_mean = arm_sum / n_arm
            explore = arm > 0
            row.sum_beta_n += explore * (new_width * n_arm - row.width[arm] * (n_arm - 1))
            row.sum_explore += explore * reward
            row.width[arm] = new_width
            new_up, new_lo = new_mean + new_width, new_mean - new_width
            row.upper[arm] = new_up
            row.lower[arm] = new_lo
            if row.mu is not None:
                row.cum_mu += row.mu[arm]
                budget = safety_budget(row.cum_mu, t, row.alpha, row.mu[0])
                row.min_budget = budget if budget < row.min_budget else row.min_budget
            if explore:
                # Cached extremes of S after the pull (the pulled arm ℓ_t is in S).
                row.max_n = max(row.max_n, n_arm)
                stale = ((row.arg_up == arm and new_up > row.min_up) or (row.arg_lo == arm and new_lo < row.max_lo))
                if new_up <= row.min_up:
                    row.min_up, row.arg_up = new_up, arm
                if new_lo >= row.max_lo:
                    row.max_lo, row.arg_lo = new_lo, arm
                if stale:
                    row.rescan()
            else:
                row.max_n = max(row.max_n, 0)
            # Line 7: arms with μ̄_k ≤ μ̲_0 + ε leave S (in increasing arm order).
            threshold = row.lower[0] + row.epsilon
            if row.min_up <= threshold:
                for k in range(1, len(row.active)):
                    if row.active[k] and row.upper[k] <= threshold:
                        row.active[k] = False
                        p, last = row.pos[k], row.act[row.n_act - 1]
                        row.act[p] = last
                        row.pos[last] = p
                        row.n_act -= 1
                row.rescan()
            # Line 8: ENVY if some arm of S_t has μ̲_k > μ̄_0; line 9: ε-NO-ENVY if S_t = ∅.
            no_envy = row.n_act == 0
            envy = not no_envy and row.max_lo > row.upper[0]
            if envy or no_envy or t == max_steps:
                d = row.idx
                out_verdict[d] = _ENVY if envy else (_NO_ENVY if no_envy else _TIMEOUT)
                out_duration[d] = t
                out_counts[d] = row.counts
                out_sums[d] = row.sums
                out_cum[d] = row.cum_mu
                out_min_budget[d] = row.min_budget
                finished.append(row)
        if finished:
            rows = [row for row in rows if row not in finished]
            if bar is not None:
                bar.update(len(finished))


def _result(verdict, duration, counts, sums, cum_mu, min_budget, true_means) -> BatchResult:
    """Per-run outcome; cost (10) and constraint (7) only when the true means are known."""
    cost = held = mb = None
    if true_means is not None:
        cost = audit_cost(cum_mu, duration, true_means[:, 0])
        held = min_budget >= -CONSTRAINT_TOL
        mb = min_budget
    return BatchResult(verdict, duration, counts, sums / np.maximum(counts, 1), cost, held, mb)


def _run_compiled(n_arms, delta, alpha, epsilon, gsize, rewards: DiscreteRewards, true_means, rng, max_steps,
                  sigma, omega, progress, desc) -> BatchResult:
    import numba

    from ocef.envy import _kernel

    r_total, k1 = n_arms.size, int(n_arms.max()) + 1
    if rewards.blocks.shape != (r_total, k1):
        raise ParameterError(f"rewards.blocks must have shape {(r_total, k1)}, got {rewards.blocks.shape}")
    scale, factor = (np.broadcast_to(c, (r_total,)).astype(float)
                     for c in bounds.beta_constants(delta, n_arms, gsize, sigma, omega))
    runs = _kernel.Runs(seed=rng.integers(0, 2**32, size=r_total, dtype=np.int64), n_arms=n_arms.astype(np.int64),
                        delta=delta, alpha=alpha, epsilon=epsilon, scale=scale, factor=factor,
                        sigma_g=sigma / np.sqrt(gsize), blocks=rewards.blocks,
                        true_means=np.zeros((r_total, k1)) if true_means is None else true_means)
    table = _kernel.RewardTable(rewards.flat, rewards.starts, rewards.denom)
    out = _kernel.Outcomes(verdict=np.zeros(r_total, dtype=np.int8), duration=np.zeros(r_total, dtype=np.int64),
                           counts=np.zeros((r_total, k1), dtype=np.int64), sums=np.zeros((r_total, k1)),
                           cum=np.zeros(r_total), min_budget=np.zeros(r_total))
    from ocef._progress import progress_bar, shown

    bar = progress_bar(progress, total=r_total, desc=desc, unit="run")
    # Compiled code does not see Ctrl-C: run in chunks of runs, each advanced COMPILED_STEPS steps
    # a call, so that an interrupt is honoured between calls (within a second or so) and the bars
    # move; the runs' state carries them from one call to the next (bit-identical results).
    chunk = max(64, min(1024, r_total // 50))
    if shown(progress):          # issue 28: few long runs in one chunk left the bar at 0; a chunk per thread
        chunk = min(chunk, max(1, numba.get_num_threads()))
    for lo in range(0, r_total, chunk):
        sl = slice(lo, min(lo + chunk, r_total))
        part, state = runs.slice(sl), _kernel.State.empty(sl.stop - sl.start, k1)
        steps, t_stop, going = None, 0, 1
        while going:
            t_stop = min(t_stop + COMPILED_STEPS, max_steps)
            # Runs differ in length by orders of magnitude: hand them to the threads in small
            # chunks (dynamic scheduling). Each run has its own seed, so results do not change.
            with numba.parallel_chunksize(8):
                going = _kernel.run_many(part, table, float(omega), int(max_steps), out.slice(sl), state, t_stop)
            if going and steps is None and shown(progress):    # a long chunk: its steps, with the time left
                longest = _longest_run(None if true_means is None else true_means[sl], delta[sl], alpha[sl],
                                       epsilon[sl], gsize[sl], max_steps)
                steps = progress_bar(progress, total=longest, desc=f"{desc}: steps (at most)", unit="step")
            if steps is not None:
                steps.update(min(t_stop, steps.total) - steps.n)
        if steps is not None:
            steps.close()
        bar.update(sl.stop - sl.start)
    bar.close()
    return _result(out.verdict, out.duration, out.counts, out.sums, out.cum, out.min_budget, true_means)


def bernoulli_sampler(means: np.ndarray, group_size=1) -> Sampler:
    """A reward callback of group-average Bernoulli rewards, Binomial(|g|, μ_{run, arm}) / |g|.

    Parameters
    ----------
    means : array_like, shape (R, K+1)
        True arm means of each run.
    group_size : int or array_like
        |g| of each run.

    Returns
    -------
    callable
        ``sample(runs, arms, rng) -> rewards``.

    Examples
    --------
    >>> bernoulli_sampler(np.array([[0.5, 0.9]]), group_size=10)(np.array([0, 0]), np.array([0, 1]), np.random.default_rng(0))
    array([0.6, 1. ])
    """
    means = np.asarray(means, dtype=float)
    g = np.broadcast_to(np.asarray(group_size), (means.shape[0],))
    if np.all(g == 1):
        return lambda runs, arms, rng: (rng.random(runs.size) < means[runs, arms]).astype(float)
    return lambda runs, arms, rng: rng.binomial(g[runs], means[runs, arms]) / g[runs]


@dataclass(frozen=True, eq=False)
class BanditRuns(Result):
    """Simulated OCEF audits of Bernoulli bandits (:func:`run_bandits`, Sec. 6.1 of the paper).

    Attributes
    ----------
    columns : mapping of str to sequence
        One entry per run in each column, the columns of :meth:`to_frame` (kept as columns: the
        command line summarises them without importing pandas).
    runs : pandas.DataFrame
        One row per run (:meth:`to_frame`), made from ``columns`` when first asked for.
    engine : str
        The simulation engine that ran them (``"numba"``, ``"numpy"`` or ``"ask-tell"``).
    note : str
        How ``configs`` was read (e.g. rows without ``n_arms`` audited every arm); ``""`` if nothing.

    Examples
    --------
    >>> configs = pd.DataFrame({"instance": ["a"], "alpha": 0.05, "delta": 0.05, "epsilon": 0.05})
    >>> run_bandits(configs, {"a": [0.5, 0.8, 0.2]}, trials=3, rng=0, engine="numpy").runs["verdict"].tolist()
    ['envy', 'envy', 'envy']
    """

    columns: Mapping[str, Any] = field(repr=False)
    engine: str
    note: str = ""

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per run (see :meth:`to_frame`)."""
        import pandas as pd

        return pd.DataFrame(dict(self.columns))

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per run (a copy of ``runs``).

        ``trial``, the configuration columns (those of ``configs`` in their order, then
        ``n_arms`` and ``group_size`` if ``configs`` lacks them), then ``verdict`` (``envy``, ``no_envy`` or
        ``timeout``), ``duration`` (steps τ), ``cost`` (C_τ, eq. (10)) and ``constraint_held``
        (constraint (7) at every step).
        """
        return self.runs.copy()

    def summary(self) -> pd.DataFrame:
        """Per configuration: verdict shares, mean duration and cost, whether (7) always held.

        Returns
        -------
        pandas.DataFrame
            One row per configuration: its columns, ``trials``, ``share_envy``, ``share_no_envy``,
            ``share_timeout``, ``duration_mean``, ``cost_mean`` (eq. (10)) and ``constraint_held``.

        Examples
        --------
        >>> configs = pd.DataFrame({"instance": "a", "alpha": [0.05, 0.2], "delta": 0.05, "epsilon": 0.05, "group_size": 20})
        >>> runs = run_bandits(configs, {"a": [0.3, 0.8, 0.2]}, trials=3, rng=0, engine="numpy")
        >>> runs.summary()["duration_mean"].round(2).tolist()
        [104.0, 86.33]
        """
        keys = [c for c in ("instance", "n_arms", "alpha", "delta", "epsilon", "group_size") if c in self.runs]
        g = self.runs.groupby(keys, sort=False)
        return g.agg(trials=("trial", "size"),
                     share_envy=("verdict", lambda v: float((v == "envy").mean())),
                     share_no_envy=("verdict", lambda v: float((v == "no_envy").mean())),
                     share_timeout=("verdict", lambda v: float((v == "timeout").mean())),
                     duration_mean=("duration", "mean"), cost_mean=("cost", "mean"),
                     constraint_held=("constraint_held", "all")).reset_index()

    @presents
    def to_dict(self) -> dict:
        """The runs and their per-configuration summary as a strict-JSON record.

        ``engine``, ``note``, ``summary`` (the rows of :meth:`summary` as records) and ``runs``
        (the rows of :meth:`to_frame` as records).
        """
        return jsonable({"engine": self.engine, "note": self.note, "summary": self.summary(), "runs": self.runs})


@validate_params(trials=Integer(1, MAX_TRIALS), max_steps=Integer(1, MAX_STEPS), sigma=Real(0, 1e6, closed="right"),
                 omega=Real(0, 1, closed="neither"), progress=PROGRESS, engine=Options(*ENGINES), rng=Rng())
def run_bandits(configs: pd.DataFrame | list[dict], means: dict, *, trials: int, rng=None, max_steps: int = 10**6,
                sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA, progress: bool = False,
                engine: str = "auto") -> BanditRuns:
    """OCEF on Bernoulli bandits for a grid of configurations.

    Parameters
    ----------
    configs : pandas.DataFrame or list of dict
        One row (dict) per configuration: ``instance`` (a key of ``means``), ``alpha``, ``delta``,
        ``epsilon``, optionally ``n_arms`` (the prefix μ_{0:K'}, Fig. 10; absent or NaN: every arm) and
        ``group_size`` (absent or NaN: 1).
    means : dict
        instance -> arm means μ_0..μ_K.
    trials : int
        Runs per configuration.
    rng : None, int, SeedSequence or Generator
        Randomness of the runs.
    max_steps : int
        Step cap; an undecided run is ``timeout``.
    sigma, omega, progress
        As in :func:`run_batch`.
    engine : {"auto", "numba", "numpy", "ask-tell"}
        As in :func:`run_batch`; ``"ask-tell"`` runs the :class:`ocef.OCEF` class step by step.

    Returns
    -------
    BanditRuns

    Examples
    --------
    >>> from ocef.environments.bandits import paper_instance
    >>> configs = pd.DataFrame({"instance": 1, "alpha": [0.05, 0.2], "delta": 0.05, "epsilon": 0.05})
    >>> runs = run_bandits(configs, {1: paper_instance(1, n_arms=4)}, trials=20, rng=0, engine="numpy")
    >>> runs.summary()["share_no_envy"].tolist()
    [1.0, 1.0]
    """
    records, names = _config_records(configs)
    missing = {"instance", "alpha", "delta", "epsilon"} - set(names)
    if missing:
        raise ParameterError(f"configs is missing column(s) {sorted(missing)}")
    if not records:
        raise DataError("configs has no row: give at least one configuration")
    if not isinstance(means, dict) or not means:
        raise ParameterTypeError(f"means must be a non-empty dict instance -> arm means, got {type(means).__name__}")
    checked_means = {}
    for key, mu in means.items():
        mu = check_unit_array(f"means[{key!r}]", mu, ndim=1)
        if mu.size < 2:
            raise DataError(f"means[{key!r}] must hold the baseline and at least one arm, got {mu.size} value(s)")
        checked_means[key] = mu
    # every cell is checked as given: a string "0.05" or bytes b"0.05" is refused, not parsed
    per_row = {"alpha": check_alpha, "delta": check_delta, "epsilon": check_epsilon}
    rows, all_arms = [], []
    for i, row in enumerate(records):
        inst = row["instance"]
        try:
            known = inst in checked_means
        except TypeError:                    # unhashable
            known = False
        if not known:
            raise ParameterError(f"configs row {i}: unknown instance {inst!r}; known: {list(checked_means)}")
        mu = checked_means[inst]
        for col, check in per_row.items():
            try:
                row[col] = check(row[col])
            except (ParameterError, ParameterTypeError) as exc:
                raise type(exc)(f"configs row {i}: {exc}") from None
        k = row.get("n_arms")
        if k is None or (isinstance(k, float) and math.isnan(k)):
            row["n_arms"] = mu.size - 1
            all_arms.append(i)
        else:
            if isinstance(k, float) and k.is_integer():     # a column with a NaN holds floats: 3.0 is 3
                k = int(k)
            row["n_arms"] = Integer(1, mu.size - 1).check(f"configs row {i}: n_arms (arms of instance {inst!r})",
                                                          k.item() if isinstance(k, np.generic) else k)
        g = row.get("group_size")
        if g is None or (isinstance(g, float) and math.isnan(g)):     # absent from the row: |g| = 1
            g = 1
        if isinstance(g, float) and g.is_integer():
            g = int(g)
        row["group_size"] = Integer(1, 2**53).check(f"configs row {i}: group_size",
                                                    g.item() if isinstance(g, np.generic) else g)
        rows.append(row)
    n_runs = len(rows) * trials
    k_max = max(r["n_arms"] for r in rows)
    steps = [float(estimated_work(checked_means[r["instance"]][: r["n_arms"] + 1][None, :], r["delta"], r["alpha"],
                                  r["epsilon"], r["group_size"], max_steps)[0]) for r in rows]
    work = [trials * v for v in steps]
    # the exact reward law of a group of |g| users is a table of |g| + 1 probabilities per arm
    check_resources("group_size", memory=8.0 * 3 * sum((r["group_size"] + 1) * (r["n_arms"] + 1) for r in rows))
    check_run_resources(n_runs, k_max, work, argument="trials, max_steps (and alpha, delta, epsilon)",
                        engine=resolve_engine(engine, True, n_runs), longest=max(steps))
    rng = as_generator(rng)

    def per_run(key, dtype):
        return np.repeat(np.array([r[key] for r in rows], dtype=dtype), trials)

    mu_list = [checked_means[r["instance"]][: r["n_arms"] + 1] for r in rows for _ in range(trials)]
    n_arms = np.array([m.size - 1 for m in mu_list])
    gsize = per_run("group_size", np.int64)
    delta, alpha, epsilon = per_run("delta", float), per_run("alpha", float), per_run("epsilon", float)
    if engine == "ask-tell":
        verdict, duration, cost, held = _ask_tell_bandits(delta, alpha, epsilon, mu_list, gsize, rng, max_steps,
                                                          sigma, omega, progress)
    else:
        padded = np.zeros((len(mu_list), n_arms.max() + 1))
        for i, m in enumerate(mu_list):
            padded[i, : m.size] = m
        res = run_batch(n_arms, delta=delta, alpha=alpha, epsilon=epsilon, sample=DiscreteRewards.binomial(padded, gsize),
                        group_size=gsize, true_means=padded, rng=rng, max_steps=max_steps, sigma=sigma,
                        omega=omega, progress=progress, engine=engine)
        verdict, duration, cost, held = res.verdict_names(), res.duration, res.cost, res.constraint_held
    # trial, the configuration columns as given (n_arms and group_size appended when configs lacks them),
    # the outcomes; a DataFrame is made from them only when asked for (BanditRuns.runs)
    columns = {"trial": np.tile(np.arange(trials), len(rows))}
    for name in [*names, *(c for c in ("n_arms", "group_size") if c not in names)]:
        columns[name] = [r[name] for r in rows for _ in range(trials)]
    columns.update(n_arms=n_arms, verdict=verdict, duration=duration, cost=cost, constraint_held=held)
    note = ""
    if all_arms:              # issue 28: a missing n_arms ran every arm without a word
        which = "every row" if len(all_arms) == len(rows) else f"row(s) {all_arms[:10]}"
        note = (f"configs has no n_arms for {which}: every arm of the instance was audited (K = len(means[instance])"
                f" - 1); give an n_arms column to audit a prefix")
    return BanditRuns(columns, resolve_engine(engine, True, n_runs), note)


def _config_records(configs) -> tuple[list[dict], list[str]]:
    """The rows of ``configs`` (a pandas DataFrame, or a list of dicts, one per configuration) as dicts,
    and the column names in order (a list of dicts: every key, in order of first appearance, as pandas
    reads it; a key a row lacks is None there)."""
    pd = sys.modules.get("pandas")            # a DataFrame can only exist if pandas was imported
    if pd is not None and isinstance(configs, pd.DataFrame):
        return configs.to_dict("records"), list(configs.columns)
    if isinstance(configs, (list, tuple)) and all(isinstance(r, Mapping) for r in configs):
        names = list(dict.fromkeys(k for r in configs for k in r))
        return [{k: r.get(k) for k in names} for r in configs], names
    raise ParameterTypeError(f"configs must be a pandas DataFrame or a list of dicts (one per configuration), "
                             f"got {type(configs).__name__}")


def _ask_tell_bandits(delta, alpha, epsilon, mu_list, gsize, rng, max_steps, sigma, omega, progress):
    """One :class:`ocef.OCEF` per run, against its Bernoulli bandit (:func:`ocef.envy.simulation.simulate`)."""
    from ocef.envy.auditor import OCEF
    from ocef.environments.bandits import BernoulliBandit
    from ocef.envy.simulation import simulate

    from ocef._progress import progress_iter

    rows = progress_iter(range(len(mu_list)), progress, desc="audits", unit="run")
    out = []
    for r, child in zip(rows, rng.spawn(len(mu_list))):
        rng_alg, rng_env = child.spawn(2)
        mu = mu_list[r]
        auditor = OCEF(mu.size - 1, delta[r], alpha[r], epsilon[r],
                       group_size=int(gsize[r]), sigma=sigma, omega=omega, rng=rng_alg)
        res = simulate(auditor, BernoulliBandit(mu, int(gsize[r])), rng=rng_env, max_steps=max_steps)
        out.append((res.verdict.value, res.duration, res.cost, res.constraint_held))
    verdict, duration, cost, held = zip(*out)
    return np.array(verdict), np.array(duration), np.array(cost), np.array(held)
