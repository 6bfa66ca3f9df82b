"""The interface shared by the recommendation environments.

An environment holds the ground truth ρ (users x items, expected rewards in [0, 1]),
the users' attributes and the partitions they define, the item categories, and a
simulated recommender whose estimated scores policies are built from
(``ocef.policies.softmax_policy(env.estimated_scores(d), beta)`` etc.).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ocef.environments.cache import array_fingerprint, cached_arrays
from ocef.environments.recommender import REGULARIZATIONS, FunkSVDModel, simulate_recommender
from ocef.validation import check_in_interval, check_positive_int, seed_from_rng


class Environment:
    """Ground truth, users, item categories and a simulated Funk-SVD recommender.

    The base of the environments of Do et al. 2022 (Sec. 6.1, App. B.1): subclasses set the
    attributes below and implement :meth:`groups`; :meth:`estimated_scores` is shared (cached on disk).

    Attributes
    ----------
    rho : numpy.ndarray
        Ground truth, (n_users, n_items), in [0, 1].
    item_categories : numpy.ndarray
        Integer category of each item.
    category_names : list of str
        Name of each category code.
    users : pandas.DataFrame
        One row per user, with the attribute columns of the partitions.
    description : str
        One line naming the environment and its size (its ``repr``).
    partitions : tuple of str
        The partition names :meth:`groups` accepts.
    regularizations : tuple of float
        Grid of the recommender's regularization, chosen on held-out ratings (App. D.2).
    n_epochs, lr, biased : int, float, bool
        The recommender's Funk SVD settings.

    Examples
    --------
    >>> from ocef.environments.synthetic import SyntheticEnvironment
    >>> from ocef.policies import argmax_policy, utility
    >>> env = SyntheticEnvironment(n_users=20, n_items=10, rank=2, n_groups=2, rng=0)
    >>> scores = env.estimated_scores(2, train_fraction=0.5, rng=0)
    >>> float(utility(env.rho, argmax_policy(scores)).mean().round(3))       # mean utility, eq. (1)
    0.57
    """

    rho: np.ndarray
    item_categories: np.ndarray
    category_names: list[str]
    users: pd.DataFrame
    description: str
    #: partition names accepted by :meth:`groups`
    partitions: tuple[str, ...] = ()
    #: training settings of the simulated recommender (App. D.2)
    regularizations: tuple[float, ...] = REGULARIZATIONS
    n_epochs: int = 20
    lr: float = 0.005
    biased: bool = False

    @property
    def n_users(self) -> int:
        return self.rho.shape[0]

    @property
    def n_items(self) -> int:
        return self.rho.shape[1]

    def groups(self, partition: str) -> tuple[np.ndarray, list[str]]:
        """The user groups of a partition (e.g. ``"gender"``, ``"group"``), for group envy.

        Parameters
        ----------
        partition : str
            One of :attr:`partitions`.

        Returns
        -------
        labels : numpy.ndarray
            0-based group label of each user.
        names : list of str

        Examples
        --------
        >>> from ocef.environments.synthetic import SyntheticEnvironment
        >>> SyntheticEnvironment(n_users=6, n_items=5, rank=2, n_groups=3, rng=0).groups("group")[1]
        ['group 0', 'group 1', 'group 2']
        """
        raise NotImplementedError

    def fingerprint(self) -> str:
        """The SHA-256 of ρ, identifying the environment in cache keys (computed once).

        Returns
        -------
        str
            64 hexadecimal digits (:func:`~ocef.environments.cache.array_fingerprint` of ``rho``).

        Examples
        --------
        >>> from ocef.environments.synthetic import SyntheticEnvironment
        >>> len(SyntheticEnvironment(n_users=6, n_items=5, rank=2, rng=0).fingerprint())
        64
        """
        if getattr(self, "_fingerprint", None) is None:
            self._fingerprint = array_fingerprint(self.rho)
        return self._fingerprint

    def _recommender_arrays(self, factors: int, train_fraction: float, rng) -> dict[str, np.ndarray]:
        factors = check_positive_int("factors", factors)
        train_fraction = check_in_interval("train_fraction", train_fraction, 0.0, 1.0)
        seed = seed_from_rng(rng)
        params = {"rho": self.fingerprint(), "factors": factors, "train_fraction": train_fraction,
                  "seed": seed, "regs": list(self.regularizations), "n_epochs": self.n_epochs,
                  "lr": self.lr, "biased": self.biased}

        def compute() -> dict[str, np.ndarray]:
            fit = simulate_recommender(self.rho, factors, train_fraction, rng=seed,
                                       regs=self.regularizations, n_epochs=self.n_epochs,
                                       lr=self.lr, biased=self.biased)
            return {**fit.model.to_arrays(), "reg": np.array(fit.reg)}

        return cached_arrays("recommender", params, compute)

    def recommender_model(self, factors: int, train_fraction: float = 0.2, *, rng=0) -> FunkSVDModel:
        """The Funk-SVD model of the simulated recommender (Sec. 6.1, App. D.2; cached on disk).

        Parameters
        ----------
        factors, train_fraction, rng
            As in :meth:`estimated_scores`.

        Returns
        -------
        FunkSVDModel

        Examples
        --------
        >>> from ocef.environments.synthetic import SyntheticEnvironment
        >>> SyntheticEnvironment(n_users=20, n_items=10, rank=2, rng=0).recommender_model(3, train_fraction=0.5).Q.shape
        (10, 3)
        """
        return FunkSVDModel.from_arrays(self._recommender_arrays(factors, train_fraction, rng))

    def recommender_regularization(self, factors: int, train_fraction: float = 0.2, *, rng=0) -> float:
        """The regularization chosen on held-out ratings for that recommender (App. D.2).

        Parameters
        ----------
        factors, train_fraction, rng
            As in :meth:`estimated_scores`.

        Returns
        -------
        float
            One of :attr:`regularizations`.

        Examples
        --------
        >>> from ocef.environments.synthetic import SyntheticEnvironment
        >>> SyntheticEnvironment(n_users=20, n_items=10, rank=2, rng=0).recommender_regularization(2, train_fraction=0.5)
        0.01
        """
        return float(self._recommender_arrays(factors, train_fraction, rng)["reg"])

    def estimated_scores(self, factors: int, train_fraction: float = 0.2, *, rng=0) -> np.ndarray:
        """Estimated preferences of the simulated recommender (Do et al. 2022, Sec. 6.1, App. D.2).

        Funk SVD trained on Bernoulli(ρ) ratings of ``train_fraction`` of each user's entries
        (:func:`~ocef.environments.recommender.simulate_recommender`), cached on disk under a key
        holding the fingerprint of ρ and every training setting.

        Parameters
        ----------
        factors : int
            Latent factors d; few factors misspecify the model (Fig. 2).
        train_fraction : float
            Share of each user's entries observed.
        rng : None, int, SeedSequence or Generator
            An int seed lets the fit be cached on disk.

        Returns
        -------
        numpy.ndarray
            Raw (unclipped) scores, (n_users, n_items).

        Examples
        --------
        >>> from ocef.environments.synthetic import SyntheticEnvironment
        >>> SyntheticEnvironment(n_users=20, n_items=10, rank=2, rng=0).estimated_scores(2, train_fraction=0.5).shape
        (20, 10)
        """
        return self.recommender_model(factors, train_fraction, rng=rng).scores()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description})"
