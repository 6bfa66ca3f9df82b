"""What every FairRec recommender shares in training (seed 002, Sec. 4.1): its checked
hyper-parameters and its fit cached on disk (:mod:`ocef.environments.cache`).

Used by the numpy models (:mod:`ocef.fairrec.models`) and the torch ones (:mod:`ocef.fairrec.deep`)."""
from __future__ import annotations

import numpy as np

from ocef.environments.cache import array_fingerprint, cached_arrays
from ocef.validation import check_in_interval, check_positive_int


def fitted_params(kind: str, split, key: dict, rng, cache: bool, train) -> dict[str, np.ndarray]:
    """``train()``'s parameters, cached on disk (when ``cache`` and ``rng`` is an int seed) under
    ``key`` (the hyper-parameters), a fingerprint of ``split``'s training data and the seed. ``rng``
    None or a Generator trains afresh: its draws differ from call to call, a cached fit would not."""
    if not (cache and isinstance(rng, (int, np.integer))):
        return train()
    t = split.train
    data = array_fingerprint(t["user"].to_numpy(), t["item"].to_numpy(), t["label"].to_numpy(),
                             np.asarray(split.users.to_numpy()), np.asarray(split.genres))
    return dict(cached_arrays(f"fairrec-{kind}", {"model": kind, **key, "data": data, "seed": rng}, train))


def check_training(model, size: str) -> None:
    """The training hyper-parameters every model shares (``size``: its width attribute, e.g. ``n_factors``)."""
    check_positive_int(size, getattr(model, size))
    check_positive_int("epochs", model.epochs)
    check_positive_int("batch_size", model.batch_size)
    check_in_interval("lr", model.lr, 0.0, 1.0)
    check_in_interval("reg", model.reg, 0.0, np.inf, low_open=False)
