"""Slate (ranking) off-policy estimators, one pseudo-outcome per slate.

The log has one row per (slate, slot): ``slate_id``, ``position`` (0-based slot), the reward of the
slot and the propensities of the logging and target policies. Each function returns the per-slate
pseudo-outcomes Ŷ_s = Σ_l ŷ_{s,l} in the order of ``np.unique(slate_id)``; their mean is the
estimate of the expected sum of slot rewards per slate, and intervals come from them
(:mod:`ocef.offpolicy.intervals`, rows = slates). Formulas as Open Bandit Pipeline
(st-tech/zr-obp @8cbd5fa, ``obp/ope/estimators_slate.py``; Kiyohara et al. WSDM 2022 for
Cascade-DR, McInerney et al. KDD 2020 for RIPS, Li et al. 2018 for IIPS) and, for the
pseudo-inverse estimator, VowpalWabbit/estimators @8ce3871 ``slates/pseudo_inverse.py``
(Swaminathan et al., NeurIPS 2017, example 4). Cascade-DR's one
departure from OBP: ``docs/guide/offpolicy.md``.
"""
from __future__ import annotations

import numpy as np

from ocef.errors import DataError
from ocef.offpolicy.estimators import _vector
from ocef.validation import as_real_array, fill_doc

__all__ = ["slate_sums", "sips_terms", "iips_terms", "rips_terms", "self_normalized_slate_terms",
           "cascade_dr_terms", "pseudo_inverse_weights", "pseudo_inverse_terms"]

#: The parameter and return blocks the slate estimators share (``%(name)s`` in their docstrings).
_fill = fill_doc(
    slots="""
slate_id, position : array_like of int, shape (n_rows,)
    Slate and 0-based slot of each row.
reward : array_like, shape (n_rows,)
    Slot rewards.""",
    returns="""
Returns
-------
numpy.ndarray, shape (n_slates,)
    Per-slate pseudo-outcomes.""")


def _ids(name: str, values, n: int | None = None) -> np.ndarray:
    out = np.asarray(values)
    if out.ndim != 1 or out.dtype.kind not in "iu":
        raise DataError(f"{name} must be a one-dimensional array of integers")
    if n is not None and out.shape[0] != n:
        raise DataError(f"{name} must have one value per row ({n}), got {out.shape[0]}")
    return out


def _probabilities(name: str, values, n: int, *, positive: bool) -> np.ndarray:
    p = _vector(name, values, n)
    low_ok = p > 0 if positive else p >= 0
    if not np.all(low_ok & (p <= 1)):
        raise DataError(f"{name} must lie in {'(0, 1]' if positive else '[0, 1]'}")
    return p


def slate_sums(slate_id, rows) -> np.ndarray:
    """Per-slate sums Σ_l ŷ_{s,l} of per-(slate, slot) rows, in ``np.unique(slate_id)`` order.

    Parameters
    ----------
    slate_id : array_like of int, shape (n_rows,)
        The slate of each row.
    rows : array_like, shape (n_rows,)
        Per-row values.

    Returns
    -------
    numpy.ndarray, shape (n_slates,)
        The sums.

    Examples
    --------
    >>> slate_sums([3, 1, 3], [1.0, 2.0, 0.5]).tolist()
    [2.0, 1.5]
    """
    ids = _ids("slate_id", slate_id)
    y = _vector("rows", rows, ids.shape[0])
    _, index = np.unique(ids, return_inverse=True)
    return np.bincount(index.ravel(), weights=y)


def _check_unique(slate_id: np.ndarray, position: np.ndarray) -> None:
    keys = np.stack([slate_id, position], axis=1)
    if np.unique(keys, axis=0).shape[0] != keys.shape[0]:
        raise DataError("(slate_id, position) must be unique: one row per slot of a slate")


def _weights(slate_id, position, reward, logging_probability, target_probability):
    ids = _ids("slate_id", slate_id)
    n = ids.shape[0]
    pos = _ids("position", position, n)
    if np.any(pos < 0):
        raise DataError("position must be >= 0 (0 is the top slot)")
    _check_unique(ids, pos)
    r = _vector("reward", reward, n)
    pb = _probabilities("logging_probability", logging_probability, n, positive=True)
    pe = _probabilities("target_probability", target_probability, n, positive=False)
    return ids, pos, r, pb, pe


@_fill
def sips_terms(slate_id, position, reward, logging_probability, target_probability) -> np.ndarray:
    """Standard slate IPS: Ŷ_s = Σ_l w_s r_{s,l} with the whole-slate weight
    w_s = π_e(s)/π_b(s) (OBP ``SlateStandardIPS``).

    Parameters
    ----------
    %(slots)s
    logging_probability, target_probability : array_like, shape (n_rows,)
        Joint probabilities of the whole logged slate under each policy, repeated on its rows.

    %(returns)s

    Raises
    ------
    ocef.errors.DataError
        A slate whose rows carry different joint probabilities, duplicate slots.

    Examples
    --------
    >>> sips_terms([0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1], [1/6] * 4, [.3, .3, .1, .1]).round(6).tolist()
    [1.8, 0.6]
    """
    ids, _, r, pb, pe = _weights(slate_id, position, reward, logging_probability, target_probability)
    _, index = np.unique(ids, return_inverse=True)
    for p, name in ((pb, "logging_probability"), (pe, "target_probability")):
        first = np.full(index.max() + 1, np.nan)
        first[index[::-1]] = p[::-1]
        if not np.array_equal(first[index], p):
            raise DataError(f"{name} must be constant within a slate for the standard slate IPS")
    return slate_sums(ids, r * (pe / pb))


@_fill
def iips_terms(slate_id, position, reward, logging_probability, target_probability) -> np.ndarray:
    """Independent IPS: Ŷ_s = Σ_l w_{s,l} r_{s,l} with the item-position marginal weight
    w_{s,l} = π_e(a_{s,l} at l)/π_b(a_{s,l} at l) (Li et al. 2018; OBP ``SlateIndependentIPS``).

    Parameters
    ----------
    %(slots)s
    logging_probability, target_probability : array_like, shape (n_rows,)
        Marginal probabilities of the logged item at its slot.

    %(returns)s

    Examples
    --------
    >>> iips_terms([0, 0], [0, 1], [1, 1], [1/3, 1/3], [.5, .3]).round(6).tolist()
    [2.4]
    """
    ids, _, r, pb, pe = _weights(slate_id, position, reward, logging_probability, target_probability)
    return slate_sums(ids, r * (pe / pb))


def _prefix_order(ids: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sort order by (slate, position) and, in that order, whether a row is its slate's first;
    every slate must hold the slots 0..L_s-1."""
    order = np.lexsort((pos, ids))
    sid, spos = ids[order], pos[order]
    first = np.ones(sid.shape[0], dtype=bool)
    first[1:] = sid[1:] != sid[:-1]
    rank = np.arange(sid.shape[0]) - np.maximum.accumulate(np.where(first, np.arange(sid.shape[0]), 0))
    if not np.array_equal(rank, spos):
        raise DataError("each slate must hold the slots 0, 1, ..., L-1 (a cascade needs the slots above)")
    return order, first


@_fill
def rips_terms(slate_id, position, reward, logging_probability, target_probability) -> np.ndarray:
    """Reward-interaction IPS: Ŷ_s = Σ_l w_{s,1:l} r_{s,l} with the cascade weight
    w_{s,1:l} = π_e(a_{s,1..l})/π_b(a_{s,1..l}) (McInerney et al. 2020; OBP
    ``SlateRewardInteractionIPS``).

    Parameters
    ----------
    %(slots)s
    logging_probability, target_probability : array_like, shape (n_rows,)
        Joint probabilities of the prefix a_{1..l} of the logged slate.

    %(returns)s

    Raises
    ------
    ocef.errors.DataError
        Prefix probabilities that increase down a slate (not a cascade), duplicate slots.

    Examples
    --------
    >>> rips_terms([0, 0], [0, 1], [1, 1], [1/3, 1/6], [.5, .5 * .6]).round(6).tolist()
    [3.3]
    """
    ids, pos, r, pb, pe = _weights(slate_id, position, reward, logging_probability, target_probability)
    order = np.lexsort((pos, ids))
    same = ids[order][1:] == ids[order][:-1]
    for p, name in ((pb, "logging_probability"), (pe, "target_probability")):
        ps = p[order]
        if np.any(same & (ps[1:] > ps[:-1])):
            raise DataError(f"{name} must not increase down a slate (a prefix probability)")
    return slate_sums(ids, r * (pe / pb))


@_fill
def self_normalized_slate_terms(slate_id, position, reward, logging_probability, target_probability, *,
                                per_position: bool = True) -> np.ndarray:
    """Self-normalized slate IPS rows summed per slate: ŷ_{s,l} = w_{s,l} r_{s,l} / mean(w), the
    mean over the rows of the same position (SNIIPS, SNRIPS: ``per_position=True``) or over all rows
    (SNSIPS). OBP's ``SelfNormalizedSlate*IPS``; the weight kind is that of the probabilities given.

    Parameters
    ----------
    %(slots)s
    logging_probability, target_probability : array_like, shape (n_rows,)
        Joint, item-position or cascade probabilities (SNSIPS, SNIIPS, SNRIPS).
    per_position : bool, default True
        Normalize per position (SNIIPS, SNRIPS) or over all rows (SNSIPS).

    Returns
    -------
    numpy.ndarray, shape (n_slates,)
        Per-slate pseudo-outcomes; their mean is the estimate.

    Raises
    ------
    ocef.errors.DataError
        A position (or the log) whose weights sum to 0 (OBP returns NaN).

    Examples
    --------
    >>> self_normalized_slate_terms([0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1], [1/3] * 4, [.5, .2, .1, .4]).round(6).tolist()
    [1.666667, 1.333333]
    """
    ids, pos, r, pb, pe = _weights(slate_id, position, reward, logging_probability, target_probability)
    w = pe / pb
    rows = np.zeros_like(w)
    groups = np.unique(pos) if per_position else [None]
    for p in groups:
        idx = pos == p if p is not None else np.ones(w.shape[0], dtype=bool)
        if w[idx].sum() <= 0:
            where = f"position {p}" if p is not None else "the log"
            raise DataError(f"the importance weights of {where} sum to 0: the self-normalized estimate is undefined")
        rows[idx] = r[idx] * w[idx] / w[idx].mean()
    return slate_sums(ids, rows)


@_fill
def cascade_dr_terms(slate_id, position, action, reward, logging_probability, target_probability, q_hat,
                     target_action_dist) -> np.ndarray:
    """Cascade doubly robust (Kiyohara et al., WSDM 2022, eq. 7; OBP ``SlateCascadeDoublyRobust``):
    Ŷ_s = Σ_l [ w_{s,1:l}(r_{s,l} − Q̂_l(a_{s,l})) + w_{s,1:l−1} Σ_a π_e(a | x, a_{s,1:l−1}) Q̂_l(a) ],
    w_{s,1:0} = 1, w_{s,1:l} the cascade (RIPS) weight.

    Parameters
    ----------
    slate_id, position, action : array_like of int, shape (n_rows,)
        Slate, 0-based slot and logged item of each row.
    reward : array_like, shape (n_rows,)
        Slot rewards.
    logging_probability, target_probability : array_like, shape (n_rows,)
        Cascade (prefix) probabilities π(a_{s,1..l}).
    q_hat : array_like, shape (n_rows, n_actions)
        Q̂_l(x, a_{s,1:l−1}, a) for every item a at the row's slot (logged prefix).
    target_action_dist : array_like, shape (n_rows, n_actions)
        π_e(a | x, a_{s,1:l−1}) at the row's slot, summing to 1 over the items.

    %(returns)s

    Raises
    ------
    ocef.errors.DataError
        Shapes that do not match, a slate missing a slot above another, rows of
        ``target_action_dist`` not summing to 1.

    Examples
    --------
    >>> cascade_dr_terms([0, 0], [0, 1], [0, 1], [1, 0], [1/3, 1/6], [.5, .3],
    ...                  [[.4, .3, .2], [.3, .2, .1]], [[.5, .3, .2], [0, .6, .4]]).round(6).tolist()
    [1.11]
    """
    ids, pos, r, pb, pe = _weights(slate_id, position, reward, logging_probability, target_probability)
    n = ids.shape[0]
    act = _ids("action", action, n)
    q = as_real_array("q_hat", q_hat)
    dist = as_real_array("target_action_dist", target_action_dist)
    if q.ndim != 2 or q.shape[0] != n or q.shape != dist.shape:
        raise DataError(f"q_hat and target_action_dist must both be (n_rows, n_actions), got {q.shape} and {dist.shape}")
    if np.any((act < 0) | (act >= q.shape[1])):
        raise DataError(f"action must lie in [0, {q.shape[1]})")
    if not np.allclose(dist.sum(axis=1), 1.0):
        raise DataError("target_action_dist must sum to 1 over the items in every row")
    order, first = _prefix_order(ids, pos)
    w = pe / pb
    ws = w[order]
    w_prev = np.ones(n)
    w_prev[1:] = ws[:-1]
    w_prev[first] = 1.0
    rows = np.empty(n)
    rows[order] = (ws * (r[order] - q[order, act[order]])
                   + w_prev * (dist[order] * q[order]).sum(axis=1))
    return slate_sums(ids, rows)


def pseudo_inverse_weights(logging_probability, target_probability) -> np.ndarray:
    """Pseudo-inverse weights Γ_s = Σ_l π_e(a_{s,l} at l)/π_b(a_{s,l} at l) − (L − 1) for a product
    logging distribution (Swaminathan et al., NeurIPS 2017, example 4; VWE
    ``slates/pseudo_inverse.py``). Can be negative.

    Parameters
    ----------
    logging_probability, target_probability : array_like, shape (n_slates, L)
        Per-slot marginal probabilities of the logged items.

    Returns
    -------
    numpy.ndarray, shape (n_slates,)
        The weights.

    Examples
    --------
    >>> pseudo_inverse_weights([[1/3, 1/3]], [[.5, .3]]).round(6).tolist()
    [1.4]
    """
    pb = as_real_array("logging_probability", logging_probability)
    pe = as_real_array("target_probability", target_probability)
    if pb.ndim != 2 or pb.shape != pe.shape:
        raise DataError(f"logging_probability and target_probability must be (n_slates, L) alike, got {pb.shape} and {pe.shape}")
    if not np.all((pb > 0) & (pb <= 1)) or not np.all((pe >= 0) & (pe <= 1)):
        raise DataError("slot probabilities must lie in (0, 1] (logging) and [0, 1] (target)")
    return (1.0 - pb.shape[1]) + (pe / pb).sum(axis=1)


def pseudo_inverse_terms(reward, logging_probability, target_probability) -> np.ndarray:
    """Pseudo-inverse estimator rows Ŷ_s = Γ_s r_s with one slate-level reward r_s (its mean is
    VWE's ``slates.pseudo_inverse.Estimator`` with count 1; their normal-quantile Wald interval is
    VWE's ``slates.gaussian.Interval``).

    Parameters
    ----------
    reward : array_like, shape (n_slates,)
        Slate-level rewards (e.g. the sum of slot rewards).
    logging_probability, target_probability : array_like, shape (n_slates, L)
        Per-slot marginals.

    Returns
    -------
    numpy.ndarray, shape (n_slates,)
        The rows.

    Examples
    --------
    >>> pseudo_inverse_terms([1.0], [[1/3, 1/3]], [[.5, .3]]).round(6).tolist()
    [1.4]
    """
    w = pseudo_inverse_weights(logging_probability, target_probability)
    return _vector("reward", reward, w.shape[0]) * w
