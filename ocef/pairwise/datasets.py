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
    """(users, items) of Coat's two logs."""
    return (int(max(default.user.max(), random.user.max())) + 1,
            int(max(default["item"].max(), random["item"].max())) + 1)


def coat_ratings(default: pd.DataFrame) -> pd.DataFrame:
    """Coat's self-selected ratings (the default log) as the trainer's ``user, item, rating``."""
    return pd.DataFrame({"user": default.user, "item": default["item"], "rating": default.rating})


def coat_mf(default: pd.DataFrame, n_users: int, n_items: int, *, rng=None) -> MFModel:
    """The "production" MF of the Coat analyses: rank 8, trained on the self-selected ratings."""
    return fit_mf_pairwise(coat_ratings(default), n_users=n_users, n_items=n_items, rank=8, l2=0.01, epochs=200, lr=0.05, rng=rng)


def score_pairs(pairs: pd.DataFrame, scores: np.ndarray, user: str = "query") -> pd.DataFrame:
    """Add ``score_j``, ``score_jp`` from a users × items score matrix (or an items vector)."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 1:
        return pairs.assign(score_j=scores[pairs.j], score_jp=scores[pairs.jp])
    return pairs.assign(score_j=scores[pairs[user], pairs.j], score_jp=scores[pairs[user], pairs.jp])


def dataset_pairs(name: str, model: str | None = None, *, data_dir=None, rng=None) -> pd.DataFrame:
    """Scored pairs of ``"coat"`` (default model ``"mf"``) or ``"obd"`` (``"popularity"``)."""
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
