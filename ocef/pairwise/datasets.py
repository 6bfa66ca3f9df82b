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
        Coat's self-selected and random logs (:meth:`ocef.datasets.Coat.logs`), with integer
        ``user`` and ``item`` columns.

    Returns
    -------
    (int, int)
        ``(n_users, n_items)``.

    Examples
    --------
    >>> default = pd.DataFrame({"user": [0, 0, 1, 2], "item": [0, 1, 1, 2], "rating": [5, 3, 4, 2]})
    >>> random = pd.DataFrame({"user": [0, 1, 3], "item": [2, 0, 1], "rating": [1, 2, 5]})
    >>> coat_sizes(default, random)
    (4, 3)
    """
    return (int(max(default.user.max(), random.user.max())) + 1,
            int(max(default["item"].max(), random["item"].max())) + 1)


def coat_ratings(default: pd.DataFrame) -> pd.DataFrame:
    """Coat's self-selected ratings (the default log) as the trainer's ``user, item, rating`` table.

    Parameters
    ----------
    default : pandas.DataFrame
        Coat's default log, with columns ``user``, ``item``, ``rating``.

    Returns
    -------
    pandas.DataFrame
        Columns ``user, item, rating`` (:func:`ocef.pairwise.fit_mf_pairwise`'s input).

    Examples
    --------
    >>> default = pd.DataFrame({"user": [0, 0, 1, 2], "item": [0, 1, 1, 2], "rating": [5, 3, 4, 2]})
    >>> random = pd.DataFrame({"user": [0, 1, 3], "item": [2, 0, 1], "rating": [1, 2, 5]})
    >>> coat_ratings(default).shape
    (4, 3)
    """
    return pd.DataFrame({"user": default.user, "item": default["item"], "rating": default.rating})


def coat_mf(default: pd.DataFrame, n_users: int, n_items: int, *, rng=None) -> MFModel:
    """The "production" model of the Coat analyses: a rank-8 matrix factorisation of the self-selected ratings.

    :func:`ocef.pairwise.fit_mf_pairwise` without the regularizer (λ = 0), rank 8, ridge 0.01, 200
    Adam steps of size 0.05: the model trained on self-selected (biased) ratings whose pairwise
    accuracies the randomized Coat pairs then audit, as Beutel et al. 2019 (pairwise fairness) audits its production ranker.

    Parameters
    ----------
    default : pandas.DataFrame
        Coat's default log (``user, item, rating``).
    n_users, n_items : int
        Sizes of the score matrix (:func:`coat_sizes`: both logs' users and items).
    rng : None, int, SeedSequence or Generator
        Seeds the initial factors.

    Returns
    -------
    ocef.pairwise.MFModel
        The trained model; ``scores()`` is n_users x n_items.

    Examples
    --------
    >>> default = pd.DataFrame({"user": [0, 0, 1, 2], "item": [0, 1, 1, 2], "rating": [5, 3, 4, 2]})
    >>> random = pd.DataFrame({"user": [0, 1, 3], "item": [2, 0, 1], "rating": [1, 2, 5]})
    >>> model = coat_mf(default, *coat_sizes(default, random), rng=0)
    >>> model.scores().shape, model.user_factors.shape
    ((4, 3), (4, 8))
    """
    return fit_mf_pairwise(coat_ratings(default), n_users=n_users, n_items=n_items, rank=8, l2=0.01, epochs=200, lr=0.05, rng=rng)


def score_pairs(pairs: pd.DataFrame, scores: np.ndarray, user: str = "query") -> pd.DataFrame:
    """Add the audited model's scores ``score_j``, ``score_jp`` to a pairs table.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Pairs with item indices ``j``, ``jp`` (and the user index in column ``user``).
    scores : array_like of float
        A users x items score matrix (per-user scores), or an items vector (one score per item,
        e.g. popularity).
    user : str, default "query"
        The column of ``pairs`` holding the user index (for a matrix).

    Returns
    -------
    pandas.DataFrame
        A copy of ``pairs`` with ``score_j`` and ``score_jp``.

    Examples
    --------
    >>> pairs = pd.DataFrame({"query": [0, 1], "j": [0, 2], "jp": [1, 0]})
    >>> score_pairs(pairs, np.array([[0.5, 0.2, 0.9], [0.1, 0.4, 0.3]]))
       query  j  jp  score_j  score_jp
    0      0  0   1      0.5       0.2
    1      1  2   0      0.3       0.1
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 1:
        return pairs.assign(score_j=scores[pairs.j], score_jp=scores[pairs.jp])
    return pairs.assign(score_j=scores[pairs[user], pairs.j], score_jp=scores[pairs[user], pairs.jp])


def dataset_pairs(name: str, model: str | None = None, *, data_dir=None, rng=None) -> pd.DataFrame:
    """Scored randomized pairs of a real data set (Coat or the Open Bandit Dataset).

    Coat: the pairs of the random ratings (:meth:`ocef.datasets.Coat.pairs`), scored by
    :func:`coat_mf` (``model="mf"``, default) or by popularity (likes per item in the self-selected
    log). OBD: the pairs of the random log (:meth:`ocef.datasets.OpenBanditDataset.pairs`) scored by
    popularity (click rate per item in the Bernoulli-Thompson-sampling log; the random log has no
    user ids, so no MF). The result is the input of :func:`ocef.pairwise.pairwise_accuracy`.

    Parameters
    ----------
    name : {"coat", "obd"}
        The data set.
    model : {"mf", "popularity"}, optional
        The scoring model (default: ``"mf"`` for Coat, ``"popularity"`` for OBD).
    data_dir : str or path, optional
        Where the data sets live (default: found automatically, :mod:`ocef.datasets`).
    rng : None, int, SeedSequence or Generator
        Seeds the MF.

    Returns
    -------
    pandas.DataFrame
        A pairs table: query, j, jp, s_j, s_jp, z, score_j, score_jp.

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        When the data set is not found (:mod:`ocef.datasets`).

    Examples
    --------
    >>> dataset_pairs("netflix")
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: dataset must be 'coat' or 'obd', got 'netflix'
    >>> pairs = dataset_pairs("coat", "popularity")            # doctest: +SKIP
    >>> len(pairs), sorted(pairs.s_j.unique()), sorted(pairs.z.unique().tolist())   # doctest: +SKIP
    (8770, ['men', 'women'], [4, 5])
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
