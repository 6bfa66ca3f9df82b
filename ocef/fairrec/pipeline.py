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
    """A model fitted on a MovieLens split, with its scores of every test candidate (:func:`fit_movielens`);
    :meth:`oracle` makes the group oracle a search queries.

    Attributes
    ----------
    name : str
        ``"logmf"``, ``"fm"``, ``"wdl"``, ``"deepfm"`` or ``"dcn"``.
    split : FairRecSplit
        The leave-last-out split the model was fitted on
        (:class:`ocef.environments.fairrec_split.FairRecSplit`).
    model : object
        The black box: ``model.score(candidates) -> array``.
    scores : numpy.ndarray, shape (len(split.candidates),)
        Computed once.

    Examples
    --------
    >>> from ocef.datasets import make_toy_fairrec_split
    >>> from ocef.fairrec.models import LogisticMF
    >>> from ocef.fairrec.search import search
    >>> split = make_toy_fairrec_split()
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
        """A :class:`GroupOracle` for ``metric`` with MovieLens' attribute labels, its range (for intervals)
        and its defined users; ``lazy`` queries the model per group (black box), otherwise the
        precomputed scores give the same values.

        Parameters
        ----------
        metric : {"auc", "mrr", "ndcg", "urd", "urp"}
            Sec. 3.2.
        attributes : sequence of str
            Columns of ``split.users``.
        min_users : int
            Smallest number of users with a defined metric in a valid group.
        k : int
            Length of the recommendation list.
        auc : {"mean", "pooled"}
            The mean of the users' AUC (Def. 2.2), or the pooled candidates' (the authors' code; no
            interval, no permutation test).
        ndcg : {"standard", "repo"}
            :func:`ocef.fairrec.unfairness.user_metrics`.
        lazy : bool
            Query ``model.score`` group by group (the black-box cost is then counted).

        Returns
        -------
        GroupOracle

        Examples
        --------
        >>> from ocef.datasets import make_toy_fairrec_split
        >>> split = make_toy_fairrec_split()
        >>> fitted = FittedRecommender("random", split, None, np.linspace(0, 1, len(split.candidates)))
        >>> oracle = fitted.oracle("mrr", ["gender"], k=3)
        >>> oracle.n_groups, oracle.bounds, oracle.label_of({"gender": 1})
        (2, (0.0, 1.0), {'gender': 'M'})
        """
        make, scores = (GroupOracle.from_model, self.model.score) if lazy else (GroupOracle.from_scores, self.scores)
        return make(self.split, scores, list(attributes), metric, k=k, min_users=min_users, auc=auc, ndcg=ndcg,
                    labels=movielens_labels())


def movielens_labels() -> dict:
    """``{attribute: {code: label}}`` of MovieLens' user attribute codes
    (:func:`ocef.datasets.movielens.user_attribute_codes`): gender F/M, age brackets, ML-1M occupations.

    Returns
    -------
    dict of str to dict of int to str

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
    model : {"logmf", "fm", "wdl", "deepfm", "dcn"}
        :func:`ocef.fairrec.models.make_model` (the last three need torch).
    data_dir : str or Path, optional
        A MovieLens folder or a data root holding ``ml-1m/`` or ``ml-100k/``.
    split_seed : int
        Of the split's negative sampling.
    model_seed : int
        Of the training (and of its cache entry).
    progress : bool or "auto"
        A progress bar of the epochs on stderr.
    **hyper
        Hyper-parameters of the model.

    Returns
    -------
    FittedRecommender

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When no MovieLens ratings file is found, listing the folders searched.

    Examples
    --------
    >>> fit_movielens("logmf", "/nowhere")
    Traceback (most recent call last):
    ...
    ocef.errors.DatasetNotFoundError: MovieLens ratings file ... not found; searched: /nowhere, ...
    """
    from ocef.environments.fairrec_split import movielens_fairrec_split

    m = make_model(model, **hyper)
    split = movielens_fairrec_split(data_dir, rng=split_seed)
    m.fit(split, rng=model_seed, progress=progress)
    return FittedRecommender(model, split, m, m.score(split.candidates))
