"""Scored pairs of the real data sets (Coat, Open Bandit Dataset) for the CLI and the experiments.

* Coat: pairs from the random ratings (:meth:`ocef.datasets.Coat.pairs`), scored by the
  matrix factorisation trained on the self-selected ratings ``train.ascii`` (:func:`coat_mf`), or
  by popularity (likes per item in ``train.ascii``);
* OBD: pairs from the random log (:meth:`ocef.datasets.OpenBanditDataset.pairs`) scored by popularity
  (click rate per item in the Bernoulli-Thompson-sampling log; the random log has no user ids, so
  no MF).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ocef.datasets import load_logs
from ocef.datasets.coat import coat_pairs
from ocef.datasets.obd import obd_pairs
from ocef.pairwise.regularizer import MFModel, fit_mf_pairwise
from ocef.errors import ParameterError

__all__ = ["MODELS", "DEFAULT_MODELS", "coat_sizes", "coat_ratings", "coat_mf", "dataset_pairs", "score_pairs"]

MODELS = ("mf", "popularity")
#: Model scored on each data set's pairs when none is named.
DEFAULT_MODELS = {"coat": "mf", "obd": "popularity"}


def coat_sizes(default: pd.DataFrame, random: pd.DataFrame) -> tuple[int, int]:
    """Numbers of users and items of Coat's two logs (the larger index of either, plus one).

    Parameters
    ----------
    default, random : pandas.DataFrame
        :meth:`ocef.datasets.Coat.logs`, integer ``user`` and ``item`` columns.

    Returns
    -------
    (int, int)

    Examples
    --------
    >>> coat_sizes(pd.DataFrame({"user": [0, 2], "item": [0, 2]}), pd.DataFrame({"user": [3], "item": [1]}))
    (4, 3)
    """
    return (int(max(default.user.max(), random.user.max())) + 1,
            int(max(default["item"].max(), random["item"].max())) + 1)


def coat_ratings(default: pd.DataFrame) -> pd.DataFrame:
    """Coat's self-selected ratings as :func:`ocef.pairwise.fit_mf_pairwise`'s ``user, item, rating`` table.

    Parameters
    ----------
    default : pandas.DataFrame
        Coat's default log, with columns ``user``, ``item``, ``rating``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> coat_ratings(pd.DataFrame({"user": [0, 2], "item": [0, 2], "rating": [5, 2], "Y": [1, 0]})).columns.tolist()
    ['user', 'item', 'rating']
    """
    return pd.DataFrame({"user": default.user, "item": default["item"], "rating": default.rating})


def coat_mf(default: pd.DataFrame, n_users: int, n_items: int, *, rng=None) -> MFModel:
    """The "production" model of the Coat analyses: a rank-8 matrix factorisation of the self-selected ratings.

    :func:`ocef.pairwise.fit_mf_pairwise` with λ = 0, rank 8, ridge 0.01, 200 Adam steps of size
    0.05: the model trained on biased ratings whose pairwise accuracies the randomized Coat pairs
    audit, as Beutel et al. 2019 audits its production ranker.

    Parameters
    ----------
    default : pandas.DataFrame
        Coat's default log.
    n_users, n_items : int
        :func:`coat_sizes`.
    rng : None, int, SeedSequence or Generator
        Seeds the initial factors.

    Returns
    -------
    ocef.pairwise.MFModel

    Examples
    --------
    >>> default = pd.DataFrame({"user": [0, 0, 1, 2], "item": [0, 1, 1, 2], "rating": [5, 3, 4, 2]})
    >>> coat_mf(default, 4, 3, rng=0).scores().shape
    (4, 3)
    """
    return fit_mf_pairwise(coat_ratings(default), n_users=n_users, n_items=n_items, rank=8, l2=0.01, epochs=200, lr=0.05, rng=rng)


def score_pairs(pairs: pd.DataFrame, scores: np.ndarray, user: str = "query") -> pd.DataFrame:
    """Add the audited model's scores ``score_j``, ``score_jp`` to a pairs table (a copy).

    Parameters
    ----------
    pairs : pandas.DataFrame
        With item indices ``j``, ``jp`` (and the user index in ``user``).
    scores : array_like of float
        Users x items, or one score per item (e.g. popularity).
    user : str
        The user-index column (for a matrix).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> pairs = pd.DataFrame({"query": [0, 1], "j": [0, 2], "jp": [1, 0]})
    >>> score_pairs(pairs, np.array([[0.5, 0.2, 0.9], [0.1, 0.4, 0.3]]))["score_j"].tolist()
    [0.5, 0.3]
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 1:
        return pairs.assign(score_j=scores[pairs.j], score_jp=scores[pairs.jp])
    return pairs.assign(score_j=scores[pairs[user], pairs.j], score_jp=scores[pairs[user], pairs.jp])


def dataset_pairs(name: str, model: str | None = None, *, data_dir=None, rng=None) -> pd.DataFrame:
    """Scored randomized pairs of a real data set, the input of :func:`ocef.pairwise.pairwise_accuracy`.

    Coat: the pairs of the random ratings (:meth:`ocef.datasets.Coat.pairs`), scored by
    :func:`coat_mf` or by popularity (likes per item in the self-selected log). OBD: the pairs of the
    random log, scored by popularity (click rate per item in the Thompson-sampling log; the random
    log has no user ids, so no MF).

    Parameters
    ----------
    name : {"coat", "obd"}
        The data set.
    model : {"mf", "popularity"}, optional
        Default: ``"mf"`` for Coat, ``"popularity"`` for OBD.
    data_dir : str or path, optional
        Where the data sets live (default: found automatically, :mod:`ocef.datasets`).
    rng : None, int, SeedSequence or Generator
        Seeds the MF.

    Returns
    -------
    pandas.DataFrame
        query, j, jp, s_j, s_jp, z, score_j, score_jp.

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When the data set is not found (:mod:`ocef.datasets`).

    Examples
    --------
    >>> from ocef.datasets import make_toy_obd
    >>> dataset_pairs("obd", data_dir=make_toy_obd())[["j", "jp", "score_j"]].values.tolist()
    [[2.0, 0.0, 1.0], [2.0, 1.0, 1.0]]
    """
    if name not in DEFAULT_MODELS:
        raise ParameterError(f"dataset must be 'coat' or 'obd', got {name!r}")
    model = model or DEFAULT_MODELS[name]
    if model not in MODELS:
        raise ParameterError(f"model must be one of {MODELS}, got {model!r}")
    default, random = load_logs(name, data_dir)
    if name == "coat":
        pairs = coat_pairs(data_dir)
        n_users, n_items = coat_sizes(default, random)
        if model == "mf":
            return score_pairs(pairs, coat_mf(default, n_users, n_items, rng=rng).scores())
        return score_pairs(pairs, np.bincount(default["item"], weights=default.Y, minlength=n_items))
    if model == "mf":
        raise ParameterError("model 'mf' needs users; the OBD random log has none: use 'popularity'")
    pairs = obd_pairs(data_dir)
    n_items = int(max(default["item"].max(), pairs.j.max(), pairs.jp.max())) + 1
    shown = np.bincount(default["item"], minlength=n_items)
    clicks = np.bincount(default["item"], weights=default.Y, minlength=n_items)
    return score_pairs(pairs, clicks / np.maximum(shown, 1))
