"""Pairwise regularization (Beutel et al. 2019, Sec. 5, eq. 10-12) and a numpy matrix-factorisation trainer.

Over pairs P of (q, j, y, z), (q′, j′, y′, z′):

    A = (g(f(q, v_j)) − g(f(q′, v_j′))) · (y − y′)                                  (eq. 11)
    B = (s_j − s_j′) · (y − y′)                                                     (eq. 12)

and the objective (eq. 10) is Σ_D L(f(q, v), (y, z)) + |Corr_P(A, B)|; we weight the second term
by λ ≥ 0 and use the *mean* squared error, so λ is comparable across data sizes. P is
re-balanced so that about half its weight has a clicked item in group 0 and half in group 1
(Sec. 5): pair weights ½ / n_s by the clicked item's group s (the item with the larger y).
``kind="inter"`` restricts P to s_j ≠ s_j′ (inter-group pairwise fairness, Sec. 6.3).
Corr is the weighted Pearson correlation; when A or B has zero variance it is 0 with gradient 0.

Gradient (weights w summing to 1, Ā = Σ w A, v_A = Σ w (A − Ā)², ρ = Corr):

    ∂ρ/∂A_i = w_i (B_i − B̄) / sqrt(v_A v_B) − ρ w_i (A_i − Ā) / v_A,
    ∂|ρ|/∂A_i = sign(ρ) ∂ρ/∂A_i,  ∂A_i/∂g_j = (y − y′) = −∂A_i/∂g_j′.

Tests compare both gradients (the regularizer's and the whole MF objective's) with finite
differences.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.results import Result, presents
from ocef.validation import as_generator, check_in_interval, check_positive_int
from ocef.errors import DataError, ParameterError

__all__ = ["RegularizerValue", "pairwise_regularizer", "MFModel", "fit_mf_pairwise", "mf_loss_and_gradient",
           "pairs_to_indices"]

REG_KINDS = ("inter", "all")


@dataclass(frozen=True)
class RegularizerValue(Result):
    """The pairwise regularizer |Corr_P(A, B)| of eq. (10)-(12) with its gradient, from :func:`pairwise_regularizer`.

    Attributes
    ----------
    value : float
        |Corr(A, B)|, added (times λ) to the training loss of eq. (10).
    corr : float
        Signed: negative when the model ranks the clicked item relatively better for group 0's
        clicks than for group 1's.
    grad_score_j, grad_score_jp : numpy.ndarray
        ∂|Corr|/∂g of each pair's two scores (0 outside the set).
    weights : numpy.ndarray
        The pair weights (summing to 1; 0 outside the set).

    Examples
    --------
    >>> round(pairwise_regularizer([0.9, 0.2, 0.8, 0.3], [0.1, 0.6, 0.5, 0.7], [0, 0, 1, 1], [1, 1, 0, 0]).corr, 4)
    -0.2466
    """

    value: float
    corr: float
    grad_score_j: np.ndarray = dataclasses.field(repr=False)
    grad_score_jp: np.ndarray = dataclasses.field(repr=False)
    weights: np.ndarray = dataclasses.field(repr=False)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """One row per pair: its ``weight`` and the gradients ``grad_score_j``, ``grad_score_jp``."""
        return pd.DataFrame({"weight": self.weights, "grad_score_j": self.grad_score_j,
                             "grad_score_jp": self.grad_score_jp})

    @presents
    def to_dict(self) -> dict:
        """The regularizer's value, its signed correlation and the number of regularized pairs.

        ``value`` (|Corr(A, B)|), ``corr`` (Corr(A, B)), ``n_pairs`` (pairs with a positive weight).
        """
        return {"value": float(self.value), "corr": float(self.corr), "n_pairs": int((self.weights > 0).sum())}


def _binary(name: str, values, n: int) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(values), (n,))
    if not np.isin(arr, (0, 1)).all():
        raise DataError(f"{name} must hold 0/1 group indicators (1 = subgroup), got values "
                         f"{np.unique(arr)[:5].tolist()}")
    return arr.astype(float)


def pairwise_regularizer(score_j, score_jp, s_j, s_jp, *, y_j=1.0, y_jp=0.0, kind: str = "inter",
                         rebalance: bool = True) -> RegularizerValue:
    """The pairwise regularizer |Corr_P(A, B)| of eq. (10)-(12) and its exact gradient (A, B, the
    re-balancing and the gradient: module docstring).

    Parameters
    ----------
    score_j, score_jp : array_like of float, shape (n,)
        g(f(q, v)) of each pair's two items.
    s_j, s_jp : array_like of 0/1
        Groups (1 = subgroup).
    y_j, y_jp : float or array_like
        Labels (default: j clicked, j′ not); pairs with y_j = y_jp are excluded.
    kind : {"inter", "all"}
        The inter-group pairs only, or all pairs.
    rebalance : bool
        Weights ½/n_s by the clicked item's group s (Sec. 5); False: uniform.

    Returns
    -------
    RegularizerValue

    Raises
    ------
    ocef.errors.DataError
        For non-finite scores, or groups other than 0/1.

    Examples
    --------
    >>> r = pairwise_regularizer([0.9, 0.2, 0.8, 0.3], [0.1, 0.6, 0.5, 0.7], [0, 0, 1, 1], [1, 1, 0, 0])
    >>> round(r.value, 4), r.grad_score_j.round(4).tolist()
    (0.2466, [0.3192, 0.6073, -0.5473, -0.3792])
    """
    if kind not in REG_KINDS:
        raise ParameterError(f"kind must be one of {REG_KINDS}, got {kind!r}")
    a = np.asarray(score_j, dtype=float)
    b = np.asarray(score_jp, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ParameterError(f"score_j and score_jp must be 1-d arrays of one length, got {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise DataError("score_j and score_jp must be finite")
    n = a.size
    sj, sjp = _binary("s_j", s_j, n), _binary("s_jp", s_jp, n)
    yj = np.broadcast_to(np.asarray(y_j, dtype=float), (n,))
    yjp = np.broadcast_to(np.asarray(y_jp, dtype=float), (n,))
    dy = yj - yjp
    keep = dy != 0
    if kind == "inter":
        keep &= sj != sjp
    clicked = np.where(dy > 0, sj, sjp)                                  # group of the clicked item
    w = np.zeros(n)
    if rebalance:
        for s in (0.0, 1.0):
            m = keep & (clicked == s)
            if m.any():
                w[m] = 1.0 / m.sum()
        w /= w.sum() if w.sum() > 0 else 1.0
    elif keep.any():
        w[keep] = 1.0 / keep.sum()
    zeros = np.zeros(n)
    if not keep.any():
        return RegularizerValue(0.0, 0.0, zeros, zeros.copy(), w)
    A = (a - b) * dy                                                      # eq. (11)
    B = (sj - sjp) * dy                                                   # eq. (12)
    ca = A - w @ A
    cb = B - w @ B
    va, vb = w @ ca ** 2, w @ cb ** 2
    if va <= 1e-300 or vb <= 1e-300:
        return RegularizerValue(0.0, 0.0, zeros, zeros.copy(), w)
    cov = w @ (ca * cb)
    rho = cov / np.sqrt(va * vb)
    d_rho = w * cb / np.sqrt(va * vb) - rho * w * ca / va
    d_abs = np.sign(rho) * d_rho
    return RegularizerValue(float(abs(rho)), float(rho), d_abs * dy, -d_abs * dy, w)


# --------------------------------------------------------------------------- matrix factorisation


@dataclass(frozen=True)
class MFModel(Result):
    """A matrix factorisation r̂_ui = μ + b_u + c_i + ⟨p_u, q_i⟩ trained by :func:`fit_mf_pairwise`.

    Attributes
    ----------
    mu : float
        Global offset μ.
    user_bias, item_bias : numpy.ndarray
        b_u and c_i.
    user_factors, item_factors : numpy.ndarray
        p_u and q_i, (n, rank).
    lam : float
        λ of the pairwise regularizer it was trained with (0: plain MF).
    history : pandas.DataFrame
        One row per epoch: ``epoch, mse, corr, objective``.

    Examples
    --------
    >>> ratings = pd.DataFrame({"user": [0, 1, 2], "item": [0, 1, 2], "rating": [5.0, 4.0, 1.0]})
    >>> fit_mf_pairwise(ratings, rank=2, epochs=10, rng=0).scores().shape
    (3, 3)
    """

    mu: float
    user_bias: np.ndarray = dataclasses.field(repr=False)
    item_bias: np.ndarray = dataclasses.field(repr=False)
    user_factors: np.ndarray = dataclasses.field(repr=False)
    item_factors: np.ndarray = dataclasses.field(repr=False)
    lam: float = 0.0
    history: pd.DataFrame = dataclasses.field(repr=False, default=None)

    def scores(self) -> np.ndarray:
        """Predicted scores r̂_ui = μ + b_u + c_i + ⟨p_u, q_i⟩ of every user and item.

        Returns
        -------
        numpy.ndarray, shape (n_users, n_items)

        Examples
        --------
        >>> ratings = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "item": [0, 1, 1, 2, 0, 2],
        ...                         "rating": [5.0, 3.0, 4.0, 2.0, 1.0, 4.0]})
        >>> model = fit_mf_pairwise(ratings, rank=2, epochs=200, rng=0)
        >>> model.scores().round(1).tolist()
        [[5.0, 3.0, 4.1], [2.9, 4.0, 2.0], [1.0, 2.6, 4.0]]
        """
        return self.mu + self.user_bias[:, None] + self.item_bias[None, :] + self.user_factors @ self.item_factors.T

    def predict(self, users, items) -> np.ndarray:
        """Predicted scores r̂_ui of the pairs ``zip(users, items)``.

        Parameters
        ----------
        users, items : array_like of int
            User and item indices, of one length.

        Returns
        -------
        numpy.ndarray of float

        Examples
        --------
        >>> ratings = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "item": [0, 1, 1, 2, 0, 2],
        ...                         "rating": [5.0, 3.0, 4.0, 2.0, 1.0, 4.0]})
        >>> fit_mf_pairwise(ratings, rank=2, epochs=200, rng=0).predict([0, 2], [0, 2]).round(1).tolist()
        [5.0, 4.0]
        """
        u = np.asarray(users, dtype=np.int64)
        i = np.asarray(items, dtype=np.int64)
        return (self.mu + self.user_bias[u] + self.item_bias[i]
                + np.einsum("nk,nk->n", self.user_factors[u], self.item_factors[i]))

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The training history: one row per epoch with ``epoch, mse, corr, objective``."""
        return self.history.copy()

    @presents
    def to_dict(self) -> dict:
        """The model's sizes, μ, λ and history (not the factors), as JSON-ready values.

        ``mu``, ``lam``, ``rank``, ``n_users``, ``n_items``, ``history`` (a list of records).
        """
        from ocef.results import jsonable

        return jsonable({"mu": self.mu, "lam": self.lam, "rank": self.user_factors.shape[1],
                         "n_users": self.user_factors.shape[0], "n_items": self.item_factors.shape[0],
                         "history": self.history})


def pairs_to_indices(pairs: pd.DataFrame, *, user: str = "query", subgroup=1) -> dict:
    """The arrays of a pairs table that the trainer uses: user, item indices and 0/1 groups.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns ``j``, ``jp`` (item indices), ``s_j``, ``s_jp`` and ``user``.
    user : str
        The column holding each pair's user index.
    subgroup
        The group value coded 1 (every other is 0).

    Returns
    -------
    dict of numpy.ndarray
        ``u``, ``j``, ``jp`` (int64) and ``s_j``, ``s_jp`` (float 0/1).

    Raises
    ------
    ocef.errors.DataError
        If a column is missing.

    Examples
    --------
    >>> pairs = pd.DataFrame({"query": [0, 1], "j": [0, 1], "jp": [2, 0], "s_j": [0, 1], "s_jp": [1, 0]})
    >>> pairs_to_indices(pairs)["s_j"].tolist()
    [0.0, 1.0]
    """
    missing = [c for c in (user, "j", "jp", "s_j", "s_jp") if c not in pairs.columns]
    if missing:
        raise DataError(f"pairs is missing column(s) {missing}; it has {list(pairs.columns)}")
    return {"u": pairs[user].to_numpy(np.int64), "j": pairs["j"].to_numpy(np.int64),
            "jp": pairs["jp"].to_numpy(np.int64),
            "s_j": (pairs["s_j"].to_numpy() == subgroup).astype(float),
            "s_jp": (pairs["s_jp"].to_numpy() == subgroup).astype(float)}


def _unpack(theta: np.ndarray, n_users: int, n_items: int, rank: int):
    o = 0
    mu = theta[o]; o += 1
    bu = theta[o:o + n_users]; o += n_users
    bi = theta[o:o + n_items]; o += n_items
    P = theta[o:o + n_users * rank].reshape(n_users, rank); o += n_users * rank
    Q = theta[o:o + n_items * rank].reshape(n_items, rank)
    return mu, bu, bi, P, Q


def _scatter(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Row sums of ``values`` (n, k) by ``index`` into (size, k): one bincount per factor."""
    return np.stack([np.bincount(index, weights=values[:, c], minlength=size) for c in range(values.shape[1])],
                    axis=1) if values.shape[1] else np.zeros((size, 0))


def mf_loss_and_gradient(theta: np.ndarray, ratings: dict, pairs: dict | None, *, n_users: int, n_items: int,
                         rank: int, lam: float, l2: float, kind: str = "inter", rebalance: bool = True):
    """The training objective of eq. (10) for a matrix factorisation, and its exact gradient.

    Objective = MSE(D) + l2·(‖b‖² + ‖c‖² + ‖P‖² + ‖Q‖²) + λ·|Corr_P(A, B)| with
    r̂_ui = μ + b_u + c_i + ⟨p_u, q_i⟩ (the mean, not the sum of eq. 10).

    Parameters
    ----------
    theta : numpy.ndarray
        Flat (μ, b, c, P, Q).
    ratings : dict of numpy.ndarray
        ``u``, ``i`` and ``r``.
    pairs : dict of numpy.ndarray or None
        :func:`pairs_to_indices`; None: no regularizer.
    n_users, n_items, rank : int
        The sizes that shape ``theta``.
    lam : float
        λ, the regularizer's weight.
    l2 : float
        Ridge penalty on biases and factors.
    kind, rebalance
        As in :func:`pairwise_regularizer`.

    Returns
    -------
    objective : float
    gradient : numpy.ndarray
    mse : float
    corr : float
        Signed Corr(A, B) (0 without pairs or with ``lam`` 0).

    Examples
    --------
    >>> data = {"u": np.array([0, 1, 2]), "i": np.array([0, 1, 2]), "r": np.array([5.0, 4.0, 1.0])}
    >>> theta = np.random.default_rng(0).normal(0, 0.1, 1 + 3 + 3 + (3 + 3) * 2)
    >>> round(mf_loss_and_gradient(theta, data, None, n_users=3, n_items=3, rank=2, lam=0.0, l2=0.0)[2], 4)
    13.7409
    """
    mu, bu, bi, P, Q = _unpack(theta, n_users, n_items, rank)
    u, i, r = ratings["u"], ratings["i"], ratings["r"]
    pred = mu + bu[u] + bi[i] + np.einsum("nk,nk->n", P[u], Q[i])
    err = pred - r
    n = max(r.size, 1)
    mse = float(err @ err / n)
    d = 2.0 * err / n                                                     # ∂MSE/∂pred
    g_mu = d.sum()
    g_bu = np.bincount(u, weights=d, minlength=n_users)
    g_bi = np.bincount(i, weights=d, minlength=n_items)
    g_P = _scatter(u, d[:, None] * Q[i], n_users)
    g_Q = _scatter(i, d[:, None] * P[u], n_items)
    obj = mse + l2 * (bu @ bu + bi @ bi + (P * P).sum() + (Q * Q).sum())
    g_bu += 2 * l2 * bu
    g_bi += 2 * l2 * bi
    g_P += 2 * l2 * P
    g_Q += 2 * l2 * Q
    corr = 0.0
    if pairs is not None and lam > 0 and pairs["u"].size:
        pu, pj, pjp = pairs["u"], pairs["j"], pairs["jp"]
        sc_j = mu + bu[pu] + bi[pj] + np.einsum("nk,nk->n", P[pu], Q[pj])
        sc_jp = mu + bu[pu] + bi[pjp] + np.einsum("nk,nk->n", P[pu], Q[pjp])
        reg = pairwise_regularizer(sc_j, sc_jp, pairs["s_j"], pairs["s_jp"], kind=kind, rebalance=rebalance)
        corr = reg.corr
        obj += lam * reg.value
        gj, gjp = lam * reg.grad_score_j, lam * reg.grad_score_jp
        # μ and b_u cancel in score_j − score_jp: their gradients are gj + gjp = 0 per pair
        g_mu += (gj + gjp).sum()
        g_bu += np.bincount(pu, weights=gj + gjp, minlength=n_users)
        g_bi += np.bincount(pj, weights=gj, minlength=n_items) + np.bincount(pjp, weights=gjp, minlength=n_items)
        g_P += _scatter(pu, gj[:, None] * Q[pj] + gjp[:, None] * Q[pjp], n_users)
        g_Q += _scatter(pj, gj[:, None] * P[pu], n_items) + _scatter(pjp, gjp[:, None] * P[pu], n_items)
    grad = np.concatenate([[g_mu], g_bu, g_bi, g_P.ravel(), g_Q.ravel()])
    return float(obj), grad, mse, float(corr)


def fit_mf_pairwise(ratings: pd.DataFrame, pairs: pd.DataFrame | None = None, *, lam: float = 0.0,
                    n_users: int | None = None, n_items: int | None = None, rank: int = 8, l2: float = 1e-3,
                    epochs: int = 300, lr: float = 0.05, kind: str = "inter", rebalance: bool = True,
                    pair_user: str = "query", subgroup=1, init: MFModel | None = None, rng=None) -> MFModel:
    """Train a matrix factorisation with the pairwise regularizer of eq. (10) by full-batch Adam.

    Minimises :func:`mf_loss_and_gradient`; ``lam=0`` is the plain "production" MF, ``lam > 0`` the
    regularized "test" model (Sec. 6.1).

    Parameters
    ----------
    ratings : pandas.DataFrame
        Columns ``user, item, rating`` (integer indices).
    pairs : pandas.DataFrame, optional
        Needed when ``lam > 0`` (:func:`pairs_to_indices`).
    lam : float
        λ, the regularizer's weight.
    n_users, n_items : int, optional
        Default: from the largest indices (with ``init``: its sizes, which these must match).
    rank : int
        Number of factors.
    l2 : float
        Ridge penalty.
    epochs : int
        Full-batch Adam steps.
    lr : float
        Adam's step size.
    kind, rebalance
        As in :func:`pairwise_regularizer`.
    pair_user, subgroup
        As ``user`` and ``subgroup`` of :func:`pairs_to_indices`.
    init : MFModel, optional
        Start from this model (its rank and sizes are kept).
    rng : None, int, SeedSequence or Generator
        Not used with ``init``.

    Returns
    -------
    MFModel

    Raises
    ------
    ocef.errors.DataError
        For missing columns, or indices beyond ``n_users``/``n_items``.

    Examples
    --------
    >>> ratings = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "item": [0, 1, 1, 2, 0, 2],
    ...                         "rating": [5.0, 3.0, 4.0, 2.0, 1.0, 4.0]})
    >>> pairs = pd.DataFrame({"query": [0, 1, 2], "j": [0, 1, 2], "jp": [2, 0, 1], "s_j": [0, 1, 1], "s_jp": [1, 0, 0]})
    >>> bool(abs(fit_mf_pairwise(ratings, pairs, lam=1.0, rank=2, epochs=200, rng=0).history["corr"].iloc[-1]) < 0.01)
    True
    """
    lam = check_in_interval("lam", lam, 0.0, np.inf, low_open=False, high_open=True)
    if kind not in REG_KINDS:
        raise ParameterError(f"kind must be one of {REG_KINDS}, got {kind!r}")
    rank = check_positive_int("rank", rank)
    epochs = check_positive_int("epochs", epochs)
    check_in_interval("lr", lr, 0.0, np.inf, low_open=True, high_open=True)
    check_in_interval("l2", l2, 0.0, np.inf, low_open=False, high_open=True)
    missing = [c for c in ("user", "item", "rating") if c not in ratings.columns]
    if missing:
        raise DataError(f"ratings is missing column(s) {missing}; it has {list(ratings.columns)}")
    data = {"u": ratings["user"].to_numpy(np.int64), "i": ratings["item"].to_numpy(np.int64),
            "r": ratings["rating"].to_numpy(float)}
    pdata = pairs_to_indices(pairs, user=pair_user, subgroup=subgroup) if pairs is not None else None
    if init is not None:                 # fine-tuning: the sizes are the model's
        sizes = (init.user_factors.shape[0], init.item_factors.shape[0])
        if any(given is not None and given != size for given, size in zip((n_users, n_items), sizes)):
            raise ParameterError(f"init has {sizes[0]} users and {sizes[1]} items, got n_users={n_users}, "
                             f"n_items={n_items}")
        n_users, n_items = sizes
    n_users = int(n_users if n_users is not None else data["u"].max() + 1)
    n_items = int(n_items if n_items is not None else data["i"].max() + 1)
    if data["u"].size and (data["u"].max() >= n_users or data["i"].max() >= n_items):
        raise DataError(f"ratings reference users or items beyond n_users={n_users} / n_items={n_items}")
    if pdata is not None and pdata["u"].size:
        if pdata["u"].max() >= n_users or max(pdata["j"].max(), pdata["jp"].max()) >= n_items:
            raise DataError("pairs reference users or items beyond n_users / n_items")
    gen = as_generator(rng)
    if init is not None:
        theta = np.concatenate([[init.mu], init.user_bias, init.item_bias, init.user_factors.ravel(),
                                init.item_factors.ravel()])
        rank = init.user_factors.shape[1]
    else:
        theta = np.concatenate([[data["r"].mean() if data["r"].size else 0.0], np.zeros(n_users + n_items),
                                0.1 * gen.standard_normal((n_users + n_items) * rank)])
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    b1, b2, eps = 0.9, 0.999, 1e-8
    hist = []
    for t in range(1, epochs + 1):        # full-batch steps: each is vectorized over all data
        obj, g, mse, corr = mf_loss_and_gradient(theta, data, pdata, n_users=n_users, n_items=n_items, rank=rank,
                                                 lam=lam, l2=l2, kind=kind, rebalance=rebalance)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        theta = theta - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        hist.append((t, mse, corr, obj))
    mu, bu, bi, P, Q = _unpack(theta, n_users, n_items, rank)
    history = pd.DataFrame(hist, columns=["epoch", "mse", "corr", "objective"])
    return MFModel(float(mu), bu.copy(), bi.copy(), P.copy(), Q.copy(), lam, history)
