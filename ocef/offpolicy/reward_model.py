"""A cross-fitted reward model for DM and DR when the user gives no ``reward_hat``.

The model is the mean reward of each key (an item, or an (item, position) cell, or any integer cell
of the context), shrunk toward the overall mean with m pseudo-observations:
q̂(k) = (Σ_{i: k_i = k} r_i + m μ) / (n_k + m) — the posterior mean of a beta-binomial (or normal)
model with the prior's strength m fitted by the method of moments on the training rows. It is a
deliberate choice over a learned regressor: no dependency (scikit-learn is not one), no tuning, a
closed form that can be computed by a GROUP BY on any backend, and it is the model OBP's examples
effectively fit for context-free policies. Features beyond the key are not used; a user with a
better model passes its predictions as ``reward_hat``.

Cross-fitting (Chernozhukov et al. 2018; used for DR by Kallus & Uehara 2020): the rows are split
into K folds at random and the prediction for a row uses only the other folds, so that q̂ is
independent of the row's own reward and DR's pseudo-outcomes stay unbiased for a fixed model.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ocef.errors import DataError
from ocef.offpolicy.estimators import _vector
from ocef.validation import as_generator, as_real_array, check_in_interval, check_positive_int

__all__ = ["shrunk_means", "CrossFitRewardModel", "cross_fit_reward_model"]


def _moments_strength(sums: np.ndarray, counts: np.ndarray, sq_sums: np.ndarray) -> float:
    """Prior strength m = within-key variance / between-key variance (method of moments, the
    empirical-Bayes ratio σ²/τ²), clipped to [1e-6, 1e6]."""
    seen = counts > 0
    n = counts[seen]
    total = n.sum()
    mu = sums[seen].sum() / total
    within = max(float((sq_sums[seen].sum() - (sums[seen] ** 2 / n).sum()) / max(total - seen.sum(), 1)), 0.0)
    means = sums[seen] / n
    between = float(((n * (means - mu) ** 2).sum() / total) - within * seen.sum() / total)
    if between <= 0:
        return 1e6
    return float(np.clip(within / between, 1e-6, 1e6))


def shrunk_means(reward, key, n_keys: int, *, prior_strength: float | None = None) -> np.ndarray:
    """q̂(k) = (Σ_{k_i = k} r_i + m μ)/(n_k + m) for k = 0..n_keys−1 (μ the mean reward; an unseen key
    gets μ).

    Parameters
    ----------
    reward : array_like, shape (n,)
        Rewards.
    key : array_like of int, shape (n,)
        The cell of each row, in ``[0, n_keys)``.
    n_keys : int
        Number of cells.
    prior_strength : float, optional
        m ≥ 0; None fits it by the method of moments (within- over between-key variance).

    Returns
    -------
    numpy.ndarray, shape (n_keys,)
        The shrunk means.

    Examples
    --------
    >>> shrunk_means([1, 0, 1, 1], [0, 0, 1, 1], 3, prior_strength=1.0).round(4).tolist()
    [0.5833, 0.9167, 0.75]
    """
    r = _vector("reward", reward)
    k = np.asarray(key)
    n_keys = check_positive_int("n_keys", n_keys)
    if k.shape != r.shape or k.dtype.kind not in "iu" or np.any((k < 0) | (k >= n_keys)):
        raise DataError(f"key must be {r.shape[0]} integers in [0, {n_keys})")
    if r.shape[0] == 0:
        raise DataError("no rows to fit the reward model on")
    counts = np.bincount(k, minlength=n_keys).astype(float)
    sums = np.bincount(k, weights=r, minlength=n_keys)
    mu = float(r.mean())
    if prior_strength is None:
        m = _moments_strength(sums, counts, np.bincount(k, weights=r ** 2, minlength=n_keys))
    else:
        m = check_in_interval("prior_strength", prior_strength, 0.0, np.inf, low_open=False, high_open=True)
    out = np.full(n_keys, mu)
    denom = counts + m
    np.divide(sums + m * mu, denom, out=out, where=denom > 0)
    return out


class CrossFitRewardModel(NamedTuple):
    """A cross-fitted reward model: the fold of each row and one table of q̂ per fold (fitted on the
    other folds); q̂(x_i, k) = ``tables[fold[i], k]``.

    Attributes
    ----------
    fold : numpy.ndarray of int, shape (n,)
        The fold of each row.
    tables : numpy.ndarray, shape (n_folds, n_keys)
        q̂ of every key, fitted without the fold.

    Examples
    --------
    >>> model = cross_fit_reward_model([1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 2, 2], 3, n_folds=2, rng=0)
    >>> model.tables.shape
    (2, 3)
    """
    fold: np.ndarray
    tables: np.ndarray

    def q_hat_logged(self, key) -> np.ndarray:
        """q̂ of each row at its own (logged) key.

        Parameters
        ----------
        key : array_like of int, shape (n,)
            The logged key of each row.

        Returns
        -------
        numpy.ndarray, shape (n,)
            ``tables[fold[i], key[i]]``.

        Examples
        --------
        >>> m = CrossFitRewardModel(np.array([0, 1]), np.array([[0.1, 0.2], [0.3, 0.4]]))
        >>> m.q_hat_logged([1, 0]).tolist()
        [0.2, 0.3]
        """
        return self.tables[self.fold, np.asarray(key)]

    def dm(self, action_dist) -> np.ndarray:
        """The direct-method rows d_i = Σ_k π_e(k | x_i) q̂_{fold(i)}(k).

        Parameters
        ----------
        action_dist : array_like, shape (n, n_keys)
            The target policy's probabilities over the keys for each row.

        Returns
        -------
        numpy.ndarray, shape (n,)
            The rows (OBP's ``np.average`` form).

        Examples
        --------
        >>> m = CrossFitRewardModel(np.array([0, 1]), np.array([[0.1, 0.2], [0.3, 0.4]]))
        >>> m.dm([[0.5, 0.5], [1.0, 0.0]]).round(10).tolist()
        [0.15, 0.3]
        """
        dist = as_real_array("action_dist", action_dist)
        if dist.shape != (self.fold.shape[0], self.tables.shape[1]):
            raise DataError(f"action_dist must be (n, n_keys) = {(self.fold.shape[0], self.tables.shape[1])}, got {dist.shape}")
        return np.average(self.tables[self.fold], weights=dist, axis=1)


def cross_fit_reward_model(reward, key, n_keys: int, *, n_folds: int = 5, prior_strength: float | None = None,
                           rng=None) -> CrossFitRewardModel:
    """K-fold cross-fitted :func:`shrunk_means`.

    Parameters
    ----------
    reward : array_like, shape (n,)
        Logged rewards.
    key : array_like of int, shape (n,)
        The logged cell of each row (item, or item × position), in ``[0, n_keys)``.
    n_keys : int
        Number of cells.
    n_folds : int, default 5
        K ≥ 2 (at most n).
    prior_strength : float, optional
        m; None fits it on each training split.
    rng : None, int, SeedSequence or Generator
        Randomness of the fold assignment.

    Returns
    -------
    CrossFitRewardModel
        Folds and per-fold tables.

    Raises
    ------
    ocef.errors.DataError
        Fewer rows than folds, keys out of range.

    Examples
    --------
    >>> model = cross_fit_reward_model([1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 2, 2], 3, n_folds=3, rng=1)
    >>> model.q_hat_logged([0, 0, 1, 1, 2, 2]).shape
    (6,)
    """
    r = _vector("reward", reward)
    n_folds = check_positive_int("n_folds", n_folds, minimum=2)
    if r.shape[0] < n_folds:
        raise DataError(f"cross-fitting needs at least n_folds = {n_folds} rows, got {r.shape[0]}")
    k = np.asarray(key)
    gen = as_generator(rng)
    fold = gen.permutation(np.arange(r.shape[0]) % n_folds)
    tables = np.stack([shrunk_means(r[fold != f], k[fold != f], n_keys, prior_strength=prior_strength)
                       for f in range(n_folds)])
    return CrossFitRewardModel(fold, tables)
