"""MovieLens → split → fitted model → group oracle: the testing set-up of seed 002, Sec. 4.1."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ocef.fairrec.models import make_model
from ocef.fairrec.search import GroupOracle

__all__ = ["FittedRecommender", "fit_movielens", "DEFAULT_ATTRIBUTES"]

DEFAULT_ATTRIBUTES: tuple[str, ...] = ("gender", "age", "occupation")


@dataclass(frozen=True)
class FittedRecommender:
    """A model fitted on a MovieLens split, with its scores of every test candidate."""

    name: str
    split: object
    model: object
    scores: np.ndarray

    def oracle(self, metric: str, attributes=DEFAULT_ATTRIBUTES, *, min_users: int = 5, k: int = 5,
               auc: str = "pooled", ndcg: str = "standard", lazy: bool = False) -> GroupOracle:
        """A :class:`GroupOracle` for ``metric``; ``lazy`` queries the model per group (black box),
        otherwise the precomputed scores are used (the same values)."""
        make, scores = (GroupOracle.from_model, self.model.score) if lazy else (GroupOracle.from_scores, self.scores)
        return make(self.split, scores, list(attributes), metric, k=k, min_users=min_users, auc=auc, ndcg=ndcg)


def fit_movielens(model: str = "logmf", data_dir=None, *, split_seed: int = 0, model_seed: int = 0,
                  **hyper) -> FittedRecommender:
    """Leave-last-out split of MovieLens (``split_seed``) and ``model`` fitted on it (cached on disk)."""
    from ocef.environments.fairrec_split import movielens_fairrec_split

    m = make_model(model, **hyper)
    split = movielens_fairrec_split(data_dir, rng=split_seed)
    m.fit(split, rng=model_seed)
    return FittedRecommender(model, split, m, m.score(split.candidates))
