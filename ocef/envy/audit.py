"""Full-system OCEF audit of a recommender (Do et al., Sec. 5, App. F, Cor. 7.1, Sec. 6.2).

Every group g_i is audited at once against all other groups: OCEF (Algorithm 1) runs
for each group with K = G − 1 arms (arm 0 = the group's own recommendations, arm j ≥ 1
= the transported policies of the j-th other group) and confidence δ' = δ/G, so that
all certificates hold jointly with probability 1 − δ (Corollary 7.1).

Two PULL-ARM paths draw the group reward r_t of Algorithm 2 (App. F):

* :meth:`AuditProblem.pull_literal` — the routine as written: each user m of g_i draws
  a context x ~ q^m, a matched user n ~ γ_{m,·} (arm 0 under transport: n = m), is shown
  a ~ π^n(·|x) and gives r^m ~ ν^m(a|x). It only *queries* the policies (``Policy.sample``),
  so it works with any user-supplied policy, including a black-box recommender.
* the fast exact path for simulation (:meth:`AuditProblem.rewards`): with binary
  rewards ν^m(a|x) = Bernoulli(ρ^m(a|x)), r^m is Bernoulli(u^m(π_k^m)) with
  u^m(π_k^m) = Σ_x q^m(x) Σ_n γ_{m,n} Σ_a π^n(a|x) ρ^m(a|x) (eq. 1, 4), so |g|·r_t follows a
  Poisson-binomial law (:meth:`AuditProblem.reward_distribution`), drawn exactly by inverting
  its cdf — for every group and trial at once.

:func:`audit_live` (defined in :mod:`ocef.envy.live`, re-exported here) drives G ask/tell
:class:`ocef.OCEF` instances in synchronous steps against any ``pull(group, arm)`` function (a
live system); :func:`run_audit` runs the simulated audit, many trials and parameter values at
once, on :mod:`ocef.envy.runner` (or, with ``engine="ask-tell"``, on :func:`ocef.envy.live.ask_tell_audit`).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from ocef.envy import bounds
from ocef.validation import as_generator, check_in_interval
from ocef._progress import PROGRESS
from ocef.envy.exact import transported_user_utilities, utility_matrix
from ocef.envy.groups import check_group_names, check_partition, group_members
from ocef.envy.matching import MATCHINGS, mixture_weights
from ocef.envy.engines import resolve_engine
from ocef.results import Result, jsonable, presents
from ocef.envy.runner import DiscreteRewards, run_batch
from ocef.envy.live import audit_live, ask_tell_audit, audit_root, base_seed_sequence  # noqa: F401  (audit_live re-exported)
from ocef.policies.base import Policy, as_policy, as_probabilities, sample_rows
from ocef.policies.utility import check_context_probs, check_rho
from ocef.errors import ParameterError
from ocef.validation import (UNIT_HALF_OPEN, UNIT_OPEN, Instance, Integer, OneOrMore, Options, Real, Rng,
                             check_resources, validate_params)
from ocef.envy.engines import ENGINES
from ocef.envy.runner import MAX_STEPS, MAX_TRIALS, check_run_resources, estimated_work

RewardFn = Callable[[np.ndarray, np.ndarray, np.ndarray | None, np.random.Generator], np.ndarray]


def other_groups(n_groups: int) -> np.ndarray:
    """Which group each arm of each group's audit stands for (Cor. 7.1, Algorithm 2): group i's arm 0
    is its own recommendations, arm j ≥ 1 the j-th other group in increasing order.

    Parameters
    ----------
    n_groups : int
        G ≥ 1.

    Returns
    -------
    numpy.ndarray of int, shape (G, G−1)
        ``others[i, j-1]``, the group audited as arm j of target group i.

    Examples
    --------
    >>> other_groups(3).tolist()
    [[1, 2], [0, 2], [0, 1]]
    """
    g = np.arange(n_groups)
    return np.array([np.delete(g, i) for i in g]).reshape(n_groups, n_groups - 1)


class AuditProblem:
    """A recommender system to audit: ground truth, policies, partition, matching.

    Parameters
    ----------
    rho : array (M, I) or (M, X, I)
        Expected rewards ρ^m(a|x); simulated rewards are Bernoulli(ρ).
    policy : Policy or array of the same shape
        π^m(·|x) of every user (any :class:`ocef.policies.base.Policy`).
    labels : array (M,)
        Group of each user, 0..G−1 (G ≥ 2; every group non-empty).
    matching : "transport" (Def. 4.2, default) or "average"
    context_probs : q^m(x), (X,) or (M, X); uniform if None (contextual policies only)
    multiplicity : array (M,) of integers ≥ 1, optional
        Identical copies of each user (groups grown by duplication, Sec. 6.2); sizes, transport
        marginals and rewards count copies.
    group_names : names of the groups, optional

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> AuditProblem(*make_toy_envy()).sizes.tolist()
    [2, 2]
    """

    @validate_params(matching=Options(*MATCHINGS))
    def __init__(self, rho, policy, labels, *, matching: str = "transport", context_probs=None,
                 multiplicity=None, group_names=None):
        self.rho = check_rho(rho)
        self.policy: Policy = as_policy(policy)
        self.probs = as_probabilities(self.policy)
        if self.probs.shape != self.rho.shape:
            raise ParameterError(f"rho and the policy must have the same shape (users x [contexts x] items), "
                             f"got {self.rho.shape} and {self.probs.shape}")
        self.matching = matching
        n_users = self.rho.shape[0]
        self.labels = check_partition(labels, n_users)
        self.n_groups = int(self.labels.max()) + 1
        if self.n_groups < 2:
            raise ParameterError("labels must define at least 2 groups: a group is audited against other groups")
        # before the G x G transport plans and the n_users x G utilities are built
        G = self.n_groups
        check_resources(f"labels ({G} groups of {n_users} users)",
                        memory=8.0 * (4 * n_users * G + 4 * G * G), work=float(n_users) * n_users + float(G) ** 3,
                        what="operations")
        if multiplicity is None:
            self.multiplicity = np.ones(n_users, dtype=np.int64)
        else:
            mult = np.asarray(multiplicity)
            if mult.shape != (n_users,) or not np.issubdtype(mult.dtype, np.integer) or mult.min() < 1:
                raise ParameterError(f"multiplicity must hold one integer >= 1 per user ({n_users}), got {mult!r:.80}")
            self.multiplicity = mult.astype(np.int64)
            # issue 28: 10**15 copies tried a 14 PiB allocation; each group's exact reward law has |g| + 1
            # entries per arm, over the |g| copies
            copies = float(np.sum(self.multiplicity.astype(float)))
            check_resources(f"multiplicity ({copies:.3g} copies of {n_users} users)",
                            memory=8.0 * (G + 2) * (copies + G))
        self.context_probs = None
        if self.rho.ndim == 3:
            self.context_probs = check_context_probs(context_probs, n_users, self.rho.shape[1])
        elif context_probs is not None:
            raise ParameterError("context_probs given for a context-free problem (rho is users x items)")
        self.members = group_members(self.labels)
        self.group_names = check_group_names(group_names, self.n_groups)
        self.sizes = np.bincount(self.labels, weights=self.multiplicity).astype(np.int64)   # |g_i| (copies)
        self.others = other_groups(self.n_groups)
        self.weights = mixture_weights(self.probs, self.labels, matching,
                                       multiplicity=None if multiplicity is None else self.multiplicity)
        utilities = utility_matrix(self.rho, self.probs, self.context_probs)
        transported = transported_user_utilities(utilities, self.labels, self.weights)
        # arm_utilities[m, j] = u^m of arm j of m's group: j = 0 the group's own matching policy
        # π_i^m (eq. (6) compares μ_k^i with μ_i^i; π_i^m = π^m under transport, Prop. 4, but
        # not under average matching), j ≥ 1 π_k^m. One definition of group envy, as in ocef.envy.exact.
        self.arm_utilities = np.empty((n_users, self.n_groups))
        self.arm_utilities[:, 0] = transported[np.arange(n_users), self.labels]
        self.arm_utilities[:, 1:] = transported[np.arange(n_users)[:, None], self.others[self.labels]]
        # arm_means[i, j] = μ_j of group i's audit (μ_0 = μ^i), averaged over the copies.
        w = self.multiplicity[:, None] * self.arm_utilities
        self.arm_means = np.zeros((self.n_groups, self.n_groups))
        np.add.at(self.arm_means, self.labels, w)
        self.arm_means /= self.sizes[:, None]

    # ------------------------------------------------------------------ ground truth
    @property
    def true_envy(self) -> np.ndarray:
        """Δ^i = max(max_k μ_k^i − μ_i^i, 0) (eq. (6), Sec. 6), as :func:`ocef.envy.exact.group_envy`."""
        return np.maximum(self.arm_means[:, 1:].max(axis=1) - self.arm_means[:, 0], 0.0)

    def correct(self, groups: np.ndarray, verdicts: np.ndarray, epsilon) -> np.ndarray:
        """Whether each verdict is right (Sec. 5): ENVY iff ∃k μ_k > μ_0; ε-NO-ENVY iff max_k μ_k ≤ μ_0 + ε.

        Parameters
        ----------
        groups : numpy.ndarray of int, shape (n,)
            The audited group of each verdict, in 0..G-1.
        verdicts : numpy.ndarray of str, shape (n,)
            Values of :class:`Verdict`.
        epsilon : float or numpy.ndarray, shape (n,)
            The tolerance ε of each audit.

        Returns
        -------
        numpy.ndarray of float, shape (n,)
            1.0 right, 0.0 wrong, NaN for a timeout (not a verdict).

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> AuditProblem(*make_toy_envy()).correct(np.array([0, 1, 1]), np.array(["envy", "no_envy", "timeout"]), 0.05).tolist()
        [1.0, 0.0, nan]
        """
        gap = self.arm_means[groups, 1:].max(axis=1) - self.arm_means[groups, 0]
        eps = np.broadcast_to(np.asarray(epsilon, dtype=float), gap.shape)
        out = np.full(gap.shape, np.nan)
        out[verdicts == "envy"] = gap[verdicts == "envy"] > 0
        out[verdicts == "no_envy"] = gap[verdicts == "no_envy"] <= eps[verdicts == "no_envy"] + 1e-12
        return out

    # ------------------------------------------------------------------ PULL-ARM
    def _check_arm(self, group: int, arm: int) -> None:
        if not 0 <= group < self.n_groups:
            raise ParameterError(f"group must be in [0, {self.n_groups - 1}], got {group}")
        if not 0 <= arm < self.n_groups:
            raise ParameterError(f"arm must be in [0, {self.n_groups - 1}] (K = G - 1 = {self.n_groups - 1}), got {arm}")

    def pull_literal(self, group: int, arm: int, *, rng=None, reward: RewardFn | None = None) -> float:
        """PULL-ARM of Algorithm 2 (App. F) for target ``group`` and ``arm``, as written.

        For every user m of the group (each copy separately, in parallel): context x ~ q^m; n = m for
        arm 0 (n ~ γ_{m,·} on the own group under average matching: π_i^m of eq. (6)), else n ~ γ_{m,·}
        on the arm's group (Def. 4.2); a ~ π^n(·|x) (only ``Policy.sample`` is queried); r^m ~ ν^m(a|x),
        Bernoulli(ρ^m(a|x)) unless ``reward`` is given. Returns r_t = (1/|g|) Σ_m r^m.

        Parameters
        ----------
        group : int
            The audited group g, in 0..G-1.
        arm : int
            0 (the group's own recommendations) or the k-th other group of ``others[group]``.
        rng : None, int, SeedSequence or numpy.random.Generator
            Randomness of contexts, partners, recommendations and rewards.
        reward : callable, optional
            ``reward(users, items, contexts, rng) -> array`` in [0, 1] (``contexts`` None when
            context-free).

        Returns
        -------
        float

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> problem, rng = AuditProblem(*make_toy_envy()), np.random.default_rng(0)
        >>> round(np.mean([problem.pull_literal(0, 1, rng=rng) for _ in range(200)]), 3)   # ρ 0.9, 0.8
        0.882
        """
        self._check_arm(group, arm)
        rng = as_generator(rng)
        users = np.repeat(self.members[group], self.multiplicity[self.members[group]])
        contexts = None
        if self.context_probs is not None:
            q = self.context_probs[users] if self.context_probs.ndim == 2 else \
                np.broadcast_to(self.context_probs, (users.size, self.context_probs.size))
            contexts = sample_rows(q, rng)
        if arm == 0 and self.matching == "transport":
            partners = users                      # π_i^m = π^m: γ^{i,i} is the identity
        else:
            # arm 0 under average matching: the group's average policy π_i^m (eq. (6))
            k = group if arm == 0 else self.others[group, arm - 1]
            # copies of a user share its row γ_{m,·} (Def. 4.2); each copy draws its own partner
            rows = self.weights[group, k][np.searchsorted(self.members[group], users)]
            partners = self.members[k][sample_rows(rows, rng)]
        items = self.policy.sample(partners, rng=rng, contexts=contexts)
        if reward is not None:
            r = np.asarray(reward(users, items, contexts, rng), dtype=float)
        else:
            p = self.rho[users, items] if contexts is None else self.rho[users, contexts, items]
            r = (rng.random(users.size) < p).astype(float)
        return float(r.mean())

    def pull_fast(self, group: int, arm: int, *, rng=None) -> float:
        """Exact fast PULL-ARM: the law of :meth:`pull_literal`'s r_t without drawing contexts, partners and
        items (|g|·r_t from the Poisson-binomial law of :meth:`reward_distribution`).

        Parameters
        ----------
        group, arm : int
        rng : None, int, SeedSequence or numpy.random.Generator
            Randomness of the draw.

        Returns
        -------
        float
            A multiple of 1/|g|.

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> AuditProblem(*make_toy_envy()).pull_fast(0, 1, rng=0) in (0.0, 0.5, 1.0)
        True
        """
        self._check_arm(group, arm)
        return float(self.rewards(np.array([group]))(np.array([0]), np.array([arm]), as_generator(rng))[0])

    def reward_distribution(self, group: int) -> np.ndarray:
        """Exact distribution of the successes among the copies of ``group``, per arm: the Poisson-binomial
        pmf of Σ_{m∈g} Bernoulli(u^m(arm j)) over 0..|g| (dynamic program), r_t = successes / |g|.

        Parameters
        ----------
        group : int
            The audited group g, in 0..G-1.

        Returns
        -------
        numpy.ndarray, shape (G, |g| + 1)
            Row j: arm j (0 the group's own recommendations); each row sums to 1.

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> AuditProblem(*make_toy_envy()).reward_distribution(0).round(2).tolist()
        [[0.72, 0.26, 0.02], [0.02, 0.26, 0.72]]
        """
        users = np.repeat(self.members[group], self.multiplicity[self.members[group]])
        probs = self.arm_utilities[users]                          # (|g| copies, G arms)
        pmf = np.zeros((self.n_groups, users.size + 1))
        pmf[:, 0] = 1.0
        for c, p in enumerate(probs, start=1):
            pmf[:, 1:c + 1] = pmf[:, 1:c + 1] * (1.0 - p[:, None]) + pmf[:, :c] * p[:, None]
            pmf[:, 0] *= 1.0 - p
        return pmf

    def rewards(self, run_groups) -> DiscreteRewards:
        """Exact fast PULL-ARM for :func:`ocef.envy.runner.run_batch`, run r auditing group
        ``run_groups[r]``: |g|·r_t drawn from :meth:`reward_distribution` by inverting its exact cdf.

        Parameters
        ----------
        run_groups : array-like of int, shape (R,)
            The audited group of each run, in 0..G-1.

        Returns
        -------
        DiscreteRewards
            ``rewards(runs, arms, rng)``: one reward of arm ``arms[j]`` for run ``runs[j]`` each.

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> AuditProblem(*make_toy_envy()).rewards([0, 1])(np.array([0, 0, 1]), np.array([0, 1, 1]), np.random.default_rng(0))
        array([0. , 0.5, 0.5])
        """
        if getattr(self, "_pmfs", None) is None:
            self._pmfs = [pmf for i in range(self.n_groups) for pmf in self.reward_distribution(i)]
        run_groups = np.asarray(run_groups)
        blocks = run_groups[:, None] * self.n_groups + np.arange(self.n_groups)[None, :]
        return DiscreteRewards.from_pmfs(self._pmfs, blocks)

    # ------------------------------------------------------------------ larger groups
    def duplicated(self, avg_group_size: float, *, rng=None) -> "AuditProblem":
        """Grow the groups by duplicating users drawn uniformly at random (Sec. 6.2, App. D.2) until the
        average group size reaches ``avg_group_size`` (duplicates kept as multiplicities).

        Parameters
        ----------
        avg_group_size : float
            At least the current one; the total is rounded.
        rng : None, int, SeedSequence or numpy.random.Generator
            Randomness of which users are copied.

        Returns
        -------
        AuditProblem

        Raises
        ------
        ResourceLimitError
            When the copies would exceed the memory or work limits.

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> AuditProblem(*make_toy_envy()).duplicated(10, rng=0).sizes.tolist()
        [8, 12]
        """
        # a finite number (inf used to end in an OverflowError, NaN in "cannot convert float NaN")
        avg_group_size = check_in_interval("avg_group_size", avg_group_size, 0.0, np.inf, high_open=True)
        rng = as_generator(rng)
        current = int(self.multiplicity.sum())
        total_float = avg_group_size * self.n_groups
        # the draws of the copies: refuse, before drawing, what exceeds the limits (1e12 tried 22 TiB)
        check_resources("group_size (average group size of the duplicated problem)",
                        memory=16.0 * max(total_float - current, 0.0), work=max(total_float - current, 0.0),
                        what="copies")
        total = int(round(total_float))
        if total < current:
            raise ParameterError(f"avg_group_size must be >= the current average group size "
                             f"{current / self.n_groups:.2f}, got {avg_group_size}")
        extra = np.bincount(rng.integers(0, self.labels.size, total - current), minlength=self.labels.size)
        return AuditProblem(self.rho, self.policy, self.labels, matching=self.matching,
                            context_probs=self.context_probs, multiplicity=self.multiplicity + extra,
                            group_names=self.group_names)

    def __repr__(self) -> str:
        return (f"AuditProblem(users={self.labels.size}, copies={int(self.multiplicity.sum())}, "
                f"groups={self.n_groups}, matching={self.matching!r}, envious={int((self.true_envy > 0).sum())})")


# ====================================================================== report
@dataclass(frozen=True)
class AuditReport(Result):
    """Result of a simulated full audit (:func:`run_audit`, Cor. 7.1); ``summary()`` per setting,
    ``to_dict()`` the JSON of ``ocef audit --json``.

    Attributes
    ----------
    groups : pandas.DataFrame
        One row per (setting, trial, group): ``alpha``, ``delta``, ``epsilon``, ``trial``,
        ``group``, ``name``, ``size``, ``verdict``, ``duration`` (steps), ``cost`` (eq. 10),
        ``true_envy`` (Δ^i), ``envious`` (Δ^i > ε), ``correct`` (1/0, NaN for a timeout) and
        ``constraint_held`` (constraint (7) at every step).
    params : dict
        ``n_groups``, ``n_users``, ``matching`` and ``engine``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> run_audit(AuditProblem(*make_toy_envy()), trials=3, rng=0).summary()["all_correct_rate"].tolist()
    [1.0]
    """

    groups: pd.DataFrame
    params: dict = field(default_factory=dict)

    SUMMARY_KEYS = ("alpha", "delta", "epsilon")

    def summary(self, by=("alpha", "delta", "epsilon")) -> pd.DataFrame:
        """Shares of ENVY / ε-NO-ENVY / timeout, mean duration and cost, correctness, (7), per setting.

        ``all_correct_rate`` is the share of audits with no wrong verdict: the event Corollary 7.1
        guarantees with probability ≥ 1 − δ.

        Parameters
        ----------
        by : sequence of str
            The columns of ``groups`` that define a setting; none: one row.

        Returns
        -------
        pandas.DataFrame
            The ``by`` keys, ``n_audits``, ``share_envy``, ``share_no_envy``, ``share_timeout``,
            ``duration_mean``, ``cost_mean`` (eq. 10), ``correct_rate`` (timeouts excluded),
            ``constraint_held``, ``all_correct_rate`` (null when no audit gave a verdict) and ``reason``
            (why a rate is null or counts fewer audits: timeouts).

        Examples
        --------
        >>> from ocef.datasets import make_toy_envy
        >>> run_audit(AuditProblem(*make_toy_envy()), epsilon=[0.05, 0.1], trials=2, rng=0).summary()["correct_rate"].tolist()
        [1.0, 1.0]
        """
        df = self.groups
        keys = [k for k in by if k in df]
        grouped = df.groupby(keys) if keys else df.groupby(lambda _: 0)
        out = grouped.agg(
            n_audits=("trial", "nunique"),
            share_envy=("verdict", lambda v: float((v == "envy").mean())),
            share_no_envy=("verdict", lambda v: float((v == "no_envy").mean())),
            share_timeout=("verdict", lambda v: float((v == "timeout").mean())),
            duration_mean=("duration", "mean"), cost_mean=("cost", "mean"),
            correct_rate=("correct", "mean"), constraint_held=("constraint_held", "all"),
        ).reset_index()
        # Cor. 7.1 is a joint statement: share of audits in which no group got a wrong verdict
        # (a timeout is no verdict, so it does not count against it; see share_timeout).
        joint = df.assign(ok=df["correct"] != 0).groupby(keys + ["trial"])["ok"].all()
        joint_rate = joint.groupby(level=list(range(len(keys)))).mean() if keys else pd.Series([joint.mean()])
        out["all_correct_rate"] = joint_rate.to_numpy()
        # issue 28: with every audit timed out, correct_rate was NaN and all_correct_rate 1.0 without a word
        decided = df.assign(d=df["verdict"] != "timeout").groupby(keys + ["trial"])["d"].any()
        any_decided = (decided.groupby(level=list(range(len(keys)))).any() if keys
                       else pd.Series([decided.any()])).to_numpy()
        out.loc[~any_decided, "all_correct_rate"] = np.nan
        out["reason"] = [
            "" if t == 0 else
            ("no verdict: every audit timed out (raise max_steps): correctness undefined" if t == 1 else
             f"{t:.0%} of the group audits timed out (no verdict): correct_rate counts verdicts only")
            for t in out["share_timeout"]]
        return out

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per (parameter setting, trial, group): a copy of ``groups``.

        Columns ``alpha``, ``delta``, ``epsilon``, ``trial``, ``group``, ``name``, ``size``,
        ``verdict``, ``duration``, ``cost``, ``true_envy``, ``envious``, ``correct`` and
        ``constraint_held`` (see the class docstring).
        """
        return self.groups.copy()

    @presents
    def to_dict(self) -> dict:
        """JSON-ready: ``groups`` (one entry per group, or per group and trial/setting) and the
        summary fields (flat for a single setting, else a ``summary`` list).

        ``groups`` (records with ``group``, ``name``, ``size``, ``verdict``, ``duration``,
        ``cost``, ``true_envy``, preceded by ``trial``/``alpha``/``delta``/``epsilon`` when
        they vary), then the ``params`` keys (``n_groups``, ``n_users``, ``matching``,
        ``engine``), then for a single setting the :meth:`summary` columns as flat keys
        (``n_audits``, ``share_envy``, ..., ``all_correct_rate``, ``reason``), else ``summary``: a list of
        its rows.
        """
        varying = [k for k in ("trial", *self.SUMMARY_KEYS) if self.groups[k].nunique() > 1]
        cols = [*varying, "group", "name", "size", "verdict", "duration", "cost", "true_envy"]
        out = {"groups": self.groups[cols].to_dict("records"), **self.params}
        summary = self.summary()
        if len(summary) == 1:
            out.update(summary.drop(columns=list(self.SUMMARY_KEYS)).iloc[0].to_dict())
        else:
            out["summary"] = summary.to_dict("records")
        return jsonable(out)


# ====================================================================== drivers
@validate_params(problem=Instance(AuditProblem), alpha=OneOrMore(UNIT_HALF_OPEN), delta=OneOrMore(UNIT_OPEN),
                 epsilon=OneOrMore(UNIT_HALF_OPEN), trials=Integer(1, MAX_TRIALS), max_steps=Integer(1, MAX_STEPS),
                 engine=Options(*ENGINES), progress=PROGRESS, sigma=Real(0, 1e6, closed="right"),
                 omega=UNIT_OPEN, rng=Rng())
def run_audit(problem: AuditProblem, *, alpha=0.05, delta=0.05, epsilon=0.05, trials: int = 1, rng=None,
              max_steps: int = 10**6, engine: str = "auto", progress: bool = False,
              sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA) -> AuditReport:
    """Simulated full audit of ``problem`` (Cor. 7.1: one OCEF per group, K = G−1, δ/G).

    Parameters
    ----------
    problem : AuditProblem
        Ground truth, policies, partition and matching.
    alpha, delta, epsilon : float or sequence of float
        Algorithm 1's parameters; with sequences, every combination is audited.
    trials : int
        Audits per combination.
    rng : None, int, SeedSequence or Generator
        Randomness of the audits.
    max_steps : int
        An undecided group is ``timeout``.
    engine : {"auto", "numba", "numpy", "ask-tell"}
        :mod:`ocef.envy.engines`: ``"numba"`` (``"auto"``) and ``"numpy"`` run every audit at once
        with the fast exact PULL-ARM; ``"ask-tell"`` runs :func:`audit_live` with the literal
        PULL-ARM of Algorithm 2 (slow; the reference semantics).
    progress : bool
        Show a progress bar.
    sigma, omega : float
        Sub-gaussian parameter and ω of Lemma 3.

    Returns
    -------
    AuditReport

    Examples
    --------
    >>> from ocef.datasets import make_toy_envy
    >>> run_audit(AuditProblem(*make_toy_envy(), group_names=["A", "B"]), rng=0).groups[["name", "verdict"]].values.tolist()
    [['A', 'envy'], ['B', 'envy']]
    """
    # the declared constraints checked every argument given (one value or a grid each)
    alphas, deltas, epsilons = ([float(v) for v in np.atleast_1d(x)] for x in (alpha, delta, epsilon))
    seed = rng                    # ask-tell: keyed draws (ocef.envy.live) from the seed as given
    rng = as_generator(rng)
    G = problem.n_groups
    n_settings = len(alphas) * len(deltas) * len(epsilons)
    # before building the grid: memory of every (setting, trial, group) run, work from Theorem 6's bound
    per_group = [estimated_work(problem.arm_means, d / G, a, e, int(problem.sizes.min()), max_steps)
                 for a, d, e in itertools.product(alphas, deltas, epsilons)]
    work = [trials * float(np.sum(w)) for w in per_group]
    check_run_resources(n_settings * trials * G, G - 1, work,
                        argument=f"trials, max_steps, the grid of alpha/delta/epsilon and the {G} groups",
                        engine=resolve_engine(engine, discrete=True, n_runs=n_settings * trials * G),
                        longest=max(float(np.max(w)) for w in per_group))
    settings = list(itertools.product(alphas, deltas, epsilons, range(trials)))
    engine = resolve_engine(engine, discrete=True, n_runs=len(settings) * G)
    grid = pd.DataFrame([(a, d, e, t, g) for a, d, e, t in settings for g in range(G)],
                        columns=["alpha", "delta", "epsilon", "trial", "group"])
    groups = grid["group"].to_numpy()
    true_means = problem.arm_means[groups]
    if engine == "ask-tell":
        verdict, duration, cost, held = _ask_tell_audits(problem, grid, seed, max_steps, sigma, omega, progress)
    else:
        res = run_batch(np.full(len(grid), G - 1), grid["delta"].to_numpy() / G, grid["alpha"].to_numpy(),
                        grid["epsilon"].to_numpy(), problem.rewards(groups),
                        group_size=problem.sizes[groups], true_means=true_means, rng=rng,
                        max_steps=max_steps, sigma=sigma, omega=omega, progress=progress, desc="groups decided",
                        engine=engine)
        verdict, duration, cost, held = res.verdict_names(), res.duration, res.cost, res.constraint_held
    grid["name"] = [problem.group_names[g] for g in groups]
    grid["size"] = problem.sizes[groups]
    grid["verdict"] = verdict
    grid["duration"] = duration
    grid["cost"] = cost
    grid["true_envy"] = problem.true_envy[groups]
    grid["envious"] = grid["true_envy"] > grid["epsilon"]
    grid["correct"] = problem.correct(groups, grid["verdict"].to_numpy(), grid["epsilon"].to_numpy())
    grid["constraint_held"] = held
    params = {"n_groups": G, "n_users": int(problem.multiplicity.sum()), "matching": problem.matching,
              "engine": engine}
    return AuditReport(grid, params)


def _ask_tell_audits(problem, grid, rng, max_steps, sigma, omega, progress):
    """One keyed live audit per (setting, trial); audit j has root ``audit_root(rng, j)`` (audit 0 = audit-live)."""
    base = base_seed_sequence(rng)
    keys = grid[["alpha", "delta", "epsilon", "trial"]].drop_duplicates()
    from ocef._progress import progress_iter

    iterator = progress_iter(keys.itertuples(index=False), progress, total=len(keys), desc="audits")
    frames = [ask_tell_audit(problem, alpha=a, delta=d, epsilon=e, rng=audit_root(base, j), max_steps=max_steps,
                             sigma=sigma, omega=omega).groups for j, (a, d, e, _) in enumerate(iterator)]
    g = pd.concat(frames, ignore_index=True)
    return (g["verdict"].to_numpy(), g["duration"].to_numpy(), g["cost"].to_numpy(),
            g["constraint_held"].to_numpy())
