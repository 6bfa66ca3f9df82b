"""Off-policy estimators of a target policy's value from a log with propensities, as per-row
pseudo-outcomes.

Each ``*_terms`` function returns one pseudo-outcome ŷ_i per logged row, so that the estimate of
any group of rows is the mean of its ŷ_i and an interval comes from the same rows
(:mod:`ocef.offpolicy.intervals`). The formulas are those of Open Bandit Pipeline
(st-tech/zr-obp @8cbd5fa, ``obp/ope/estimators.py``; Saito et al. 2021), equal to it to 1e-12
(``tests/ocef/offpolicy/test_estimators.py``), with w_i = π_e(a_i | x_i) / π_b(a_i | x_i) the
importance weight, q̂ the reward model and d_i = Σ_a π_e(a | x_i) q̂(x_i, a) the direct-method
term. Three departures from OBP (DRos at λ = 0, Σw = 0, the linearized self-normalized rows), each
at its function and in ``docs/guide/offpolicy.md``; OBP's behaviour is kept behind
``obp_compatible=True``.
"""
from __future__ import annotations

from math import inf
from typing import Callable, NamedTuple

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.validation import as_real_array, fill_doc

__all__ = [
    "importance_weights", "logged_values", "rm_terms", "ips_terms", "dm_terms", "dr_terms",
    "switch_dr_terms", "dros_terms", "snips", "snips_terms", "sndr", "sndr_terms",
    "EstimatorSpec", "ESTIMATORS", "OBP_NAMES", "estimator_terms",
]

#: The blocks the estimators share (``%(name)s`` in their docstrings).
_fill = fill_doc(
    dr="""
reward, weight, q_hat_logged, dm : array_like, shape (n,)
    As in :func:`dr_terms`.""",
    rows="""
Returns
-------
numpy.ndarray, shape (n,)
    The rows ŷ_i.""")


def _vector(name: str, values, n: int | None = None) -> np.ndarray:
    """A finite 1-D float array (of length ``n`` when given)."""
    out = np.atleast_1d(as_real_array(name, values))
    if out.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {out.shape}")
    if n is not None and out.shape[0] != n:
        raise DataError(f"{name} must have one value per row ({n}), got {out.shape[0]}")
    if not np.all(np.isfinite(out)):
        raise DataError(f"{name} must be finite, found {out[~np.isfinite(out)][0]!r}")
    return out


def _weights(weight, n: int | None = None) -> np.ndarray:
    w = _vector("weight", weight, n)
    if np.any(w < 0):
        raise DataError(f"weight must be >= 0 (a ratio of probabilities), found {w[w < 0][0]!r}")
    return w


def _threshold(name: str, value) -> float:
    """A tuning constant in [0, inf] (NaN refused, as OBP's ``lambda_``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(f"{name} must be a real number in [0, inf], got {value!r}")
    value = float(value)
    if not value >= 0:                              # also NaN
        raise ParameterError(f"{name} must be a real number in [0, inf], got {value!r}")
    return value


def importance_weights(target_probability, logging_probability) -> np.ndarray:
    """Importance weights w_i = π_e(a_i | x_i) / π_b(a_i | x_i) of the logged actions.

    Parameters
    ----------
    target_probability : array_like, shape (n,)
        The target policy's probability of each logged action (at its logged position), in [0, 1].
    logging_probability : array_like, shape (n,)
        The logging policy's probability of the same action (the logged propensity), in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (n,)
        The weights.

    Raises
    ------
    ocef.errors.DataError
        Lengths differ, a probability outside its range (a logged propensity of 0 cannot have been
        logged).

    Examples
    --------
    >>> importance_weights([0.3, 0.4, 0.0], [0.6, 0.2, 0.5]).tolist()
    [0.5, 2.0, 0.0]
    """
    pe = _vector("target_probability", target_probability)
    pb = _vector("logging_probability", logging_probability, pe.shape[0])
    if np.any((pe < 0) | (pe > 1)):
        raise DataError("target_probability must lie in [0, 1]")
    if np.any((pb <= 0) | (pb > 1)):
        raise DataError("logging_probability must lie in (0, 1] (a logged action had positive propensity)")
    return pe / pb


def logged_values(action_dist, action, position=None, q_hat=None):
    """From OBP-style arrays, the per-row values the estimators need.

    Parameters
    ----------
    action_dist : array_like, shape (n, n_actions) or (n, n_actions, len_list)
        π_e(a | x_i [, k]) for every row and action; each (row, position) sums to 1.
    action : array_like of int, shape (n,)
        The logged actions, in ``[0, n_actions)``.
    position : array_like of int, shape (n,), optional
        The logged positions, in ``[0, len_list)``; None means 0 (only with ``len_list == 1``).
    q_hat : array_like, optional
        The reward model q̂(x_i, a [, k]), the shape of ``action_dist``.

    Returns
    -------
    target_probability : numpy.ndarray, shape (n,)
        π_e(a_i | x_i, k_i).
    q_hat_logged : numpy.ndarray or None
        q̂(x_i, a_i, k_i) (None without ``q_hat``).
    dm : numpy.ndarray or None
        d_i = Σ_a π_e(a | x_i, k_i) q̂(x_i, a, k_i) / Σ_a π_e(a | x_i, k_i), computed as OBP does
        (``np.average``), None without ``q_hat``.

    Raises
    ------
    ocef.errors.DataError
        Shapes that do not match, actions or positions out of range, rows not summing to 1.

    Examples
    --------
    >>> pe, qa, d = logged_values([[0.3, 0.7], [1.0, 0.0]], [1, 0], q_hat=[[0.5, 0.1], [0.2, 0.4]])
    >>> pe.tolist(), qa.tolist(), d.round(10).tolist()
    ([0.7, 1.0], [0.1, 0.2], [0.22, 0.2])
    """
    dist = as_real_array("action_dist", action_dist)
    if dist.ndim == 2:
        dist = dist[:, :, None]
    if dist.ndim != 3:
        raise DataError(f"action_dist must be (n, n_actions[, len_list]), got shape {dist.shape}")
    n, n_actions, len_list = dist.shape
    if not np.allclose(dist.sum(axis=1), 1.0):
        raise DataError("action_dist must sum to 1 over the actions for every row and position")
    act = np.asarray(action)
    if act.shape != (n,) or act.dtype.kind not in "iu" or np.any((act < 0) | (act >= n_actions)):
        raise DataError(f"action must be {n} integers in [0, {n_actions})")
    if position is None:
        if len_list != 1:
            raise DataError("position is required when action_dist has more than one position")
        pos = np.zeros(n, dtype=int)
    else:
        pos = np.asarray(position)
        if pos.shape != (n,) or pos.dtype.kind not in "iu" or np.any((pos < 0) | (pos >= len_list)):
            raise DataError(f"position must be {n} integers in [0, {len_list})")
    rows = np.arange(n)
    target = dist[rows, act, pos]
    if q_hat is None:
        return target, None, None
    q = as_real_array("q_hat", q_hat)
    if q.ndim == 2:
        q = q[:, :, None]
    if q.shape != dist.shape:
        raise DataError(f"q_hat must have the shape of action_dist {dist.shape}, got {q.shape}")
    dm = np.average(q[rows, :, pos], weights=dist[rows, :, pos], axis=1)
    return target, q[rows, act, pos], dm


@_fill
def rm_terms(reward, target_probability) -> np.ndarray:
    """Replay method (Li et al. 2011) rows: m_i r_i / mean(m), m_i = 1[π_e(a_i | x_i) == 1].

    For a deterministic target only; the rows that the target would have replayed, reweighted to
    the log's size. As OBP's ``ReplayMethod``: exact equality with 1, and all zeros when no row
    matches (OBP then estimates 0; the audit reports such a cell as having no support).

    Parameters
    ----------
    reward : array_like, shape (n,)
        Logged rewards.
    target_probability : array_like, shape (n,)
        π_e(a_i | x_i) of the logged actions.

    %(rows)s

    Examples
    --------
    >>> rm_terms([1, 0, 1], [1.0, 1.0, 0.5]).tolist()
    [1.5, 0.0, 0.0]
    """
    r = _vector("reward", reward)
    match = _vector("target_probability", target_probability, r.shape[0]) == 1
    if not match.any():
        return np.zeros(r.shape[0])
    return match * r / match.mean()


def ips_terms(reward, weight, *, clip: float = inf) -> np.ndarray:
    """Inverse propensity scoring rows ŷ_i = min(w_i, λ) r_i (Horvitz–Thompson; clipped as
    Strehl et al. 2010 with λ = ``clip``).

    OBP's ``InverseProbabilityWeighting(lambda_=clip)``.

    Parameters
    ----------
    reward : array_like, shape (n,)
        Logged rewards.
    weight : array_like, shape (n,)
        Importance weights (:func:`importance_weights`).
    clip : float, default inf
        λ ≥ 0; inf is the unbiased estimator.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The rows ŷ_i; their mean is the estimate.

    Examples
    --------
    >>> ips_terms([1, 1, 0], [0.5, 2.0, 0.8], clip=1.5).tolist()
    [0.5, 1.5, 0.0]
    """
    r = _vector("reward", reward)
    w = _weights(weight, r.shape[0])
    return r * np.minimum(w, _threshold("clip", clip))


def dm_terms(q_hat_target, action_dist=None) -> np.ndarray:
    """Direct method rows d_i = Σ_a π_e(a | x_i) q̂(x_i, a) (Dudík et al. 2011, eq. 2).

    Parameters
    ----------
    q_hat_target : array_like, shape (n,) or (n, n_actions)
        Either the per-row value of the target under the reward model, Σ_a π_e(a|x_i) q̂(x_i, a)
        (returned as is), or, with ``action_dist``, the reward model q̂(x_i, a) for every action.
    action_dist : array_like, shape (n, n_actions), optional
        π_e(a | x_i); the rows are then the π_e-weighted averages of ``q_hat_target`` as OBP
        computes them (``np.average``, denominator Σ_a π_e = 1).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The rows d_i.

    Examples
    --------
    >>> dm_terms([[0.6, 0.3], [0.2, 0.4]], [[0.5, 0.5], [1.0, 0.0]]).round(10).tolist()
    [0.45, 0.2]
    """
    if action_dist is None:
        return _vector("q_hat_target", q_hat_target).copy()
    q = as_real_array("q_hat_target", q_hat_target)
    dist = as_real_array("action_dist", action_dist)
    if q.ndim != 2 or q.shape != dist.shape:
        raise DataError(f"q_hat_target and action_dist must be (n, n_actions) alike, got {q.shape} and {dist.shape}")
    if not np.allclose(dist.sum(axis=1), 1.0):
        raise DataError("action_dist must sum to 1 over the actions in every row")
    return np.average(q, weights=dist, axis=1)


def _dr_parts(reward, weight, q_hat_logged, dm):
    r = _vector("reward", reward)
    n = r.shape[0]
    return r, _weights(weight, n), _vector("q_hat_logged", q_hat_logged, n), _vector("dm", dm, n)


@_fill
def dr_terms(reward, weight, q_hat_logged, dm, *, clip: float = inf) -> np.ndarray:
    """Doubly robust rows ŷ_i = d_i + min(w_i, λ)(r_i − q̂(x_i, a_i)) (Dudík et al. 2011, eq. 3).

    OBP's ``DoublyRobust(lambda_=clip)``.

    Parameters
    ----------
    reward : array_like, shape (n,)
        Logged rewards.
    weight : array_like, shape (n,)
        Importance weights.
    q_hat_logged : array_like, shape (n,)
        The reward model at the logged action, q̂(x_i, a_i).
    dm : array_like, shape (n,)
        The direct-method rows d_i (:func:`dm_terms`).
    clip : float, default inf
        λ ≥ 0 clipping the weight in the correction.

    %(rows)s

    Examples
    --------
    >>> dr_terms([1, 0], [2.0, 0.5], [0.5, 0.2], [0.4, 0.3]).round(10).tolist()
    [1.4, 0.2]
    """
    r, w, q, d = _dr_parts(reward, weight, q_hat_logged, dm)
    return d + np.minimum(w, _threshold("clip", clip)) * (r - q)


@_fill
def switch_dr_terms(reward, weight, q_hat_logged, dm, *, tau: float = inf) -> np.ndarray:
    """Switch-DR rows ŷ_i = d_i + 1[w_i ≤ τ] w_i (r_i − q̂(x_i, a_i)) (Wang et al. 2017, eq. 7).

    OBP's ``SwitchDoublyRobust(lambda_=tau)``: the indicator is inclusive (``w ≤ τ``), τ = inf is DR
    and τ = 0 keeps the correction only on rows with w_i = 0 (where it is 0), i.e. DM.

    Parameters
    ----------
    %(dr)s
    tau : float, default inf
        τ ≥ 0: rows with a larger weight fall back on the reward model.

    %(rows)s

    Examples
    --------
    >>> switch_dr_terms([1, 0], [2.0, 0.5], [0.5, 0.2], [0.4, 0.3], tau=1.0).round(10).tolist()
    [0.4, 0.2]
    """
    r, w, q, d = _dr_parts(reward, weight, q_hat_logged, dm)
    return d + (w <= _threshold("tau", tau)).astype(int) * w * (r - q)


@_fill
def dros_terms(reward, weight, q_hat_logged, dm, *, lam: float = 0.0,
               obp_compatible: bool = False) -> np.ndarray:
    """DR with optimistic shrinkage rows ŷ_i = d_i + ŵ_i (r_i − q̂(x_i, a_i)),
    ŵ = λw/(w² + λ) (Su et al. 2020, eq. 10); ŵ = w when λ = inf.

    OBP's ``DoublyRobustWithShrinkage(lambda_=lam)`` (default λ = 0 there too). Departure: a row
    with w_i = 0 gets ŵ_i = 0 for every λ (OBP computes 0/0 = NaN when λ = 0, so that its estimate
    is NaN whenever π_e gives a logged action probability 0); ``obp_compatible=True`` reproduces
    OBP's NaN.

    Parameters
    ----------
    %(dr)s
    lam : float, default 0.0
        λ ≥ 0; 0 is DM, inf is DR.
    obp_compatible : bool, default False
        Keep OBP's NaN rows at λ = 0.

    %(rows)s

    Examples
    --------
    >>> dros_terms([1, 0], [2.0, 0.0], [0.5, 0.2], [0.4, 0.3], lam=1.0).round(10).tolist()
    [0.6, 0.3]
    >>> dros_terms([1, 0], [2.0, 0.0], [0.5, 0.2], [0.4, 0.3], lam=0.0).tolist()
    [0.4, 0.3]
    """
    r, w, q, d = _dr_parts(reward, weight, q_hat_logged, dm)
    lam = _threshold("lam", lam)
    if lam == inf:
        shrunk = w
    elif obp_compatible:
        with np.errstate(invalid="ignore", divide="ignore"):
            shrunk = (lam * w) / (w ** 2 + lam)
    else:
        denom = w ** 2 + lam
        shrunk = np.divide(lam * w, denom, out=np.zeros_like(w), where=denom > 0)
    return d + shrunk * (r - q)


def _normalizer(w: np.ndarray) -> float:
    total = float(w.sum())
    if total <= 0:
        raise DataError("the importance weights sum to 0: no logged row has target probability > 0, "
                        "a self-normalized estimate is undefined")
    return total


def snips(reward, weight) -> float:
    """Self-normalized IPS V̂ = Σ w_i r_i / Σ w_i (Swaminathan & Joachims 2015, eq. 5).

    OBP's ``SelfNormalizedInverseProbabilityWeighting`` (which ignores its ``lambda_``).

    Parameters
    ----------
    reward, weight : array_like, shape (n,)
        Logged rewards and importance weights.

    Returns
    -------
    float
        The estimate.

    Raises
    ------
    ocef.errors.DataError
        All weights 0 (OBP returns NaN).

    Examples
    --------
    >>> round(snips([1, 1, 0, 1, 1, 0], [0.5, 2, 0.8, 2, 0, 0.9]), 6)
    0.725806
    """
    r = _vector("reward", reward)
    w = _weights(weight, r.shape[0])
    return float((w * r).sum() / _normalizer(w))


def snips_terms(reward, weight, *, obp_compatible: bool = False) -> np.ndarray:
    """Rows whose mean is :func:`snips`: the linearized rows V̂ + w_i(r_i − V̂)/mean(w) (the
    influence function of the ratio, so that their sample variance is the delta-method variance),
    or OBP's rows w_i r_i / mean(w) with ``obp_compatible=True``.

    Parameters
    ----------
    reward, weight : array_like, shape (n,)
        Logged rewards and importance weights.
    obp_compatible : bool, default False
        Return OBP's rows (same mean; used for the bootstrap equality with OBP).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The rows.

    Examples
    --------
    >>> t = snips_terms([1, 0], [1.5, 0.5])
    >>> t.tolist(), float(t.mean())
    ([1.125, 0.375], 0.75)
    """
    r = _vector("reward", reward)
    w = _weights(weight, r.shape[0])
    mean_w = _normalizer(w) / w.shape[0]
    if obp_compatible:
        return r * w / w.mean()
    value = float((w * r).sum() / w.sum())
    return value + w * (r - value) / mean_w


@_fill
def sndr(reward, weight, q_hat_logged, dm) -> float:
    """Self-normalized DR V̂ = mean(d) + Σ w_i(r_i − q̂_i) / Σ w_i (OBP's
    ``SelfNormalizedDoublyRobust``; Kallus & Uehara 2019).

    Parameters
    ----------
    %(dr)s

    Returns
    -------
    float
        The estimate.

    Raises
    ------
    ocef.errors.DataError
        All weights 0.

    Examples
    --------
    >>> round(sndr([1, 0], [1.5, 0.5], [0.5, 0.2], [0.4, 0.3]), 6)
    0.675
    """
    r, w, q, d = _dr_parts(reward, weight, q_hat_logged, dm)
    return float(d.mean() + (w * (r - q)).sum() / _normalizer(w))


@_fill
def sndr_terms(reward, weight, q_hat_logged, dm, *, obp_compatible: bool = False) -> np.ndarray:
    """Rows whose mean is :func:`sndr`: linearized d_i + c + w_i((r_i − q̂_i) − c)/mean(w) with
    c = Σw(r − q̂)/Σw, or OBP's rows d_i + w_i(r_i − q̂_i)/mean(w) with ``obp_compatible=True``.

    Parameters
    ----------
    %(dr)s
    obp_compatible : bool, default False
        Return OBP's rows (same mean).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The rows.

    Examples
    --------
    >>> sndr_terms([1, 0], [1.5, 0.5], [0.5, 0.2], [0.4, 0.3]).round(10).tolist()
    [0.9875, 0.3625]
    """
    r, w, q, d = _dr_parts(reward, weight, q_hat_logged, dm)
    mean_w = _normalizer(w) / w.shape[0]
    if obp_compatible:
        return d + w * (r - q) / w.mean()
    c = float((w * (r - q)).sum() / w.sum())
    return d + c + w * ((r - q) - c) / mean_w


class EstimatorSpec(NamedTuple):
    """An entry of :data:`ESTIMATORS`: the rows function, whether it needs a reward model (q̂ at
    the logged action and the DM rows) and whether it is self-normalized (a group's estimate is
    then the ratio of the group's sums, its rows being the linearized ones).

    Attributes
    ----------
    function : callable
        The per-row function (keyword arguments ``reward``, ``weight`` and, with a reward model,
        ``q_hat_logged``, ``dm``; DM takes ``q_hat_target``).
    needs_reward_model : bool
        Whether q̂ is needed.
    self_normalized : bool
        Whether the estimate normalizes by Σw.
    parameter : str or None
        The keyword of its tuning constant (``clip``, ``tau``, ``lam``), if any.

    Examples
    --------
    >>> ESTIMATORS["dr"].needs_reward_model, ESTIMATORS["snips"].self_normalized
    (True, True)
    """
    function: Callable[..., np.ndarray]
    needs_reward_model: bool
    self_normalized: bool
    parameter: str | None = None


#: name -> :class:`EstimatorSpec`; names as the issue's, OBP's in :data:`OBP_NAMES`.
ESTIMATORS: dict[str, EstimatorSpec] = {
    "ips": EstimatorSpec(ips_terms, False, False, "clip"),
    "snips": EstimatorSpec(snips_terms, False, True),
    "dm": EstimatorSpec(dm_terms, True, False),
    "dr": EstimatorSpec(dr_terms, True, False, "clip"),
    "sndr": EstimatorSpec(sndr_terms, True, True),
    "switch-dr": EstimatorSpec(switch_dr_terms, True, False, "tau"),
    "dros": EstimatorSpec(dros_terms, True, False, "lam"),
}

#: OBP's ``estimator_name`` -> ours.
OBP_NAMES = {"ipw": "ips", "snipw": "snips", "dm": "dm", "dr": "dr", "sndr": "sndr",
             "switch-dr": "switch-dr", "dr-os": "dros"}


def estimator_terms(name: str, *, reward, weight, q_hat_logged=None, dm=None, **params) -> np.ndarray:
    """The rows of the estimator ``name`` of :data:`ESTIMATORS` (or its OBP name).

    Parameters
    ----------
    name : str
        A key of :data:`ESTIMATORS` or of :data:`OBP_NAMES`.
    reward, weight : array_like, shape (n,)
        Logged rewards and importance weights.
    q_hat_logged, dm : array_like, shape (n,), optional
        Reward model at the logged action and DM rows (required by the estimators that need a
        reward model).
    **params
        The estimator's tuning constant (``clip``, ``tau`` or ``lam``) or ``obp_compatible``.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The rows ŷ_i; their mean is the estimate.

    Raises
    ------
    ocef.errors.ParameterError
        An unknown name, a reward model missing, a parameter the estimator does not take.

    Examples
    --------
    >>> estimator_terms("ipw", reward=[1, 0], weight=[2.0, 1.0]).tolist()
    [2.0, 0.0]
    """
    key = OBP_NAMES.get(name, name)
    if key not in ESTIMATORS:
        raise ParameterError(f"estimator must be one of {sorted(ESTIMATORS)}, got {name!r}")
    spec = ESTIMATORS[key]
    allowed = {spec.parameter} | ({"obp_compatible"} if key in ("snips", "sndr", "dros") else set())
    extra = set(params) - allowed
    if extra:
        raise ParameterError(f"estimator {key!r} takes no parameter {sorted(extra)[0]!r}")
    if spec.needs_reward_model and dm is None:
        raise ParameterError(f"estimator {key!r} needs a reward model (q_hat_logged and dm)")
    if key == "dm":
        return dm_terms(dm)
    if spec.needs_reward_model:
        if q_hat_logged is None:
            raise ParameterError(f"estimator {key!r} needs a reward model (q_hat_logged and dm)")
        return spec.function(reward, weight, q_hat_logged, dm, **params)
    return spec.function(reward, weight, **params)
