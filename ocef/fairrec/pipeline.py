"""MovieLens → split → fitted model → group oracle: the testing set-up of Guo et al. 2023, Sec. 4.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.fairrec.models import make_model
from ocef.fairrec.search import GroupOracle

__all__ = ["FittedRecommender", "fit_movielens", "DEFAULT_ATTRIBUTES", "movielens_labels"]

DEFAULT_ATTRIBUTES: tuple[str, ...] = ("gender", "age", "occupation")


@dataclass(frozen=True)
class FittedRecommender:
    """A model fitted on a MovieLens split, with its scores of every test candidate.

    Made by :func:`fit_movielens`; :meth:`oracle` turns it into the group oracle a search queries.

    Attributes
    ----------
    name : str
        The model's name (``"logmf"``, ``"fm"``, ``"wdl"``, ``"deepfm"``, ``"dcn"``).
    split : FairRecSplit
        The leave-last-out split the model was fitted on
        (:class:`ocef.environments.fairrec_split.FairRecSplit`).
    model : object
        The fitted model: ``model.score(candidates) -> array`` (the black box).
    scores : numpy.ndarray, shape (len(split.candidates),)
        The model's scores of ``split.candidates``, computed once.

    Examples
    --------
    A small synthetic split (the real one is :func:`fit_movielens`'s):

    >>> from ocef.environments.fairrec_split import fairrec_split
    >>> from ocef.fairrec.models import LogisticMF
    >>> from ocef.fairrec.search import search
    >>> gen = np.random.default_rng(0)
    >>> items = [gen.choice(np.arange(u % 2, 30, 2), 6, replace=False) for u in range(40)]
    >>> ratings = pd.DataFrame({"user": np.repeat(np.arange(40), 6), "item": np.concatenate(items),
    ...                         "timestamp": np.tile(np.arange(6), 40)})
    >>> users = pd.DataFrame({"gender": np.arange(40) % 2, "age": np.arange(40) % 3})
    >>> split = fairrec_split(ratings, users, np.eye(2, dtype=int)[np.arange(30) % 2], n_neg_test=9, rng=0)
    >>> model = LogisticMF(n_factors=4, epochs=20, lr=0.05).fit(split, rng=0, cache=False)
    >>> fitted = FittedRecommender("logmf", split, model, model.score(split.candidates))
    >>> res = search(fitted.oracle("mrr", ["gender", "age"], k=3), "exhaustive", n_resamples=99, rng=0)
    >>> round(res.uf, 3), res.p_value
    (0.476, 0.11)
    """

    name: str
    split: object
    model: object
    scores: np.ndarray

    def oracle(self, metric: str, attributes=DEFAULT_ATTRIBUTES, *, min_users: int = 5, k: int = 5,
               auc: str = "mean", ndcg: str = "standard", lazy: bool = False) -> GroupOracle:
        """A :class:`GroupOracle` for ``metric`` with MovieLens' attribute labels; ``lazy`` queries the
        model per group (black box), otherwise the precomputed scores are used (the same values).

        Parameters
        ----------
        metric : {"auc", "mrr", "ndcg", "urd", "urp"}
            The metric of Sec. 3.2 whose group gap is searched.
        attributes : sequence of str, default ("gender", "age", "occupation")
            The sensitive attributes (columns of ``split.users``).
        min_users : int, default 5
            Smallest number of users with a defined metric in a valid group.
        k : int, default 5
            Length of the recommendation list.
        auc : {"mean", "pooled"}, default "mean"
            A group's AUC: the mean of its users' (Def. 2.2), or of its pooled candidates (the
            authors' code; no interval, no permutation test).
        ndcg : {"standard", "repo"}, default "standard"
            The ideal DCG of NDCG (:func:`ocef.fairrec.unfairness.user_metrics`).
        lazy : bool, default False
            Query ``model.score`` group by group (the black-box cost is then counted) instead of
            reading the precomputed ``scores``.

        Returns
        -------
        GroupOracle
            With MovieLens' labels, the metric's range (for intervals) and its defined users.

        Examples
        --------
        >>> from ocef.environments.fairrec_split import fairrec_split
        >>> gen = np.random.default_rng(0)
        >>> items = [gen.choice(30, 6, replace=False) for _ in range(20)]
        >>> ratings = pd.DataFrame({"user": np.repeat(np.arange(20), 6), "item": np.concatenate(items),
        ...                         "timestamp": np.tile(np.arange(6), 20)})
        >>> split = fairrec_split(ratings, pd.DataFrame({"gender": np.arange(20) % 2}), np.eye(30, 3, dtype=int),
        ...                       n_neg_test=9, rng=0)
        >>> fitted = FittedRecommender("random", split, None, gen.random(len(split.candidates)))
        >>> oracle = fitted.oracle("mrr", ["gender"], k=3)
        >>> oracle.n_groups, oracle.bounds, oracle.label_of({"gender": 1})
        (2, (0.0, 1.0), {'gender': 'M'})
        """
        make, scores = (GroupOracle.from_model, self.model.score) if lazy else (GroupOracle.from_scores, self.scores)
        return make(self.split, scores, list(attributes), metric, k=k, min_users=min_users, auc=auc, ndcg=ndcg,
                    labels=movielens_labels())


def movielens_labels() -> dict:
    """``{attribute: {code: label}}`` of MovieLens' user attribute codes
    (:func:`ocef.datasets.movielens.user_attribute_codes`): gender F/M, age brackets
    ("Under 18", "18-24", ...), ML-1M occupation names.

    Returns
    -------
    dict of str to dict of int to str
        ``{"gender": {0: "F", 1: "M"}, "age": {0: "Under 18", ..., 6: "56+"},
        "occupation": {0: "other", ..., 20: "writer"}}``.

    Examples
    --------
    >>> labels = movielens_labels()
    >>> labels["gender"][0], labels["age"][1], labels["occupation"][12]
    ('F', '18-24', 'programmer')
    """
    from ocef.datasets.movielens import AGE_BRACKETS, GENDER_CODES, OCCUPATIONS

    return {"gender": {code: g for g, code in GENDER_CODES.items()},
            "age": dict(enumerate(AGE_BRACKETS[a] for a in sorted(AGE_BRACKETS))),
            "occupation": dict(OCCUPATIONS)}


def fit_movielens(model: str = "logmf", data_dir=None, *, split_seed: int = 0, model_seed: int = 0,
                  progress=False, **hyper) -> FittedRecommender:
    """Leave-last-out split of MovieLens (``split_seed``) and ``model`` fitted on it (cached on disk).

    The testing set-up of Sec. 4.1 (:func:`ocef.environments.fairrec_split.fairrec_split`); on
    ML-100K ``logmf`` fits in about 5 s (AUC 0.838), then is read from the cache.

    Parameters
    ----------
    model : {"logmf", "fm", "wdl", "deepfm", "dcn"}, default "logmf"
        The model (:func:`ocef.fairrec.models.make_model`; the last three need torch).
    data_dir : str or Path, optional
        A MovieLens folder (ML-100K or ML-1M format) or a data root holding ``ml-1m/`` or
        ``ml-100k/``; default ``$OCEF_DATA_DIR``, then ``../shared/data``.
    split_seed : int, default 0
        Seed of the split's negative sampling.
    model_seed : int, default 0
        Seed of the model's training (and of its cache entry).
    progress : bool or "auto", default False
        A bar of the training epochs with the time left on stderr (``"auto"``: when stderr is a terminal).
    **hyper
        Hyper-parameters of the model (e.g. ``n_factors=16``, ``epochs=10``).

    Returns
    -------
    FittedRecommender
        The split, the fitted model and its scores.

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When no MovieLens ratings file is found, listing the folders searched.

    Examples
    --------
    >>> fit_movielens("logmf", "/nowhere")
    Traceback (most recent call last):
    ...
    ocef.errors.DatasetNotFoundError: MovieLens ratings file ('ratings.dat' for ML-1M or 'u.data' for ML-100K) not found; searched: /nowhere, ...

    With the data in place (about 5 s the first time, then cached):

    >>> fitted = fit_movielens("logmf", split_seed=0, model_seed=0)        # doctest: +SKIP
    >>> fitted.split.n_users, fitted.split.n_candidates                      # doctest: +SKIP
    (943, 50)
    """
    from ocef.environments.fairrec_split import movielens_fairrec_split

    m = make_model(model, **hyper)
    split = movielens_fairrec_split(data_dir, rng=split_seed)
    m.fit(split, rng=model_seed, progress=progress)
    return FittedRecommender(model, split, m, m.score(split.candidates))
