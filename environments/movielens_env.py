"""The MovieLens-derived environment of Do et al. 2022 (Sec. 6.1, App. B.1, App. D.2).

"We extract a 2000 x 2000 user x items matrix, keeping users and items with the most
ratings, and fill in missing entries using a popular matrix completion algorithm. This
completed matrix serves as ground truth user preferences." (Sec. 6.1)

The choices (size, completion, stars to [0, 1]) are in docs/guide/envy.md ("The MovieLens ground
truth: choices").
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.environments.base import Environment
from ocef.environments.cache import array_fingerprint, cached_arrays
from ocef.datasets.movielens import GENRES, PARTITIONS, MovieLensData, load_movielens, partition
from ocef.environments.recommender import fit_funk_svd
from ocef.validation import check_positive_int, seed_from_rng
from ocef.errors import ParameterError

DEFAULT_SIZE_1M = 2000
DEFAULT_ITEMS_100K = 1000


def stars_to_unit(stars: np.ndarray, low: float = 1.0, high: float = 5.0) -> np.ndarray:
    """Map star ratings to [0, 1], ``clip((r - low) / (high - low), 0, 1)`` (Do et al. 2022, Sec. 6.1).

    Parameters
    ----------
    stars : array_like
        Star ratings (observed or completed), any shape.
    low, high : float
        The ends of the star scale.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> stars_to_unit(np.array([1, 3, 5, 5.4]))
    array([0. , 0.5, 1. , 1. ])
    """
    return np.clip((np.asarray(stars, dtype=float) - low) / (high - low), 0.0, 1.0)


def most_rated(ratings: pd.DataFrame, column: str, n: int | None) -> np.ndarray:
    """The users (or items) with the most ratings, sorted (ties: the smaller index is kept).

    Parameters
    ----------
    ratings : pandas.DataFrame
        One row per rating.
    column : str
        E.g. ``"user"`` or ``"item"``.
    n : int or None
        How many to keep; None keeps all that have ratings.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> most_rated(pd.DataFrame({"item": [5, 3, 3, 5, 4, 3]}), "item", 2)
    array([3, 5])
    """
    counts = ratings[column].value_counts()
    order = counts.index.to_numpy()[np.lexsort((counts.index.to_numpy(), -counts.to_numpy()))]
    if n is not None:
        n = check_positive_int(f"n_{column}s", n)
        if n > len(order):
            raise ParameterError(f"n_{column}s must be at most {len(order)} (those with ratings), got {n}")
        order = order[:n]
    return np.sort(order)


class MovieLensEnvironment(Environment):
    """Ground truth from matrix completion on MovieLens (Do et al. 2022, Sec. 6.1, App. B.1).

    The completed matrix is cached on disk (``$OCEF_CACHE_DIR``, default ``~/.cache/ocef``).

    Parameters
    ----------
    data_dir : str or Path, optional
        See :func:`ocef.datasets.movielens.load_movielens`.
    n_users, n_items : int, optional
        The most-rated users and items kept (defaults: 2000/2000 on ML-1M, all users/1000 items
        on ML-100K).
    completion_factors, completion_epochs, completion_reg, completion_lr
        The matrix completion's Funk SVD.
    rng : int
        Seed of the completion.
    data : MovieLensData, optional
        Already loaded data (``ocef.datasets.MovieLens100K().data``) instead of ``data_dir``.

    Attributes
    ----------
    rho : numpy.ndarray
        Users x items preferences in [0, 1].
    item_categories, category_names
        Code of each item's first genre (:data:`ocef.datasets.movielens.GENRES`) and the names.
    users, items : pandas.DataFrame
        ``gender``, ``age``, ``occupation`` (ML-1M codes), ``user_id``; the items kept.
    source, description : str
        ``"ml-1m"``/``"ml-100k"`` and a one-line description.

    Examples
    --------
    >>> from ocef.datasets import make_toy_movielens        # 6 users rating 4 items
    >>> MovieLensEnvironment(data=make_toy_movielens(), completion_factors=2).rho.shape
    (6, 4)
    """

    partitions = tuple(PARTITIONS)

    def __init__(self, data_dir: Path | str | None = None, *, n_users: int | None = None,
                 n_items: int | None = None, completion_factors: int = 100,
                 completion_epochs: int = 20, completion_reg: float = 0.02, completion_lr: float = 0.005,
                 rng=0,
                 data: MovieLensData | None = None):
        data = load_movielens(data_dir) if data is None else data
        big = data.source == "ml-1m"
        if n_users is None and big:
            n_users = min(DEFAULT_SIZE_1M, data.n_users)
        if n_items is None:
            n_items = min(DEFAULT_SIZE_1M if big else DEFAULT_ITEMS_100K, data.ratings["item"].nunique())
        seed = seed_from_rng(rng)
        keep_users = most_rated(data.ratings, "user", n_users)
        keep_items = most_rated(data.ratings, "item", n_items)
        r = data.ratings
        r = r[r["user"].isin(keep_users) & r["item"].isin(keep_items)]
        u = np.searchsorted(keep_users, r["user"].to_numpy())
        i = np.searchsorted(keep_items, r["item"].to_numpy())
        stars = r["rating"].to_numpy(dtype=float)
        params = {"data": array_fingerprint(u, i, stars), "shape": [len(keep_users), len(keep_items)],
                  "factors": completion_factors, "epochs": completion_epochs, "reg": completion_reg, "lr": completion_lr,
                  "seed": seed}

        def compute() -> dict[str, np.ndarray]:
            model = fit_funk_svd(u, i, stars, len(keep_users), len(keep_items),
                                 factors=completion_factors, reg=completion_reg,
                                 rating_scale=(1.0, 5.0), n_epochs=completion_epochs, lr=completion_lr, rng=seed)
            return {"rho": stars_to_unit(model.scores())}

        self.rho = cached_arrays("movielens-truth", params, compute)["rho"]
        self.data = data
        self.source = data.source
        self.users = data.users.iloc[keep_users].reset_index(drop=True)
        self.items = data.items.iloc[keep_items].reset_index(drop=True)
        self.item_categories = self.items["category_code"].to_numpy(dtype=int)
        self.category_names = list(GENRES) + (["unknown"] if (self.item_categories == len(GENRES)).any() else [])
        self.n_observed = len(stars)
        name = "MovieLens-1M" if big else "MovieLens-100K"
        self.description = f"{name}, {self.n_users} users x {self.n_items} items"

    def groups(self, partition_name: str) -> tuple[np.ndarray, list[str]]:
        """Labels and names of the non-empty groups of a partition of the MovieLens users.

        Parameters
        ----------
        partition_name : str
            One of ``gender, age, occupation, gender-age, gender-occupation, age-occupation``
            (:func:`ocef.datasets.movielens.partition`).

        Returns
        -------
        labels : numpy.ndarray
        names : list of str

        Examples
        --------
        >>> from ocef.datasets import make_toy_movielens
        >>> MovieLensEnvironment(data=make_toy_movielens(), completion_factors=2).groups("gender")
        (array([0, 1, 0, 1, 0, 1]), ['F', 'M'])
        """
        return partition(self.users, partition_name)
