"""Live full-system audits (Do et al., Cor. 7.1, Alg. 1-2) that survive being interrupted.

:func:`audit_live` drives G ask/tell :class:`ocef.OCEF` auditors — one per group, K = G − 1
arms, confidence δ/G — in synchronous steps against any ``pull(group, arm[, step])``
function: a live recommender, the HTTP service of :mod:`ocef.envy.service`, or the literal
PULL-ARM of Algorithm 2 in process (:func:`keyed_pull`). With ``checkpoint=PATH`` the whole
audit (every auditor's state, generators included, the step, the ground-truth accounting
and the checkpoint history) is written atomically to PATH every ``every`` steps and at the
end; calling it again with the same PATH resumes from there and follows exactly the
trajectory of an uninterrupted run.

Randomness is *keyed*, so that resuming and retrying never change a draw:

* the audit's root is a :class:`numpy.random.SeedSequence` (:func:`audit_root`; seed S gives
  ``SeedSequence(S, spawn_key=(0,))``, the j-th audit of ``run_audit(engine="ask-tell")``
  ``spawn_key=(j,)``);
* auditor g draws ℓ_t (line 3 of Alg. 1) from child ``(…, 0, g)``;
* the PULL-ARM of group g at its step t draws from child ``(…, 1, g, t)``
  (:func:`pull_generator`), so a pull is a pure function of (seed, group, arm, step): an
  HTTP retry or a replay after a crash gets the same reward.
"""
from __future__ import annotations

import inspect
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from ocef.envy import bounds
from ocef.envy.auditor import OCEF, Verdict
from ocef.files import atomic_write_text
from ocef.envy.groups import check_group_names
from ocef.results import Result, jsonable, presents
from ocef.envy.simulation import CONSTRAINT_TOL, audit_cost, safety_budget
from ocef.validation import as_generator, check_positive_int, check_unit_array
from ocef._progress import PROGRESS
from ocef.validation import UNIT_HALF_OPEN, UNIT_OPEN, Integer, Real, Rng, validate_params
from ocef.errors import DataError, ParameterError, ParameterTypeError

#: Identifies the layout of a live-audit checkpoint file.
CHECKPOINT_FORMAT = "ocef.audit_live/1"
_AUDITOR_KEY, _PULL_KEY = 0, 1


# ====================================================================== keyed randomness
def base_seed_sequence(rng) -> np.random.SeedSequence:
    """The base SeedSequence of keyed audit randomness: an int (or list) seeds it, a SeedSequence is
    kept, None takes OS entropy, a Generator gives 128 bits (one draw).

    Parameters
    ----------
    rng : None, int, sequence of int, SeedSequence or numpy.random.Generator
        An int (or list of ints) seeds it; a SeedSequence is kept as is; None takes fresh OS
        entropy; a Generator gives 128 bits of entropy (one draw, so it advances).

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> base_seed_sequence(7).entropy, base_seed_sequence([1, 2]).entropy
    (7, [1, 2])
    """
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence([int(v) for v in rng.integers(0, 2**32, size=4, dtype=np.uint64)])
    if rng is None:
        return np.random.SeedSequence()
    as_generator(rng)                                   # same accepted types, same error
    return np.random.SeedSequence(list(rng) if isinstance(rng, (list, tuple)) else int(rng))


def _child(seq: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + tuple(int(k) for k in key))


def audit_root(rng, index: int = 0) -> np.random.SeedSequence:
    """The root SeedSequence of the ``index``-th audit: ``SeedSequence(S, spawn_key=(index,))``
    (audit 0: ``ocef audit-live``).

    Parameters
    ----------
    rng : None, int, sequence of int, SeedSequence or numpy.random.Generator
        :func:`base_seed_sequence`.
    index : int
        Which audit.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> audit_root(7, 2).spawn_key
    (2,)
    """
    return _child(base_seed_sequence(rng), index)


def _as_root(rng) -> np.random.SeedSequence:
    """The audit root of ``rng``: a SeedSequence as is, anything else :func:`audit_root` (rng)."""
    return rng if isinstance(rng, np.random.SeedSequence) else audit_root(rng)


def auditor_seed(root: np.random.SeedSequence, group: int) -> np.random.SeedSequence:
    """Seed of the ℓ_t draws (line 3 of Algorithm 1) of group ``group``'s auditor.

    Parameters
    ----------
    root : numpy.random.SeedSequence
        :func:`audit_root`.
    group : int
        The audited group i.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> auditor_seed(audit_root(7), 1).spawn_key
    (0, 0, 1)
    """
    return _child(root, _AUDITOR_KEY, group)


def pull_generator(root: np.random.SeedSequence, group: int, step: int) -> np.random.Generator:
    """The generator of the PULL-ARM (Algorithm 2) of ``group`` at its ``step``: child
    ``(…, 1, group, step)`` of the root; the same arguments give the same draws.

    Parameters
    ----------
    root : numpy.random.SeedSequence
        The audit's root (:func:`audit_root`).
    group : int
        The audited group.
    step : int
        0-based, of that group's auditor.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> pull_generator(audit_root(7), 0, 5).random() == pull_generator(audit_root(7), 0, 5).random()
    True
    """
    return np.random.Generator(np.random.PCG64(_child(root, _PULL_KEY, group, step)))


def keyed_pull(problem, rng) -> Callable[[int, int, int], float]:
    """``pull(group, arm, step)``: the literal PULL-ARM of Algorithm 2
    (:meth:`ocef.envy.audit.AuditProblem.pull_literal`) with the keyed generator of (group, step).

    Parameters
    ----------
    problem : ocef.envy.audit.AuditProblem
        The simulated recommender (ground truth, policies, partition, matching).
    rng : None, int, SeedSequence or numpy.random.Generator
        The audit's seed; a SeedSequence is the root.

    Returns
    -------
    callable

    Examples
    --------
    >>> from ocef.envy.audit import AuditProblem
    >>> from ocef.datasets import make_toy_envy
    >>> pull = keyed_pull(AuditProblem(*make_toy_envy()), 7)
    >>> [pull(0, 1, step) for step in range(5)]
    [0.5, 1.0, 1.0, 1.0, 0.5]
    """
    root = _as_root(rng)

    def pull(group: int, arm: int, step: int) -> float:
        return problem.pull_literal(group, arm, rng=pull_generator(root, group, step))

    return pull


def _seed_record(root: np.random.SeedSequence) -> dict:
    ent = root.entropy                        # an int or a sequence of ints, never None once built
    return {"entropy": [str(v) for v in ent] if isinstance(ent, (list, tuple)) else str(ent),
            "spawn_key": [int(k) for k in root.spawn_key]}


def _seed_from_record(rec: dict) -> np.random.SeedSequence:
    ent = rec["entropy"]
    entropy = [int(v) for v in ent] if isinstance(ent, list) else int(ent)
    return np.random.SeedSequence(entropy, spawn_key=tuple(int(k) for k in rec["spawn_key"]))


def _takes_step(pull) -> bool:
    """Whether ``pull`` accepts a third positional argument (the step key)."""
    try:
        params = list(inspect.signature(pull).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return True
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= 3


# ====================================================================== result
@dataclass(frozen=True)
class LiveAuditResult(Result):
    """Outcome of :func:`audit_live`: one row per group in ``groups``.

    Attributes
    ----------
    groups : pandas.DataFrame
        ``group``, ``name``, ``size``, ``verdict``, ``duration`` and, with ``true_means``, ``cost``
        (eq. 10), ``constraint_held`` (7) and ``true_envy``.
    params : dict
        ``n_groups``, ``group_sizes``, ``alpha``, ``delta``, ``epsilon``, ``sigma``, ``omega``,
        ``max_steps``.
    seed : dict
        The root SeedSequence as strict JSON.
    steps : int
        Synchronous steps taken.
    checkpoint_steps : tuple of int
        Steps at which the checkpoint was written.
    wall_time : float
        Seconds, over all sessions.
    resumed_from : int or None
        The step restored from the checkpoint.
    version : str
        The ``ocef`` version that ran the audit.
    auditors : tuple of OCEF
        The final auditors (not compared, not serialised).

    Examples
    --------
    >>> from ocef.envy.audit import AuditProblem
    >>> from ocef.datasets import make_toy_envy
    >>> ask_tell_audit(AuditProblem(*make_toy_envy()), alpha=0.05, delta=0.05, epsilon=0.05, rng=7).seed
    {'entropy': '7', 'spawn_key': [0]}
    """

    groups: pd.DataFrame
    params: dict
    seed: dict
    steps: int
    checkpoint_steps: tuple
    wall_time: float
    resumed_from: int | None
    version: str
    auditors: tuple = field(default=(), repr=False, compare=False)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per group: its verdict and duration (a copy of ``groups``).

        Columns ``group``, ``name``, ``size``, ``verdict`` (``envy``, ``no_envy`` or
        ``timeout``) and ``duration`` (steps), then ``cost`` (eq. 10), ``constraint_held``
        and ``true_envy`` when the ground truth was given.
        """
        return self.groups.copy()

    @presents
    def to_dict(self) -> dict:
        """The audit as a strict-JSON record (``ocef audit-live --json``), without ``auditors``.

        Keys ``version``, ``seed`` (``entropy`` as strings, ``spawn_key``), ``params``,
        ``steps``, ``checkpoint_steps`` (list), ``wall_time`` (seconds), ``resumed_from``
        and ``groups`` (the rows of :meth:`to_frame` as records).
        """
        return jsonable({"version": self.version, "seed": self.seed, "params": self.params, "steps": self.steps,
                         "checkpoint_steps": list(self.checkpoint_steps), "wall_time": self.wall_time,
                         "resumed_from": self.resumed_from, "groups": self.groups})


# ====================================================================== the audit
@validate_params(n_groups=Integer(2, 10**6), alpha=UNIT_HALF_OPEN, delta=UNIT_OPEN, epsilon=UNIT_HALF_OPEN,
                 max_steps=Integer(1, 10**15), every=Integer(1), rng=Rng(), progress=PROGRESS,
                 sigma=Real(0, 1e6, closed="right"), omega=UNIT_OPEN)
def audit_live(pull: Callable[..., float], n_groups: int, group_sizes, *, alpha: float, delta: float,
               epsilon: float, rng=None, max_steps: int = 10**6, sigma: float = bounds.SIGMA,
               omega: float = bounds.OMEGA, checkpoint: str | Path | None = None, every: int = 1000,
               group_names=None, true_means=None, progress: bool = False,
               fingerprint: dict | None = None) -> LiveAuditResult:
    """Audit every group of a live system (Cor. 7.1) with G ask/tell OCEF instances.

    Each group's auditor has K = G − 1 arms and confidence δ/G; the undecided groups advance one
    step at a time until every group has a verdict or ``max_steps`` steps. A ``pull`` object with a
    ``pull_many(list of (group, arm, step)) -> rewards`` method gets a step's pulls in one call.

    Parameters
    ----------
    pull : callable
        ``pull(group, arm[, step]) -> reward in [0, 1]``, the PULL-ARM of Algorithm 2 (arm 0: the
        group's own recommendations, arm j: the j-th other group's); ``step`` makes retries
        idempotent.
    n_groups : int
        G ≥ 2.
    group_sizes : sequence of int
        |g| of each group.
    alpha, delta, epsilon : float
        Algorithm 1's parameters.
    rng : None, int, SeedSequence or Generator
        An int is recorded in the result.
    max_steps : int
        Step cap.
    sigma, omega : float
        Sub-gaussian parameter and ω of Lemma 3.
    checkpoint : str or Path, optional
        JSON file written atomically every ``every`` steps and at the end; an existing one is
        resumed (same parameters, groups and seed; ``max_steps`` may differ).
    every : int
        Steps between checkpoints.
    group_names : sequence of str, optional
        Names of the groups.
    true_means : array_like, optional
        A simulator's ground truth (G × G, ``[i, j]`` = μ_j of group i's audit): adds cost
        (eq. 10), constraint (7) and true envy.
    progress : bool
        Show a progress bar.
    fingerprint : dict, optional
        The audited system's identity (:meth:`ocef.envy.ServiceClient.fingerprint`); a checkpoint
        resumes only against the same system.

    Returns
    -------
    LiveAuditResult

    Raises
    ------
    DataError
        If the checkpoint is unreadable or belongs to another audit (parameters, groups, seed or
        fingerprint), or ``true_means`` has the wrong shape.

    Examples
    --------
    >>> means = np.array([[0.5, 0.8], [0.5, 0.4]])      # group 0 prefers group 1's recommendations
    >>> pull = lambda group, arm, step: np.random.default_rng([group, arm, step]).binomial(100, means[group, arm]) / 100
    >>> audit_live(pull, 2, [100, 100], alpha=0.05, delta=0.05, epsilon=0.05, rng=0).groups["verdict"].tolist()
    ['envy', 'no_envy']
    """
    sizes = _check_group_sizes(group_sizes, n_groups)
    names = check_group_names(group_names, n_groups)
    truth = None
    if true_means is not None:
        truth = check_unit_array("true_means", true_means)
        if truth.shape != (n_groups, n_groups):
            raise DataError(f"true_means must have shape ({n_groups}, {n_groups}), got {truth.shape}")
    if fingerprint is not None and not isinstance(fingerprint, dict):
        raise ParameterTypeError(f"fingerprint must be a dict (version, seed, configuration), got {fingerprint!r}")
    explicit_root = rng is not None and not isinstance(rng, np.random.Generator)
    root = _as_root(rng)
    auditors = [OCEF(n_groups - 1, delta / n_groups, alpha, epsilon, group_size=int(sizes[i]), sigma=sigma,
                     omega=omega, rng=auditor_seed(root, i)) for i in range(n_groups)]
    params = {"n_groups": n_groups, "group_sizes": sizes.tolist(), "alpha": auditors[0].alpha, "delta": delta,
              "epsilon": auditors[0].epsilon, "sigma": auditors[0].sigma, "omega": auditors[0].omega}
    if fingerprint is not None:       # the system audited: a checkpoint resumes only against the same one
        params["fingerprint"] = jsonable(fingerprint)
    cum = [0.0] * n_groups                     # Σ_s μ_{k_s} per group (true means)
    min_budget = [math.inf] * n_groups          # min_t Z_t of constraint (7)
    step, checkpoint_steps, wall_before, resumed_from = 0, [], 0.0, None

    path = Path(checkpoint) if checkpoint is not None else None
    if path is not None and path.exists():
        state = _read_checkpoint(path)
        saved_root = _seed_from_record(state["seed"])
        if explicit_root and (saved_root.entropy, tuple(saved_root.spawn_key)) != (root.entropy, tuple(root.spawn_key)):
            raise DataError(f"checkpoint {path} was written by an audit with another seed "
                             f"({state['seed']}); use the same seed or another checkpoint file")
        for key, value in params.items():
            if jsonable(value) != state["params"].get(key):
                raise DataError(f"checkpoint {path} was written for another audit: {key} is "
                                 f"{state['params'].get(key)!r} there, {jsonable(value)!r} here")
        if (truth is not None) != ("truth" in state):
            raise DataError(f"checkpoint {path}: resume with true_means given iff the first run had them")
        root = saved_root
        auditors = [OCEF.from_dict(s) for s in state["auditors"]]
        step = int(state["step"])
        checkpoint_steps = [int(s) for s in state["checkpoint_steps"]]
        wall_before = float(state["wall_time"])
        resumed_from = step
        if truth is not None:
            cum = [float(v) for v in state["truth"]["cum"]]
            min_budget = [math.inf if v is None else float(v) for v in state["truth"]["min_budget"]]

    def save() -> None:
        checkpoint_steps.append(step)
        state = {"format": CHECKPOINT_FORMAT, "version": _version(), "seed": _seed_record(root), "params": params,
                 "step": step, "auditors": [a.to_dict() for a in auditors],
                 "checkpoint_steps": checkpoint_steps, "wall_time": wall_before + time.perf_counter() - start}
        if truth is not None:
            state["truth"] = {"cum": cum, "min_budget": [None if math.isinf(v) else v for v in min_budget]}
        # plain JSON data already (auditor states, finite floats): json.dumps, not the slower jsonable walk
        atomic_write_text(path, json.dumps(state, allow_nan=False) + "\n")

    batch = getattr(pull, "pull_many", None)
    with_step = batch is None and _takes_step(pull)
    from ocef._progress import progress_bar

    bar = progress_bar(progress, desc="audit steps", unit="step", initial=step)   # no total: verdicts end it
    start = time.perf_counter()
    try:
        while step < max_steps:
            running = [i for i, a in enumerate(auditors) if a.verdict is Verdict.RUNNING]
            if not running:
                break
            keys = [(i, auditors[i].next_arm(), auditors[i].t) for i in running]
            if batch is not None:
                rewards = list(batch(keys))
                if len(rewards) != len(keys):
                    raise ParameterError(f"pull_many returned {len(rewards)} rewards for {len(keys)} pulls")
            elif with_step:
                rewards = [pull(i, arm, t) for i, arm, t in keys]
            else:
                rewards = [pull(i, arm) for i, arm, _ in keys]
            for (i, arm, _), r in zip(keys, rewards):
                auditors[i].observe(arm, r)
                if truth is not None:
                    cum[i] += truth[i, arm]
                    z = safety_budget(cum[i], auditors[i].t, params["alpha"], truth[i, 0])
                    if z < min_budget[i]:
                        min_budget[i] = z
            step += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(running=len(running), refresh=False)
            if path is not None and step % every == 0:
                save()
        if path is not None and (not checkpoint_steps or checkpoint_steps[-1] != step):
            save()
    finally:
        if bar is not None:
            bar.close()
    wall = wall_before + time.perf_counter() - start

    rows = []
    for i, a in enumerate(auditors):
        row = {"group": i, "name": names[i], "size": int(sizes[i]),
               "verdict": a.verdict.value if a.verdict is not Verdict.RUNNING else Verdict.TIMEOUT.value,
               "duration": a.t}
        if truth is not None:
            mu = truth[i]
            row["cost"] = float(audit_cost(cum[i], a.t, mu[0]))
            row["constraint_held"] = bool(min_budget[i] >= -CONSTRAINT_TOL)
            row["true_envy"] = float(max(mu[1:].max() - mu[0], 0.0))
        rows.append(row)
    return LiveAuditResult(groups=pd.DataFrame(rows), params={**params, "max_steps": max_steps},
                           seed=_seed_record(root), steps=step, checkpoint_steps=tuple(checkpoint_steps),
                           wall_time=wall, resumed_from=resumed_from, version=_version(), auditors=tuple(auditors))


def _check_group_sizes(group_sizes, n_groups: int) -> np.ndarray:
    """|g| of every group as int64: whole numbers >= 1 (1.5 is refused, not truncated; Lemma 3 needs |g|)."""
    arr = np.asarray(group_sizes)
    if arr.ndim > 1 or arr.size not in (1, n_groups):
        raise ParameterError(f"group_sizes must hold one size per group ({n_groups}), got shape {arr.shape}")
    if arr.dtype.kind not in "iuf":
        raise ParameterTypeError(f"group_sizes must be integers >= 1, got {group_sizes!r}")
    for v in np.unique(arr):
        check_positive_int("group_sizes", int(v) if float(v).is_integer() else v)
    return np.broadcast_to(arr, (n_groups,)).astype(np.int64)


def _version() -> str:
    import ocef

    return ocef.__version__


def _read_checkpoint(path: Path) -> dict:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(f"checkpoint {path} cannot be read as JSON ({exc})") from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise DataError(f"checkpoint {path} is not a live-audit checkpoint (format {CHECKPOINT_FORMAT!r})")
    return state


# ====================================================================== in-process reference
def ask_tell_audit(problem, *, alpha: float, delta: float, epsilon: float, rng=None, max_steps: int = 10**6,
                   sigma: float = bounds.SIGMA, omega: float = bounds.OMEGA, checkpoint=None, every: int = 1000,
                   progress: bool = False) -> LiveAuditResult:
    """:func:`audit_live` of an :class:`ocef.envy.audit.AuditProblem` through its literal PULL-ARM
    (:func:`keyed_pull`), with costs from its ground truth: ``ocef audit-live`` against ``ocef
    simulate-service``, in process. A run resumed from its checkpoint ends as an uninterrupted one.

    Parameters
    ----------
    problem : ocef.envy.audit.AuditProblem
        The simulated recommender.
    alpha, delta, epsilon, rng, max_steps, sigma, omega, checkpoint, every, progress
        As in :func:`audit_live`.

    Returns
    -------
    LiveAuditResult

    Raises
    ------
    DataError
        If ``checkpoint`` belongs to another audit.

    Examples
    --------
    >>> from ocef.envy.audit import AuditProblem
    >>> from ocef.datasets import make_toy_envy
    >>> ask_tell_audit(AuditProblem(*make_toy_envy()), alpha=0.05, delta=0.05, epsilon=0.05, rng=7).groups["verdict"].tolist()
    ['envy', 'envy']
    """
    root = _as_root(rng)
    return audit_live(keyed_pull(problem, root), problem.n_groups, problem.sizes, alpha=alpha, delta=delta,
                      epsilon=epsilon, rng=root, max_steps=max_steps, sigma=sigma, omega=omega,
                      checkpoint=checkpoint, every=every, group_names=problem.group_names,
                      true_means=problem.arm_means, progress=progress)
