"""A small learnable split for the model tests: users like the items of their taste cluster."""
import numpy as np
import pandas as pd

from ocef.environments.fairrec_split import fairrec_split


def taste_split(n_users: int, n_items: int, n_tastes: int, per_user: int, n_neg_test: int = 19, seed: int = 0):
    rng = np.random.default_rng(seed)
    taste = rng.integers(0, n_tastes, n_users)
    kind = np.arange(n_items) % n_tastes
    rows = [(u, i, t) for u in range(n_users)
            for t, i in enumerate(rng.choice(np.flatnonzero(kind == taste[u]), per_user, replace=False))]
    ratings = pd.DataFrame(rows, columns=["user", "item", "timestamp"])
    users = pd.DataFrame({"gender": rng.integers(0, 2, n_users), "age": taste})
    return fairrec_split(ratings, users, np.eye(n_tastes, dtype=int)[kind], n_neg_test=n_neg_test, rng=0)
