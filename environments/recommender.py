"""The simulated recommender of seed 001 (Sec. 6.1, App. B.1, App. D.2), built on
scikit-surprise's ``SVD`` (Funk SVD).

Sec. 6.1 / D.2: "We sample 20% of the entries uniformly at random for each user to be
observed, and the observed value is drawn from a Bernoulli distribution with mean given
by the ground truth value. Matrix factorization is run with [d] latent factors ...
Hyperparameter search is conducted for the regularization parameter chosen in
[0.01, 0.1, 1, 10]."

Choices (documented, all parameters of :func:`simulate_recommender`):

* the recommender is surprise's SVD *without* biases (``biased=False``, i.e. Funk's
  original ``r̂_ui = q_iᵀ p_u``, probabilistic matrix factorization). With one factor it
  is then exactly the popularity recommender of Sec. 6.1 ("with one latent factor ...
  matrix completion is then equivalent to a popularity-based recommender system"): every
  user with ``p_u > 0`` ranks items by ``q_i``. With biases, rank-1 scores
  ``b_i + p_u q_i`` can reorder items per user. ``biased=True`` is available;
* training budget: the defaults of surprise and of the paper's implementation
  (gbolmier/funk-svd): 20 epochs of SGD at learning rate 0.005, init std 0.1. This is
  *not* run to convergence: the unbiased factors keep part of their random
  initialisation (on a 200 x 50 rank-1 problem the fitted item means correlate at ~0.3
  with the true ones, ~0.97 after 100 epochs at 0.02). Measured on ML-100K (943 x 1000):
  with this budget envy grows with d up to 64 and drops at 128 where the validation
  picks reg = 0.1; with converged SGD (``n_epochs=100, lr=0.02``) reg = 0.1 wins from
  d = 4 on, the model is then a popularity recommender and envy peaks at d = 2 only.
  Both are parameters (``Environment.n_epochs``/``lr``);
* "held-out data": the observed entries of each user are split at random into a
  training part (80%) and a validation part (20%); each regularization is fitted on the
  training part and scored by RMSE on the validation part; the best one is refitted on
  all observed entries;
* scores are the model's raw estimates (not clipped to [0, 1]: clipping would create
  ties between items and the scores only feed policies).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.validation import as_generator, check_in_interval, check_positive_int, check_resources, check_unit_array
from ocef.errors import ParameterError

REGULARIZATIONS: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0)


@dataclass(frozen=True)
class FunkSVDModel:
    """Fitted biased Funk SVD: ``scores() = mu + bu[:, None] + bi[None, :] + P @ Q.T``.

    Users/items absent from the training data have zero bias and zero factors (surprise's
    convention for unknown users and items).
    """

    mu: float
    bu: np.ndarray
    bi: np.ndarray
    P: np.ndarray
    Q: np.ndarray

    def scores(self) -> np.ndarray:
        return self.mu + self.bu[:, None] + self.bi[None, :] + self.P @ self.Q.T

    def predict(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Estimates at the (user, item) pairs, without building the full matrix."""
        return (self.mu + self.bu[users] + self.bi[items]
                + np.einsum("nk,nk->n", self.P[users], self.Q[items]))

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"mu": np.array(self.mu), "bu": self.bu, "bi": self.bi, "P": self.P, "Q": self.Q}

    @classmethod
    def from_arrays(cls, a: dict[str, np.ndarray]) -> "FunkSVDModel":
        return cls(float(a["mu"]), a["bu"], a["bi"], a["P"], a["Q"])


def fit_funk_svd(users: np.ndarray, items: np.ndarray, ratings: np.ndarray, n_users: int,
                 n_items: int, *, factors: int, reg: float, rating_scale: tuple[float, float],
                 n_epochs: int = 20, lr: float = 0.005, biased: bool = True,
                 rng=None) -> FunkSVDModel:
    """Fit surprise's ``SVD`` on (user, item, rating) triples with 0-based indices and
    return its parameters indexed by those indices."""
    from surprise import SVD, Dataset, Reader

    factors = check_positive_int("factors", factors)
    n_epochs = check_positive_int("n_epochs", n_epochs)
    reg = check_in_interval("reg", reg, 0.0, np.inf, low_open=False, high_open=True)
    users = np.asarray(users, dtype=np.int64)
    items = np.asarray(items, dtype=np.int64)
    ratings = np.asarray(ratings, dtype=float)
    if not (users.shape == items.shape == ratings.shape) or users.ndim != 1 or users.size == 0:
        raise ParameterError(f"users, items, ratings must be non-empty 1-d arrays of one length, "
                         f"got shapes {users.shape}, {items.shape}, {ratings.shape}")
    if users.min() < 0 or users.max() >= n_users or items.min() < 0 or items.max() >= n_items:
        raise ParameterError(f"user indices must be in [0, {n_users}) and item indices in [0, {n_items})")
    seed = int(as_generator(rng).integers(2**31 - 1))
    df = pd.DataFrame({"u": users, "i": items, "r": ratings})
    trainset = Dataset.load_from_df(df, Reader(rating_scale=rating_scale)).build_full_trainset()
    algo = SVD(n_factors=factors, n_epochs=n_epochs, biased=biased, lr_all=lr, reg_all=reg,
               random_state=seed)
    algo.fit(trainset)
    u_inner = pd.Series(trainset._raw2inner_id_users).reindex(range(n_users)).to_numpy()
    i_inner = pd.Series(trainset._raw2inner_id_items).reindex(range(n_items)).to_numpy()

    def gather(params: np.ndarray, inner: np.ndarray) -> np.ndarray:
        known = ~np.isnan(inner)
        out = np.zeros((len(inner),) + params.shape[1:])
        out[known] = params[inner[known].astype(np.int64)]
        return out

    bu = gather(np.asarray(algo.bu), u_inner) if biased else np.zeros(n_users)
    bi = gather(np.asarray(algo.bi), i_inner) if biased else np.zeros(n_items)
    mu = float(trainset.global_mean) if biased else 0.0
    return FunkSVDModel(mu, bu, bi, gather(np.asarray(algo.pu), u_inner),
                        gather(np.asarray(algo.qi), i_inner))


def observe_entries(n_users: int, n_items: int, fraction: float, rng=None) -> np.ndarray:
    """Items observed for each user: ``round(fraction * n_items)`` (at least 1) distinct
    items per user, uniformly at random, in random order. Shape ``(n_users, k)``."""
    fraction = check_in_interval("train_fraction", fraction, 0.0, 1.0)
    rng = as_generator(rng)
    k = max(1, int(round(fraction * n_items)))
    keys = rng.random((n_users, n_items))
    return np.argsort(keys, axis=1)[:, :k]


def bernoulli_ratings(rho: np.ndarray, users: np.ndarray, items: np.ndarray, rng=None) -> np.ndarray:
    """Binary ratings ``y ~ Bernoulli(rho[u, i])`` at the given entries (Sec. 6.1)."""
    rng = as_generator(rng)
    return (rng.random(users.shape) < rho[users, items]).astype(float)


def rmse(pred: np.ndarray, target: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(pred) - np.asarray(target)) ** 2)))


@dataclass(frozen=True)
class RecommenderFit:
    """The simulated recommender: fitted model, chosen regularization, validation RMSEs."""

    model: FunkSVDModel
    reg: float
    validation_rmse: dict[float, float]


def simulate_recommender(rho: np.ndarray, factors: int, train_fraction: float = 0.2, rng=None, *,
                         regs: tuple[float, ...] = REGULARIZATIONS, validation_fraction: float = 0.2,
                         n_epochs: int = 20, lr: float = 0.005, biased: bool = False) -> RecommenderFit:
    """Simulate the recommender of Sec. 6.1 / App. D.2 on ground truth ``rho``.

    Observe ``train_fraction`` of the entries of each user uniformly at random, draw
    Bernoulli(ρ) binary ratings there, and fit Funk SVD with ``factors`` latent factors,
    the regularization being chosen in ``regs`` by RMSE on a held-out
    ``validation_fraction`` of each user's observed entries, then refitted on all of them.
    """
    rho = check_unit_array("rho", rho, ndim=2)
    factors = check_positive_int("factors", factors)
    n_u, n_i = rho.shape
    # the factor matrices, and Funk SVD's work: epochs x observed ratings x factors per fit
    check_resources("factors", memory=8.0 * 2 * factors * (n_u + n_i),
                    work=float(n_epochs) * (len(regs) + 1) * train_fraction * n_u * n_i * factors, what="operations")
    validation_fraction = check_in_interval("validation_fraction", validation_fraction, 0.0, 1.0,
                                            high_open=True)
    if len(regs) == 0:
        raise ParameterError("regs must hold at least one regularization value")
    rng = as_generator(rng)
    n_users, n_items = rho.shape
    seen = observe_entries(n_users, n_items, train_fraction, rng)
    k = seen.shape[1]
    users = np.repeat(np.arange(n_users), k).reshape(n_users, k)
    y = bernoulli_ratings(rho, users, seen, rng)
    common = dict(factors=factors, rating_scale=(0.0, 1.0), n_epochs=n_epochs, lr=lr, biased=biased)
    n_val = int(np.floor(validation_fraction * k))
    scores: dict[float, float] = {}
    if len(regs) > 1 and 0 < n_val < k:
        tr, va = np.s_[:, : k - n_val], np.s_[:, k - n_val:]
        for reg in regs:
            m = fit_funk_svd(users[tr].ravel(), seen[tr].ravel(), y[tr].ravel(), n_users, n_items,
                             reg=reg, rng=rng, **common)
            scores[float(reg)] = rmse(m.predict(users[va].ravel(), seen[va].ravel()), y[va].ravel())
        best = min(scores, key=scores.get)
    else:
        best = float(regs[0])
    model = fit_funk_svd(users.ravel(), seen.ravel(), y.ravel(), n_users, n_items, reg=best,
                         rng=rng, **common)
    return RecommenderFit(model=model, reg=best, validation_rmse=scores)
