"""Diagnostics of importance weights, support, and the trust rule of off-policy intervals.

Every off-policy cell prints its effective sample size, largest weight, support violations and
clicks; :func:`trust_reason` turns them into a null interval with its reason when the interval
method's measured floor is not met. The floors were measured by simulation
(``benchmarks/offpolicy_coverage.py``, numbers in the docstring of :data:`TRUST_FLOORS`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.offpolicy.estimators import _vector, _weights
from ocef.validation import as_real_array

__all__ = ["effective_sample_size", "WeightDiagnostics", "weight_diagnostics", "support_deficit",
           "never_logged_mass", "TRUST_FLOORS", "trust_reason"]


def effective_sample_size(weight) -> float:
    """Kish's effective sample size (Σw)² / Σw² of importance weights (0 when all are 0).

    Parameters
    ----------
    weight : array_like, shape (n,)
        Importance weights.

    Returns
    -------
    float
        Between 0 and n; n for constant weights.

    Examples
    --------
    >>> effective_sample_size([1, 1, 1, 1]), round(effective_sample_size([4, 0, 0, 0]), 6)
    (4.0, 1.0)
    """
    w = _weights(weight)
    sq = float((w ** 2).sum())
    return float(w.sum() ** 2 / sq) if sq > 0 else 0.0


class WeightDiagnostics(NamedTuple):
    """What every off-policy cell reports beside its estimate.

    Attributes
    ----------
    n_rows : int
        Logged rows in the cell.
    ess : float
        Effective sample size (Σw)²/Σw².
    max_weight : float
        Largest importance weight.
    mean_weight : float
        Mean weight (≈ 1 when the target is supported by the logger; far below 1 signals mass the
        logger never shows).
    clicks : int
        Rows with a positive reward.
    effective_clicks : int
        Rows with a positive reward and a positive weight: the rows that carry the IPS estimate.
    click_ess : float
        Kish's effective number of the IPS numerator's terms, (Σ w r)² / Σ (w r)² — for 0/1
        rewards the effective sample size of the clicked rows' weights: few clicks with large
        weights count as few. Reported, but not the trust rule's quantity: conditioning on it
        selects the logs that missed the rare heavy-weight clicks (see :data:`TRUST_FLOORS`).
    ess_clicks : float
        The clicks expected among ``ess`` equally weighted rows: ESS × Σwr/Σw (the SNIPS value,
        clipped at 0). The trust rule's floor is on it (:data:`TRUST_FLOORS`).

    Examples
    --------
    >>> weight_diagnostics([0.5, 2, 0], [1, 1, 1]).effective_clicks
    2
    """
    n_rows: int
    ess: float
    max_weight: float
    mean_weight: float
    clicks: int
    effective_clicks: int
    click_ess: float
    ess_clicks: float


def weight_diagnostics(weight, reward) -> WeightDiagnostics:
    """The diagnostics of one cell's rows.

    Parameters
    ----------
    weight : array_like, shape (n,)
        Importance weights.
    reward : array_like, shape (n,)
        Rewards (a click is a reward > 0).

    Returns
    -------
    WeightDiagnostics
        Counts and weight summaries (NaN summaries for no rows).

    Examples
    --------
    >>> d = weight_diagnostics([0.5, 2, 0.8, 2, 0, 0.9], [1, 1, 0, 1, 1, 0])
    >>> d.n_rows, round(d.ess, 4), d.max_weight, d.clicks, d.effective_clicks, round(d.click_ess, 4)
    (6, 3.9629, 2.0, 4, 3, 2.4545)
    >>> round(d.ess_clicks, 4)
    2.8763
    """
    w = _weights(weight)
    r = _vector("reward", reward, w.shape[0])
    n = w.shape[0]
    if n == 0:
        return WeightDiagnostics(0, 0.0, float("nan"), float("nan"), 0, 0, 0.0, 0.0)
    wr = np.abs(w * r)
    sq = float((wr ** 2).sum())
    ess = effective_sample_size(w)
    rate = max(float((w * r).sum() / w.sum()), 0.0) if w.sum() > 0 else 0.0
    return WeightDiagnostics(n, ess, float(w.max()), float(w.mean()),
                             int((r > 0).sum()), int(((r > 0) & (w > 0)).sum()),
                             float(wr.sum() ** 2 / sq) if sq > 0 else 0.0, ess * rate)


def support_deficit(target_dist, logging_dist) -> np.ndarray:
    """Per context, the target's probability on actions the logger never takes:
    Σ_a π_e(a | x) 1[π_b(a | x) = 0]. IPS is biased by up to this mass times the reward range;
    a cell whose mean deficit is positive has a support violation.

    Parameters
    ----------
    target_dist, logging_dist : array_like, shape (n, n_actions)
        Both policies' probabilities for each context (row).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The unsupported target mass of each row.

    Examples
    --------
    >>> support_deficit([[0.5, 0.5], [1.0, 0.0]], [[1.0, 0.0], [0.5, 0.5]]).tolist()
    [0.5, 0.0]
    """
    pe = as_real_array("target_dist", target_dist)
    pb = as_real_array("logging_dist", logging_dist)
    if pe.ndim != 2 or pe.shape != pb.shape:
        raise DataError(f"target_dist and logging_dist must be (n, n_actions) alike, got {pe.shape} and {pb.shape}")
    return (pe * (pb <= 0)).sum(axis=1)


def never_logged_mass(action, target_dist) -> np.ndarray:
    """Per row, the target's probability on actions that appear nowhere in the log — the support
    violation one can see without the logger's full distribution.

    Parameters
    ----------
    action : array_like of int, shape (n,)
        Logged actions, in ``[0, n_actions)``.
    target_dist : array_like, shape (n, n_actions)
        π_e(a | x_i).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The mass of each row on never-logged actions.

    Examples
    --------
    >>> never_logged_mass([0, 0], [[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]]).tolist()
    [0.5, 0.0]
    """
    pe = as_real_array("target_dist", target_dist)
    act = np.asarray(action)
    if pe.ndim != 2 or act.shape != (pe.shape[0],) or act.dtype.kind not in "iu" \
            or np.any((act < 0) | (act >= pe.shape[1])):
        raise DataError(f"action must be {pe.shape[0]} integers in [0, {pe.shape[1] if pe.ndim == 2 else '?'})")
    logged = np.zeros(pe.shape[1], dtype=bool)
    logged[act] = True
    return pe[:, ~logged].sum(axis=1)


#: ``interval`` or ``estimator/interval`` -> the floor on ``ess_clicks`` (ESS × SNIPS value) below
#: which a cell's interval is null. Measured with ``benchmarks/offpolicy_coverage.py`` (seed 0;
#: loggers uniform, ε-greedy with an argmax target (weights up to 50), softmax (weights up to 300);
#: n in {10^3, 10^4, 10^5}; click rates 0.2 and 0.01; 500/200/60 logs per cell): the smallest floor
#: from {0, 5, 10, 20, 30, 50, 100} above which every cell covers 95% within 2 binomial standard
#: errors and no bin of ``ess_clicks`` above it falls more than 3 standard errors short. Above 50,
#: IPS Wald covers 0.964 pooled (worst cell 0.917 of 60 logs), DR Wald 0.960, the percentile
#: bootstrap 0.958 (worst cell 0.935); between 30 and 50 Wald covers 0.900 (478 logs), below 5
#: 0.576. Linearized SNIPS needs 100 (0.950 pooled; 0.910 above 50 with ε-greedy, n = 10^4). The
#: finite-sample intervals need no floor: Cressie-Read 0.993 and Clopper-Pearson 0.991 pooled over
#: all runs (worst cells 0.967 and 0.960), the betting sequence 1.000. Why not a floor on clicks:
#: conditioning on the realized clicks (``effective_clicks`` or ``click_ess`` >= 50) keeps exactly
#: the ε-greedy logs that missed the rare heavy-weight clicks, whose Wald intervals then cover
#: 0.000 (22 logs). Graded rewards (``--reward rating``: 1-5 stars rescaled; ``beta``: continuous,
#: 250/100 logs per cell, n <= 10^4) keep these floors: above 50, IPS Wald covers 0.957 (rating) and
#: 0.949 (beta) pooled, DR 0.958 and 0.961; SNIPS above 100 0.965 and 0.960.
#: Slate estimators (``benchmarks/offpolicy_slate_coverage.py``, seed 0, 2400 logs each: slots filled
#: independently, additive clicks, 3 or 5 slots, click rates 0.2 and 0.02, 300-5000 slates; Wald on
#: the per-slate rows, ``ess_clicks`` of the per-slate weight) by the same rule: IIPS and the
#: pseudo-inverse 30 (0.954, 0.944 pooled above), RIPS 50 (0.941), Cascade-DR 20 (0.946), standard
#: slate IPS 200 (0.932 of 44 logs; 0.852 between 100 and 200); their bootstrap inherits the floor.
TRUST_FLOORS: dict[str, float] = {
    "wald": 50.0,
    "gaussian": 50.0,
    "bootstrap": 50.0,
    "snips/wald": 100.0,
    "snips/bootstrap": 100.0,
    "sndr/wald": 100.0,
    "sndr/bootstrap": 100.0,
    "iips/wald": 30.0,
    "pseudo-inverse/wald": 30.0,
    "rips/wald": 50.0,
    "cascade-dr/wald": 20.0,
    "sips/wald": 200.0,
    "sips/bootstrap": 200.0,
    "cressie-read": 0.0,
    "clopper-pearson": 0.0,
    "betting": 0.0,
}


def trust_reason(diagnostics: WeightDiagnostics, interval: str, *, estimator: str | None = None,
                 support_mass: float = 0.0) -> str | None:
    """Why a cell's interval cannot be trusted (None when it can): no rows, no positive weight, a
    support violation, or the interval method's measured floor on ``ess_clicks``.

    Parameters
    ----------
    diagnostics : WeightDiagnostics
        The cell's diagnostics.
    interval : str
        An interval name of :data:`TRUST_FLOORS`.
    estimator : str, optional
        The estimator (``"snips"``...); its own floor ``estimator/interval`` applies if listed.
    support_mass : float, default 0.0
        The cell's mean unsupported target mass (:func:`support_deficit` or
        :func:`never_logged_mass`); positive means IPS-type estimates are biased.

    Returns
    -------
    str or None
        The reason, or None.

    Examples
    --------
    >>> trust_reason(weight_diagnostics([0, 0], [1, 0]), "wald")
    'no logged row has target probability > 0 (effective sample size 0)'
    """
    if interval not in TRUST_FLOORS or "/" in interval:
        raise ParameterError(f"interval must be one of {sorted(k for k in TRUST_FLOORS if '/' not in k)}, "
                             f"got {interval!r}")
    if diagnostics.n_rows == 0:
        return "no logged rows in this cell"
    if not diagnostics.ess > 0:
        return "no logged row has target probability > 0 (effective sample size 0)"
    if support_mass > 0:
        return (f"support violation: the target puts {support_mass:.3g} of its mass on actions the logger "
                "never takes; importance weighting cannot see them")
    key = f"{estimator}/{interval}" if f"{estimator}/{interval}" in TRUST_FLOORS else interval
    floor = TRUST_FLOORS[key]
    if diagnostics.ess_clicks < floor:
        return (f"effective clicks (ESS x click rate) {diagnostics.ess_clicks:.1f} < {floor:g}, the floor below "
                f"which {key} intervals undercover in simulation (benchmarks/offpolicy_coverage.py)")
    return None
