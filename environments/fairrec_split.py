"""Leave-last-out split of MovieLens for multi-attribute fairness testing (Guo et al. 2023, Sec. 4.1).

"Following the setting of (He et al., 2017), we divide the last positive interaction data of
users into the test set and the remaining into the training set. For each positive interaction,
we randomly sample one item without user interaction as a negative interaction in the training
set. We further randomly sample 49 items that users have not interacted with and combine them
with the target item to form the candidate items for recommendation during testing."

Decisions (``specs/seeds-002-004.md``, B): every rating is a positive interaction; the last one
is the latest by timestamp (ties: the larger item index); the 49 test negatives are drawn
*without* replacement among the items the user never rated (the authors' code draws with
replacement); training negatives are drawn uniformly among the items the user never rated
(independently per positive, so a negative may repeat). Item popularity ``rp`` is eq. (6) over
the training positives, ``user_pop`` the mean ``rp`` of the user's training history (eq. 7's
second term).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.validation import as_generator, check_positive_int
from ocef.errors import ParameterError

__all__ = ["FairRecSplit", "fairrec_split", "leave_last_out", "item_popularity"]


@dataclass(frozen=True)
class FairRecSplit:
    """A leave-last-out split with what the metrics of Guo et al. 2023 (FairRec) need (Sec. 4.1),
    made by :func:`fairrec_split`.

    Attributes
    ----------
    train : pandas.DataFrame
        ``user, item, label``: every training positive then the sampled negatives,
        ``n_neg_train`` per positive.
    candidates : pandas.DataFrame
        ``user, item, label`` sorted by user, ``1 + n_neg_test`` rows per user: the held-out target
        at a random position among the sampled negatives.
    users : pandas.DataFrame
        Integer attribute codes, row = user index.
    genres : numpy.ndarray
        Item genre flags, (n_items, G).
    rp : numpy.ndarray
        Item popularity ``RP_j`` of eq. (6) over the training positives, in %.
    user_pop : numpy.ndarray
        Mean ``rp`` of each user's training positives (the history term of eq. (7)).

    Examples
    --------
    >>> ratings = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 1, 2], "timestamp": [1, 2, 1, 2]})
    >>> fairrec_split(ratings, pd.DataFrame({"g": [0, 1]}), np.eye(5, 2), n_neg_test=2, rng=0).candidates.shape
    (6, 3)
    """

    train: pd.DataFrame
    candidates: pd.DataFrame
    users: pd.DataFrame
    genres: np.ndarray
    rp: np.ndarray
    user_pop: np.ndarray

    @property
    def n_users(self) -> int:
        return len(self.users)

    @property
    def n_items(self) -> int:
        return int(self.genres.shape[0])

    @property
    def n_candidates(self) -> int:
        """Candidates per user (the target and the sampled negatives)."""
        return int(len(self.candidates) // self.n_users)


def item_popularity(items: np.ndarray, n_items: int) -> np.ndarray:
    """Item popularity of Guo et al. 2023, eq. (6): ``RP_j = φ(j) / |T| · 100%``, ``φ(j)`` the
    interactions with item ``j`` in the training set ``T``.

    Parameters
    ----------
    items : array_like of int
        The item of every training interaction.
    n_items : int
        Number of items (items without interaction get 0).

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> item_popularity(np.array([0, 0, 1, 3]), 5).tolist()
    [50.0, 25.0, 0.0, 25.0, 0.0]
    """
    items = np.asarray(items, dtype=np.int64)
    if items.size == 0:
        raise ParameterError("the training set must not be empty")
    return np.bincount(items, minlength=n_items) / items.size * 100.0


def leave_last_out(ratings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split each user's interactions into the latest one and the others (Guo et al. 2023, Sec. 4.1).

    Ties in ``timestamp``: the larger item index is the latest (the paper does not say).

    Parameters
    ----------
    ratings : pandas.DataFrame
        Columns ``user``, ``item`` and ``timestamp`` (others kept).

    Returns
    -------
    history : pandas.DataFrame
        Sorted by user, timestamp and item.
    last : pandas.DataFrame
        One row per user, sorted by user.

    Examples
    --------
    >>> ratings = pd.DataFrame({"user": [0, 0, 1, 1], "item": [0, 1, 1, 3], "timestamp": [10, 30, 6, 6]})
    >>> leave_last_out(ratings)[1]["item"].tolist()       # user 1: a tie, the larger item is last
    [1, 3]
    """
    missing = {"user", "item", "timestamp"} - set(ratings.columns)
    if missing:
        raise ParameterError(f"ratings lack column(s) {sorted(missing)}")
    r = ratings.sort_values(["user", "timestamp", "item"], kind="stable")
    is_last = ~r["user"].duplicated(keep="last")
    counts = r["user"].value_counts()
    if (counts < 2).any():
        raise ParameterError(f"users need >= 2 interactions for a leave-last-out split; "
                         f"users {counts[counts < 2].index[:5].tolist()} have 1")
    return r[~is_last].reset_index(drop=True), r[is_last].reset_index(drop=True)


def _sample_unrated(rated: np.ndarray, users: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One item per entry of ``users``, uniform among the items that user never rated (rejection)."""
    n_items = rated.shape[1]
    out = rng.integers(0, n_items, size=users.size)
    bad = rated[users, out]
    while bad.any():
        out[bad] = rng.integers(0, n_items, size=int(bad.sum()))
        bad = rated[users, out]
    return out


def fairrec_split(ratings: pd.DataFrame, users: pd.DataFrame, genres: np.ndarray, *,
                  n_neg_test: int = 49, n_neg_train: int = 1, rng=None) -> FairRecSplit:
    """Leave-last-out split of Guo et al. 2023, Sec. 4.1 (He et al., 2017), with sampled negatives.

    The sampling rules, and the departures from the authors' code, are in the module docstring.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Columns ``user``, ``item``, ``timestamp``; 0-based indices into ``users`` and ``genres``;
        every user has at least two interactions.
    users : pandas.DataFrame
        Integer attribute codes, one row per user.
    genres : array_like
        Item genre flags, (n_items, G).
    n_neg_test : int
        Test negatives per user (at most the items the user never rated).
    n_neg_train : int
        Training negatives per training positive.
    rng : None, int, SeedSequence or Generator, optional
        Draws the negatives and the target's position.

    Returns
    -------
    FairRecSplit

    Examples
    --------
    >>> ratings = pd.DataFrame({"user": [0, 0, 0, 1, 1], "item": [0, 1, 2, 1, 3], "timestamp": [10, 30, 20, 5, 6]})
    >>> fairrec_split(ratings, pd.DataFrame({"gender": [0, 1]}), np.eye(8, 3), n_neg_test=3, rng=0).rp.tolist()[:4]
    [33.33333333333333, 33.33333333333333, 33.33333333333333, 0.0]
    """
    gen = as_generator(rng)
    n_neg_test = check_positive_int("n_neg_test", n_neg_test)
    n_neg_train = check_positive_int("n_neg_train", n_neg_train, minimum=0)
    genres = np.asarray(genres)
    n_items, n_users = genres.shape[0], len(users)
    u_all = ratings["user"].to_numpy(dtype=np.int64)
    i_all = ratings["item"].to_numpy(dtype=np.int64)
    if u_all.min() < 0 or u_all.max() >= n_users or i_all.min() < 0 or i_all.max() >= n_items:
        raise ParameterError(f"ratings must index users in [0, {n_users}) and items in [0, {n_items})")
    rated = np.zeros((n_users, n_items), dtype=bool)
    rated[u_all, i_all] = True
    n_rated = rated.sum(axis=1)
    if (n_rated == 0).any():
        raise ParameterError(f"users {np.flatnonzero(n_rated == 0)[:5].tolist()} have no interaction")
    if (n_items - n_rated < n_neg_test).any():
        raise ParameterError(f"n_neg_test={n_neg_test} exceeds the unrated items of some user "
                         f"(min {int((n_items - n_rated).min())})")
    history, last = leave_last_out(ratings)        # >= 2 interactions per user: one ``last`` row each
    last = last.sort_values("user").reset_index(drop=True)
    # Test negatives: the n_neg_test smallest of i.i.d. uniform keys among unrated items
    # = a uniform draw without replacement, for all users at once.
    keys = gen.random((n_users, n_items))
    keys[rated] = np.inf
    neg = np.argpartition(keys, n_neg_test - 1, axis=1)[:, :n_neg_test]
    cand_items = np.concatenate([last["item"].to_numpy()[:, None], neg], axis=1)
    cand_label = np.zeros_like(cand_items)
    cand_label[:, 0] = 1
    order = np.argsort(gen.random(cand_items.shape), axis=1)      # target at a random position
    cand_items = np.take_along_axis(cand_items, order, axis=1)
    cand_label = np.take_along_axis(cand_label, order, axis=1)
    n_c = cand_items.shape[1]
    candidates = pd.DataFrame({"user": np.repeat(np.arange(n_users), n_c), "item": cand_items.ravel(),
                               "label": cand_label.ravel()})
    hu = history["user"].to_numpy(dtype=np.int64)
    hi = history["item"].to_numpy(dtype=np.int64)
    neg_users = np.repeat(hu, n_neg_train)
    train = pd.DataFrame({
        "user": np.concatenate([hu, neg_users]),
        "item": np.concatenate([hi, _sample_unrated(rated, neg_users, gen)]),
        "label": np.concatenate([np.ones(hu.size, dtype=np.int64), np.zeros(neg_users.size, dtype=np.int64)]),
    })
    rp = item_popularity(hi, n_items)
    user_pop = np.bincount(hu, weights=rp[hi], minlength=n_users) / np.maximum(np.bincount(hu, minlength=n_users), 1)
    return FairRecSplit(train=train, candidates=candidates, users=users.reset_index(drop=True),
                        genres=genres, rp=rp, user_pop=user_pop)


def movielens_fairrec_split(data_dir=None, *, n_neg_test: int = 49, n_neg_train: int = 1, rng=0) -> FairRecSplit:
    """:func:`fairrec_split` of the MovieLens data found in ``data_dir`` (ML-100K or ML-1M)."""
    from ocef.datasets.movielens import genre_flags, load_movielens, user_attribute_codes

    ml = load_movielens(data_dir)
    return fairrec_split(ml.ratings, user_attribute_codes(ml.users), genre_flags(ml),
                         n_neg_test=n_neg_test, n_neg_train=n_neg_train, rng=rng)
