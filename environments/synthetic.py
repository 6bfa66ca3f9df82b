"""A synthetic low-rank environment that needs no download (tests and quick runs).

Ground truth ``ρ^m(a) = (1 + <u_m, v_a>) / 2`` with unit vectors ``u_m, v_a`` in
``R^rank``: every entry lies in [0, 1] and ρ has rank at most ``rank + 1`` (the constant
1/2 plus a rank-``rank`` term). Item vectors are uniform on the unit sphere. Users
belong to ``n_groups`` groups of (almost) equal size; user ``m`` of group ``g`` has
``u_m = normalize(c_g + group_spread * z_m)`` with ``c_g`` uniform on the sphere and
``z_m`` standard normal, so groups have distinct tastes when ``group_spread`` is small
and are indistinguishable when it is large. Items get one of ``n_categories``
categories uniformly at random (every category non-empty when ``n_items >=
n_categories``). The simulated recommender is the same Funk-SVD recommender as the
MovieLens environment (:meth:`ocef.environments.base.Environment.estimated_scores`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ocef.environments.base import Environment
from ocef.validation import as_generator, check_in_interval, check_positive_int, seed_from_rng, check_resources
from ocef.errors import ParameterError


def unit_vectors(n: int, dim: int, *, rng=None, positive: bool = False) -> np.ndarray:
    """Random unit vectors, uniform on the sphere of ``R^dim`` or, with ``positive``, on its positive
    orthant (absolute values, App. B.2).

    Parameters
    ----------
    n, dim : int
    rng : None, int, SeedSequence or Generator, optional
        Draws the vectors.
    positive : bool
        Restrict to the positive orthant.

    Returns
    -------
    numpy.ndarray
        Shape (n, dim), rows of norm 1.

    Examples
    --------
    >>> np.linalg.norm(unit_vectors(3, 2, rng=0), axis=1).round(6).tolist()
    [1.0, 1.0, 1.0]
    """
    rng = as_generator(rng)
    x = rng.standard_normal((n, dim))
    if positive:
        x = np.abs(x)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def balanced_labels(n: int, n_groups: int, *, rng=None) -> np.ndarray:
    """Assign ``n`` elements at random to ``n_groups`` labels of (almost) equal size.

    Parameters
    ----------
    n, n_groups : int
    rng : None, int, SeedSequence or Generator, optional
        Draws the permutation.

    Returns
    -------
    numpy.ndarray
        Labels in ``0..n_groups-1``.

    Examples
    --------
    >>> np.bincount(balanced_labels(7, 3, rng=0)).tolist()
    [3, 2, 2]
    """
    return as_generator(rng).permutation(np.arange(n) % n_groups)


class SyntheticEnvironment(Environment):
    """A synthetic environment with low-rank ground truth, user groups and item categories.

    The model is in the module docstring; the only partition is ``"group"``.

    Parameters
    ----------
    n_users, n_items : int
    rank : int
        Dimension of the taste vectors; ρ has rank at most ``rank + 1``.
    n_groups : int
        User groups of (almost) equal size.
    n_categories : int
        Item categories, balanced (every one non-empty).
    group_spread : float
        Spread of a user's taste around their group's center.
    rng : None, int, SeedSequence or Generator
        Converted to an int seed, which names the environment.

    Attributes
    ----------
    rho : numpy.ndarray
        Ground truth, (n_users, n_items), in [0, 1].
    users : pandas.DataFrame
        ``user_id`` and ``group``.
    item_categories : numpy.ndarray
        Category of each item, shape (n_items,).
    category_names : list of str
        ``"category 0"``, ``"category 1"``, ...
    n_groups : int
        Number of groups.
    description : str
        One line with the sizes and the seed.

    Raises
    ------
    ResourceLimitError
        If the users x items tables would exceed the memory or work limits.

    Examples
    --------
    >>> env = SyntheticEnvironment(n_users=8, n_items=6, rank=2, n_groups=2, n_categories=3, rng=0)
    >>> env.rho.shape, env.item_categories.tolist()
    ((8, 6), [1, 2, 2, 0, 1, 0])
    """

    partitions = ("group",)

    def __init__(self, n_users: int = 200, n_items: int = 100, rank: int = 4, n_groups: int = 4, *,
                 n_categories: int = 5, group_spread: float = 0.5, rng=0):
        n_users = check_positive_int("n_users", n_users, minimum=2)
        n_items = check_positive_int("n_items", n_items, minimum=2)
        rank = check_positive_int("rank", rank)
        n_groups = check_positive_int("n_groups", n_groups)
        n_categories = check_positive_int("n_categories", n_categories)
        if n_groups > n_users:
            raise ParameterError(f"n_users must be at least n_groups={n_groups} (a user per group), got {n_users}")
        if n_categories > n_items:
            raise ParameterError(f"n_items must be at least n_categories={n_categories} (an item per category), "
                                 f"got {n_items}")
        group_spread = check_in_interval("group_spread", group_spread, 0.0, np.inf, low_open=False,
                                         high_open=True)
        # rho, the scores and the policies are n_users x n_items tables: refuse before drawing them
        for name, v in (("n_users", n_users), ("n_items", n_items), ("rank", rank)):
            if v > 10**9:
                raise ParameterError(f"{name} must be at most 10**9, got {v}")
        check_resources("n_users, n_items", memory=8.0 * 8 * n_users * n_items + 8.0 * rank * (n_users + n_items),
                        work=float(n_users) * n_items * rank, what="operations")
        seed = seed_from_rng(rng)
        rng = as_generator(seed)
        labels = balanced_labels(n_users, n_groups, rng=rng)
        centers = unit_vectors(n_groups, rank, rng=rng)
        u = centers[labels] + group_spread * rng.standard_normal((n_users, rank))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        v = unit_vectors(n_items, rank, rng=rng)
        self.rho = np.clip((1.0 + u @ v.T) / 2.0, 0.0, 1.0)  # clip: float rounding only
        self.item_categories = balanced_labels(n_items, n_categories, rng=rng)
        self.category_names = [f"category {c}" for c in range(n_categories)]
        self.users = pd.DataFrame({"user_id": np.arange(n_users), "group": labels})
        self.n_groups = n_groups
        self.description = (f"synthetic rank {rank}, {n_users} users x {n_items} items, "
                            f"{n_groups} groups, seed {seed}")

    def groups(self, partition_name: str = "group") -> tuple[np.ndarray, list[str]]:
        """Labels and names of the ``"group"`` partition (the only one).

        Parameters
        ----------
        partition_name : str
            Must be ``"group"``.

        Returns
        -------
        labels : numpy.ndarray
        names : list of str

        Examples
        --------
        >>> SyntheticEnvironment(n_users=4, n_items=3, rank=2, n_groups=2, n_categories=1, rng=0).groups()
        (array([0, 0, 1, 1]), ['group 0', 'group 1'])
        """
        if partition_name not in self.partitions:
            raise ParameterError(f"partition must be one of {list(self.partitions)}, got {partition_name!r}")
        return self.users["group"].to_numpy(dtype=int), [f"group {g}" for g in range(self.n_groups)]
