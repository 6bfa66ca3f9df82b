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
the simulation layer (:mod:`ocef.envy.simulation`), never here. This module imports
nothing of the project but :mod:`ocef.envy.bounds`, :mod:`ocef.results` and :mod:`ocef.validation`.

Checkpoints: :meth:`OCEF.to_dict` holds the whole state (counts, sums, active set, verdict,
step, pending arm and the generator's bit-generator state) as strict JSON, and
:meth:`OCEF.from_dict` rebuilds an auditor that continues exactly as the original one;
pickling goes through the same two methods.
"""
from __future__ import annotations

import enum
import functools
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ocef.envy import bounds
from ocef.results import Result, presents
from ocef.validation import (UNIT_HALF_OPEN, UNIT_OPEN, Integer, Real, Rng, as_generator, validate_params)
from ocef.errors import DataError, ParameterError, ParameterTypeError

#: Largest ``group_size`` accepted: |g| must be exact as a float in Lemma 3's width.
MAX_GROUP_SIZE = 2 ** 53
#: Largest K one auditor takes (its state is a few lists of K + 1 numbers).
MAX_ARMS = 10**7
#: The sub-gaussian parameter σ is at most this (σ = 1/2 covers every reward in [0, 1]; a larger σ
#: only widens the intervals, and σ = 1e308 overflowed in β).
MAX_SIGMA = 1e6
#: Identifies the layout of :meth:`OCEF.to_dict`; :meth:`OCEF.from_dict` refuses others.
STATE_FORMAT = "ocef.OCEF/1"


class Verdict(str, enum.Enum):
    """Outcome of an audit. ``TIMEOUT`` is only produced by simulations with a step cap.

    ``ENVY``: some other group's recommendations are confidently better; ``NO_ENVY``: the group
    is ε-envy-free; ``RUNNING``: no verdict yet. Printed as the lower-case value.

    Examples
    --------
    >>> str(Verdict.NO_ENVY), Verdict("envy") is Verdict.ENVY
    ('no_envy', True)
    """

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
    """``next_arm``/``observe`` called out of order, or after the verdict.

    Examples
    --------
    >>> OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0).observe(0, 0.5)
    Traceback (most recent call last):
    ...
    ocef.envy.auditor.AuditStateError: observe() called without a pending arm: call next_arm() first
    """


class _Table:
    """Lazily grown lookup table f(0), f(1), ... of a vectorized function of a count."""

    def __init__(self, fn, size: int = 1024):
        self._fn = fn
        self.values = fn(np.arange(size)).tolist()

    @property
    def size(self) -> int:
        return len(self.values)

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
        K, the non-baseline arms (other groups); arm 0 is the baseline.
    delta : float in (0, 1)
        With probability ≥ 1-δ the verdict is correct and constraint (7) holds at every step
        (Theorem 5).
    alpha : float in (0, 1]
        Conservative exploration: the group keeps ≥ (1-α) of its baseline performance.
    epsilon : float in (0, 1]
        Envy tolerance of the ε-NO-ENVY certificate.
    group_size : int ≥ 1
        |g|, the users whose rewards are averaged at each step (Lemma 3).
    sigma, omega : float
        Sub-gaussian parameter (1/2 for rewards in [0, 1]) and ω of Lemma 3.
    rng : None, int, SeedSequence or numpy.random.Generator
        Draws ℓ_t (line 3); a checkpoint (:meth:`to_dict`) records its state, so give each auditor
        its own generator if restored runs must continue exactly.

    Attributes
    ----------
    t : int
        Steps so far.
    counts : numpy.ndarray
        N_k.
    means, widths, lower, upper : numpy.ndarray
        μ̂_k (0 when unpulled), β_k, μ̲_k, μ̄_k.
    active : list of int
        S_t, the arms not yet eliminated.
    verdict : Verdict
        ``RUNNING`` until ``ENVY`` or ``NO_ENVY``.

    Examples
    --------
    The ask/tell loop for a group of 50 users whose arm 1 beats its own recommendations (arm 0):

    >>> from ocef.environments.bandits import BernoulliBandit
    >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, group_size=50, rng=0)
    >>> bandit, rng = BernoulliBandit(np.array([0.3, 0.6, 0.3]), group_size=50), np.random.default_rng(1)
    >>> while auditor.verdict is Verdict.RUNNING:
    ...     arm = auditor.next_arm()
    ...     _ = auditor.observe(arm, float(bandit.sample(np.array([arm]), rng=rng)[0]))
    >>> auditor.verdict, auditor.t, auditor.counts.tolist()
    (<Verdict.ENVY: 'envy'>, 54, [47, 4, 3])
    """

    _BUFFER = 4096

    @validate_params(n_arms=Integer(1, MAX_ARMS), delta=UNIT_OPEN, alpha=UNIT_HALF_OPEN, epsilon=UNIT_HALF_OPEN,
                     group_size=Integer(1, MAX_GROUP_SIZE), sigma=Real(0, MAX_SIGMA, closed="right"),
                     omega=UNIT_OPEN, rng=Rng())
    def __init__(self, n_arms: int, delta: float, alpha: float, epsilon: float, *,
                 group_size: int = 1, sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA,
                 rng=None):
        # the declared constraints above checked (and converted) every argument given
        self.delta, self.alpha, self.epsilon = float(delta), float(alpha), float(epsilon)
        self.sigma, self.omega = float(sigma), float(omega)
        self.n_arms = int(n_arms)
        self.group_size = int(group_size)
        self._rng = as_generator(rng)

        k = self.n_arms
        # β(n) and φ(|A|) depend on a count only: tables keep one definition (ocef.envy.bounds)
        # and make a step cost a few list look-ups. functools.partial (not a lambda): picklable.
        self._beta = _Table(functools.partial(bounds.beta, delta=self.delta, n_arms=k, group_size=self.group_size,
                                              sigma=self.sigma, omega=self.omega))
        self._phi = _Table(functools.partial(bounds.phi, delta=self.delta, group_size=self.group_size,
                                             sigma=self.sigma))
        self._n = [0] * (k + 1)
        self._sum = [0.0] * (k + 1)
        self._active = list(range(1, k + 1))          # S_0 = [K]
        self._t = 0
        self._sum_explore = 0.0                       # Σ_{s∈A_t} r_s
        self._sum_beta_n = 0.0                        # Σ_{k≥1} β_k(t) N_k(t)
        self._pending: int | None = None
        self._verdict = Verdict.RUNNING
        self._refill()
        self.last_xi = math.nan                       # ξ_t of the last step (eq. 8), for inspection

    def _refill(self) -> None:
        """Draw the next block of line-3 uniforms, remembering the generator state (checkpoints store it)."""
        self._buffer_state = self._rng.bit_generator.state
        self._uniforms = self._rng.random(self._BUFFER).tolist()
        self._u_idx = 0

    # ------------------------------------------------------------------ ask / tell
    def next_arm(self) -> int:
        """Ask which arm to pull at step t: lines 3-5 of Algorithm 1.

        ℓ_t is drawn uniformly from S_{t-1} (line 3); the baseline 0 is returned if β_0 exceeds the
        active arms' smallest width (line 4) or ξ_t of eq. (8) is negative, else ℓ_t (line 5).
        ``last_xi`` keeps ξ_t (NaN when line 4 decided).

        Returns
        -------
        int
            k_t: 0 the baseline, k ≥ 1 another group.

        Raises
        ------
        AuditStateError
            When the previous arm was not observed yet, or the verdict is already reached.

        Examples
        --------
        >>> OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0).next_arm()      # the baseline first
        0
        """
        if self._verdict is not Verdict.RUNNING:
            raise AuditStateError(f"the audit is over (verdict {self._verdict.value}); next_arm() is not allowed")
        if self._pending is not None:
            raise AuditStateError(f"observe() the reward of arm {self._pending} before asking for the next arm")
        if self._u_idx == self._BUFFER:
            self._refill()
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
        """Tell the group-average reward of the pulled arm: lines 6-9 of Algorithm 1.

        Eliminates arms with μ̄_k ≤ μ̲_0 + ε (line 7); ``ENVY`` when an active arm's μ̲_k exceeds μ̄_0
        (line 8), ``NO_ENVY`` when S_t is empty (line 9). A refused call changes nothing.

        Parameters
        ----------
        arm : int
            The arm of the last :meth:`next_arm`.
        reward : float in [0, 1]
            Averaged over the group's users.

        Returns
        -------
        Verdict

        Raises
        ------
        AuditStateError
            When no arm is pending (call :meth:`next_arm` first).

        Examples
        --------
        >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0)
        >>> auditor.observe(auditor.next_arm(), 0.75), auditor.means.tolist()
        (<Verdict.RUNNING: 'running'>, [0.75, 0.0, 0.0])
        """
        if self._pending is None:
            raise AuditStateError("observe() called without a pending arm: call next_arm() first")
        # Every check comes before the first change of state: a refused call changes nothing.
        if isinstance(arm, bool) or not isinstance(arm, numbers.Integral):
            raise ParameterTypeError(f"arm must be the integer returned by next_arm() ({self._pending}), "
                            f"got {arm!r} ({type(arm).__name__})")
        if arm != self._pending:
            raise ParameterError(f"arm must be the arm returned by next_arm() ({self._pending}), got {arm!r}")
        if isinstance(reward, bool) or not isinstance(reward, numbers.Real) or not (0.0 <= reward <= 1.0):
            raise ParameterError(f"reward must be a number in [0, 1], got {reward!r}")
        r = float(reward)
        arm = int(arm)
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

    def snapshot(self) -> "AuditorState":
        """The auditor's current verdict, step and per-arm statistics, as a result.

        Returns
        -------
        AuditorState
            ``verdict``, ``t`` and per-arm arrays; ``to_frame()`` has one row per arm.

        Examples
        --------
        >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0)
        >>> _ = auditor.observe(auditor.next_arm(), 1.0)
        >>> auditor.snapshot().active.tolist()
        [False, True, True]
        """
        return AuditorState(verdict=self._verdict, t=self._t, counts=self.counts, means=self.means,
                            lower=self.lower, upper=self.upper,
                            active=np.isin(np.arange(self.n_arms + 1), self._active))

    # ------------------------------------------------------------------ checkpoints
    def to_dict(self) -> dict:
        """The whole state as strict-JSON data (:meth:`from_dict`); 128-bit generator integers as decimal strings.

        Returns
        -------
        dict
            ``format`` (``"ocef.OCEF/1"``), ``params``, ``t``, ``counts``, ``sums``, ``active``,
            ``sum_explore``, ``sum_beta_n``, ``pending``, ``verdict``, ``last_xi``, ``tables``, ``rng``.

        Examples
        --------
        >>> import json
        >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0)
        >>> _ = auditor.observe(auditor.next_arm(), 1.0)
        >>> OCEF.from_dict(json.loads(json.dumps(auditor.to_dict()))).next_arm() == auditor.next_arm()   # resumes exactly
        True
        """
        return {
            "format": STATE_FORMAT,
            "params": {"n_arms": self.n_arms, "delta": self.delta, "alpha": self.alpha,
                       "epsilon": self.epsilon, "group_size": self.group_size, "sigma": self.sigma,
                       "omega": self.omega},
            "t": self._t, "counts": list(self._n), "sums": list(self._sum), "active": list(self._active),
            "sum_explore": self._sum_explore, "sum_beta_n": self._sum_beta_n,
            "pending": self._pending, "verdict": self._verdict.value,
            "last_xi": None if math.isnan(self.last_xi) else self.last_xi,
            "tables": {"beta": self._beta.size, "phi": self._phi.size},
            "rng": {"buffer_state": _encode_big_ints(self._buffer_state), "position": self._u_idx},
        }

    @classmethod
    def from_dict(cls, state: dict) -> "OCEF":
        """Rebuild an auditor from :meth:`to_dict`; it continues exactly as the original would.

        The restored auditor owns a new generator set to the saved state (so the
        continuation is exact when the original's generator was not shared with other code).
        """
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            found = state.get("format") if isinstance(state, dict) else type(state).__name__
            raise ParameterError(f"state must be a dict written by OCEF.to_dict() (format {STATE_FORMAT!r}), got {found!r}")
        try:
            rng_state = _decode_big_ints(state["rng"]["buffer_state"])
            bit_generator = getattr(np.random, rng_state["bit_generator"])()
            bit_generator.state = rng_state
            self = cls(**state["params"], rng=np.random.Generator(bit_generator))   # redraws the same block
            k = self.n_arms
            counts = [int(c) for c in state["counts"]]
            sums = [float(v) for v in state["sums"]]
            active = [int(j) for j in state["active"]]
            if len(counts) != k + 1 or len(sums) != k + 1 or any(c < 0 for c in counts) \
                    or not set(active) <= set(range(1, k + 1)) or len(set(active)) != len(active):
                raise ParameterError("counts, sums and active do not fit n_arms")
            t = int(state["t"])
            if t != sum(counts):
                raise ParameterError(f"t={t} differs from the sum of the counts {sum(counts)}")
            # a reward is in [0, 1]: a sum is in [0, count]; NaN or inf state would run on silently
            bad = [j for j, (c, v) in enumerate(zip(counts, sums)) if not (0.0 <= v <= c)]
            if bad:
                raise DataError(f"state is not a valid OCEF state: sums[{bad[0]}] = {sums[bad[0]]!r} is not in "
                                f"[0, counts[{bad[0]}] = {counts[bad[0]]}]")
            for key in ("sum_explore", "sum_beta_n"):
                if not math.isfinite(float(state[key])) or float(state[key]) < 0:
                    raise DataError(f"state is not a valid OCEF state: {key} = {state[key]!r}")
            if state["last_xi"] is not None and not math.isfinite(float(state["last_xi"])):
                raise DataError(f"state is not a valid OCEF state: last_xi = {state['last_xi']!r}")
            position = int(state["rng"]["position"])
            if not 0 <= position <= cls._BUFFER:
                raise ParameterError(f"rng position must be in [0, {cls._BUFFER}], got {position}")
            pending = state["pending"]
            verdict = Verdict(state["verdict"])
        except (KeyError, TypeError, AttributeError, OverflowError) as exc:
            if isinstance(exc, (ParameterError, ParameterTypeError)):
                raise
            raise DataError(f"state is not a valid OCEF state: {type(exc).__name__}: {exc}") from None
        self._t, self._n, self._sum, self._active = t, counts, sums, active
        self._sum_explore = float(state["sum_explore"])
        self._sum_beta_n = float(state["sum_beta_n"])
        self._pending = None if pending is None else int(pending)
        self._verdict = verdict
        self.last_xi = math.nan if state["last_xi"] is None else float(state["last_xi"])
        self._u_idx = position
        for table, size in ((self._beta, state["tables"]["beta"]), (self._phi, state["tables"]["phi"])):
            if table.size != size:       # same size, hence bit-identical values (same vectorized call)
                table.values = table._fn(np.arange(int(size))).tolist()
        return self

    def __getstate__(self) -> dict:
        return self.to_dict()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(OCEF.from_dict(state).__dict__)

    def __repr__(self) -> str:
        return (f"OCEF(n_arms={self.n_arms}, delta={self.delta}, alpha={self.alpha}, epsilon={self.epsilon}, "
                f"group_size={self.group_size}, t={self._t}, verdict={self._verdict.value})")


def _encode_big_ints(obj):
    """Integers beyond ±2**53 (PCG64's 128-bit state) as decimal strings, for any JSON reader."""
    if isinstance(obj, dict):
        return {k: _encode_big_ints(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_encode_big_ints(v) for v in obj]
    if isinstance(obj, np.ndarray):                 # e.g. MT19937's key: Python numbers via tolist()
        return _encode_big_ints(obj.tolist())
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, bool) and abs(int(obj)) > 2 ** 53:
        return {"int": str(int(obj))}
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def _decode_big_ints(obj):
    if isinstance(obj, dict):
        if set(obj) == {"int"}:
            return int(obj["int"])
        return {k: _decode_big_ints(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode_big_ints(v) for v in obj]
    return obj


@dataclass(frozen=True)
class AuditorState(Result):
    """An auditor's verdict and per-arm statistics at step ``t`` (:meth:`OCEF.snapshot`).

    Attributes
    ----------
    verdict : Verdict
        ``RUNNING``, ``ENVY`` or ``NO_ENVY``.
    t : int
        The step.
    counts : numpy.ndarray of int, shape (K+1,)
        N_k(t).
    means : numpy.ndarray, shape (K+1,)
        μ̂_k(t) (0 when unpulled).
    lower, upper : numpy.ndarray, shape (K+1,)
        μ̂_k ∓ β_k (Lemma 3).
    active : numpy.ndarray of bool, shape (K+1,)
        k ∈ S_t (line 7 of Algorithm 1).

    Examples
    --------
    >>> auditor = OCEF(n_arms=2, delta=0.05, alpha=0.1, epsilon=0.05, rng=0)
    >>> _ = auditor.observe(auditor.next_arm(), 1.0)
    >>> auditor.snapshot().counts.tolist()
    [1, 0, 0]
    """

    verdict: Verdict
    t: int
    counts: np.ndarray
    means: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    active: np.ndarray

    @presents
    def to_frame(self):
        """One row per arm k = 0..K: its count, mean and Lemma 3 bounds, and whether it is active.

        Columns ``arm`` (0 = baseline), ``count`` N_k(t), ``mean`` μ̂_k(t), ``lower`` μ̲_k(t),
        ``upper`` μ̄_k(t) and ``active`` (k ∈ S_t; always False for arm 0).
        """
        import pandas as pd

        return pd.DataFrame({"arm": np.arange(self.counts.size), "count": self.counts, "mean": self.means,
                             "lower": self.lower, "upper": self.upper, "active": self.active})
