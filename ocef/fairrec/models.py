"""Recommenders to test (Guo et al. 2023, Sec. 4.1), in numpy: logistic MF and a factorization machine.

Both are click-through-rate models trained on the split's positives and sampled negatives with the
binary cross-entropy loss by mini-batch Adam, and score candidate rows ``(user, item)``. FairRec
only needs black-box scores: any callable ``score(candidates) -> array`` can be tested.
Fitted parameters are cached on disk keyed by every parameter and the training data
(:mod:`ocef.environments.cache`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ocef.fairrec.training import check_training, fitted_params
from ocef.validation import as_generator
from ocef.errors import ParameterError

__all__ = ["LogisticMF", "FactorizationMachine", "MODELS", "DEEP_MODEL_NAMES", "make_model"]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class _Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float):
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            params[k] -= self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + 1e-8)


def _one_hot(index: np.ndarray, n: int):
    from scipy.sparse import csr_matrix

    return csr_matrix((np.ones(index.size), (np.arange(index.size), index)), shape=(index.size, n))


@dataclass
class _Base:
    n_factors: int = 16
    epochs: int = 10
    lr: float = 0.01
    reg: float = 1e-5
    batch_size: int = 1024
    params: dict = field(default_factory=dict, repr=False)

    kind = "base"

    def hyper(self) -> dict:
        return {"n_factors": self.n_factors, "epochs": self.epochs, "lr": self.lr, "reg": self.reg,
                "batch_size": self.batch_size}

    def fit(self, split, *, rng=0, cache: bool = True, progress=False):
        """Fit on ``split.train`` (a :class:`ocef.environments.fairrec_split.FairRecSplit`).

        Cached on disk when ``cache`` is on and ``rng`` is an int seed (the cache key includes it);
        ``rng`` None or a Generator trains afresh (:func:`fitted_params`).
        """
        check_training(self, "n_factors")
        self._setup(split)
        self.params = fitted_params(self.kind, split, self.hyper(), rng, cache, lambda: self._train(split.train, rng, progress))
        return self

    def _train(self, train: pd.DataFrame, rng, progress=False) -> dict[str, np.ndarray]:
        gen = as_generator(rng)
        params = self._init(gen)
        opt = _Adam(params, self.lr)
        u = train["user"].to_numpy(dtype=np.int64)
        i = train["item"].to_numpy(dtype=np.int64)
        y = train["label"].to_numpy(dtype=float)
        from ocef._progress import progress_iter

        for _ in progress_iter(range(self.epochs), progress, desc=f"training {self.kind}", unit="epoch"):
            perm = gen.permutation(y.size)
            for start in range(0, y.size, self.batch_size):
                b = perm[start:start + self.batch_size]
                logit, cache = self._forward(params, u[b], i[b])
                g = (_sigmoid(logit) - y[b]) / b.size          # d BCE / d logit, batch mean
                opt.step(params, self._backward(params, u[b], i[b], g, cache))
        return params

    def score(self, candidates: pd.DataFrame) -> np.ndarray:
        """Click probability of every ``(user, item)`` row of ``candidates``."""
        if not self.params:
            raise ParameterError(f"{type(self).__name__} is not fitted: call fit(split) first")
        logit, _ = self._forward(self.params, candidates["user"].to_numpy(dtype=np.int64),
                                 candidates["item"].to_numpy(dtype=np.int64))
        return _sigmoid(logit)

    __call__ = score


@dataclass
class LogisticMF(_Base):
    """Logistic matrix factorization: ``P(click) = σ(b + b_u + b_i + p_u · q_i)``, BCE + L2 ``reg``.

    Stands in for the paper's deep recommenders (Sec. 4.1): it trains in seconds on ML-100K (AUC
    0.838). ``score(candidates)`` (also the call) returns each ``(user, item)`` row's click probability.

    Parameters
    ----------
    n_factors : int
        Dimension of the latent factors (>= 1).
    epochs : int
        Passes over ``split.train``.
    lr : float
        Adam's step size.
    reg : float
        L2 penalty on the factors and weights, added to the mean binary cross-entropy.
    batch_size : int
        Rows per mini-batch (>= 1).
    params : dict, optional
        The fitted parameters, set by ``fit``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_fairrec_split
    >>> split = make_toy_fairrec_split()
    >>> LogisticMF(n_factors=4, epochs=20, lr=0.05).fit(split, rng=0, cache=False).score(split.candidates).shape
    (400,)
    """

    kind = "logmf"

    def _setup(self, split) -> None:
        self.n_users, self.n_items = split.n_users, split.n_items

    def _init(self, gen) -> dict[str, np.ndarray]:
        s = 0.1
        return {"b": np.zeros(1), "bu": np.zeros(self.n_users), "bi": np.zeros(self.n_items),
                "P": s * gen.standard_normal((self.n_users, self.n_factors)),
                "Q": s * gen.standard_normal((self.n_items, self.n_factors))}

    def _forward(self, p, u, i):
        pu, qi = p["P"][u], p["Q"][i]
        return p["b"][0] + p["bu"][u] + p["bi"][i] + np.einsum("nk,nk->n", pu, qi), (pu, qi)

    def _backward(self, p, u, i, g, cache):
        pu, qi = cache
        U, Ii = _one_hot(u, self.n_users).T.tocsr(), _one_hot(i, self.n_items).T.tocsr()
        return {"b": np.array([g.sum()]), "bu": U @ g, "bi": Ii @ g,
                "P": U @ (g[:, None] * qi) + self.reg * p["P"],
                "Q": Ii @ (g[:, None] * pu) + self.reg * p["Q"]}


@dataclass
class FactorizationMachine(_Base):
    """Second-order factorization machine (Rendle 2010) on the fields user, item, gender, age,
    occupation (one-hot) and the item's 19 genre flags:
    ``ŷ = w0 + Σ_j w_j x_j + ½ Σ_f [(Σ_j v_jf x_j)² − Σ_j v_jf² x_j²]``, ``P(click) = σ(ŷ)``, BCE + L2.

    It sees the sensitive attributes as the paper's deep models do (Sec. 4.1); fitted and queried
    as :class:`LogisticMF`.

    Parameters
    ----------
    n_factors, epochs, lr, reg, batch_size, params
        As in :class:`LogisticMF`.

    Examples
    --------
    >>> from ocef.datasets import make_toy_fairrec_split
    >>> from ocef.fairrec.unfairness import user_metrics
    >>> split = make_toy_fairrec_split()
    >>> model = FactorizationMachine(n_factors=4, epochs=20, lr=0.05).fit(split, rng=0, cache=False)
    >>> round(float(user_metrics(split.candidates, model(split.candidates), k=3)["auc"].mean()), 3)
    0.853
    """

    kind = "fm"

    def _setup(self, split) -> None:
        users = split.users.to_numpy(dtype=np.int64)
        self.n_users, self.n_items = split.n_users, split.n_items
        offsets, cols = [self.n_users + self.n_items], []
        for j in range(users.shape[1]):
            codes = users[:, j] - users[:, j].min()
            cols.append(codes + offsets[-1])
            offsets.append(offsets[-1] + int(codes.max()) + 1)
        self.user_fields = np.stack(cols, axis=1)           # (n_users, n_attr) feature indices
        self.genre_offset = offsets[-1]
        self.genres = np.asarray(split.genres, dtype=float)
        self.n_features = self.genre_offset + self.genres.shape[1]

    def _design(self, u, i):
        from scipy.sparse import csr_matrix, hstack

        n = u.size
        idx = np.concatenate([u[:, None], (i + self.n_users)[:, None], self.user_fields[u]], axis=1)
        one = csr_matrix((np.ones(idx.size), (np.repeat(np.arange(n), idx.shape[1]), idx.ravel())),
                         shape=(n, self.genre_offset))
        return hstack([one, csr_matrix(self.genres[i])], format="csr")

    def _init(self, gen) -> dict[str, np.ndarray]:
        return {"w0": np.zeros(1), "w": np.zeros(self.n_features),
                "V": 0.1 * gen.standard_normal((self.n_features, self.n_factors))}

    def _forward(self, p, u, i):
        X = self._design(u, i)
        X2 = X.multiply(X).tocsr()
        XV = X @ p["V"]
        inter = 0.5 * ((XV ** 2).sum(axis=1) - X2 @ (p["V"] ** 2).sum(axis=1))
        return p["w0"][0] + X @ p["w"] + inter, (X, X2, XV)

    def _backward(self, p, u, i, g, cache):
        X, X2, XV = cache
        XT = X.T.tocsr()
        gV = XT @ (g[:, None] * XV) - (X2.T @ g)[:, None] * p["V"]
        return {"w0": np.array([g.sum()]), "w": XT @ g + self.reg * p["w"], "V": gV + self.reg * p["V"]}


#: numpy models by CLI name; the deep ones (:mod:`ocef.fairrec.deep`, extra ``deep``) are in
#: :data:`DEEP_MODEL_NAMES`.
MODELS = {"logmf": LogisticMF, "fm": FactorizationMachine}
DEEP_MODEL_NAMES: tuple[str, ...] = ("wdl", "deepfm", "dcn")


def make_model(name: str, **hyper):
    """A model by name: ``logmf``, ``fm`` (numpy) or ``wdl``, ``deepfm``, ``dcn`` (torch, extra ``deep``).

    Parameters
    ----------
    name : {"logmf", "fm", "wdl", "deepfm", "dcn"}
        :class:`LogisticMF`, :class:`FactorizationMachine`, :class:`~ocef.fairrec.deep.WideDeep`,
        :class:`~ocef.fairrec.deep.DeepFM`, :class:`~ocef.fairrec.deep.DCN`.
    **hyper
        Hyper-parameters of the model's class.

    Returns
    -------
    LogisticMF, FactorizationMachine or ocef.fairrec.deep.DeepCTR
        Unfitted.

    Raises
    ------
    TypeError
        A hyper-parameter the class does not have.

    Examples
    --------
    >>> make_model("logmf", n_factors=8)
    LogisticMF(n_factors=8, epochs=10, lr=0.01, reg=1e-05, batch_size=1024)
    """
    if name in DEEP_MODEL_NAMES:
        from ocef.fairrec.deep import DEEP_MODELS, _require_torch

        _require_torch()
        return DEEP_MODELS[name](**hyper)
    if name not in MODELS:
        raise ParameterError(f"model must be one of {sorted(MODELS) + list(DEEP_MODEL_NAMES)}, got {name!r}")
    return MODELS[name](**hyper)
