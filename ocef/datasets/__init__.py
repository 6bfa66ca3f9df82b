"""The real data sets, one class each (as Open Bandit Pipeline's ``dataset/``).

* :class:`MovieLens100K` — ratings, users with decoded attributes, movies and genres, partitions
  (:mod:`ocef.datasets.movielens`, which also reads ML-1M);
* :class:`Coat` — self-selected and random ratings, user and item features, REO logs, randomized
  pairs, the Funk SVD of the bias-metrics audit (:mod:`ocef.datasets.coat`);
* :class:`OpenBanditDataset` — the random and Thompson-sampling logs, price tiers, REO logs and
  pairs (:mod:`ocef.datasets.obd`);
* toy problems for examples, generated in one call: :func:`make_toy_envy`,
  :func:`make_toy_reo_logs`, :func:`make_toy_reo_daily`, :func:`make_toy_movielens`,
  :func:`make_toy_obd`, :func:`make_toy_pairs`, :func:`make_toy_rankings`,
  :func:`make_toy_propensity_log`, :func:`make_toy_scores`, :func:`make_toy_coat`,
  :func:`make_toy_ml100k`, :func:`make_toy_fairrec_split`
  (:mod:`ocef.datasets.toy`).

Each class reads a folder: the ``data_dir`` argument (a data root or the data set's own folder),
else ``$OCEF_DATA_DIR``, else ``../shared/data`` next to the checkout; absent files raise
:class:`DatasetNotFoundError` saying where to download them. Data are never bundled.

Examples
--------
>>> from ocef.datasets import DATASETS
>>> sorted(DATASETS)
['coat', 'ml-100k', 'obd']
"""
from ocef.datasets.base import DatasetNotFoundError, find_dataset
from ocef.datasets.coat import Coat, load_coat
from ocef.datasets.movielens import MovieLens100K, load_movielens
from ocef.datasets.obd import OpenBanditDataset, load_obd
from ocef.datasets.toy import (ToyEnvy, ToyReoLogs, make_toy_envy, make_toy_movielens, make_toy_obd, make_toy_pairs,
                               make_toy_reo_daily, make_toy_reo_log, make_toy_reo_logs, make_toy_rankings,
                               ToyPropensityLog, make_toy_propensity_log, ToyScores, make_toy_scores, make_toy_coat,
                               make_toy_ml100k, make_toy_fairrec_split)
from ocef.errors import ParameterError

__all__ = ["MovieLens100K", "Coat", "OpenBanditDataset", "DatasetNotFoundError", "DATASETS", "load_logs",
           "find_dataset", "load_movielens", "load_coat", "load_obd", "ToyEnvy", "make_toy_envy",
           "ToyReoLogs", "make_toy_reo_log", "make_toy_reo_logs", "make_toy_reo_daily", "make_toy_movielens",
           "make_toy_obd", "make_toy_pairs", "make_toy_rankings", "ToyPropensityLog", "make_toy_propensity_log",
           "ToyScores", "make_toy_scores", "make_toy_coat", "make_toy_ml100k",
           "make_toy_fairrec_split"]

#: name -> class, for the commands' ``--dataset``.
DATASETS = {"ml-100k": MovieLens100K, "coat": Coat, "obd": OpenBanditDataset}
_LOGS = {"coat": load_coat, "obd": load_obd}


def load_logs(name: str, data_dir=None):
    """The (default, random) REO logs of a data set with random traffic.

    Parameters
    ----------
    name : {"coat", "obd"}
        The data set.
    data_dir : str or Path, optional
        The data root or the data set's folder.

    Returns
    -------
    default, random : pandas.DataFrame
        Logs with label column ``Y`` and group column ``S`` (:doc:`/formats/reo-logs`).

    Examples
    --------
    >>> load_logs("movielens")
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: dataset must be one of 'coat', 'obd' (the data sets with random traffic), got 'movielens'
    """
    if name not in _LOGS:
        raise ParameterError(f"dataset must be one of 'coat', 'obd' (the data sets with random traffic), got {name!r}")
    return _LOGS[name](data_dir)
