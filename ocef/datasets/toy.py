"""Toy problems for examples and tests, generated in one call (as scikit-learn's
``make_classification``), so that an example shows the function it documents and not its set-up.

Examples
--------
>>> from ocef.datasets import make_toy_envy
>>> rho, probs, labels = make_toy_envy()
>>> rho.shape, probs.shape, labels.tolist()
((4, 2), (4, 2), [0, 0, 1, 1])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ocef.validation import Integer, validate_params

__all__ = ["ToyEnvy", "make_toy_envy"]


class ToyEnvy(NamedTuple):
    """The arrays of an envy-freeness audit, the output of :func:`make_toy_envy`.

    Unpacks as ``rho, probs, labels`` and passes on as ``AuditProblem(*toy)``.

    Parameters
    ----------
    rho : numpy.ndarray
        Users x items, expected rewards in [0, 1].
    probs : numpy.ndarray
        Users x items, the recommender's policy (rows sum to 1).
    labels : numpy.ndarray
        The group of each user, 0..G-1.

    Examples
    --------
    >>> toy = make_toy_envy()
    >>> toy.labels.tolist(), toy.probs.sum(axis=1).tolist()
    ([0, 0, 1, 1], [1.0, 1.0, 1.0, 1.0])
    """

    rho: np.ndarray
    probs: np.ndarray
    labels: np.ndarray


#: The two groups' users: group 0 likes item 0 (0.9, 0.8), group 1 likes item 1 (0.9, 0.7).
_RHO = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.7]])
#: ... and each group is recommended the item the other group likes, so both groups envy the other.
_PROBS = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])


@validate_params(n_per_group=Integer(1, 10**6))
def make_toy_envy(n_per_group: int = 2) -> ToyEnvy:
    """Two groups, two items, a recommender that shows each group the item the other group likes.

    Group 0's users expect rewards (0.9, 0.1) and (0.8, 0.2) from items 0 and 1, group 1's
    (0.1, 0.9) and (0.2, 0.7); the policy recommends item 1 to group 0 and item 0 to group 1, so
    every user (and both groups, under any matching) envies the other group: the exact group
    envies are 0.70 (group 0) and 0.65 (group 1) for the transported policies. The smallest
    problem on which an audit has something to find, used by the examples of
    :mod:`ocef.envy`.

    Parameters
    ----------
    n_per_group : int, default 2
        Users per group: the two users of each group are repeated ``n_per_group / 2`` times (an
        odd number keeps the first user once more), so the group means stay those of the
        4-user problem for even values.

    Returns
    -------
    ToyEnvy
        ``(rho, probs, labels)``, new arrays on each call.

    Examples
    --------
    >>> rho, probs, labels = make_toy_envy()
    >>> rho
    array([[0.9, 0.1],
           [0.8, 0.2],
           [0.1, 0.9],
           [0.2, 0.7]])
    >>> make_toy_envy(4).labels.tolist()
    [0, 0, 0, 0, 1, 1, 1, 1]
    """
    take = np.arange(n_per_group) % 2
    rows = np.concatenate([take, take + 2])
    return ToyEnvy(_RHO[rows].copy(), _PROBS[rows].copy(), np.repeat([0, 1], n_per_group))
