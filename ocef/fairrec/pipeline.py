"""MovieLens → split → fitted model → group oracle: the testing set-up of seed 002, Sec. 4.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.fairrec.models import make_model
from ocef.fairrec.search import GroupOracle

__all__ = ["FittedRecommender", "fit_movielens", "DEFAULT_ATTRIBUTES", "movielens_labels"]

DEFAULT_ATTRIBUTES: tuple[str, ...] = ("gender", "age", "occupation")


@dataclass(frozen=True)
class FittedRecommender:
    """A model fitted on a MovieLens split, with its scores of every test candidate."""

    name: str
    split: object
    model: object
    scores: np.ndarray

    def oracle(self, metric: str, attributes=DEFAULT_ATTRIBUTES, *, min_users: int = 5, k: int = 5,
               auc: str = "mean", ndcg: str = "standard", lazy: bool = False) -> GroupOracle:
        """A :class:`GroupOracle` for ``metric`` with MovieLens' attribute labels; ``lazy`` queries the
        model per group (black box), otherwise the precomputed scores are used (the same values).
        ``auc="mean"``: a group's AUC is the mean of its users' AUCs (Def. 2.2); ``"pooled"``: the
        AUC of its pooled candidates (the authors' code; no interval, no permutation test)."""
        make, scores = (GroupOracle.from_model, self.model.score) if lazy else (GroupOracle.from_scores, self.scores)
        return make(self.split, scores, list(attributes), metric, k=k, min_users=min_users, auc=auc, ndcg=ndcg,
                    labels=movielens_labels())


def movielens_labels() -> dict:
    """``{attribute: {code: label}}`` of MovieLens' user attribute codes
    (:func:`ocef.environments.movielens.user_attribute_codes`): gender F/M, age brackets
    ("Under 18", "18-24", ...), ML-1M occupation names.

    Examples
    --------
    >>> labels = movielens_labels()
    >>> labels["gender"][0], labels["age"][1], labels["occupation"][12]
    ('F', '18-24', 'programmer')
    """
    from ocef.environments.movielens import AGE_BRACKETS, GENDER_CODES, OCCUPATIONS

    return {"gender": {code: g for g, code in GENDER_CODES.items()},
            "age": dict(enumerate(AGE_BRACKETS[a] for a in sorted(AGE_BRACKETS))),
            "occupation": dict(OCCUPATIONS)}


def fit_movielens(model: str = "logmf", data_dir=None, *, split_seed: int = 0, model_seed: int = 0,
                  **hyper) -> FittedRecommender:
    """Leave-last-out split of MovieLens (``split_seed``) and ``model`` fitted on it (cached on disk)."""
    from ocef.environments.fairrec_split import movielens_fairrec_split

    m = make_model(model, **hyper)
    split = movielens_fairrec_split(data_dir, rng=split_seed)
    m.fit(split, rng=model_seed)
    return FittedRecommender(model, split, m, m.score(split.candidates))
