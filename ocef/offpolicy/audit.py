"""The off-policy fairness audit: per-group fairness of a target policy from the log of the current one.

:func:`offpolicy_audit` answers "would policy B be fairer than policy A, per user group and per item
group, judged from A's log?" with three estimands, each with an interval, and the gaps between
groups: the **exposure** of each item group under the target (a plug-in over the logged contexts),
the **utility** per group by the estimators of :mod:`ocef.offpolicy.estimators`, and the
**merit-aware item fairness** of REO (Dong et al. 2024, eq. 2-3) with importance-weighted merit
``U_k = N_k / M_k`` (delta-method intervals, :func:`ratio_covariance`; with uniform logging it is
``ocef reo``'s Algorithm 1). Every cell carries the diagnostics ``n_rows, ess, max_weight, support,
clicks`` and is null with its ``reason`` under one trust rule
(:func:`ocef.offpolicy.diagnostics.trust_reason`); the comparisons are one Holm family, and a
comparison that is not significant or involves an untrusted cell is ``"inconclusive"``. The
formulas, the rule and the coverage measured: ``docs/guide/offpolicy.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.offpolicy.columns import (factorize, gather, joint_codes, key_codes, lookup, missing, read_columns, sum_by,
                                    to_float, unique)
from ocef.offpolicy.inputs import check_log, target_columns
from ocef.results import Result, column_frame, column_records, jsonable, presents, rows_to_columns
from ocef.validation import CONFIDENCE, OneOrMore, Options, Rng, as_generator, validate_params
from ocef._progress import PROGRESS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["OffPolicyResult", "offpolicy_audit", "slate_audit", "SLATE_ESTIMATORS", "ratio_covariance", "utility_cell", "DM_NO_INTERVAL", "FAMILY", "EXPOSURE_NOTE",
           "UTILITY_ESTIMATORS", "AUDIT_INTERVALS"]

#: Estimators the audit offers for the utility (:mod:`ocef.offpolicy.estimators`).
UTILITY_ESTIMATORS = ("ips", "snips", "dm", "dr", "sndr", "switch-dr", "dros")
#: Intervals of the utility cells (:mod:`ocef.offpolicy.intervals`).
AUDIT_INTERVALS = ("wald", "bootstrap", "cressie-read", "gaussian", "clopper-pearson", "betting")
#: The family of the Holm adjustment, printed in every output.
FAMILY = "every row of pairs (all estimands, estimators and group pairs of this audit), Holm"
#: DM's rows carry no estimation error of the reward model: its interval is not printed.
DM_NO_INTERVAL = ("no interval: DM's rows leave out the reward model's error (its bias is not in the "
                  "interval); read DR")
EXPOSURE_NOTE = "plug-in over the logged contexts: the target's probabilities are known, no importance weighting"
ALL = "(all)"


@dataclass(frozen=True, eq=False)
class OffPolicyResult(Result):
    """Per-group fairness of a target policy estimated off-policy.

    Attributes
    ----------
    columns : mapping of str to mapping
        The three tables ``overall``, ``groups`` and ``pairs`` as columns (the command line prints
        them without importing pandas).
    overall : pandas.DataFrame
        One row: ``n_rows, n_users, target_form, estimators, interval, confidence, family,
        exposure_note, ess, max_weight, support, clicks`` (a slate audit: ``n_rows, n_slates,
        estimators, interval, confidence, family``).
    groups : pandas.DataFrame
        One row per estimand, estimator and group: ``estimand`` (exposure, utility,
        recommended_given_relevant, relative_utility, exposure_per_merit, reo_penalty), ``estimator``,
        ``side`` (user/item), ``user_group``, ``item_group``, ``estimate, ci_low, ci_high, confidence``,
        ``n_rows, ess, max_weight, support, clicks``, ``reason``, ``note``.
    pairs : pandas.DataFrame
        One row per comparison of two groups: ``estimand, estimator, side, user_group, group,
        reference, estimate`` (group minus reference), ``ci_low, ci_high, confidence, p_value,
        p_adjusted, significant, verdict`` ("group higher", "reference higher" or "inconclusive"),
        ``reason``.
    confidence : float
        The level of every interval.
    notes : tuple of str
        Remarks on the whole output.

    The three DataFrames are made from ``columns`` when first asked for.

    Examples
    --------
    >>> from ocef.datasets import make_toy_propensity_log
    >>> res = offpolicy_audit(*make_toy_propensity_log(), user_group="g", estimators=["ips"])
    >>> res.groups.query("estimand == 'exposure'")[["user_group", "estimate"]].values.tolist()
    [['(all)', 1.0], ['a', 1.0], ['b', 1.0]]
    """

    columns: Mapping[str, Mapping[str, Any]] = field(repr=False)
    confidence: float = 0.95
    notes: tuple = field(default=())

    @cached_property
    def overall(self) -> pd.DataFrame:
        """One row: the log, the target and the whole log's diagnostics."""
        return column_frame(self.columns["overall"])

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per estimand, estimator and group."""
        return column_frame(self.columns["groups"])

    @cached_property
    def pairs(self) -> pd.DataFrame:
        """One row per comparison of two groups."""
        return column_frame(self.columns["pairs"])

    @presents
    def to_frame(self) -> pd.DataFrame:
        """``groups`` (one row per estimand, estimator and group)."""
        return self.groups.copy()

    def summary(self) -> pd.DataFrame:
        """The comparisons, most significant first.

        Returns
        -------
        pandas.DataFrame
            ``pairs`` sorted by ``p_adjusted``.

        Examples
        --------
        >>> from ocef.datasets import make_toy_propensity_log
        >>> offpolicy_audit(*make_toy_propensity_log(), user_group="g", estimators=["ips"]).summary()["verdict"][0]
        'inconclusive'
        """
        return self.pairs.sort_values("p_adjusted", na_position="last").reset_index(drop=True)

    @presents
    def to_dict(self) -> dict:
        """The result as a strict-JSON record: ``overall``, ``groups`` and ``pairs`` (lists of
        records), ``confidence`` and ``notes``."""
        return {**{t: column_records(self.columns[t]) for t in ("overall", "groups", "pairs")},
                "confidence": jsonable(self.confidence), "notes": jsonable(self.notes)}


def _column(values: list):
    """A result column as pandas would hold it: numbers as one numeric array (float as soon as one
    is a float or missing), anything else a list."""
    if all(isinstance(v, (bool, np.bool_)) for v in values) and values:
        return np.array(values, dtype=bool)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values) and values:
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
           for v in values) and values:
        return np.array(values, dtype=float)
    return list(values)


def _table(rows: list[dict], cols: Sequence[str]) -> dict:
    """Rows (dicts) as the columns ``cols``."""
    return {c: _column(values) for c, values in rows_to_columns(rows, cols).items()}


# ------------------------------------------------------------------------------- per-row frame


def _attach(log, side, col, key, name):
    """The log with column ``col`` taken from the side table ``side`` (key ``key``), or its own."""
    if side is None:
        if col not in log:
            raise DataError(f"log has no column {col} (give it, or a side table {name} with columns {key}, {col})")
        return log
    side = read_columns(side, name=name)
    if key not in side or col not in side:
        raise DataError(f"{name} needs columns {key} and {col}")
    at = lookup([log[key]], [side[key]], names=("log", name), keys=(key,))
    values = gather(side[col], at, np.nan)
    bad = (at < 0) | missing(values)
    if bad.any():
        raise DataError(f"{name}: {key} {log[key][int(np.argmax(bad))]!r} of the log has no {col}")
    return {**{c: v for c, v in log.items() if c != col}, col: values}


class _Contexts:
    """The contexts (values of the context columns ``keys``) of the log's rows and of the target's
    table rows, coded jointly (``log`` and ``table``: codes in ``0 .. n - 1``); no ``keys``: one
    context, the same for every row."""

    def __init__(self, log, table, keys):
        self.keys = keys
        self.n_log = len(log["item"])
        if keys:
            self.log, self.table, self.n = joint_codes([log[c] for c in keys], [table[c] for c in keys],
                                                       names=("log", "target"), keys=keys)

    def _count(self, rows):
        return self.n_log if rows is None else int(np.count_nonzero(rows))

    def per_row(self, values, rows=None):
        """Per log row (of the mask ``rows``): the sum of ``values`` (one per table row) over its context."""
        if not self.keys:
            return np.repeat(float(np.sum(values)), self._count(rows))
        return sum_by(self.table, self.n, values)[self.log if rows is None else self.log[rows]]

    def per_row_group(self, values, group, order, rows=None):
        """Per log row (of ``rows``) and group: the sum of ``values`` over its context and the group
        (``group``: each table row's group code; the columns are the codes ``order``)."""
        n_groups = len(order)
        if not self.keys:
            return np.tile(sum_by(group, n_groups, values)[order], (self._count(rows), 1))
        sums = sum_by(self.table * n_groups + group, self.n * n_groups, values).reshape(self.n, n_groups)
        return np.ascontiguousarray(sums[self.log if rows is None else self.log[rows]][:, order])


def _values(ctx, prob, q, group, order, rows):
    """Per log row of ``rows``: ``sum_a pi(a|x) q(a)`` in total and per item group (``q`` per table row)."""
    pq = prob * q
    return ctx.per_row(pq, rows), ctx.per_row_group(pq, group, order, rows)


def _reward_model(log, table, ctx, at_table, rng, group, order):
    """The reward model's predictions: ``reward_hat`` of the target table when given, else
    :func:`ocef.offpolicy.reward_model.cross_fit_reward_model` (K = 5 folds, fewer on a log of
    fewer rows) keyed on the action (item, or (item, position) when the position is part of the
    context): per fold, the shrunk mean reward of the key on the other folds, their overall mean
    for a target action the log never shows. Returns (q_hat at the logged action, v_hat = sum_a
    pi(a|x) q_hat(a) per row (DM's rows), the same per item group (n, K))."""
    from ocef.offpolicy.reward_model import cross_fit_reward_model

    prob = table["probability"]
    if "reward_hat" in table:
        rhat = np.nan_to_num(table["reward_hat"], nan=0.0)
        qhat = gather(rhat, at_table, 0.0)
        vhat, V = _values(ctx, prob, rhat, group, order, None)
        return qhat, vhat, V
    act = ["item"] + (["position"] if "position" in ctx.keys else [])
    n = len(log["item"])
    code, n_cells = _cell_codes(log, table, act)
    reward = to_float(log["reward"])
    model = cross_fit_reward_model(reward, code[:n], n_cells, n_folds=min(5, max(n, 2)), rng=rng)
    qhat = model.q_hat_logged(code[:n])
    vhat, V = np.empty(n), np.empty((n, len(order)))
    for f in range(model.tables.shape[0]):
        at = model.fold == f
        q = model.tables[f][code[n:]]
        base = float(reward[~at].mean())       # shrunk_means' value of a key unseen in training
        vhat[at], V[at] = _values(ctx, prob, np.where(np.isnan(q), base, q), group, order, at)
    return qhat, vhat, V


def _cell_codes(log, table, act):
    """Codes of the actions ``act`` of the log's rows, then of the table's, numbered in order of first appearance."""
    return key_codes([np.concatenate([log[c], table[c]]) for c in act], in_order=True)


def _rows(log, table, keys):
    """The target's probability ``pi`` and recommendation probability ``rho`` of each logged
    action, ``w = pi / p``, the rewards, and each row's row of the target table (-1 if none)."""
    on = keys + ["item"]
    at = lookup([log[c] for c in on], [table[c] for c in on], names=("log", "target"), keys=on)
    pi = gather(table["probability"], at, 0.0)
    rho = np.nan_to_num(gather(to_float(table["recommended"]), at, 0.0), nan=0.0)
    return {"pi": pi, "rho": rho, "w": pi / to_float(log["propensity"]), "reward": to_float(log["reward"]),
            "at": at}


def _support(log, table, ctx):
    """Per row: the target's probability in the row's context on actions the log never shows (there)."""
    act = ["item"] + (["position"] if "position" in ctx.keys else [])
    seen = lookup([table[c] for c in act], [log[c] for c in act], names=("target", "log"), keys=act) >= 0
    return ctx.per_row(table["probability"] * ~seen)


def _item_levels(log, table, item_group, item_groups):
    """The item groups: their names (sorted as text), the items of the log and of the target, each
    one's group code (codes in the groups' own sorted order, as pandas groups them) and, per name,
    its code; one group "(all)" without ``item_group``."""
    items = unique(np.concatenate([log["item"], table["item"]]))
    if item_group is None:
        return [ALL], items, np.zeros(len(items), dtype=np.int64), np.zeros(1, dtype=np.int64)
    src = read_columns(item_groups, name="item_groups") if item_groups is not None else log
    at = lookup([items], [src["item"]], names=("target", "item_groups" if item_groups is not None else "log"),
                keys=("item",))
    values = gather(src[item_group], at, np.nan)
    bad = (at < 0) | missing(values)
    if bad.any():
        raise DataError(f"item {items[int(np.argmax(bad))]!r} of the target has no {item_group} "
                        "(give an item_groups side table)")
    names = sorted(unique(values).tolist(), key=str)
    level, _ = factorize(values)
    code_of = dict(zip(values.tolist(), level.tolist()))
    return names, items, level, np.array([code_of[v] for v in names], dtype=np.int64)


def _groups_of(items, level, values, *, name):
    """The group code of each of ``values`` (items); a ``DataError`` for an item without a group."""
    at = lookup([values], [items], names=("items", name), keys=("item",))
    if (at < 0).any():
        raise DataError(f"{name}: item {values[int(np.argmax(at < 0))]!r} has no item group")
    return level[at]


# ------------------------------------------------------------------------------------ statistics


def _z(confidence):
    from ocef.inference import normal as norm

    return float(norm.ppf(0.5 + confidence / 2))


def _wald(values, confidence):
    x = np.asarray(values, dtype=float)
    n = x.size
    if n < 2:
        return np.nan if n == 0 else float(x.mean()), np.nan, np.nan, np.nan, "no interval: fewer than 2 rows"
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(n))
    z = _z(confidence)
    return m, se, m - z * se, m + z * se, None


def ratio_covariance(A, B, *, same_rows: bool):
    """Covariance ``Gamma`` of ``U = N / M`` with ``N = mean(A, axis=0)`` and ``M = mean(B, axis=0)`` (delta method).

    ``Gamma = J C J^T`` with ``J = [diag(1/M), diag(-N/M^2)]`` and ``C`` the covariance of the row
    means (the empirical covariance of the rows divided by ``n``, ``1/n`` normalization, as the
    multinomial covariance of Algorithm 1); when ``A`` and ``B`` come from different logs
    (``same_rows=False``) their cross-covariance is 0. With 0/1 group indicators in ``A`` and a
    constant propensity in ``B`` this is the full multinomial Gamma of
    :func:`ocef.reo.utility_covariance`.

    Parameters
    ----------
    A : array_like, shape (n_a, K)
        Per-row numerator terms of the K groups.
    B : array_like, shape (n_b, K)
        Per-row denominator terms.
    same_rows : bool
        ``A`` and ``B`` are terms of the same rows (``n_a == n_b``).

    Returns
    -------
    U : numpy.ndarray, shape (K,)
    gamma : numpy.ndarray, shape (K, K)

    Examples
    --------
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    >>> B = 2 * np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    >>> U, G = ratio_covariance(A, B, same_rows=False)
    >>> U.round(3).tolist(), np.diag(G).round(4).tolist()
    ([0.333, 0.5], [0.037, 0.375])
    """
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    N, M = A.mean(axis=0), B.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):   # a group without merit (M = 0): NaN, flagged by the caller
        U = N / M
        J1, J2 = np.diag(1.0 / M), np.diag(-N / M ** 2)
        if same_rows:
            Z = np.hstack([A, B])
            C = np.cov(Z, rowvar=False, bias=True).reshape(Z.shape[1], Z.shape[1]) / len(Z)
            J = np.hstack([J1, J2])
            gamma = J @ C @ J.T
        else:
            CA = np.cov(A, rowvar=False, bias=True).reshape(A.shape[1], A.shape[1]) / len(A)
            CB = np.cov(B, rowvar=False, bias=True).reshape(B.shape[1], B.shape[1]) / len(B)
            gamma = J1 @ CA @ J1.T + J2 @ CB @ J2.T
    return U, gamma


def _diagnostics(w, reward, miss):
    """The cell's diagnostics (:func:`ocef.offpolicy.diagnostics.weight_diagnostics`) and its support."""
    from ocef.offpolicy.diagnostics import weight_diagnostics

    d = weight_diagnostics(np.asarray(w, dtype=float), np.asarray(reward, dtype=float))
    return {"n_rows": int(d.n_rows), "ess": float(d.ess), "max_weight": float(d.max_weight),
            "support": 1.0 - float(np.mean(miss)) if d.n_rows else np.nan, "clicks": int(d.clicks),
            "_wd": d}


def _distrust(d, interval="wald", estimator=None):
    """The trust rule, :func:`ocef.offpolicy.diagnostics.trust_reason` (no rows, no positive weight,
    any support deficit, the interval's measured floor on ``ess_clicks``), prefixed ``untrusted:``."""
    from ocef.offpolicy.diagnostics import trust_reason

    if d["n_rows"] == 0:
        return "untrusted: no logged row in the group"
    why = trust_reason(d["_wd"], interval, estimator=estimator, support_mass=1.0 - d["support"])
    return f"untrusted: {why}" if why else None


# ------------------------------------------------------------------------------------- utility


def _terms(name, reward, weight, qhat, vhat):
    """Per-row pseudo-outcomes of estimator ``name`` (their mean is the estimate), from
    :mod:`ocef.offpolicy.estimators`; self-normalized estimators are linearized (delta method) so
    that every interval applies to them."""
    from ocef.offpolicy.estimators import estimator_terms

    return np.asarray(estimator_terms(name, reward=reward, weight=weight, q_hat_logged=qhat, dm=vhat), dtype=float)


def _interval(name, terms, weight, reward, estimator, confidence, rng):
    """``(estimate, ci_low, ci_high, reason)`` of interval ``name`` of :data:`ocef.offpolicy.intervals.INTERVALS`:
    on the estimator's rows, or, for the intervals of the IPS value (Cressie-Read, Gaussian,
    Clopper-Pearson, betting), on (weight, reward) when the estimator is IPS (else null with the reason)."""
    from ocef.offpolicy.intervals import INTERVALS

    function, on_rows = INTERVALS[name]
    if on_rows:
        out = function(terms, confidence=confidence, **({"rng": rng} if name == "bootstrap" else {}))
    elif estimator != "ips":
        return float(np.mean(terms)), np.nan, np.nan, (f"no interval: the {name} interval is one of the IPS value "
                                                       f"(weights and rewards), not of {estimator}")
    else:
        out = function(weight, reward, confidence=confidence)
        if name == "cressie-read":      # its interval goes with IPS's point estimate here (its own MLE aside)
            out = out._replace(estimate=float(np.mean(terms)))
    return out.estimate, out.ci_low, out.ci_high, out.reason


def utility_cell(terms, weight, reward, missing=None, *, estimator: str = "ips", interval: str = "wald",
                 confidence: float = 0.95, rng=None) -> dict:
    """One utility cell of the audit: the estimate and interval of the mean of the rows ``terms``,
    the diagnostics, and the trust rule (null with its reason below it).

    Parameters
    ----------
    terms : array_like, shape (n,)
        The estimator's per-row pseudo-outcomes (:func:`ocef.offpolicy.estimators.estimator_terms`).
    weight, reward : array_like, shape (n,)
        Importance weights and rewards of the rows (diagnostics).
    missing : array_like, shape (n,), optional
        Per row, the target's probability on actions the log never shows (default 0).
    estimator : str, default "ips"
        Its name (DM gets no interval: :data:`DM_NO_INTERVAL`).
    interval : str, default "wald"
        A key of :data:`ocef.offpolicy.intervals.INTERVALS`.
    confidence : float, default 0.95
    rng : None, int or Generator
        The bootstrap's resamples.

    Returns
    -------
    dict
        ``estimate, ci_low, ci_high, n_rows, ess, max_weight, support, clicks, reason``.

    Examples
    --------
    >>> cell = utility_cell([2.0, 0.0] * 50, [2.0, 1.0] * 50, [1, 0] * 50)
    >>> round(cell["estimate"], 3), round(cell["ess"], 1), cell["reason"]
    (1.0, 90.0, None)
    """
    terms = np.asarray(terms, dtype=float)
    miss = np.zeros(terms.size) if missing is None else np.asarray(missing, dtype=float)
    d = _diagnostics(weight, reward, miss)
    reason = _distrust(d, interval, estimator)
    d.pop("_wd")
    if reason is not None:
        return {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, **d, "reason": reason}
    est, lo, hi, why = _interval(interval, terms, weight, reward, estimator, confidence, rng)
    if estimator == "dm":
        why = DM_NO_INTERVAL
    if why:
        lo = hi = np.nan
    return {"estimate": est, "ci_low": lo, "ci_high": hi, **d, "reason": why}


# ------------------------------------------------------------------------------------- the audit


@validate_params(confidence=CONFIDENCE, interval=Options(*AUDIT_INTERVALS), rng=Rng(), progress=PROGRESS,
                 estimators=OneOrMore(Options(*UTILITY_ESTIMATORS)))
def offpolicy_audit(log, target, *, user_group: str | None = None, item_group: str | None = None,
                    user_groups=None, item_groups=None, estimators: Sequence[str] = ("ips", "snips", "dr"),
                    interval: str = "wald", confidence: float = 0.95, rng=None,
                    progress=False) -> OffPolicyResult:
    """Per-group fairness of ``target`` from ``log`` (exposure, utility, merit-aware REO) with intervals.

    Parameters
    ----------
    log : str, path, pandas.DataFrame or dict of columns
        ``user, item, reward, propensity`` [, ``position``, group columns]
        (:mod:`ocef.offpolicy.inputs`), read as numpy columns (:mod:`ocef.offpolicy.columns`).
    target : pandas.DataFrame, path, dict of columns or ScoredTarget
        The target policy: action probabilities, a top-k log, or a scoring function and sampler.
    user_group, item_group : str, optional
        Group columns (of the log, or of the side tables).
    user_groups, item_groups : pandas.DataFrame, path or dict of columns, optional
        Side tables ``user, <user_group>`` and ``item, <item_group>``.
    estimators : sequence of str, default ("ips", "snips", "dr")
        Utility estimators among :data:`UTILITY_ESTIMATORS`.
    interval : str, default "wald"
        Interval of the utility cells, among :data:`AUDIT_INTERVALS`.
    confidence : float, default 0.95
        Two-sided level.
    rng : None, int or Generator
        Folds of the cross-fitted reward model (DM, DR, ...) when the target has no ``reward_hat``.
    progress : bool or "auto", default False
        A bar with the time left on stderr (``"auto"``: when stderr is a terminal); results unchanged.

    Returns
    -------
    OffPolicyResult

    Raises
    ------
    ocef.errors.DataError
        Bad log or target (:func:`ocef.offpolicy.inputs.check_log`, :func:`~ocef.offpolicy.inputs.target_table`).
    ocef.errors.ParameterError
        An unknown estimator.

    Examples
    --------
    >>> log = pd.DataFrame({"user": range(6), "item": [0, 1, 2] * 2, "reward": [1, 0, 0, 1, 1, 0],
    ...                     "propensity": 1 / 3, "tier": ["x", "y", "y"] * 2})
    >>> target = pd.DataFrame({"item": [0, 1, 2], "probability": [0.5, 0.25, 0.25]})
    >>> res = offpolicy_audit(log, target, item_group="tier", estimators=["ips"])
    >>> res.groups.query("estimand == 'exposure'")[["item_group", "estimate"]].values.tolist()
    [['x', 0.5], ['y', 0.5]]
    """
    unknown = [e for e in estimators if e not in UTILITY_ESTIMATORS]
    if unknown or not len(estimators):
        raise ParameterError(f"estimators must be among {UTILITY_ESTIMATORS}, got {list(estimators)!r}")
    log = check_log(read_columns(log))
    notes = _reward_range(to_float(log["reward"]), interval, item_group)
    if user_group is not None:
        log = _attach(log, user_groups, user_group, "user", "user_groups")
    if item_group is not None:
        log = _attach(log, item_groups, item_group, "item", "item_groups")
    table, info = target_columns(target, log)
    keys = info["keys"]
    rows = _rows(log, table, keys)
    ctx = _Contexts(log, table, keys)
    miss = _support(log, table, ctx)
    reward = rows["reward"]
    w = rows["w"]
    n_log = len(reward)

    grows, pairs = [], []
    base = {"confidence": confidence, "note": None}

    # ---- exposure of item groups (plug-in)
    names, items, level, order = _item_levels(log, table, item_group, item_groups)
    group = _groups_of(items, level, table["item"], name="target")
    X = ctx.per_row_group(table["probability"], group, order)
    rng = as_generator(rng)
    qhat, vhat, V = _reward_model(log, table, ctx, rows["at"], rng, group, order)
    user_sets = [(ALL, np.ones(n_log, bool))]
    if user_group is not None:
        user_sets += [(g, np.asarray(log[user_group] == g, dtype=bool))
                      for g in sorted(unique(log[user_group]).tolist(), key=str)]
    for ug, mask in user_sets:
        for j, ig in enumerate(names):
            m, se, lo, hi, reason = _wald(X[mask, j], confidence)
            note = EXPOSURE_NOTE + ("; exact: the target gives the group the same mass in every logged context"
                                    if se == 0 else "")
            grows.append({**base, "estimand": "exposure", "estimator": "plug-in", "side": "item", "user_group": ug,
                          "item_group": ig, "estimate": m, "ci_low": lo, "ci_high": hi, "n_rows": int(mask.sum()),
                          "ess": np.nan, "max_weight": np.nan, "support": np.nan, "clicks": np.nan,
                          "reason": reason, "note": note})
        for (ja, a), (jb, b) in combinations(enumerate(names), 2):
            pairs.append(_pair("exposure", "plug-in", "item", a, b, *_wald(X[mask, ja] - X[mask, jb], confidence),
                               confidence, user_group=ug))

    # ---- utility per user group and per item group (the reward its items bring)
    def cell_terms(name, side, g):
        if side == "user":
            mask = dict(user_sets)[g]
            return mask, reward[mask], _terms(name, reward[mask], w[mask], qhat[mask], vhat[mask])
        j = names.index(g)
        ind = S[:, j]
        return np.ones(n_log, bool), reward * ind, _terms(name, reward * ind, w, qhat * ind, V[:, j])

    # the log's rows of each item group (0/1), one column per name
    S = np.column_stack([np.asarray(log[item_group] == g, dtype=bool) for g in names]).astype(float) \
        if item_group is not None else None
    cells = [("user", g) for g, _ in user_sets] + ([("item", g) for g in names] if item_group is not None else [])
    from ocef._progress import progress_bar

    bar = progress_bar(progress, total=len(estimators) * len(cells), desc="off-policy cells", unit="cell")
    for name in estimators:
        done = {}
        for side, g in cells:
            sel, r_g, terms = cell_terms(name, side, g)
            cell = utility_cell(terms, w[sel], r_g, miss[sel], estimator=name, interval=interval,
                                confidence=confidence, rng=rng)
            bar.update()
            done[(side, g)] = (terms, cell["reason"])
            grows.append({**base, "estimand": "utility", "estimator": name, "side": side,
                          "user_group": g if side == "user" else ALL, "item_group": g if side == "item" else ALL,
                          **cell})
        for side in ("user", "item"):
            gs = [g for s, g in cells if s == side and g != ALL]
            for a, b in combinations(gs, 2):
                (ta, ra), (tb, rb) = done[(side, a)], done[(side, b)]
                why = ra or rb
                if why:
                    pairs.append(_pair("utility", name, side, a, b, np.nan, np.nan, np.nan, np.nan,
                                       f"inconclusive: {why}", confidence))
                elif side == "item":                           # the same rows: paired differences
                    pairs.append(_pair("utility", name, side, a, b, *_wald(ta - tb, confidence), confidence))
                else:                                          # disjoint rows: independent groups
                    pairs.append(_independent_pair("utility", name, side, a, b, ta, tb, confidence))

    bar.close()
    # ---- merit-aware item fairness (REO with importance-weighted merit)
    if item_group is not None:
        grows_reo, pairs_reo = _merit_block(log, rows, info, S, names, items, level, order, X, confidence)
        grows += grows_reo
        pairs += pairs_reo

    overall = [{"n_rows": n_log, "n_users": factorize(log["user"])[1], "target_form": info["form"],
                "estimators": ",".join(estimators), "interval": interval, "confidence": confidence,
                "family": FAMILY, "exposure_note": EXPOSURE_NOTE,
                "ess": _diagnostics(w, reward, miss)["ess"], "max_weight": float(w.max()),
                "support": 1.0 - float(miss.mean()), "clicks": int((reward > 0).sum())}]
    return OffPolicyResult({"overall": _table(overall, list(overall[0])), "groups": _table(grows, _GROUP_COLS),
                            "pairs": _adjust(pairs, confidence)}, confidence=confidence, notes=tuple(notes))


_GROUP_COLS = ["estimand", "estimator", "side", "user_group", "item_group", "estimate", "ci_low", "ci_high",
               "confidence", "n_rows", "ess", "max_weight", "support", "clicks", "reason", "note"]


#: The intervals whose guarantee is for rewards in [0, 1] (their bounds use rmin = 0, rmax = 1).
_UNIT_REWARD_INTERVALS = ("cressie-read", "clopper-pearson", "betting")


def _reward_range(r: np.ndarray, interval: str, item_group) -> list[str]:
    """Rewards outside [0, 1]: refused by the intervals built for [0, 1] and by the merit-aware REO (a
    negative merit), else a note (the estimates and the Wald/bootstrap intervals hold for any bounded reward)."""
    if not r.size or (r.min() >= 0 and r.max() <= 1):
        return []
    span = f"rewards in [{r.min():g}, {r.max():g}]"
    if interval in _UNIT_REWARD_INTERVALS:
        raise DataError(f"log: {span}, outside [0, 1], which the {interval} interval assumes: rescale the rewards "
                        f"to [0, 1], (r - min) / (max - min), or use interval 'wald' or 'bootstrap'")
    if item_group is not None and r.min() < 0:
        raise DataError(f"log: negative rewards (min {r.min():g}) cannot be merit: the merit-aware REO of "
                        f"item_group {item_group!r} reads rewards as merit >= 0; rescale the rewards to [0, 1] or "
                        f"audit without the item group")
    return [f"{span}, outside [0, 1]: the estimates and {interval} intervals hold for bounded rewards, but "
            f"'clicks' (and the trust floor on ess_clicks) counts the rows with reward > 0"]


_PAIR_COLS = ["estimand", "estimator", "side", "user_group", "group", "reference", "estimate", "se", "ci_low", "ci_high",
              "reason", "confidence"]


def _pair(estimand, estimator, side, a, b, m, se, lo, hi, reason, confidence, user_group=ALL):
    return {"estimand": estimand, "estimator": estimator, "side": side, "user_group": user_group, "group": a, "reference": b,
            "estimate": m, "se": se, "ci_low": lo, "ci_high": hi, "reason": reason, "confidence": confidence}


def _independent_pair(estimand, estimator, side, a, b, ta, tb, confidence):
    """The difference of the means of two independent sets of rows (disjoint groups), Wald."""
    ma, sa = _wald(ta, confidence)[:2]
    mb, sb = _wald(tb, confidence)[:2]
    se, z = float(np.hypot(sa, sb)), _z(confidence)
    return _pair(estimand, estimator, side, a, b, ma - mb, se, ma - mb - z * se, ma - mb + z * se, None, confidence)


_PAIR_OUT = ["estimand", "estimator", "side", "user_group", "group", "reference", "estimate", "ci_low", "ci_high",
             "confidence", "p_value", "p_adjusted", "significant", "verdict", "reason"]


def _adjust(pairs, confidence):
    """The comparisons (dicts of :func:`_pair`) as columns, with p-values and one Holm family."""
    from ocef.inference import holm_adjust
    from ocef.inference import normal as norm

    est = np.array([r["estimate"] for r in pairs], dtype=float)
    se = np.array([r["se"] for r in pairs], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        zval = est / se
    p = 2 * norm.sf(np.abs(zval))
    # se == 0: the difference is exact (the target's own design, e.g. a context-free target's exposure)
    p = np.where(se > 0, p, np.where(se == 0, np.where(est != 0, 0.0, 1.0), np.nan))
    adjusted = holm_adjust(p) if len(p) else p
    significant = adjusted <= 1 - confidence
    out = _table(pairs, [c for c in _PAIR_COLS if c != "se"])
    out.update(p_value=p, p_adjusted=adjusted, significant=significant,
               verdict=np.where(~significant, "inconclusive", np.where(est > 0, "group higher", "reference higher")))
    return {c: out[c] for c in _PAIR_OUT}


def _merit_block(log, rows, info, S, names, items, level, order, X, confidence):
    """U_k, delta_U_k, Delta_REO and exposure/merit per item group (module docstring); ``S``: the
    rows of each item group (0/1)."""
    from ocef.reo.estimators import reo_jacobians, reo_penalty, relative_group_utilities

    z = _z(confidence)
    r = rows["reward"]
    p = to_float(log["propensity"])
    B = S * (r / p)[:, None]                                    # importance-weighted merit terms
    on = info["on_policy"]
    if on is not None:                                          # the target's own rewards (REO's default log)
        g_on = _groups_of(items, level, on["item"], name="target")
        k_bar = len(on["item"]) / factorize(on["user"])[1]
        A = (g_on[:, None] == order[None, :]).astype(float) * to_float(on["reward"])[:, None] * k_bar
        U, gamma = ratio_covariance(A, B, same_rows=False)
        source = "the target's own rewards (on-policy) over importance-weighted merit"
    else:
        A = S * (rows["rho"] * r / p)[:, None]
        U, gamma = ratio_covariance(A, B, same_rows=True)
        source = "importance-weighted (IPS) over importance-weighted merit"
    relevant = (S * (r > 0)[:, None]).sum(axis=0)
    grows, pairs = [], []
    reason = {g: (f"untrusted: no relevant row of group {g} in the log (its merit is 0)" if c < 1 else None)
              for g, c in zip(names, relevant)}
    base = {"confidence": confidence, "side": "item", "user_group": ALL, "ess": np.nan, "max_weight": np.nan,
            "support": np.nan, "n_rows": len(r)}
    se_U = np.sqrt(np.clip(np.diag(gamma), 0, None))
    for k, g in enumerate(names):
        bad = reason[g]
        grows.append({**base, "estimand": "recommended_given_relevant", "estimator": "ratio", "item_group": g,
                      "estimate": np.nan if bad else U[k], "ci_low": np.nan if bad else U[k] - z * se_U[k],
                      "ci_high": np.nan if bad else U[k] + z * se_U[k], "clicks": int(relevant[k]), "reason": bad,
                      "note": source})
    all_ok = not any(reason.values()) and len(names) > 1
    why_all = next((v for v in reason.values() if v), None) or (None if len(names) > 1 else "one item group")
    if all_ok:
        G, H = reo_jacobians(U)
        sigma = G.T @ gamma @ G
        dU, pen = relative_group_utilities(U), float(reo_penalty(U))
        se_dU = np.sqrt(np.clip(np.diag(sigma), 0, None))
        se_pen = float(np.sqrt(max(H @ sigma @ H, 0.0))) if pen > 0 else np.nan
    for k, g in enumerate(names):
        grows.append({**base, "estimand": "relative_utility", "estimator": "delta", "item_group": g,
                      "estimate": dU[k] if all_ok else np.nan,
                      "ci_low": dU[k] - z * se_dU[k] if all_ok else np.nan,
                      "ci_high": dU[k] + z * se_dU[k] if all_ok else np.nan, "clicks": int(relevant[k]),
                      "reason": None if all_ok else why_all, "note": "delta_U_k of REO (eq. 3)"})
    note = "Delta_REO (eq. 2)"
    if all_ok and not (pen - z * se_pen > 0):
        note += "; delta method unreliable near 0 (read the per-group delta_U intervals, see ocef.reo)"
    grows.append({**base, "estimand": "reo_penalty", "estimator": "delta", "item_group": ALL,
                  "estimate": pen if all_ok else np.nan, "ci_low": pen - z * se_pen if all_ok else np.nan,
                  "ci_high": pen + z * se_pen if all_ok else np.nan, "clicks": int(relevant.sum()),
                  "reason": None if all_ok else why_all, "note": note})
    # exposure / merit: plug-in exposure over importance-weighted merit, on the same rows
    E, gam_e = ratio_covariance(X, B, same_rows=True)
    se_E = np.sqrt(np.clip(np.diag(gam_e), 0, None))
    for k, g in enumerate(names):
        bad = reason[g]
        grows.append({**base, "estimand": "exposure_per_merit", "estimator": "ratio", "item_group": g,
                      "estimate": np.nan if bad else E[k], "ci_low": np.nan if bad else E[k] - z * se_E[k],
                      "ci_high": np.nan if bad else E[k] + z * se_E[k], "clicks": int(relevant[k]), "reason": bad,
                      "note": "exposure under the target / importance-weighted merit"})
    for (ka, a), (kb, b) in combinations(enumerate(names), 2):
        why = reason[a] or reason[b]
        if why:
            pairs.append(_pair("recommended_given_relevant", "ratio", "item", a, b, np.nan, np.nan, np.nan, np.nan,
                               f"inconclusive: {why}", confidence))
            continue
        d = U[ka] - U[kb]
        se = float(np.sqrt(max(gamma[ka, ka] + gamma[kb, kb] - 2 * gamma[ka, kb], 0.0)))
        pairs.append(_pair("recommended_given_relevant", "ratio", "item", a, b, d, se, d - z * se, d + z * se, None,
                           confidence))
    return grows, pairs


#: slate estimator -> (function of ocef.offpolicy.slate, logging column, target column)
SLATE_ESTIMATORS = {"iips": ("iips_terms", "propensity", "target_probability"),
                    "rips": ("rips_terms", "propensity_prefix", "target_probability_prefix"),
                    "sips": ("sips_terms", "propensity_slate", "target_probability_slate"),
                    "pseudo-inverse": ("pseudo_inverse_terms", "propensity", "target_probability"),
                    "cascade-dr": ("cascade_dr_terms", "propensity_prefix", "target_probability_prefix")}


def _pseudo_inverse_rows(index, position, reward_s, pb, pe):
    """Per-slate rows of the pseudo-inverse estimator (:func:`ocef.offpolicy.slate.pseudo_inverse_terms`)
    from the per-slot marginals of the log rows: slates of one length L, slots ordered by position."""
    from ocef.offpolicy.slate import pseudo_inverse_terms

    length = np.bincount(index)
    if length.min() != length.max():
        raise DataError("the pseudo-inverse estimator needs slates of one length: slate lengths range from "
                        f"{length.min()} to {length.max()}")
    order = np.lexsort((position, index))
    shape = (length.size, int(length[0]))
    return pseudo_inverse_terms(reward_s, pb[order].reshape(shape), pe[order].reshape(shape))


@validate_params(confidence=CONFIDENCE, interval=Options(*AUDIT_INTERVALS[:2]), rng=Rng())
def slate_audit(log, *, user_group: str | None = None, estimators: Sequence[str] = ("iips", "rips"),
                interval: str = "wald", confidence: float = 0.95, q_hat=None, target_action_dist=None,
                rng=None) -> OffPolicyResult:
    """Utility of a target ranking policy per user group from a slate log (IIPS, RIPS, standard slate
    IPS, pseudo-inverse, Cascade-DR).

    The log has one row per (slate, slot): ``slate_id``, ``position`` (0-based), ``reward``, the user
    group column and, per estimator, both policies' probabilities of the logged slate: the
    item-position marginals ``propensity``/``target_probability`` (IIPS, pseudo-inverse), the prefix
    ones ``*_prefix`` (RIPS, Cascade-DR, which also needs ``item``) or the whole-slate ones ``*_slate``
    (SIPS); the columns and estimators: ``docs/guide/offpolicy.md``. The estimators are
    :mod:`ocef.offpolicy.slate`'s; cells and comparisons as in :func:`offpolicy_audit`, slates the units.

    Parameters
    ----------
    log : str, path, pandas.DataFrame or dict of columns
        The slate log.
    user_group : str, optional
        User-group column (constant within a slate).
    estimators : sequence of {"iips", "rips", "sips", "pseudo-inverse", "cascade-dr"}, default ("iips", "rips")
        The slate estimators.
    interval : {"wald", "bootstrap"}, default "wald"
        The interval of the per-slate pseudo-outcomes.
    confidence : float, default 0.95
        Two-sided level.
    q_hat, target_action_dist : array_like, shape (n_rows, n_actions), optional
        Cascade-DR's inputs (:func:`ocef.offpolicy.slate.cascade_dr_terms`), one row per log row.
    rng : None, int or Generator
        The bootstrap's resamples.

    Returns
    -------
    OffPolicyResult
        ``groups``: estimand ``slate_utility`` per user group; ``pairs``: their differences (Holm).

    Raises
    ------
    ocef.errors.DataError
        A missing column; slates of different lengths for the pseudo-inverse estimator.

    Examples
    --------
    >>> from ocef.datasets import make_toy_propensity_log
    >>> res = slate_audit(make_toy_propensity_log(400, slate=True).log, estimators=["iips"])
    >>> res.groups[["estimate", "ci_low", "ci_high"]].round(3).values.tolist()
    [[0.726, 0.656, 0.795]]
    """
    from ocef.offpolicy import slate

    unknown = [e for e in estimators if e not in SLATE_ESTIMATORS]
    if unknown or not len(estimators):
        raise ParameterError(f"estimators must be among {tuple(SLATE_ESTIMATORS)}, got {list(estimators)!r}")
    log = read_columns(log)
    need = ["slate_id", "position", "reward"] + ([user_group] if user_group else []) + \
        [c for e in estimators for c in SLATE_ESTIMATORS[e][1:]]
    if "cascade-dr" in estimators:
        need.append("item")
        if q_hat is None or target_action_dist is None:
            raise DataError("cascade-dr needs q_hat and target_action_dist (n_rows, n_actions)")
    absent = [c for c in dict.fromkeys(need) if c not in log]
    if absent:
        raise DataError(f"slate log has no column {', '.join(absent)}")
    rng = as_generator(rng)
    ids = log["slate_id"]
    uniq, index = np.unique(ids, return_inverse=True)
    index = index.reshape(-1)
    groups_of = _first_per_slate(log[user_group], index, len(uniq)) if user_group else None
    sets = [(ALL, np.ones(len(uniq), bool))] + ([(g, np.asarray(groups_of == g, dtype=bool))
                                                  for g in sorted(unique(groups_of).tolist(), key=str)]
                                                 if user_group else [])
    reward_s = np.bincount(index, weights=to_float(log["reward"]))
    length = np.bincount(index)
    grows, pairs = [], []
    for name in estimators:
        fn, pcol, tcol = SLATE_ESTIMATORS[name]
        args = (log["slate_id"], log["position"], to_float(log["reward"]), to_float(log[pcol]), to_float(log[tcol]))
        if name == "pseudo-inverse":
            terms = _pseudo_inverse_rows(index, args[1], reward_s, args[3], args[4])
        elif name == "cascade-dr":
            terms = slate.cascade_dr_terms(*args[:2], log["item"], *args[2:], q_hat, target_action_dist)
        else:
            terms = getattr(slate, fn)(*args)
        w_s = np.bincount(index, weights=args[4] / args[3]) / length
        done = {}
        for g, m in sets:
            cell = utility_cell(terms[m], w_s[m], reward_s[m], estimator=name, interval=interval,
                                confidence=confidence, rng=rng)
            done[g] = (terms[m], cell["reason"])
            grows.append({"estimand": "slate_utility", "estimator": name, "side": "user", "user_group": g,
                          "item_group": ALL, **cell, "confidence": confidence,
                          "note": "expected sum of slot rewards per slate; rows are slates"})
        for a, b in combinations([g for g, _ in sets if g != ALL], 2):
            (ta, ra), (tb, rb) = done[a], done[b]
            if ra or rb:
                pairs.append(_pair("slate_utility", name, "user", a, b, np.nan, np.nan, np.nan, np.nan,
                                   f"inconclusive: {ra or rb}", confidence))
                continue
            pairs.append(_independent_pair("slate_utility", name, "user", a, b, ta, tb, confidence))
    overall = [{"n_rows": len(ids), "n_slates": len(uniq), "estimators": ",".join(estimators),
                "interval": interval, "confidence": confidence, "family": FAMILY}]
    return OffPolicyResult({"overall": _table(overall, list(overall[0])), "groups": _table(grows, _GROUP_COLS),
                            "pairs": _adjust(pairs, confidence)}, confidence=confidence)


def _first_per_slate(values, index, n):
    """The first non-missing value of each slate (``groupby(index).first()``), NaN for a slate without one."""
    rows = np.flatnonzero(~missing(values))
    first = np.full(n, len(values), dtype=np.int64)
    np.minimum.at(first, index[rows], rows)
    if (first < len(values)).all():
        return values[first]
    out = np.full(n, np.nan, dtype=object)
    out[first < len(values)] = values[first[first < len(values)]]
    return out
