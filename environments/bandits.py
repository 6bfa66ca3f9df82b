"""Bernoulli bandits: the toy environments of Do et al. App. D.1.

Arm 0 is the baseline (the audited group's own recommendations); arms 1..K stand for
the other groups. A pull of arm k for a group of |g| users returns the group-average
reward, the mean of |g| independent Bernoulli(μ_k) draws.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.validation import as_generator, check_positive_int, check_unit_array
from ocef.errors import ParameterError

#: Names of the four instances of App. D.1 (paper numbering 1-4).
INSTANCES = {
    1: "baseline best, all others equal (μ0=0.6, μk=0.3)",
    2: "baseline worst, one better arm (μ0=0.3, μ1=0.6, μk=0.3)",
    3: "decreasing means, baseline best (μk = 0.7 − 0.7 (k/(K+1))^0.6)",
    4: "as 3 with μ0 and μ1 swapped (envy)",
}
#: Verdict a correct audit must return on each instance (ε = 0.05).
EXPECTED_VERDICT = {1: "no_envy", 2: "envy", 3: "no_envy", 4: "envy"}


def paper_instance(number: int, n_arms: int = 9) -> np.ndarray:
    """Means μ_0..μ_K of instance ``number`` (1-4) of App. D.1 with K = ``n_arms``.

    Parameters
    ----------
    number : {1, 2, 3, 4}
        The instance (:data:`INSTANCES`).
    n_arms : int, default 9
        K, the non-baseline arms.

    Returns
    -------
    numpy.ndarray
        K + 1 means, the baseline first.

    Examples
    --------
    >>> paper_instance(3, n_arms=4).round(3)
    array([0.7  , 0.433, 0.296, 0.185, 0.088])
    """
    k = check_positive_int("n_arms", n_arms)
    if k > 10**7:
        raise ParameterError(f"n_arms must be at most 10**7 (one OCEF auditor's limit), got {k}")
    if number == 1:
        return np.r_[0.6, np.full(k, 0.3)]
    if number == 2:
        return np.r_[0.3, 0.6, np.full(k - 1, 0.3)]
    if number in (3, 4):
        mu = 0.7 - 0.7 * (np.arange(k + 1) / (k + 1)) ** 0.6
        if number == 4:
            mu[[0, 1]] = mu[[1, 0]]
        return mu
    raise ParameterError(f"number must be one of 1, 2, 3, 4 (App. D.1 instances), got {number!r}")


@dataclass(frozen=True)
class BernoulliBandit:
    """A Bernoulli bandit with arm means ``means`` (``means[0]`` is the baseline).

    Parameters
    ----------
    means : array_like
        μ_0..μ_K in [0, 1].
    group_size : int, default 1
        |g|: a pull returns the mean of |g| independent Bernoulli(μ_k) draws.

    Examples
    --------
    >>> BernoulliBandit(np.array([0.3, 0.6]), group_size=4).sample(np.array([0, 1, 1]), rng=0)
    array([0.25, 0.75, 1.  ])
    """

    means: np.ndarray
    group_size: int = 1

    def __post_init__(self):
        means = check_unit_array("means", self.means, ndim=1)
        if means.size < 2:
            raise ParameterError(f"means must hold the baseline and at least one other arm, got {means.size} value(s)")
        object.__setattr__(self, "means", means)
        object.__setattr__(self, "group_size", check_positive_int("group_size", self.group_size))

    @property
    def n_arms(self) -> int:
        """K, the number of non-baseline arms."""
        return self.means.size - 1

    def sample(self, arms, *, rng=None) -> np.ndarray:
        """Draw one group-average reward per pulled arm: Binomial(|g|, μ_k) / |g|.

        Parameters
        ----------
        arms : array_like of int
            Arm indices in ``0..K`` (0 the baseline), any shape.
        rng : None, int, SeedSequence or Generator, optional
            Draws the rewards.

        Returns
        -------
        numpy.ndarray
            Rewards in [0, 1] (multiples of 1/|g|), of the shape of ``arms``.

        Examples
        --------
        >>> bandit = BernoulliBandit(np.array([0.2, 0.9]))
        >>> rewards = bandit.sample(np.ones(1000, dtype=int), rng=0)
        >>> float(rewards.mean())                      # close to μ_1 = 0.9
        0.904
        """
        rng = as_generator(rng)
        arms = np.asarray(arms)
        return rng.binomial(self.group_size, self.means[arms]) / self.group_size
