"""The simulated recommender of Do et al. 2022 (Sec. 6.1, App. B.1, App. D.2), built on
scikit-surprise's ``SVD`` (Funk SVD).

Sec. 6.1 / D.2: "We sample 20% of the entries uniformly at random for each user to be
observed, and the observed value is drawn from a Bernoulli distribution with mean given
by the ground truth value. Matrix factorization is run with [d] latent factors ...
Hyperparameter search is conducted for the regularization parameter chosen in
[0.01, 0.1, 1, 10]."

Funk SVD without biases (rank 1 is the popularity recommender of Sec. 6.1), surprise's
default training budget, an 80/20 split of the observed entries to choose the regularization in
[0.01, 0.1, 1, 10], raw scores. Each choice, and what it changes on ML-100K (measured), is in
docs/guide/envy.md ("The simulated recommender: choices"); all are parameters of
:func:`simulate_recommender`.
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
    """The parameters of a fitted Funk SVD, indexed by 0-based user and item indices.

    The estimate is ``mu + bu[u] + bi[i] + P[u] · Q[i]`` (surprise's ``SVD.estimate``); users and
    items absent from the training data have zero parameters.

    Attributes
    ----------
    mu : float
        Global mean of the training ratings (0 when unbiased).
    bu, bi : numpy.ndarray
        User and item biases.
    P, Q : numpy.ndarray
        User and item factors, (n_users, factors) and (n_items, factors).

    Examples
    --------
    >>> FunkSVDModel(3.0, np.zeros(2), np.zeros(2), np.eye(2), np.eye(2)).predict(np.array([0]), np.array([0]))
    array([4.])
    """

    mu: float
    bu: np.ndarray
    bi: np.ndarray
    P: np.ndarray
    Q: np.ndarray

    def scores(self) -> np.ndarray:
        """The full matrix of estimates, ``mu + bu[:, None] + bi[None, :] + P @ Q.T``.

        Returns
        -------
        numpy.ndarray
            Shape (n_users, n_items).

        Examples
        --------
        >>> FunkSVDModel(1.0, np.zeros(2), np.zeros(2), np.eye(2), np.array([[2.0, 0.0], [0.0, 3.0]])).scores()
        array([[3., 1.],
               [1., 4.]])
        """
        return self.mu + self.bu[:, None] + self.bi[None, :] + self.P @ self.Q.T

    def predict(self, users: np.ndarray, items: np.ndarray) -> np.ndarray:
        """Estimates at given (user, item) pairs, without building the full matrix.

        Parameters
        ----------
        users, items : numpy.ndarray of int
            Indices of the pairs, arrays of one length.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> model = FunkSVDModel(1.0, np.zeros(2), np.zeros(2), np.eye(2), np.array([[2.0, 0.0], [0.0, 3.0]]))
        >>> model.predict(np.array([1, 0]), np.array([1, 1]))
        array([4., 1.])
        """
        return (self.mu + self.bu[users] + self.bi[items]
                + np.einsum("nk,nk->n", self.P[users], self.Q[items]))

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The parameters as named arrays, for the disk cache (:meth:`from_arrays` inverts it).

        Returns
        -------
        dict of str to numpy.ndarray
            ``mu`` (0-d), ``bu``, ``bi``, ``P``, ``Q``.

        Examples
        --------
        >>> model = FunkSVDModel(1.0, np.zeros(2), np.zeros(3), np.ones((2, 1)), np.ones((3, 1)))
        >>> FunkSVDModel.from_arrays(model.to_arrays()).scores().shape
        (2, 3)
        """
        return {"mu": np.array(self.mu), "bu": self.bu, "bi": self.bi, "P": self.P, "Q": self.Q}

    @classmethod
    def from_arrays(cls, a: dict[str, np.ndarray]) -> "FunkSVDModel":
        return cls(float(a["mu"]), a["bu"], a["bi"], a["P"], a["Q"])


def fit_funk_svd(users: np.ndarray, items: np.ndarray, ratings: np.ndarray, n_users: int,
                 n_items: int, *, factors: int, reg: float, rating_scale: tuple[float, float],
                 n_epochs: int = 20, lr: float = 0.005, biased: bool = True,
                 rng=None) -> FunkSVDModel:
    """Fit scikit-surprise's ``SVD`` (Funk SVD) on (user, item, rating) triples.

    SGD on the squared error with L2 regularization ``reg`` on every parameter, initial factors
    N(0, 0.1²) (Do et al. 2022, Sec. 6.1, App. D.2; the paper's footnote: gbolmier/funk-svd).

    Parameters
    ----------
    users, items : array_like of int
        0-based indices, one per rating.
    ratings : array_like of float
        The ratings, on ``rating_scale``.
    n_users, n_items : int
        Sizes of the returned model.
    factors : int
        Number of latent factors (>= 1).
    reg : float
        L2 regularization.
    rating_scale : tuple of float
        ``(low, high)`` (surprise clips its own predictions to it; the parameters are not clipped).
    n_epochs : int
        SGD epochs (surprise's default).
    lr : float
        SGD learning rate.
    biased : bool
        Fit the global mean and user/item biases too.
    rng : None, int, SeedSequence or Generator, optional
        Draws surprise's ``random_state``.

    Returns
    -------
    FunkSVDModel

    Examples
    --------
    >>> users, items, stars = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 2]), np.array([5.0, 1.0, 4.0, 2.0])
    >>> model = fit_funk_svd(users, items, stars, n_users=3, n_items=3, factors=2, reg=0.02, rating_scale=(1, 5), rng=0)
    >>> model.P[2].tolist()                       # user 2 has no rating
    [0.0, 0.0]
    """
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


def observe_entries(n_users: int, n_items: int, fraction: float, *, rng=None) -> np.ndarray:
    """The entries each user rates in the simulation of Do et al. 2022 (Sec. 6.1, App. D.2):
    ``round(fraction * n_items)`` (at least 1) distinct items per user, uniformly at random.

    Parameters
    ----------
    n_users, n_items : int
        Size of the ground truth.
    fraction : float
        In (0, 1] (the paper: 0.2).
    rng : None, int, SeedSequence or Generator, optional
        Draws the entries.

    Returns
    -------
    numpy.ndarray
        Item indices, shape (n_users, k).

    Examples
    --------
    >>> observe_entries(3, 5, 0.4, rng=0).shape
    (3, 2)
    """
    fraction = check_in_interval("train_fraction", fraction, 0.0, 1.0)
    rng = as_generator(rng)
    k = max(1, int(round(fraction * n_items)))
    keys = rng.random((n_users, n_items))
    return np.argsort(keys, axis=1)[:, :k]


def bernoulli_ratings(rho: np.ndarray, users: np.ndarray, items: np.ndarray, *, rng=None) -> np.ndarray:
    """Binary ratings drawn from the ground truth at given entries (Do et al. 2022, Sec. 6.1).

    Parameters
    ----------
    rho : numpy.ndarray
        Ground truth, users x items, in [0, 1].
    users, items : numpy.ndarray of int
        The entries.
    rng : None, int, SeedSequence or Generator, optional
        Draws the ratings.

    Returns
    -------
    numpy.ndarray
        0.0 or 1.0, of the shape of ``users``.

    Examples
    --------
    >>> bernoulli_ratings(np.array([[1.0, 0.0]]), np.array([0, 0]), np.array([0, 1]), rng=0)
    array([1., 0.])
    """
    rng = as_generator(rng)
    return (rng.random(users.shape) < rho[users, items]).astype(float)


def rmse(pred: np.ndarray, target: np.ndarray) -> float:
    """Root mean squared error, the validation score of the regularization (App. D.2); NaN if empty.

    Parameters
    ----------
    pred, target : array_like
        Predictions and observed values, of one shape (broadcastable).

    Returns
    -------
    float

    Examples
    --------
    >>> rmse([1.0, 2.0, 3.0], [1.0, 2.0, 5.0])       # sqrt(4 / 3)
    1.1547005383792515
    """
    return float(np.sqrt(np.mean((np.asarray(pred) - np.asarray(target)) ** 2)))


@dataclass(frozen=True)
class RecommenderFit:
    """The simulated recommender of Do et al. 2022 (Sec. 6.1, App. D.2), from :func:`simulate_recommender`.

    Attributes
    ----------
    model : FunkSVDModel
        Refitted with the chosen regularization on all observed entries.
    reg : float
        The regularization chosen on held-out ratings.
    validation_rmse : dict of float to float
        Held-out RMSE of each regularization tried (empty when no choice was made).

    Examples
    --------
    >>> fit = simulate_recommender(np.full((30, 20), 0.5), 1, 0.5, rng=0, regs=(0.01, 10.0))
    >>> sorted(fit.validation_rmse)
    [0.01, 10.0]
    """

    model: FunkSVDModel
    reg: float
    validation_rmse: dict[float, float]


def simulate_recommender(rho: np.ndarray, factors: int, train_fraction: float = 0.2, *, rng=None,
                         regs: tuple[float, ...] = REGULARIZATIONS, validation_fraction: float = 0.2,
                         n_epochs: int = 20, lr: float = 0.005, biased: bool = False) -> RecommenderFit:
    """Simulate the recommender of Do et al. 2022 (Sec. 6.1, App. D.2) on ground truth ``rho``.

    :func:`observe_entries`, :func:`bernoulli_ratings`, then :func:`fit_funk_svd` with the
    regularization chosen in ``regs`` on held-out ratings and refitted on all of them.

    Parameters
    ----------
    rho : array_like
        Ground truth ρ, users x items, in [0, 1].
    factors : int
        Latent factors d.
    train_fraction : float
        Share of each user's entries observed.
    rng : None, int, SeedSequence or Generator, optional
        Draws the observed entries, the ratings, the validation split and the SGD.
    regs : tuple of float
        Candidate regularizations (App. D.2's grid); with one, no validation is run.
    validation_fraction : float
        Share of each user's observed entries held out to choose the regularization.
    n_epochs : int
        SGD epochs of each fit.
    lr : float
        SGD learning rate.
    biased : bool
        Fit user/item biases too (default: Funk's original ``r̂_ui = q_iᵀ p_u``).

    Returns
    -------
    RecommenderFit

    Raises
    ------
    ResourceLimitError
        If the fit would exceed the memory or work limits (:func:`ocef.validation.resource_limits`).

    Examples
    --------
    >>> rho = np.outer(np.linspace(0.1, 1, 30), np.linspace(0.1, 1, 20))      # rank 1
    >>> simulate_recommender(rho, 1, train_fraction=0.5, rng=0).model.scores().shape
    (30, 20)
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
    seen = observe_entries(n_users, n_items, train_fraction, rng=rng)
    k = seen.shape[1]
    users = np.repeat(np.arange(n_users), k).reshape(n_users, k)
    y = bernoulli_ratings(rho, users, seen, rng=rng)
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
