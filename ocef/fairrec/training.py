"""What every FairRec recommender shares in training (Guo et al. 2023, Sec. 4.1): its checked
hyper-parameters and its fit cached on disk (:mod:`ocef.environments.cache`).

Used by the numpy models (:mod:`ocef.fairrec.models`) and the torch ones (:mod:`ocef.fairrec.deep`)."""
from __future__ import annotations

import numpy as np

from ocef.environments.cache import array_fingerprint, cached_arrays
from ocef.validation import check_in_interval, check_positive_int


def fitted_params(kind: str, split, key: dict, rng, cache: bool, train) -> dict[str, np.ndarray]:
    """``train()``'s parameters, cached on disk (when ``cache`` and ``rng`` is an int seed) under
    ``key`` (the hyper-parameters), a fingerprint of ``split``'s training data and the seed. ``rng``
    None or a Generator trains afresh: its draws differ from call to call, a cached fit would not.

    The cache folder is ``$OCEF_CACHE_DIR``, else ``~/.cache/ocef``
    (:func:`ocef.environments.cache.cached_arrays`; entries are written atomically).

    Parameters
    ----------
    kind : str
        The model's kind (``"logmf"``, ``"fm"``, ``"wdl"``, ...), part of the file name and key.
    split : FairRecSplit
        The split trained on; ``train`` (``user, item, label``), ``users`` and ``genres`` are
        fingerprinted.
    key : dict
        The hyper-parameters (and, for torch, its version), JSON-serializable.
    rng : None, int, SeedSequence or Generator
        The training randomness; only an int seed (>= 0) is cached.
    cache : bool
        False: always train.
    train : callable
        ``train() -> dict of numpy.ndarray``: fits the model (drawing from ``rng``).

    Returns
    -------
    dict of str to numpy.ndarray
        The fitted parameters.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> split = SimpleNamespace(train=pd.DataFrame({"user": [0, 1], "item": [1, 0], "label": [1, 0]}),
    ...                         users=pd.DataFrame({"gender": [0, 1]}), genres=np.eye(2))
    >>> calls = []
    >>> def train():
    ...     calls.append(1)
    ...     return {"w": np.arange(3.0)}
    >>> first = fitted_params("demo", split, {"lr": 0.1}, 0, True, train)
    >>> again = fitted_params("demo", split, {"lr": 0.1}, 0, True, train)     # read back
    >>> again["w"].tolist(), len(calls)
    ([0.0, 1.0, 2.0], 1)
    """
    if not (cache and isinstance(rng, (int, np.integer))):
        return train()
    t = split.train
    data = array_fingerprint(t["user"].to_numpy(), t["item"].to_numpy(), t["label"].to_numpy(),
                             np.asarray(split.users.to_numpy()), np.asarray(split.genres))
    return dict(cached_arrays(f"fairrec-{kind}", {"model": kind, **key, "data": data, "seed": rng}, train))


def check_training(model, size: str) -> None:
    """Check the training hyper-parameters every model shares (``size``: its width attribute, e.g. ``n_factors``).

    Parameters
    ----------
    model : LogisticMF, FactorizationMachine or ocef.fairrec.deep.DeepCTR
        The model whose attributes are checked.
    size : str
        The name of its width attribute: ``"n_factors"`` (numpy models) or ``"embedding_dim"``
        (deep models).

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
