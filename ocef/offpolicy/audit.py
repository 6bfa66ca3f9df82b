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
from itertools import combinations
from typing import Sequence

import numpy as np
import pandas as pd

from ocef.errors import DataError, ParameterError
from ocef.offpolicy.inputs import check_log, read_table, target_table
from ocef.results import Result, presents
from ocef.validation import CONFIDENCE, OneOrMore, Options, Rng, as_generator, validate_params
from ocef._progress import PROGRESS

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


@dataclass(frozen=True)
class OffPolicyResult(Result):
    """Per-group fairness of a target policy estimated off-policy.

    Parameters
    ----------
    overall : pandas.DataFrame
        One row: ``n_rows, n_users, target_form, estimators, interval, confidence, family, exposure_note``.
    groups : pandas.DataFrame
        One row per estimand, estimator and group: ``estimand`` (exposure, utility,
        recommended_given_relevant, relative_utility, exposure_per_merit, reo_penalty), ``estimator``,
        ``side`` (user/item), ``user_group``, ``item_group``, ``estimate, ci_low, ci_high, confidence``,
        ``n_rows, ess, max_weight, support, clicks``, ``reason``, ``note``.
    pairs : pandas.DataFrame
        One row per comparison of two groups: ``estimand, estimator, side, group, reference, estimate``
        (group minus reference), ``ci_low, ci_high, confidence, p_value, p_adjusted, significant,
        verdict`` ("group higher", "reference higher" or "inconclusive"), ``reason``.
    confidence : float
        The level of every interval.
    notes : tuple of str
        Remarks on the whole output.

    Examples
    --------
    >>> from ocef.datasets import make_toy_propensity_log
    >>> res = offpolicy_audit(*make_toy_propensity_log(), user_group="g", estimators=["ips"])
    >>> res.groups.query("estimand == 'exposure'")[["user_group", "estimate"]].values.tolist()
    [['(all)', 1.0], ['a', 1.0], ['b', 1.0]]
    """

    overall: pd.DataFrame
    groups: pd.DataFrame
    pairs: pd.DataFrame
    confidence: float = 0.95
    notes: tuple = field(default=())

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


# ------------------------------------------------------------------------------- per-row frame


def _attach(frame, side, col, key, name):
    if side is None:
        if col not in frame.columns:
            raise DataError(f"log has no column {col} (give it, or a side table {name} with columns {key}, {col})")
        return frame
    side = read_table(side, name=name)
    if key not in side.columns or col not in side.columns:
        raise DataError(f"{name} needs columns {key} and {col}")
    out = frame.drop(columns=[col], errors="ignore").merge(side[[key, col]].drop_duplicates(key), on=key, how="left")
    if out[col].isna().any():
        raise DataError(f"{name}: {key} {out.loc[out[col].isna(), key].iloc[0]!r} of the log has no {col}")
    return out


def _values(table, keys, log_keys, m, base, levels, names):
    """Per row of ``log_keys``: ``sum_a pi(a|x) q(a)`` in total and per item group, ``q`` from ``m``
    (a frame ``act..., m``, ``None`` for ``reward_hat``) with ``base`` for unknown actions."""
    act = [c for c in ("item", "position") if c in (m.columns if m is not None else ())] or ["item"]
    t = table.merge(m, on=act, how="left") if m is not None else table.assign(m=table["reward_hat"])
    t["pq"] = t["probability"] * t["m"].fillna(base)
    t["_g"] = t["item"].map(levels)
    if keys:
        tot = log_keys.merge(t.groupby(keys)["pq"].sum().rename("v").reset_index(), on=keys, how="left")["v"]
        per = t.pivot_table(index=keys, columns="_g", values="pq", aggfunc="sum", fill_value=0.0).reset_index()
        per = log_keys.merge(per, on=keys, how="left").fillna(0.0)
        V = np.column_stack([per[g].to_numpy(dtype=float) if g in per.columns else np.zeros(len(log_keys))
                             for g in names]) if names else np.zeros((len(log_keys), 0))
        return tot.fillna(0.0).to_numpy(dtype=float), V
    s = t.groupby("_g")["pq"].sum()
    V = np.tile([float(s.get(g, 0.0)) for g in names], (len(log_keys), 1)) if names else np.zeros((len(log_keys), 0))
    return np.repeat(float(t["pq"].sum()), len(log_keys)), V


def _reward_model(log, table, keys, rng, levels, names):
    """The reward model's predictions: ``reward_hat`` of the target table when given, else
    :func:`ocef.offpolicy.reward_model.cross_fit_reward_model` (K = 5 folds, fewer on a log of
    fewer rows) keyed on the action
    (item, or (item, position) when the log has positions): per fold, the shrunk mean reward of the
    key on the other folds, their overall mean for a target action the log never shows. Returns
    (q_hat at the logged action, v_hat = sum_a pi(a|x) q_hat(a) per row (DM's rows), the same per
    item group (n, K))."""
    from ocef.offpolicy.reward_model import cross_fit_reward_model

    if "reward_hat" in table.columns:
        qhat = log[keys + ["item"]].merge(table[keys + ["item", "reward_hat"]], on=keys + ["item"],
                                          how="left")["reward_hat"].fillna(0.0).to_numpy(dtype=float)
        vhat, V = _values(table, keys, log[keys], None, 0.0, levels, names)
        return qhat, vhat, V
    act = ["item"] + (["position"] if "position" in log.columns else [])
    both = [log[act]] + ([table[act]] if all(c in table.columns for c in act) else [])
    cells = pd.concat(both, ignore_index=True).drop_duplicates().reset_index(drop=True)
    code = log[act].merge(cells.reset_index(), on=act, how="left")["index"].to_numpy()
    reward = log["reward"].to_numpy(dtype=float)
    model = cross_fit_reward_model(reward, code, len(cells), n_folds=min(5, max(len(log), 2)), rng=rng)
    qhat = model.q_hat_logged(code)
    vhat, V = np.empty(len(log)), np.empty((len(log), len(names)))
    for f in range(model.tables.shape[0]):
        at = model.fold == f
        m = cells.assign(m=model.tables[f])
        base = float(reward[~at].mean())       # shrunk_means' value of a key unseen in training
        vhat[at], V[at] = _values(table, keys, log.loc[at, keys].reset_index(drop=True), m, base, levels, names)
    return qhat, vhat, V


def _rows(log, table, keys):
    """The log with the target's probability ``pi`` and recommendation probability ``rho`` of each
    logged action, ``w = pi / p``, and the target's reward predictions when given."""
    cols = keys + ["item", "probability", "recommended"] + (["reward_hat"] if "reward_hat" in table.columns else [])
    rows = log.merge(table[cols], on=keys + ["item"], how="left")
    rows["pi"] = rows.pop("probability").fillna(0.0).to_numpy(dtype=float)
    rows["rho"] = rows.pop("recommended").fillna(0.0).to_numpy(dtype=float)
    rows["w"] = rows["pi"] / rows["propensity"].to_numpy(dtype=float)
    rows["reward"] = rows["reward"].astype(float)
    return rows


def _support(log, table, keys):
    """Per row: the target's probability in the row's context on actions the log never shows (there)."""
    act = ["item"] + (["position"] if "position" in keys else [])
    seen = log[act].drop_duplicates().assign(_seen=1)
    t = table.merge(seen, on=act, how="left")
    t["miss"] = t["probability"] * t["_seen"].isna()
    if not keys:
        return np.repeat(float(t["miss"].sum()), len(log))
    m = t.groupby(keys)["miss"].sum().rename("m").reset_index()
    return log[keys].merge(m, on=keys, how="left")["m"].fillna(0.0).to_numpy()


def _item_levels(log, table, item_group, item_groups):
    """Item -> group for every item of the log and of the target (one group "(all)" without ``item_group``)."""
    items = pd.unique(np.concatenate([log["item"].to_numpy(), table["item"].to_numpy()]))
    if item_group is None:
        return pd.Series(ALL, index=items)
    if item_groups is not None:
        side = read_table(item_groups, name="item_groups")
        levels = side.drop_duplicates("item").set_index("item")[item_group]
    else:
        levels = log.drop_duplicates("item").set_index("item")[item_group]
    missing = [i for i in items if i not in levels.index]
    if missing:
        raise DataError(f"item {missing[0]!r} of the target has no {item_group} (give an item_groups side table)")
    return levels.loc[items]


def _exposure_rows(log, table, keys, levels, names):
    """Per row and item group: the target's probability on that group in the row's context."""
    t = table.assign(_g=table["item"].map(levels))
    if keys:
        m = t.pivot_table(index=keys, columns="_g", values="probability", aggfunc="sum", fill_value=0.0)
        m = log[keys].merge(m.reset_index(), on=keys, how="left").fillna(0.0)
        return np.column_stack([m[g].to_numpy(dtype=float) if g in m.columns else np.zeros(len(log))
                                for g in names])
    s = t.groupby("_g")["probability"].sum()
    return np.tile([float(s.get(g, 0.0)) for g in names], (len(log), 1))


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
    with np.errstate(divide="ignore", invalid="ignore"):
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
    log : str, path or pandas.DataFrame
        ``user, item, reward, propensity`` [, ``position``, group columns]
        (:mod:`ocef.offpolicy.inputs`).
    target : pandas.DataFrame, path or ScoredTarget
        The target policy: action probabilities, a top-k log, or a scoring function and sampler.
    user_group, item_group : str, optional
        Group columns (of the log, or of the side tables).
    user_groups, item_groups : pandas.DataFrame or path, optional
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
    log = check_log(read_table(log).copy())
    notes = _reward_range(log["reward"].to_numpy(dtype=float), interval, item_group)
    if user_group is not None:
        log = _attach(log, user_groups, user_group, "user", "user_groups")
    if item_group is not None:
        log = _attach(log, item_groups, item_group, "item", "item_groups")
    table, info = target_table(target, log)
    keys = info["keys"]
    rows = _rows(log, table, keys)
    miss = _support(log, table, keys)
    reward = rows["reward"].to_numpy()
    w = rows["w"].to_numpy()

    grows, pairs = [], []
    base = {"confidence": confidence, "note": None}

    # ---- exposure of item groups (plug-in)
    levels = _item_levels(log, table, item_group, item_groups)
    names = sorted(pd.unique(levels).tolist(), key=str)
    X = _exposure_rows(log, table, keys, levels, names)
    rng = as_generator(rng)
    qhat, vhat, V = _reward_model(log, table, keys, rng, levels, names)
    user_sets = [(ALL, np.ones(len(log), bool))]
    if user_group is not None:
        user_sets += [(g, (log[user_group] == g).to_numpy()) for g in sorted(pd.unique(log[user_group]), key=str)]
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
        ind = (log[item_group] == g).to_numpy().astype(float)
        j = names.index(g)
        return np.ones(len(log), bool), reward * ind, _terms(name, reward * ind, w, qhat * ind, V[:, j])

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
        grows_reo, pairs_reo = _merit_block(log, rows, info, item_group, levels, names, X, confidence)
        grows += grows_reo
        pairs += pairs_reo

    groups = pd.DataFrame(grows)
    cols = ["estimand", "estimator", "side", "user_group", "item_group", "estimate", "ci_low", "ci_high",
            "confidence", "n_rows", "ess", "max_weight", "support", "clicks", "reason", "note"]
    groups = groups[cols]
    pairs = _adjust(pd.DataFrame(pairs, columns=_PAIR_COLS), confidence)
    overall = pd.DataFrame([{"n_rows": len(log), "n_users": int(log["user"].nunique()), "target_form": info["form"],
                             "estimators": ",".join(estimators), "interval": interval, "confidence": confidence,
                             "family": FAMILY, "exposure_note": EXPOSURE_NOTE,
                             "ess": _diagnostics(w, reward, miss)["ess"], "max_weight": float(w.max()),
                             "support": 1.0 - float(miss.mean()), "clicks": int((reward > 0).sum())}])
    return OffPolicyResult(overall=overall, groups=groups, pairs=pairs, confidence=confidence, notes=tuple(notes))


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


def _adjust(pairs, confidence):
    from ocef.inference import normal as norm

    from ocef.inference import holm_adjust

    with np.errstate(divide="ignore", invalid="ignore"):
        zval = pairs["estimate"].to_numpy(dtype=float) / pairs["se"].to_numpy(dtype=float)
    se = pairs["se"].to_numpy(dtype=float)
    est = pairs["estimate"].to_numpy(dtype=float)
    p = 2 * norm.sf(np.abs(zval))
    # se == 0: the difference is exact (the target's own design, e.g. a context-free target's exposure)
    p = np.where(se > 0, p, np.where(se == 0, np.where(est != 0, 0.0, 1.0), np.nan))
    pairs["p_value"] = p
    pairs["p_adjusted"] = holm_adjust(p) if len(p) else p
    pairs["significant"] = pairs["p_adjusted"] <= 1 - confidence
    pairs["verdict"] = np.where(~pairs["significant"], "inconclusive",
                                np.where(pairs["estimate"] > 0, "group higher", "reference higher"))
    return pairs.drop(columns="se")[["estimand", "estimator", "side", "user_group", "group", "reference", "estimate", "ci_low",
                                     "ci_high", "confidence", "p_value", "p_adjusted", "significant", "verdict",
                                     "reason"]]


def _merit_block(log, rows, info, item_group, levels, names, X, confidence):
    """U_k, delta_U_k, Delta_REO and exposure/merit per item group (module docstring)."""
    from ocef.reo.estimators import reo_jacobians, reo_penalty, relative_group_utilities

    z = _z(confidence)
    S = np.column_stack([(log[item_group] == g).to_numpy() for g in names]).astype(float)
    r = rows["reward"].to_numpy()
    p = rows["propensity"].to_numpy(dtype=float)
    B = S * (r / p)[:, None]                                    # importance-weighted merit terms
    on = info["on_policy"]
    if on is not None:                                          # the target's own rewards (REO's default log)
        g_on = on["item"].map(levels)
        if g_on.isna().any():
            raise DataError(f"target: item {on.loc[g_on.isna(), 'item'].iloc[0]!r} has no {item_group} in the log")
        k_bar = len(on) / on["user"].nunique()
        A = np.column_stack([(g_on == g).to_numpy() for g in names]).astype(float) * \
            on["reward"].to_numpy(dtype=float)[:, None] * k_bar
        U, gamma = ratio_covariance(A, B, same_rows=False)
        source = "the target's own rewards (on-policy) over importance-weighted merit"
    else:
        A = S * (rows["rho"].to_numpy() * r / p)[:, None]
        U, gamma = ratio_covariance(A, B, same_rows=True)
        source = "importance-weighted (IPS) over importance-weighted merit"
    relevant = (S * (r > 0)[:, None]).sum(axis=0)
    grows, pairs = [], []
    reason = {g: (f"untrusted: no relevant row of group {g} in the log (its merit is 0)" if c < 1 else None)
              for g, c in zip(names, relevant)}
    base = {"confidence": confidence, "side": "item", "user_group": ALL, "ess": np.nan, "max_weight": np.nan,
            "support": np.nan, "n_rows": len(log)}
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
    log : str, path or pandas.DataFrame
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
    log = read_table(log)
    need = ["slate_id", "position", "reward"] + ([user_group] if user_group else []) + \
        [c for e in estimators for c in SLATE_ESTIMATORS[e][1:]]
    if "cascade-dr" in estimators:
        need.append("item")
        if q_hat is None or target_action_dist is None:
            raise DataError("cascade-dr needs q_hat and target_action_dist (n_rows, n_actions)")
    missing = [c for c in dict.fromkeys(need) if c not in log.columns]
    if missing:
        raise DataError(f"slate log has no column {', '.join(missing)}")
    rng = as_generator(rng)
    ids = log["slate_id"].to_numpy()
    uniq, index = np.unique(ids, return_inverse=True)
    groups_of = (pd.Series(log[user_group].to_numpy()).groupby(index).first().to_numpy()
                 if user_group else np.full(len(uniq), ALL, dtype=object))
    sets = [(ALL, np.ones(len(uniq), bool))] + ([(g, groups_of == g) for g in sorted(pd.unique(groups_of), key=str)]
                                                 if user_group else [])
    reward_s = np.bincount(index, weights=log["reward"].to_numpy(dtype=float))
    length = np.bincount(index)
    grows, pairs = [], []
    for name in estimators:
        fn, pcol, tcol = SLATE_ESTIMATORS[name]
        args = (log["slate_id"].to_numpy(), log["position"].to_numpy(), log["reward"].to_numpy(dtype=float),
                log[pcol].to_numpy(dtype=float), log[tcol].to_numpy(dtype=float))
        if name == "pseudo-inverse":
            terms = _pseudo_inverse_rows(index, args[1], reward_s, args[3], args[4])
        elif name == "cascade-dr":
            terms = slate.cascade_dr_terms(*args[:2], log["item"].to_numpy(), *args[2:], q_hat, target_action_dist)
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
    cols = ["estimand", "estimator", "side", "user_group", "item_group", "estimate", "ci_low", "ci_high",
            "confidence", "n_rows", "ess", "max_weight", "support", "clicks", "reason", "note"]
    overall = pd.DataFrame([{"n_rows": len(log), "n_slates": len(uniq), "estimators": ",".join(estimators),
                             "interval": interval, "confidence": confidence, "family": FAMILY}])
    return OffPolicyResult(overall=overall, groups=pd.DataFrame(grows)[cols],
                           pairs=_adjust(pd.DataFrame(pairs, columns=_PAIR_COLS), confidence), confidence=confidence)
