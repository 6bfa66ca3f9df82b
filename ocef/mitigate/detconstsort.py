"""DetConstSort (Geyik, Ambler & Kenthapadi, KDD 2019, Algorithm 3) for any number of groups.

Equal, on identical inputs, to FairRankTune 0.0.7's ``DETCONSTSORT`` (KCachel/fairranktune @9dd1550),
the reference the tests compare with. Given target shares p_g (Σ p_g ≤ 1), the list is built
in rounds t = 1, 2, ...: in round t every group g whose placed minimum m_g is below

    need_g(t) = ⌊t · p_g⌋                                                     (Alg. 3, line "tempMinCounts")

(and that still has unplaced candidates) contributes its best unplaced candidate; the round's
candidates are inserted in decreasing score (ties: increasing group code), each at the end of
the list with ``maxIndex = t`` and then swapped left past every entry j that scores strictly less
and may still move down (``maxIndex_j ≥ j + 1``, 0-based j) — the "constrained sort" of
Algorithm 3. Rounds continue while the list holds at most k entries (so the (k+1)-th and later
entries inserted in the last round can move into the top k, as in the reference).

The candidates are first sorted by score, descending (ties keep the input order): the reference
takes its input in that order.
"""
from __future__ import annotations

import numpy as np

from ocef.errors import DataError, ParameterError
from ocef.mitigate.lottery import Lottery, check_candidate_matrix, check_candidates, deterministic
from ocef.validation import Either, Integer, OneOrMore, Options, Real, Rng, validate_params

__all__ = ["detconstsort_rerank", "detconstsort_batch", "target_shares"]

TARGET = Either(Options("proportional", "equal"), OneOrMore(Real(0, 1)))


def target_shares(groups: np.ndarray, target, n_groups: int) -> np.ndarray:
    """The target share p_g of each group code 0..n_groups−1, per user.

    Parameters
    ----------
    groups : numpy.ndarray of int, shape (n_users, n_candidates)
    target : {"proportional", "equal"} or sequence of float
        ``"proportional"``: each group's share among the user's candidates; ``"equal"``: 1/G over
        the G groups present among the user's candidates; a sequence: ``target[g]`` for group code
        g (the same for every user; Σ ≤ 1).
    n_groups : int
        The number of group codes (max code + 1).

    Returns
    -------
    numpy.ndarray of float, shape (n_users, n_groups)

    Raises
    ------
    ocef.errors.DataError
        A group code with no entry in a ``target`` sequence.
    ocef.errors.ParameterError
        A ``target`` sequence summing to more than 1 or to 0.

    Examples
    --------
    >>> import numpy as np
    >>> target_shares(np.array([[0, 0, 0, 1]]), "proportional", 2)
    array([[0.75, 0.25]])
    >>> target_shares(np.array([[0, 0, 0, 1]]), "equal", 2)
    array([[0.5, 0.5]])
    """
    counts = np.stack([(groups == c).sum(axis=1) for c in range(n_groups)], axis=1).astype(float)
    if isinstance(target, str):
        if target == "proportional":
            return counts / groups.shape[1]
        present = counts > 0
        return present / present.sum(axis=1, keepdims=True)
    shares = np.atleast_1d(np.asarray(target, dtype=float))
    if not 0 < shares.sum() <= 1 + 1e-9:
        raise ParameterError(f"target shares must sum to a value in (0, 1], got {shares.sum()!r}")
    if n_groups > shares.size:
        raise DataError(f"target has {shares.size} share(s) but the candidates have group code {n_groups - 1}")
    return np.broadcast_to(shares[:n_groups], (groups.shape[0], n_groups)).copy()


def _detconstsort(s: np.ndarray, g: np.ndarray, k: int, shares: np.ndarray) -> np.ndarray:
    """Algorithm 3 for every row at once (rows: users; candidates sorted by score inside)."""
    n_users, n = s.shape
    n_groups = shares.shape[1]
    order = np.argsort(-s, axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    gs = np.take_along_axis(g, order, axis=1)
    # each group's queue: positions (in score order) of its candidates, in score order
    queue = np.take_along_axis(np.broadcast_to(np.arange(n), (n_users, n)),
                               np.argsort(gs, axis=1, kind="stable"), axis=1)
    size = np.stack([(gs == c).sum(axis=1) for c in range(n_groups)], axis=1)       # |g|
    start = np.concatenate([np.zeros((n_users, 1), dtype=np.int64), np.cumsum(size, axis=1)[:, :-1]], axis=1)
    width = k + n_groups + 1
    out_item = np.full((n_users, width), -1, dtype=np.int64)
    out_score = np.zeros((n_users, width))
    out_max = np.zeros((n_users, width), dtype=np.int64)
    placed = np.zeros((n_users, n_groups), dtype=np.int64)     # n_g
    minimum = np.zeros((n_users, n_groups), dtype=np.int64)    # m_g
    filled = np.zeros(n_users, dtype=np.int64)                 # L
    rows = np.arange(n_users)
    cols = np.arange(width)
    t = 0
    while True:
        active = (filled <= k) & (filled < n)
        if not active.any():
            break
        t += 1
        need = np.floor(t * shares).astype(np.int64)
        cand = (minimum < need) & (minimum < size) & active[:, None]
        # a user whose every group with candidates left has a zero share never fills its list
        stuck = active & ~cand.any(axis=1) & ~((placed < size) & (shares > 0)).any(axis=1)
        if stuck.any():
            raise DataError(f"the target shares cannot fill a list of k={k}: every group with candidates left "
                            f"has a target share of 0 (user row {int(np.argmax(stuck))})")
        if not cand.any():
            continue
        head = np.where(cand, start + np.minimum(placed, np.maximum(size - 1, 0)), 0)
        head_pos = np.take_along_axis(queue, head, axis=1)                  # position in score order
        head_score = np.take_along_axis(ss, head_pos, axis=1)
        # the round's candidates by decreasing score, ties by increasing group code (stable)
        rank = np.argsort(np.where(cand, -head_score, np.inf), axis=1, kind="stable")
        for r in range(n_groups):
            grp = rank[:, r]
            has = cand[rows, grp]
            if not has.any():
                break
            new_pos = head_pos[rows, grp]
            new_score = head_score[rows, grp]
            # entries j < L the new one passes: strictly lower score and maxIndex >= j + 1
            passes = (cols[None, :] < filled[:, None]) & (out_max >= cols[None, :] + 1) & (out_score < new_score[:, None])
            # trailing run of passes just before L
            blocked = (cols[None, :] < filled[:, None]) & ~passes
            last_block = np.where(blocked.any(axis=1), width - 1 - np.argmax(blocked[:, ::-1], axis=1), -1)
            at = np.where(has, last_block + 1, width)                        # insertion position
            shift = (cols[None, :] > at[:, None]) & (cols[None, :] <= filled[:, None])
            here = cols[None, :] == at[:, None]
            for arr, val in ((out_item, new_pos), (out_score, new_score), (out_max, np.full(n_users, t))):
                moved = np.concatenate([arr[:, :1], arr[:, :-1]], axis=1)
                arr[...] = np.where(shift, moved, np.where(here, val[:, None], arr))
            placed[rows, grp] += has
            filled += has
        minimum = np.where(cand.any(axis=1)[:, None], need, minimum)
    return np.take_along_axis(order, out_item[:, :k], axis=1)


def _check_target(g: np.ndarray, target) -> np.ndarray:
    return target_shares(g, target, int(g.max()) + 1 if g.size else 1)


@validate_params(k=Integer(1), rng=Rng(), target=TARGET)
def detconstsort_rerank(scores, groups, k, *, rng=None, target="proportional") -> Lottery:
    """DetConstSort re-ranking of one user's candidates (Geyik et al. 2019, Algorithm 3).

    Equals FairRankTune 0.0.7's ``DETCONSTSORT`` on the candidates sorted by score (descending;
    ties keep the input order) with ``distribution = {g: p_g}``.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
    groups : array-like of int, shape (n_candidates,)
    k : int
        1 <= k <= n_candidates.
    rng : None, int or numpy.random.Generator, optional
        Unused (deterministic); part of the common interface.
    target : {"proportional", "equal"} or sequence of float, default "proportional"
        The target share of each group (see :func:`target_shares`).

    Returns
    -------
    Lottery
        One ranking with probability 1.

    Raises
    ------
    ocef.errors.DataError
        Shares that cannot fill the list (the reference loops forever there).

    Examples
    --------
    >>> import numpy as np
    >>> groups = [0, 0, 0, 0, 1, 0, 1, 1, 2, 0, 2, 2]
    >>> detconstsort_rerank(np.arange(12, 0, -1), groups, 8, target=[0.5, 0.25, 0.25]).rankings
    array([[0, 1, 2, 4, 8, 3, 5, 6]])
    """
    s, g, k = check_candidates(scores, groups, k)
    return deterministic(_detconstsort(s[None, :], g[None, :], k, _check_target(g[None, :], target))[0])


@validate_params(k=Integer(1), target=TARGET)
def detconstsort_batch(scores, groups, k, *, target="proportional") -> np.ndarray:
    """:func:`detconstsort_rerank` for many users at once (the rounds vectorized over users).

    Parameters
    ----------
    scores : array-like of float, shape (n_users, n_candidates)
    groups : array-like of int, shape (n_users, n_candidates)
    k : int
    target : {"proportional", "equal"} or sequence of float, default "proportional"

    Returns
    -------
    numpy.ndarray of int, shape (n_users, k)

    Examples
    --------
    >>> detconstsort_batch([[4., 3., 2., 1.]], [[0, 0, 0, 1]], 2, target="equal")
    array([[0, 1]])
    """
    s, g, k = check_candidate_matrix(scores, groups, k)
    return _detconstsort(s, g, k, _check_target(g, target))
