"""Optimal policies under item-side exposure constraints (Sec. 3.3 eq. (2); App. A).

Both programs are linear: maximise Σ_a p(a) ŝ(a) over distributions p on the items
subject to a fixed exposure mass E_s per item category A_s, Σ_{a∈A_s} p(a) = E_s.
The program separates over categories; within A_s it maximises Σ_{a∈A_s} p(a) ŝ(a)
under Σ_{a∈A_s} p(a) = E_s, p ≥ 0, whose optimum puts the whole mass E_s on the
category's best item a_s = argmax_{a∈A_s} ŝ(a) (App. A, the analytical expression
before eq. (9)). So

    π(a) = 1{a = a_s} · E_s   for a ∈ A_s,

with E_s = |A_s| / |A| (parity, eq. (2)) or E_s = Σ_{a∈A_s} ŝ(a) / Σ_{a∈A} ŝ(a)
(equity, App. A; the constraints are ignored when Σ_a ŝ(a) = 0, which leaves the
unconstrained argmax). Ties inside a category go to the lowest item index.
"""
from __future__ import annotations

import numpy as np

from ocef.policies.base import ArrayPolicy
from ocef.policies.standard import argmax_probabilities, check_scores
from ocef.errors import ParameterError, ParameterTypeError


def check_categories(categories, n_items: int) -> np.ndarray:
    """Validate item categories A_s (eq. (2), Do et al. 2022 (OCEF)): one integer label >= 0 per item
    (not necessarily contiguous; whole floats are converted).

    Parameters
    ----------
    categories : array_like
        1-d labels, one per item.
    n_items : int
        Number of items.

    Returns
    -------
    numpy.ndarray of intp

    Examples
    --------
    >>> check_categories(np.array([0.0, 2.0, 2.0]), n_items=3)
    array([0, 2, 2])
    """
    cats = np.asarray(categories)
    if cats.ndim != 1 or cats.shape[0] != n_items:
        raise ParameterError(f"categories must be a 1-d array with one label per item ({n_items}), got shape {cats.shape}")
    if not np.issubdtype(cats.dtype, np.integer):
        if np.issubdtype(cats.dtype, np.floating) and np.all(cats == np.round(cats)):
            cats = cats.astype(np.intp)
        else:
            raise ParameterTypeError(f"categories must be integer labels, got dtype {cats.dtype}")
    if cats.min() < 0:
        raise ParameterError(f"categories must be labels >= 0, found {int(cats.min())}")
    return cats.astype(np.intp, copy=False)


def best_item_per_category(scores: np.ndarray, categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each user's best item in every category, a_s = argmax_{a∈A_s} ŝ(a) (App. A, before eq. (9));
    ties go to the lowest index.

    Parameters
    ----------
    scores : numpy.ndarray
        Shape (..., A).
    categories : numpy.ndarray
        Shape (A,) (:func:`check_categories`).

    Returns
    -------
    present : numpy.ndarray
        The labels of the non-empty categories, sorted, shape (S',).
    best : numpy.ndarray
        Their best item indices, shape (..., S').

    Examples
    --------
    >>> present, best = best_item_per_category(np.array([[0.9, 0.1, 0.5, 0.3]]), np.array([0, 0, 2, 2]))
    >>> present.tolist(), best.tolist()
    ([0, 2], [[0, 2]])
    """
    present = np.unique(categories)
    best = np.empty(scores.shape[:-1] + (present.size,), dtype=np.intp)
    for j, s in enumerate(present):
        cols = np.flatnonzero(categories == s)
        best[..., j] = cols[scores[..., cols].argmax(axis=-1)]
    return present, best


def exposure_constrained_probabilities(scores: np.ndarray, categories: np.ndarray,
                                       mass: np.ndarray) -> np.ndarray:
    """The exact optimum of max_p Σ_a p(a) ŝ(a) s.t. Σ_{a∈A_s} p(a) = E_s (eq. (2), App. A): E_s on
    a_s (:func:`best_item_per_category`), 0 elsewhere.

    Parameters
    ----------
    scores : numpy.ndarray
        Shape (..., A).
    categories : numpy.ndarray
        Shape (A,).
    mass : numpy.ndarray
        E_s, shape (S,) or (..., S) with S > the largest label; the masses of the non-empty
        categories should sum to 1.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> scores, categories = np.array([[0.9, 0.1, 0.5, 0.3]]), np.array([0, 0, 1, 1])
    >>> exposure_constrained_probabilities(scores, categories, np.array([0.75, 0.25])).tolist()
    [[0.75, 0.0, 0.25, 0.0]]
    """
    present, best = best_item_per_category(scores, categories)
    out = np.zeros(scores.shape, dtype=float)
    np.put_along_axis(out, best, mass[..., present], axis=-1)
    return out


def parity_exposure_mass(categories: np.ndarray) -> np.ndarray:
    """Exposure of each category under parity of exposure, E_s = |A_s| / |A| (eq. (2), Do et al. 2022 (OCEF)).

    Parameters
    ----------
    categories : numpy.ndarray
        Integer label of each item, shape (A,).

    Returns
    -------
    numpy.ndarray
        E_s for s = 0..max label (0 for an unused label).

    Examples
    --------
    >>> parity_exposure_mass(np.array([0, 0, 0, 1]))
    array([0.75, 0.25])
    """
    counts = np.bincount(categories)
    return counts / categories.size


def equity_exposure_mass(scores: np.ndarray, categories: np.ndarray) -> np.ndarray:
    """Exposure of each category under equity of exposure, E_s = Σ_{a∈A_s} ŝ(a) / Σ_a ŝ(a) (App. A).

    Parameters
    ----------
    scores : numpy.ndarray
        Non-negative, shape (..., A).
    categories : numpy.ndarray
        Integer label of each item, shape (A,).

    Returns
    -------
    numpy.ndarray
        Shape (..., max label + 1); NaN rows where Σ_a ŝ(a) = 0.

    Examples
    --------
    >>> equity_exposure_mass(np.array([[0.9, 0.1, 0.5, 0.3]]), np.array([0, 0, 1, 1])).round(3).tolist()
    [[0.556, 0.444]]
    """
    n_cat = int(categories.max()) + 1
    onehot = np.zeros((categories.size, n_cat))
    onehot[np.arange(categories.size), categories] = 1.0
    per_cat = scores @ onehot
    total = per_cat.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, per_cat / np.where(total > 0, total, 1.0), np.nan)


def parity_of_exposure_policy(scores, categories) -> ArrayPolicy:
    """π^{m,par}: optimal policy under parity of exposure (eq. (2)), in closed form: all of
    E_s = |A_s|/|A| on the user's best item of A_s. Parity optima are envy-free (Prop. 1).

    Parameters
    ----------
    scores : array_like
        Users x items.
    categories : array_like
        The category of each item.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> parity_of_exposure_policy(np.array([[0.9, 0.1, 0.5, 0.3]]), np.array([0, 0, 1, 1])).probs.tolist()
    [[0.5, 0.0, 0.5, 0.0]]
    """
    s = check_scores(scores)
    cats = check_categories(categories, s.shape[-1])
    mass = np.broadcast_to(parity_exposure_mass(cats), s.shape[:-1] + (int(cats.max()) + 1,))
    return ArrayPolicy(exposure_constrained_probabilities(s, cats, mass))


def equity_of_exposure_policy(scores, categories) -> ArrayPolicy:
    """π^{m,eq}: optimal policy under equity of exposure (App. A), in closed form: all of E_s on the
    user's best item of A_s (the argmax where Σ_a ŝ(a) = 0). Equity optima can be envious (Prop. 1,
    Table 2).

    Parameters
    ----------
    scores : array_like
        Non-negative, users x items.
    categories : array_like
        The category of each item.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> equity_of_exposure_policy(np.array([[0.9, 0.1, 0.5, 0.3]]), np.array([0, 0, 1, 1])).probs.round(3).tolist()
    [[0.556, 0.0, 0.444, 0.0]]
    """
    s = check_scores(scores)
    if s.min() < 0:
        bad = np.argwhere(s < 0)[0]
        raise ParameterError(f"scores must be non-negative relevances for equity of exposure, "
                         f"found {s[tuple(bad)]!r} at {tuple(bad.tolist())}")
    cats = check_categories(categories, s.shape[-1])
    mass = equity_exposure_mass(s, cats)
    unconstrained = np.isnan(mass[..., 0])
    probs = exposure_constrained_probabilities(s, cats, np.nan_to_num(mass))
    if unconstrained.any():
        probs[unconstrained] = argmax_probabilities(s[unconstrained])
    return ArrayPolicy(probs)
