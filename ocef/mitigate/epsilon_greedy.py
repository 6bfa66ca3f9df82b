"""ε-greedy re-ranking (Feng & Shah, AAAI 2022): with probability ε, swap a position with a random later one.

Equal to FairRankTune 0.0.7's ``EPSILONGREEDY`` (KCachel/fairranktune @9dd1550). Walking the
score-ordered list i = 0, 1, ..., n − 1: draw u ~ U[0, 1); if u ≤ ε and i < n − 1, draw j uniformly
from {i + 1, ..., n − 1} and swap positions i and j; position i is then final. The top k are
returned (the draws at positions ≥ k cannot change them, so they are not made).

The random source: by default the numpy ``Generator`` ``rng`` (``rng.random()``, then
``rng.integers(i + 1, n)``); with ``legacy_seed`` the draws are those of the reference, which
seeds numpy's legacy global generator (``np.random.seed(seed)``, then ``np.random.rand()`` and
``np.random.randint(i + 1, n)``) — reproduced with a private ``RandomState(legacy_seed)``, the
global state untouched.
"""
from __future__ import annotations

import numpy as np

from ocef.mitigate.lottery import Lottery, check_candidates, deterministic
from ocef.validation import Instance, Integer, Real, Rng, as_generator, validate_params

__all__ = ["epsilon_greedy_rerank", "epsilon_greedy_order"]


def epsilon_greedy_order(n: int, k: int, epsilon: float, uniform, integers) -> np.ndarray:
    """The ε-greedy permutation of positions 0..n−1 (first ``k`` entries), from two draw functions.

    Parameters
    ----------
    n : int
        Number of candidates (in score order).
    k : int
        How many positions to settle (1 <= k <= n).
    epsilon : float
        Swap probability at each position.
    uniform : callable
        ``uniform()`` -> a float in [0, 1).
    integers : callable
        ``integers(low, high)`` -> an int in [low, high).

    Returns
    -------
    numpy.ndarray of int, shape (k,)
        Positions (in score order) of the list's entries.

    Examples
    --------
    >>> rs = __import__("numpy").random.RandomState(42)
    >>> epsilon_greedy_order(12, 12, 0.3, rs.rand, rs.randint)
    array([ 0,  1,  2,  3,  7,  8,  6,  4,  5, 11, 10,  9])
    """
    order = list(range(n))
    for i in range(k):
        if uniform() <= epsilon and i < n - 1:
            j = int(integers(i + 1, n))
            order[i], order[j] = order[j], order[i]
    return np.asarray(order[:k], dtype=np.int64)


@validate_params(k=Integer(1), rng=Rng(), epsilon=Real(0, 1), legacy_seed=Instance(int, none=True))
def epsilon_greedy_rerank(scores, groups, k, *, rng=None, epsilon=0.1, legacy_seed=None) -> Lottery:
    """ε-greedy re-ranking of one user's candidates (Feng & Shah 2022, Sec. "ε-greedy").

    A randomized re-ranker: the result is ONE drawn ranking (probability 1 in the returned
    :class:`~ocef.mitigate.lottery.Lottery`); calling it with a Generator draws afresh each time.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
    groups : array-like of int, shape (n_candidates,)
        Not used by the method (it is group-blind); checked as by every re-ranker.
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        The random source (unless ``legacy_seed`` is given).
    epsilon : float, default 0.1
        The swap probability, in [0, 1].
    legacy_seed : int or None, default None
        Reproduce FairRankTune's draws for this seed (numpy's legacy MT19937 stream).

    Returns
    -------
    Lottery
        The drawn ranking with probability 1.

    Examples
    --------
    >>> epsilon_greedy_rerank(np.arange(12, 0, -1), np.zeros(12, int), 12, epsilon=0.3, legacy_seed=42).rankings
    array([[ 0,  1,  2,  3,  7,  8,  6,  4,  5, 11, 10,  9]])
    """
    s, _, k = check_candidates(scores, groups, k)
    order = np.argsort(-s, kind="stable")
    if legacy_seed is not None:
        src = np.random.RandomState(legacy_seed)
        picks = epsilon_greedy_order(s.size, k, epsilon, src.rand, src.randint)
    else:
        gen = as_generator(rng)
        picks = epsilon_greedy_order(s.size, k, epsilon, gen.random, gen.integers)
    return deterministic(order[picks])
