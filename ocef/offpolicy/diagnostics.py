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
    >>> d.n_rows, round(d.ess, 4), d.max_weight, d.clicks, d.effective_clicks
    (6, 3.9629, 2.0, 4, 3)
    """
    w = _weights(weight)
    r = _vector("reward", reward, w.shape[0])
    n = w.shape[0]
    if n == 0:
        return WeightDiagnostics(0, 0.0, float("nan"), float("nan"), 0, 0)
    return WeightDiagnostics(n, effective_sample_size(w), float(w.max()), float(w.mean()),
                             int((r > 0).sum()), int(((r > 0) & (w > 0)).sum()))


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


#: interval name -> (minimum effective sample size, minimum effective clicks) below which the
#: interval is null. Measured with ``benchmarks/offpolicy_coverage.py`` (3 loggers x n in
#: {10^3, 10^4, 10^5} x base rates {0.2, 0.01}): see the benchmark's table in the guide. The
#: finite-sample valid intervals (betting, Cressie-Read with its phantom point, Clopper-Pearson on
#: rescaled counts) need no floor beyond one row with a positive weight.
TRUST_FLOORS: dict[str, tuple[float, int]] = {
    "wald": (0.0, 0),
    "bootstrap": (0.0, 0),
    "gaussian": (0.0, 0),
    "cressie-read": (0.0, 0),
    "clopper-pearson": (0.0, 0),
    "betting": (0.0, 0),
}


def trust_reason(diagnostics: WeightDiagnostics, interval: str, *, support_mass: float = 0.0) -> str | None:
    """Why a cell's interval cannot be trusted (None when it can): no rows, no positive weight, a
    support violation, or the interval method's measured floor on ESS or effective clicks.

    Parameters
    ----------
    diagnostics : WeightDiagnostics
        The cell's diagnostics.
    interval : str
        A key of :data:`TRUST_FLOORS`.
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
    if interval not in TRUST_FLOORS:
        raise ParameterError(f"interval must be one of {sorted(TRUST_FLOORS)}, got {interval!r}")
    if diagnostics.n_rows == 0:
        return "no logged rows in this cell"
    if not diagnostics.ess > 0:
        return "no logged row has target probability > 0 (effective sample size 0)"
    if support_mass > 0:
        return (f"support violation: the target puts {support_mass:.3g} of its mass on actions the logger "
                "never takes; importance weighting cannot see them")
    min_ess, min_clicks = TRUST_FLOORS[interval]
    if diagnostics.ess < min_ess:
        return (f"effective sample size {diagnostics.ess:.1f} < {min_ess:g}, the floor below which "
                f"{interval} intervals undercover in simulation")
    if diagnostics.effective_clicks < min_clicks:
        return (f"{diagnostics.effective_clicks} clicks on rows the target can take < {min_clicks}, the floor "
                f"below which {interval} intervals undercover in simulation")
    return None
