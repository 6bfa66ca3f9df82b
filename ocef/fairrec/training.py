"""What every FairRec recommender shares in training (Guo et al. 2023, Sec. 4.1): its checked
hyper-parameters and its fit cached on disk (:mod:`ocef.environments.cache`).

Used by the numpy models (:mod:`ocef.fairrec.models`) and the torch ones (:mod:`ocef.fairrec.deep`)."""
from __future__ import annotations

import numpy as np

from ocef.environments.cache import array_fingerprint, cached_arrays
from ocef.validation import check_in_interval, check_positive_int


def fitted_params(kind: str, split, key: dict, rng, cache: bool, train) -> dict[str, np.ndarray]:
    """``train()``'s parameters, cached on disk (:func:`ocef.environments.cache.cached_arrays`) when
    ``cache`` and ``rng`` is an int seed, under ``key``, a fingerprint of ``split``'s training data and
    the seed; None or a Generator trains afresh (its draws differ from call to call).

    Parameters
    ----------
    kind : str
        The model's kind, part of the file name and key.
    split : FairRecSplit
        ``train``, ``users`` and ``genres`` are fingerprinted.
    key : dict
        The hyper-parameters (and, for torch, its version), JSON-serializable.
    rng : None, int, SeedSequence or Generator
        The training randomness; only an int seed (>= 0) is cached.
    cache : bool
        False: always train.
    train : callable
        ``train() -> dict of numpy.ndarray``, drawing from ``rng``.

    Returns
    -------
    dict of str to numpy.ndarray

    Examples
    --------
    >>> from ocef.datasets import make_toy_fairrec_split
    >>> calls = []
    >>> train = lambda: calls.append(1) or {"w": np.arange(3.0)}
    >>> _ = [fitted_params("demo", make_toy_fairrec_split(), {"lr": 0.1}, 0, True, train) for _ in range(2)]
    >>> len(calls)                                        # the second call read the cache
    1
    """
    if not (cache and isinstance(rng, (int, np.integer))):
        return train()
    t = split.train
    data = array_fingerprint(t["user"].to_numpy(), t["item"].to_numpy(), t["label"].to_numpy(),
                             np.asarray(split.users.to_numpy()), np.asarray(split.genres))
    return dict(cached_arrays(f"fairrec-{kind}", {"model": kind, **key, "data": data, "seed": rng}, train))


def check_training(model, size: str) -> None:
    """Check the training hyper-parameters every model shares.

    Parameters
    ----------
    model : LogisticMF, FactorizationMachine or ocef.fairrec.deep.DeepCTR
        The model whose attributes are checked.
    size : str
        Its width attribute: ``"n_factors"`` (numpy models) or ``"embedding_dim"`` (deep models).

    Examples
    --------
    >>> from ocef.fairrec.models import LogisticMF
    >>> check_training(LogisticMF(lr=2.0), "n_factors")
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: lr must be in (0.0, 1.0], got 2.0
    """
    check_positive_int(size, getattr(model, size))
    check_positive_int("epochs", model.epochs)
    check_positive_int("batch_size", model.batch_size)
    check_in_interval("lr", model.lr, 0.0, 1.0)
    check_in_interval("reg", model.reg, 0.0, np.inf, low_open=False)
