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

from ocef.validation import Boolean, Integer, Rng, fill_doc, validate_params

__all__ = ["ToyEnvy", "make_toy_envy", "ToyReoLogs", "make_toy_reo_log", "make_toy_reo_logs", "make_toy_reo_daily",
           "make_toy_movielens", "make_toy_obd", "make_toy_pairs", "make_toy_rankings", "ToyPropensityLog",
           "make_toy_propensity_log", "ToyScores", "make_toy_scores",
           "make_toy_coat", "make_toy_ml100k", "make_toy_fairrec_split"]

#: The ``root`` parameter of the factories that write a data set's folder.
_fill_root = fill_doc(root="""
Parameters
----------
root : str or pathlib.Path, optional
    Where to write (created); default a new temporary folder.

Returns
-------
pathlib.Path""")


class ToyEnvy(NamedTuple):
    """The arrays of an envy-freeness audit, the output of :func:`make_toy_envy`; unpacks as
    ``rho, probs, labels`` and passes on as ``AuditProblem(*toy)``.

    Parameters
    ----------
    rho : numpy.ndarray
        Users x items, expected rewards in [0, 1].
    probs : numpy.ndarray
        Users x items, the recommender's policy.
    labels : numpy.ndarray
        The group of each user, 0..G-1.

    Examples
    --------
    >>> make_toy_envy().labels.tolist()
    [0, 0, 1, 1]
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
    both groups envy the other under any matching: exact group envies 0.70 and 0.65. The
    smallest problem on which an audit has something to find (the examples of :mod:`ocef.envy`).

    Parameters
    ----------
    n_per_group : int
        Users per group: the two users of each group repeated (an odd number keeps the first user
        once more), so the group means stay those of the 4-user problem for even values.

    Returns
    -------
    ToyEnvy
        New arrays on each call.

    Examples
    --------
    >>> make_toy_envy().rho.tolist()
    [[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.7]]
    """
    take = np.arange(n_per_group) % 2
    rows = np.concatenate([take, take + 2])
    return ToyEnvy(_RHO[rows].copy(), _PROBS[rows].copy(), np.repeat([0, 1], n_per_group))


class ToyReoLogs(NamedTuple):
    """A default and a random traffic log of an REO audit (:func:`make_toy_reo_logs`); unpacks as
    ``default, random`` (``estimate_reo(*toy)``).

    Parameters
    ----------
    default, random : pandas.DataFrame
        Columns ``Y`` (0/1 label) and ``S`` (item group).

    Examples
    --------
    >>> make_toy_reo_logs().default.shape
    (200, 2)
    """

    default: object
    random: object


def _positives(value) -> tuple[int, ...]:
    out = tuple(int(v) for v in value)
    if not out or any(v < 0 for v in out):
        from ocef.errors import ParameterError
        raise ParameterError(f"positives must be non-negative counts per group, got {value!r}")
    return out


@validate_params(n_per_group=Integer(1, 10**7))
def make_toy_reo_log(positives=(20, 40), n_per_group: int = 100):
    """One REO log: ``n_per_group`` rows per item group, the first ``positives[k]`` labelled 1.

    Parameters
    ----------
    positives : sequence of int
        Positive labels of each group (groups ``"a"``, ``"b"``, ...).
    n_per_group : int
        Rows per group.

    Returns
    -------
    pandas.DataFrame
        Columns ``Y`` and ``S``, group by group, positives first.

    Raises
    ------
    ocef.errors.ParameterError
        If a count is negative or exceeds ``n_per_group``.

    Examples
    --------
    >>> make_toy_reo_log((1, 2), n_per_group=2).values.tolist()
    [[1, 'a'], [0, 'a'], [1, 'b'], [1, 'b']]
    """
    import pandas as pd

    pos = _positives(positives)
    if max(pos) > n_per_group:
        from ocef.errors import ParameterError
        raise ParameterError(f"positives {pos} exceed n_per_group={n_per_group}")
    y = [v for p in pos for v in [1] * p + [0] * (n_per_group - p)]
    s = [chr(ord("a") + k) for k in range(len(pos)) for _ in range(n_per_group)]
    return pd.DataFrame({"Y": y, "S": s})


@validate_params(n_per_group=Integer(1, 10**7))
def make_toy_reo_logs(default_positives=(20, 40), random_positives=(30, 30),
                      n_per_group: int = 100) -> ToyReoLogs:
    """A default and a random log (:func:`make_toy_reo_log`) for the examples of :mod:`ocef.reo`.

    With the defaults, P = (0.15, 0.15) and Q = (0.1, 0.2) per group: U = (2/3, 4/3), so
    delta_U = (-1/3, 1/3) and the REO penalty (eq. 2 of Dong et al. 2024) is 1/3.

    Parameters
    ----------
    default_positives, random_positives : sequence of int
        Positives of each group in each log.
    n_per_group : int
        Rows per group in each log.

    Returns
    -------
    ToyReoLogs
        New frames on each call.

    Examples
    --------
    >>> make_toy_reo_logs().default.groupby("S")["Y"].sum().tolist()
    [20, 40]
    """
    return ToyReoLogs(make_toy_reo_log(default_positives, n_per_group),
                      make_toy_reo_log(random_positives, n_per_group))


@validate_params(n_per_group=Integer(1, 10**7))
def make_toy_reo_daily(default_positives=((200, 400), (300, 320)), random_positives=((300, 300), (300, 300)),
                       n_per_group: int = 1000) -> ToyReoLogs:
    """Default and random logs over several days (a ``day`` column 1, 2, ...), for per-day REO; with
    the defaults day 1 has the penalty 1/3 of :func:`make_toy_reo_logs` and day 2 almost none.

    Parameters
    ----------
    default_positives, random_positives : sequence of sequence of int
        Per day, the positives of each group.
    n_per_group : int
        Rows per group and day in each log.

    Returns
    -------
    ToyReoLogs

    Raises
    ------
    ocef.errors.ParameterError
        If the two logs do not cover the same number of days.

    Examples
    --------
    >>> make_toy_reo_daily().default.groupby("day")["Y"].sum().tolist()
    [600, 620]
    """
    import pandas as pd

    if len(default_positives) != len(random_positives):
        from ocef.errors import ParameterError
        raise ParameterError(f"default_positives has {len(default_positives)} days, random_positives "
                             f"{len(random_positives)}")

    def days(positives):
        return pd.concat([make_toy_reo_log(p, n_per_group).assign(day=d) for d, p in enumerate(positives, 1)],
                         ignore_index=True)

    return ToyReoLogs(days(default_positives), days(random_positives))


def make_toy_movielens():
    """A tiny stand-in for :attr:`ocef.datasets.MovieLens100K.data`: 6 users rating 4 items.

    Users alternate genders F, M and ages 18, 25, 35; all items are dramas; the ratings are
    drawn from 1..5 with seed 0 (the same data on each call).

    Returns
    -------
    ocef.datasets.movielens.MovieLensData
        ``ratings``, ``users`` and ``items`` in the ML-100K layout.

    Examples
    --------
    >>> data = make_toy_movielens()
    >>> data.ratings.shape, data.users["gender"].tolist()
    ((24, 4), ['F', 'M', 'F', 'M', 'F', 'M'])
    """
    from pathlib import Path

    import pandas as pd

    from ocef.datasets.movielens import MovieLensData

    rng = np.random.default_rng(0)
    ratings = pd.DataFrame({"user": np.repeat(np.arange(6), 4), "item": np.tile([0, 1, 2, 3], 6),
                            "rating": rng.integers(1, 6, 24), "timestamp": 0})
    users = pd.DataFrame({"user_id": np.arange(1, 7), "gender": ["F", "M"] * 3,
                          "age": [18, 25, 35] * 2, "occupation": 0})
    items = pd.DataFrame({"item_id": np.arange(1, 5), "title": list("abcd"),
                          "category": "Drama", "category_code": 8})
    return MovieLensData(ratings, users, items, "ml-100k", Path("."))


@_fill_root
def make_toy_obd(root=None):
    """Write a one-day stand-in for the Open Bandit Dataset folder: 3 items, 4 impressions a policy.

    Both policies (``bts``, ``random``) of the ``all`` campaign get the same log: items 2, 0, 1, 0
    at positions 1, 2, 3, 1, one click (item 2), users ``a, a, a, b``; items 0, 1, 2 have
    ``item_feature_0`` -0.5, 0.1, 1.2.

    %(root)s
        The dataset folder, readable by :class:`ocef.datasets.OpenBanditDataset`.

    Examples
    --------
    >>> root = make_toy_obd()
    >>> sorted(p.name for p in (root / "random" / "all").iterdir())
    ['all.csv', 'item_context.csv']
    """
    import tempfile
    from pathlib import Path

    import pandas as pd

    root = Path(tempfile.mkdtemp()) / "obd" if root is None else Path(root)
    items = pd.DataFrame({"item_id": [0, 1, 2], "item_feature_0": [-0.5, 0.1, 1.2]})
    log = pd.DataFrame({"timestamp": ["2019-11-24 10:00:00"] * 4, "item_id": [2, 0, 1, 0],
                        "position": [1, 2, 3, 1], "click": [1, 0, 0, 0],
                        "user_feature_0": ["a", "a", "a", "b"], "user_feature_1": "u",
                        "user_feature_2": "u", "user_feature_3": "u"})
    for policy in ("bts", "random"):
        folder = root / policy / "all"
        folder.mkdir(parents=True, exist_ok=True)
        items.to_csv(folder / "item_context.csv", index=False)
        log.to_csv(folder / "all.csv", index=False)
    return root


def make_toy_pairs():
    """Eight randomized pairs (one query each) with two item groups and a model's scores.

    The pairs table of :mod:`ocef.pairwise` (Beutel et al. 2019, Sec. 3.4): clicked item ``j``,
    unclicked ``jp``, their groups ``s_j``, ``s_jp``, engagement bucket ``z = 1`` and the model's
    ``score_j``, ``score_jp``; four pairs are intra-group, four inter-group, one is a tie.

    Returns
    -------
    pandas.DataFrame
        Columns ``query, j, jp, s_j, s_jp, z, score_j, score_jp`` (a new frame on each call).

    Examples
    --------
    >>> pairs = make_toy_pairs()
    >>> pairs.shape, int((pairs["s_j"] == pairs["s_jp"]).sum())
    ((8, 8), 4)
    """
    import pandas as pd

    return pd.DataFrame({"query": range(8), "j": [0, 1, 2, 3, 0, 2, 1, 3], "jp": [1, 0, 3, 2, 2, 0, 3, 1],
                         "s_j": list("aabbabab"), "s_jp": list("aabbbaba"), "z": 1,
                         "score_j": [0.9, 0.2, 0.7, 0.6, 0.8, 0.3, 0.5, 0.4],
                         "score_jp": [0.1, 0.8, 0.3, 0.6, 0.4, 0.9, 0.6, 0.2]})


@validate_params(n_users=Integer(2, 10**6), k=Integer(1, 100), n_items=Integer(2, 10**4), rng=Rng())
def make_toy_rankings(n_users: int = 20, *, k: int = 3, n_items: int = 6, rng=0):
    """A top-k log of ``n_users`` users: item groups ``a``/``b``, 0/1 relevance, user groups ``F``/``M``.

    Items ``0 .. n_items/2 − 1`` are of group ``a``, drawn with twice a ``b`` item's weight (``a``
    is over-exposed); an item is relevant with probability 1/2; the first half of the users are ``F``.

    Parameters
    ----------
    n_users : int
        One ranking each.
    k : int
        List length (at most ``n_items``).
    n_items : int
        Items.
    rng : int or numpy.random.Generator
        Seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``user, item, rank (1..k), genre, relevance, gender``.

    Examples
    --------
    >>> make_toy_rankings().groupby("genre").size().to_dict()
    {'a': 40, 'b': 20}
    """
    import pandas as pd

    from ocef.errors import ParameterError
    from ocef.validation import as_generator

    if k > n_items:
        raise ParameterError(f"k must be at most n_items ({n_items}), got {k}")
    g = as_generator(rng)
    is_a = np.arange(n_items) < (n_items + 1) // 2
    weight = np.where(is_a, 2.0, 1.0)
    items = np.concatenate([g.choice(n_items, size=k, replace=False, p=weight / weight.sum())
                            for _ in range(n_users)])
    users = np.repeat(np.arange(n_users), k)
    relevant = g.random((n_users, n_items)) < 0.5
    return pd.DataFrame({"user": users, "item": items, "rank": np.tile(np.arange(1, k + 1), n_users),
                         "genre": np.where(is_a[items], "a", "b"), "relevance": relevant[users, items].astype(int),
                         "gender": np.where(users < n_users // 2, "F", "M")})


class ToyPropensityLog(NamedTuple):
    """``(log, target)`` of :func:`make_toy_propensity_log` (``offpolicy_audit(*toy)``).

    Parameters
    ----------
    log, target : pandas.DataFrame
        The logged impressions and the target policy ``item, probability`` (None for slates).

    Examples
    --------
    >>> make_toy_propensity_log().target["probability"].tolist()
    [0.6, 0.3, 0.1]
    """

    log: object
    target: object


@validate_params(n=Integer(2, 10**7), slate=Boolean(), rng=Rng())
def make_toy_propensity_log(n: int = 200, *, slate: bool = False, rng=0) -> ToyPropensityLog:
    """A uniformly random logging policy over 3 items, with its propensities and a target policy.

    Without ``slate``: ``n`` impressions of users in groups ``a``/``b`` (alternating), each item
    shown with probability 1/3, item i clicked with probability (0.5, 0.3, 0.1)[i] (group ``b``
    halves item 0's); the target shows items 0, 1, 2 with probabilities 0.6, 0.3, 0.1. With
    ``slate``: ``n`` slates of 2 slots, item-position marginals of the logging (1/3) and of the
    target (0.5 and 0.3 when the logged item is the target's choice for the slot, else 0.2 and 0.35).

    Parameters
    ----------
    n : int
        Impressions, or slates.
    slate : bool
        A slate log (``slate_id, position, item, reward, propensity, target_probability``).
    rng : int or numpy.random.Generator
        Seed.

    Returns
    -------
    ToyPropensityLog
        ``(log, target)``; ``log``: ``user, item, reward, propensity, g``, or ``slate_id,
        position, item, reward, propensity, target_probability``.

    Examples
    --------
    >>> round(float(make_toy_propensity_log().log.reward.mean()), 3)
    0.245
    """
    import pandas as pd

    from ocef.validation import as_generator

    g = as_generator(rng)
    ctr = np.array([0.5, 0.3, 0.1])
    if not slate:
        item = g.integers(0, 3, size=n)
        group = np.where(np.arange(n) % 2 == 0, "a", "b")
        p = ctr[item] * np.where((group == "b") & (item == 0), 0.5, 1.0)
        log = pd.DataFrame({"user": np.arange(n), "item": item, "reward": (g.random(n) < p).astype(int),
                            "propensity": 1 / 3, "g": group})
        return ToyPropensityLog(log, pd.DataFrame({"item": [0, 1, 2], "probability": [0.6, 0.3, 0.1]}))
    item = np.argsort(g.random((n, 3)), axis=1)[:, :2].ravel()    # 2 distinct items, uniformly
    position = np.tile([0, 1], n)
    hit = item == position                                 # the target puts item 0 first, item 1 second
    target = np.where(hit, np.where(position == 0, 0.5, 0.3), np.where(position == 0, 0.2, 0.35))
    log = pd.DataFrame({"slate_id": np.repeat(np.arange(n), 2), "position": position, "item": item,
                        "reward": (g.random(2 * n) < ctr[item]).astype(float), "propensity": 1 / 3,
                        "target_probability": target})
    return ToyPropensityLog(log, None)


class ToyScores(NamedTuple):
    """``(scores, truth, group_a, group_b)`` of :func:`make_toy_scores`.

    Parameters
    ----------
    scores, truth, group_a, group_b : numpy.ndarray
        Users x items scores and truth; the 0/1 membership of each user.

    Examples
    --------
    >>> make_toy_scores().scores.shape
    (4, 3)
    """

    scores: np.ndarray
    truth: np.ndarray
    group_a: np.ndarray
    group_b: np.ndarray


def make_toy_scores() -> ToyScores:
    """Four users' scores of three items, the truth (each row reversed) and two groups of two users.

    Shown its top item (``k=1``), group a (users 0, 1) gets items 0 and 2, group b items 0 and 1;
    in the truth only user 3's top item is relevant. The examples of :mod:`ocef.metrics`.

    Returns
    -------
    ToyScores
        ``(scores, truth, group_a, group_b)``, new arrays on each call.

    Examples
    --------
    >>> scores, truth, a, b = make_toy_scores()
    >>> scores.argmax(axis=1).tolist(), a.tolist()
    ([0, 2, 0, 1], [1, 1, 0, 0])
    """
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.3, 0.8], [0.7, 0.3, 0.6], [0.1, 0.9, 0.2]])
    return ToyScores(scores, scores[:, ::-1].copy(), np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1]))


@_fill_root
def make_toy_coat(root=None):
    """Write a stand-in for the Coat folder: 2 users x 4 coats (the real one is 290 x 300).

    ``train.ascii`` rows ``5 0 3 0`` and ``0 4 0 1``, ``test.ascii`` rows ``0 5 0 2`` and
    ``4 0 1 0``; coats 0 and 2 are for men, 1 and 3 for women.

    %(root)s
        The data set's folder, readable by :class:`ocef.datasets.Coat`.

    Examples
    --------
    >>> sorted(p.name for p in make_toy_coat().iterdir())
    ['test.ascii', 'train.ascii', 'user_item_features']
    """
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp()) / "coat" if root is None else Path(root)
    (root / "user_item_features").mkdir(parents=True, exist_ok=True)
    (root / "train.ascii").write_text("5 0 3 0\n0 4 0 1\n")
    (root / "test.ascii").write_text("0 5 0 2\n4 0 1 0\n")
    (root / "user_item_features" / "item_features.ascii").write_text("1 0\n0 1\n1 0\n0 1\n")
    return root


@_fill_root
def make_toy_ml100k(root=None):
    """Write a stand-in for the MovieLens-100K folder: 2 users, 2 movies, one rating each.

    User 1 (24, M, technician) rates movie 1 (Animation, Children's, Comedy) 5; user 2 (53, F,
    other) rates movie 2 (Drama) 3.

    %(root)s
        The folder, readable by :class:`ocef.datasets.MovieLens100K` and
        :func:`ocef.datasets.load_movielens`.

    Examples
    --------
    >>> sorted(p.name for p in make_toy_ml100k().iterdir())
    ['u.data', 'u.item', 'u.user']
    """
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp()) / "ml-100k" if root is None else Path(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / "u.data").write_text("1\t1\t5\t881250949\n2\t2\t3\t891717742\n")
    (root / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other|94043\n")
    flags = [[0, 0, 0, 1, 1, 1] + [0] * 13, [0, 0, 0, 0, 0, 0, 0, 0, 1] + [0] * 10]
    (root / "u.item").write_text("".join(f"{i + 1}|Movie {i + 1}|01-Jan-1995||url|" + "|".join(map(str, f)) + "\n"
                                         for i, f in enumerate(flags)))
    return root


def make_toy_fairrec_split():
    """A leave-last-out FairRec split of 40 users who each like 6 of the 30 items of their parity.

    Users have ``gender`` (user % 2) and ``age`` (user % 3); items alternate two genres; 9 test
    negatives per user (:func:`ocef.environments.fairrec_split.fairrec_split`, seed 0). The
    examples of :mod:`ocef.fairrec`.

    Returns
    -------
    ocef.environments.fairrec_split.FairRecSplit
        The same split on each call (400 candidate rows).

    Examples
    --------
    >>> make_toy_fairrec_split().candidates.shape
    (400, 3)
    """
    import pandas as pd

    from ocef.environments.fairrec_split import fairrec_split

    gen = np.random.default_rng(0)
    items = [gen.choice(np.arange(u % 2, 30, 2), 6, replace=False) for u in range(40)]
    ratings = pd.DataFrame({"user": np.repeat(np.arange(40), 6), "item": np.concatenate(items),
                            "timestamp": np.tile(np.arange(6), 40)})
    users = pd.DataFrame({"gender": np.arange(40) % 2, "age": np.arange(40) % 3})
    return fairrec_split(ratings, users, np.eye(2, dtype=int)[np.arange(30) % 2], n_neg_test=9, rng=0)
