"""Policies from fitted recommenders: a score matrix, scikit-surprise, ``implicit``, any scorer.

Every adapter first builds a users × items matrix of the model's scores ŝ^m(a) for the
*raw* user and item ids to audit, in the order given, and then turns it into one of the
policies of Do et al. 2022 (:func:`policy_from_scores`): ``softmax`` π(a) ∝ exp(β ŝ(a)) (Sec. 6.1),
``argmax`` (Sec. 3.2), ``ranking`` (top-k with DCG position weights, App. B.1), ``uniform``,
``parity`` / ``equity`` of exposure (eq. (2), App. A; they need the item categories).

Raw ids are mapped explicitly (:class:`IdMap`): an id the model does not know is a
``ValueError`` naming it — never a silent fallback (surprise's default prediction, or
row −1 of a factor matrix). Ids are compared with their type: ``"196"`` is not ``196``
(surprise's ``Reader("ml-100k")`` reads ids as strings).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ocef.policies.base import ArrayPolicy, check_scores
from ocef.policies.builders import build_policy
from ocef.validation import check_positive_int
from ocef.errors import ParameterError, ParameterTypeError

#: Policies that need nothing but the scores (``ocef envy|audit --scores``).
SCORE_POLICIES = ("softmax", "argmax", "ranking", "uniform")


class IdMap:
    """Raw ids ↔ 0-based positions (rows of a score or factor matrix), explicit and strict.

    ``IdMap.from_dict({raw: position})`` builds one from a mapping such as surprise's
    ``trainset._raw2inner_id_users``.

    Parameters
    ----------
    raw_ids : sequence
        The raw id of each position 0, 1, ..., unique (numpy scalars become Python scalars).
    what : str
        What the ids name (``"user"``, ``"item"``), for error messages.

    Examples
    --------
    >>> IdMap(["u7", "u3", "u9"], what="user").index(["u9", "u7"])
    array([2, 0])
    """

    def __init__(self, raw_ids, what: str = "id"):
        ids = _id_list(raw_ids, what)
        self.what = what
        self._pos = {}
        for p, raw in enumerate(ids):
            if raw in self._pos:
                raise ParameterError(f"{what} ids must be unique, {raw!r} appears twice")
            self._pos[raw] = p
        self.raw_ids = ids

    @classmethod
    def from_dict(cls, mapping: dict, what: str = "id") -> "IdMap":
        """From ``{raw id: position}`` (positions must be 0..n-1, each once)."""
        n = len(mapping)
        ids = [None] * n
        for raw, p in mapping.items():
            if not isinstance(p, (int, np.integer)) or not 0 <= p < n or ids[p] is not None:
                raise ParameterError(f"{what} positions must be 0..{n - 1}, each once; got {p!r} for {raw!r}")
            ids[p] = raw
        return cls(ids, what)

    def __len__(self) -> int:
        return len(self.raw_ids)

    def __contains__(self, raw) -> bool:
        return _hashable(raw) in self._pos

    def index(self, ids) -> np.ndarray:
        """The positions of raw ids, compared with their type (an unknown id raises, naming it).

        Parameters
        ----------
        ids : sequence
            Raw ids (repeats allowed), compared with their type.

        Returns
        -------
        numpy.ndarray of intp

        Examples
        --------
        >>> IdMap([196, 242, 302], what="item").index(["196"])
        Traceback (most recent call last):
        ...
        ocef.errors.ParameterError: 1 unknown item id(s), e.g. ['196']: ... these are str
        """
        wanted = _id_list(ids, self.what)
        pos = [self._pos.get(raw, -1) for raw in wanted]
        missing = [raw for raw, p in zip(wanted, pos) if p < 0]
        if missing:
            known = self.raw_ids[0] if self.raw_ids else None
            hint = ""
            if known is not None and type(missing[0]) is not type(known):
                hint = (f"; the model's {self.what} ids are {type(known).__name__} (e.g. {known!r}), "
                        f"these are {type(missing[0]).__name__}")
            raise ParameterError(f"{len(missing)} unknown {self.what} id(s), e.g. {missing[:5]!r}: not known to the "
                             f"model ({len(self)} {self.what}s){hint}")
        return np.asarray(pos, dtype=np.intp)

    def __repr__(self) -> str:
        return f"IdMap({len(self)} {self.what}s)"


def _hashable(raw):
    return raw.item() if isinstance(raw, np.generic) else raw


def _id_list(ids, what: str) -> list:
    if isinstance(ids, (str, bytes)) or np.ndim(ids) == 0:
        raise ParameterTypeError(f"{what} ids must be a sequence of raw ids, got {ids!r:.60}")
    out = [_hashable(v) for v in (ids.tolist() if isinstance(ids, np.ndarray) else list(ids))]
    if not out:
        raise ParameterError(f"{what} ids must not be empty")
    return out


def _unique(ids, what: str) -> list:
    out = _id_list(ids, what)
    if len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise ParameterError(f"{what} ids to audit must be unique, {dup!r} appears twice")
    return out


# ====================================================================== scores -> policy
def policy_from_scores(scores, policy: str = "softmax", *, beta: float = 1.0, k: int = 10,
                       categories=None) -> ArrayPolicy:
    """The named policy on a users × items (or users × contexts × items) score matrix; the same as
    :func:`ocef.policies.build_policy`.

    Parameters
    ----------
    scores : array_like
        A model's scores of every user and item.
    policy : {"softmax", "argmax", "ranking", "uniform", "parity", "equity"}
        ``softmax``: π(a) ∝ exp(β ŝ(a)) (Sec. 6.1); ``argmax``: lowest index on ties (Sec. 3.2);
        ``ranking``: top-``k`` with DCG weights (App. B.1); ``uniform``; ``parity``/``equity``:
        optimal under parity (eq. 2) / equity (App. A) of exposure of the item ``categories``.
    beta : float
        Inverse temperature of ``softmax``.
    k : int
        List length of ``ranking``.
    categories : array_like, optional
        For ``parity`` and ``equity``.

    Returns
    -------
    ArrayPolicy
        A :class:`RankingPolicy` for ``ranking``.

    Examples
    --------
    >>> policy_from_scores(np.array([[3.0, 1.0], [0.0, 2.0]]), "argmax").probs.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return build_policy(policy, scores, beta=beta, k=check_positive_int("k", k), categories=categories)


# ====================================================================== scikit-surprise
def surprise_scores(algo, users, items, *, clip: bool = True) -> np.ndarray:
    """Scores of a fitted scikit-surprise algorithm for raw ``users`` × raw ``items``.

    Entry (m, a) is ``algo.predict(users[m], items[a]).est``; every id must be in the training set
    (surprise would silently predict the mean).

    Parameters
    ----------
    algo : surprise.AlgoBase
        Fitted.
    users, items : sequence
        Raw ids with their type (surprise's ``Reader("ml-100k")`` reads ids as strings).
    clip : bool
        Clip the estimates to the training set's rating scale.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from surprise import SVD, Dataset, Reader
    >>> ratings = pd.DataFrame({"user": ["ann", "ann", "bob"], "item": ["x", "y", "x"], "stars": [5, 1, 4]})
    >>> algo = SVD(n_factors=2, random_state=0).fit(
    ...     Dataset.load_from_df(ratings, Reader(rating_scale=(1, 5))).build_full_trainset())
    >>> surprise_scores(algo, ["ann", "bob"], ["x", "y"]).shape
    (2, 2)
    """
    trainset = getattr(algo, "trainset", None)
    if trainset is None or not hasattr(algo, "estimate"):
        raise ParameterTypeError(f"algo must be a fitted scikit-surprise algorithm (call algo.fit(trainset)), "
                        f"got {type(algo).__name__}")
    u = IdMap.from_dict(trainset._raw2inner_id_users, "user").index(_unique(users, "user"))
    i = IdMap.from_dict(trainset._raw2inner_id_items, "item").index(_unique(items, "item"))
    name = type(algo).__name__
    if name == "SVD" and hasattr(algo, "pu"):
        # SVD.estimate: μ + b_u + b_i + q_i·p_u (biased) or q_i·p_u, in that order of additions.
        dots = algo.pu[u] @ algo.qi[i].T
        est = (trainset.global_mean + algo.bu[u][:, None] + algo.bi[i][None, :] + dots) if algo.biased else dots
    elif name == "NMF" and hasattr(algo, "pu"):
        # NMF.estimate: q_i·p_u (+ μ + b_u + b_i when biased).
        est = algo.pu[u] @ algo.qi[i].T
        if algo.biased:
            est = est + trainset.global_mean + algo.bu[u][:, None] + algo.bi[i][None, :]
    else:
        from surprise import PredictionImpossible

        est = np.empty((u.size, i.size))
        for r, iu in enumerate(u.tolist()):
            for c, ii in enumerate(i.tolist()):
                try:
                    e = algo.estimate(iu, ii)
                except PredictionImpossible:
                    e = algo.default_prediction()
                est[r, c] = e[0] if isinstance(e, tuple) else e
    if clip:
        low, high = trainset.rating_scale
        est = np.clip(est, low, high)
    return np.asarray(est, dtype=float)


def policy_from_surprise(algo, users, items, policy: str = "softmax", *, beta: float = 1.0, k: int = 10,
                         categories=None, clip: bool = True) -> ArrayPolicy:
    """A policy of Do et al. 2022 (OCEF) from a fitted scikit-surprise model: :func:`policy_from_scores`
    on :func:`surprise_scores`.

    Parameters
    ----------
    algo, users, items, clip
        As in :func:`surprise_scores`.
    policy, beta, k, categories
        As in :func:`policy_from_scores` (``categories``: of each of ``items``).

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> from surprise import SVD, Dataset, Reader
    >>> ratings = pd.DataFrame({"user": ["ann", "ann", "bob"], "item": ["x", "y", "x"], "stars": [5, 1, 4]})
    >>> algo = SVD(n_factors=2, random_state=0).fit(
    ...     Dataset.load_from_df(ratings, Reader(rating_scale=(1, 5))).build_full_trainset())
    >>> policy_from_surprise(algo, ["ann", "bob"], ["x", "y"], "argmax").probs.tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    return policy_from_scores(surprise_scores(algo, users, items, clip=clip), policy, beta=beta, k=k,
                              categories=categories)


# ====================================================================== implicit
def implicit_scores(model, users, items, *, user_ids, item_ids) -> np.ndarray:
    """Scores ŝ^m(a) = ⟨x_m, y_a⟩ of a fitted ``implicit`` model (ALS, BPR, LMF; the dot product its
    ``recommend`` ranks by) for raw ``users`` × raw ``items``.

    Only ``user_factors`` and ``item_factors`` are read (GPU models are copied to the CPU).

    Parameters
    ----------
    model : implicit model
        Fitted, with ``user_factors`` (n_users x f) and ``item_factors`` (n_items x f).
    users, items : sequence
        Raw ids to score.
    user_ids, item_ids : sequence or IdMap
        The raw id of each row of the model's user and item factors.

    Returns
    -------
    numpy.ndarray of float64

    Examples
    --------
    >>> from types import SimpleNamespace                # stands for a fitted model
    >>> model = SimpleNamespace(user_factors=np.eye(2, dtype=np.float32), item_factors=np.array([[0.75, 0.25], [0.5, 0.5]]))
    >>> implicit_scores(model, ["u2"], ["i0", "i1"], user_ids=["u1", "u2"], item_ids=["i0", "i1"]).tolist()
    [[0.25, 0.5]]
    """
    if not hasattr(model, "user_factors") or not hasattr(model, "item_factors"):
        raise ParameterTypeError(f"model must be a fitted implicit model with user_factors and item_factors, "
                        f"got {type(model).__name__}")
    if hasattr(model, "to_cpu") and not isinstance(model.user_factors, np.ndarray):
        model = model.to_cpu()
    uf, itf = np.asarray(model.user_factors), np.asarray(model.item_factors)
    if uf.ndim != 2 or itf.ndim != 2 or uf.shape[0] == 0:
        raise ParameterError("model is not fitted (empty factor matrices): call model.fit(user_items) first")
    umap = user_ids if isinstance(user_ids, IdMap) else IdMap(user_ids, "user")
    imap = item_ids if isinstance(item_ids, IdMap) else IdMap(item_ids, "item")
    for m, f, what in ((umap, uf, "user"), (imap, itf, "item")):
        if len(m) != f.shape[0]:
            raise ParameterError(f"{what}_ids has {len(m)} ids but the model has {f.shape[0]} {what} rows")
    u = umap.index(_unique(users, "user"))
    i = imap.index(_unique(items, "item"))
    return (uf[u].astype(float) @ itf[i].astype(float).T)


def policy_from_implicit(model, users, items, policy: str = "softmax", *, user_ids, item_ids, beta: float = 1.0,
                         k: int = 10, categories=None) -> ArrayPolicy:
    """A policy of Do et al. 2022 (OCEF) from a fitted ``implicit`` model: :func:`policy_from_scores`
    on :func:`implicit_scores`.

    Parameters
    ----------
    model, users, items, user_ids, item_ids
        As in :func:`implicit_scores`.
    policy, beta, k, categories
        As in :func:`policy_from_scores` (``categories``: of each of ``items``).

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> from types import SimpleNamespace                # stands for a fitted model
    >>> model = SimpleNamespace(user_factors=np.eye(2, dtype=np.float32), item_factors=np.array([[0.75, 0.25], [0.5, 0.5]]))
    >>> policy = policy_from_implicit(model, ["u1", "u2"], ["i0", "i1"], "argmax", user_ids=["u1", "u2"], item_ids=["i0", "i1"])
    >>> policy.probs.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return policy_from_scores(implicit_scores(model, users, items, user_ids=user_ids, item_ids=item_ids), policy,
                              beta=beta, k=k, categories=categories)


# ====================================================================== any scorer
def callable_scores(score: Callable, users, items, *, batch_size: int = 1024) -> np.ndarray:
    """Scores of any scoring function for raw ``users`` × raw ``items``, queried in batches.

    Parameters
    ----------
    score : callable
        ``score(user_ids, item_ids) -> matrix`` of finite scores, called with at most
        ``batch_size`` raw user ids and all raw item ids; it maps raw ids itself and must raise on
        an id it does not know.
    users, items : sequence
        Raw ids (numeric ids are passed as numeric arrays, others as object arrays).
    batch_size : int
        Users per call of ``score``.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> callable_scores(lambda u, i: np.add.outer(u, i) / 10, [1, 2, 3], [10, 20], batch_size=2).tolist()
    [[1.1, 2.1], [1.2, 2.2], [1.3, 2.3]]
    """
    if not callable(score):
        raise ParameterTypeError(f"score must be callable as score(user_ids, item_ids), got {type(score).__name__}")
    users_arr = np.asarray(_unique(users, "user"), dtype=object if not _numeric(users) else None)
    items_arr = np.asarray(_unique(items, "item"), dtype=object if not _numeric(items) else None)
    batch_size = check_positive_int("batch_size", batch_size)
    blocks = []
    for start in range(0, users_arr.size, batch_size):
        batch = users_arr[start:start + batch_size]
        out = np.asarray(score(batch, items_arr), dtype=float)
        if out.shape != (batch.size, items_arr.size):
            raise ParameterError(f"score(user_ids, item_ids) must return a {batch.size} x {items_arr.size} matrix "
                             f"for {batch.size} users and {items_arr.size} items, got shape {out.shape}")
        blocks.append(out)
    return check_scores(np.concatenate(blocks, axis=0), "score(user_ids, item_ids)")


def _numeric(ids) -> bool:
    arr = np.asarray(ids)
    return arr.dtype.kind in "iuf"


def policy_from_callable(score: Callable, users, items, policy: str = "softmax", *, beta: float = 1.0,
                         k: int = 10, categories=None, batch_size: int = 1024) -> ArrayPolicy:
    """:func:`policy_from_scores` on :func:`callable_scores`: any scoring function as a policy.

    Parameters
    ----------
    score, users, items, batch_size
        As in :func:`callable_scores`.
    policy, beta, k, categories
        As in :func:`policy_from_scores`.

    Returns
    -------
    ArrayPolicy

    Examples
    --------
    >>> score = lambda u, i: -np.abs(np.subtract.outer(u, i))        # items close to the user's id
    >>> policy_from_callable(score, [10, 30], [10, 20, 30], "argmax").probs.tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    """
    return policy_from_scores(callable_scores(score, users, items, batch_size=batch_size), policy, beta=beta,
                              k=k, categories=categories)
