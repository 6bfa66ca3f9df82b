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

    Subclasses set ``rho``, ``item_categories``, ``category_names``, ``users`` and
    ``description``, and implement :meth:`groups`. :meth:`estimated_scores` is shared:
    the recommender of Sec. 6.1 / App. D.2 fitted on Bernoulli(ρ) samples, cached on disk.
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
        """``(labels, names)``: 0-based group label of each user, names of the groups."""
        raise NotImplementedError

    def fingerprint(self) -> str:
        """Hash of ρ, identifying the environment in cache keys."""
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
        """The Funk-SVD model of the simulated recommender (cached on disk)."""
        return FunkSVDModel.from_arrays(self._recommender_arrays(factors, train_fraction, rng))

    def recommender_regularization(self, factors: int, train_fraction: float = 0.2, *, rng=0) -> float:
        """The regularization chosen on held-out data for that recommender (App. D.2)."""
        return float(self._recommender_arrays(factors, train_fraction, rng)["reg"])

    def estimated_scores(self, factors: int, train_fraction: float = 0.2, *, rng=0) -> np.ndarray:
        """Estimated preferences (users x items) of the recommender with ``factors`` latent
        factors trained on ``train_fraction`` of each user's entries (seed 001, Sec. 6.1).
        ``rng`` (an int seed by default, so that the fit is cached on disk) draws the training
        entries and the initialisation."""
        return self.recommender_model(factors, train_fraction, rng=rng).scores()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description})"
