"""The measurement-bias environment of Do et al. 2022, App. B.2 ("group envy from measurement bias").

Users of group g_1 have a listening history observed at rate τ_1, those of g_2 at rate τ_2; ratings
are Bernoulli(σ(α <v^m, e_a> - t)) and the recommender is a ridge regression of ratings on the
normalized history with the softmax policy ``π^m = softmax(β r̂^m)``. The formal model, the
degeneracy of the literal parameters (ρ = 1 everywhere) and the ``reading="logit"`` and
``"sphere"`` alternatives, with their measured findings, are in docs/guide/envy.md ("The
measurement-bias environment").
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, softmax
from threadpoolctl import threadpool_limits

from ocef.environments.synthetic import unit_vectors
from ocef.validation import as_generator, check_in_interval, check_positive_int
from ocef.errors import ParameterError

TAU2_GRID: tuple[float, ...] = (0.1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 50)
BETA_GRID: tuple[float, ...] = (0.01, 0.025, 0.05, 0.1, 1)
SPLIT: tuple[float, float, float] = (0.2, 0.2, 0.6)
RIDGE_GRID: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0)  # App. D.2's regularization grid
READINGS: tuple[str, ...] = ("literal", "logit", "sphere")


def split_items(n_users: int, n_items: int, fractions=SPLIT, *, rng=None) -> np.ndarray:
    """Split each user's items at random into train, valid and test (Do et al. 2022, App. B.2).

    Every user gets exactly ``round(fractions[0] * n_items)`` train and ``round(fractions[1] *
    n_items)`` valid items, the rest test items.

    Parameters
    ----------
    n_users, n_items : int
        Shape of the split.
    fractions : sequence of 3 float
        Shares of train, valid and test items, summing to 1.
    rng : None, int, SeedSequence or Generator, optional
        Draws the split.

    Returns
    -------
    numpy.ndarray
        Shape (n_users, n_items): 0 = train, 1 = valid, 2 = test.

    Examples
    --------
    >>> split_items(2, 5, rng=0).tolist()           # 1 train, 1 valid, 3 test items per user
    [[2, 2, 1, 0, 2], [2, 1, 2, 0, 2]]
    """
    rng = as_generator(rng)
    f = np.asarray(fractions, dtype=float)
    if f.shape != (3,) or np.any(f < 0) or not np.isclose(f.sum(), 1.0):
        raise ParameterError(f"fractions must be three non-negative numbers summing to 1, got {fractions}")
    n_train, n_valid = (int(round(x * n_items)) for x in f[:2])
    part = np.full(n_items, 2)
    part[:n_train] = 0
    part[n_train:n_train + n_valid] = 1
    order = np.argsort(rng.random((n_users, n_items)), axis=1)
    return part[np.argsort(order, axis=1)]


def normalized_history(X: np.ndarray) -> np.ndarray:
    """The recommender's features of App. B.2: each user's history divided by its norm.

    ``X^m / ||X^m||_2`` row-wise; a user with no history gets the zero vector.

    Parameters
    ----------
    X : array_like
        Listening counts, users x documents (:meth:`MeasurementBiasEnvironment.history`).

    Returns
    -------
    numpy.ndarray
        Float array of the shape of ``X``, rows of norm 1 or 0.

    Examples
    --------
    >>> normalized_history(np.array([[3, 4, 0], [0, 0, 0]]))
    array([[0.6, 0.8, 0. ],
           [0. , 0. , 0. ]])
    """
    X = np.asarray(X, dtype=float)
    norm = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norm, out=np.zeros_like(X), where=norm > 0)


def ridge_item_embeddings(features: np.ndarray, ratings: np.ndarray, train: np.ndarray,
                          valid: np.ndarray, grid=RIDGE_GRID) -> tuple[np.ndarray, float]:
    """The item embeddings Ê of App. B.2's recommender, by ridge regression per item.

    ``Ê_a`` minimises ``Σ_m train[m, a] (features[m] · Ê_a - ratings[m, a])² + λ ||Ê_a||²``; the
    estimate is ``r̂^m(a) = features[m] · Ê_a``. One λ for all items is chosen in ``grid`` by the
    squared error over the ``valid`` entries.

    Parameters
    ----------
    features : array_like
        Users x D (:func:`normalized_history`).
    ratings : array_like
        Users x items.
    train, valid : array_like of bool
        Users x items: the entries fitted on and those λ is chosen on.
    grid : sequence of float
        Candidate ridge parameters, all > 0 (every system is then solvable).

    Returns
    -------
    E : numpy.ndarray
        Items x D.
    lam : float
        The chosen ridge parameter.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> features, E_true = normalized_history(rng.poisson(2.0, (40, 3))), rng.normal(size=(5, 3))
    >>> part = split_items(40, 5, rng=1)
    >>> E, lam = ridge_item_embeddings(features, features @ E_true.T, part == 0, part == 1)
    >>> lam, bool(np.abs(E - E_true).max() < 0.05)      # exactly linear ratings are recovered
    (0.01, True)
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _ridge_item_embeddings(features, ratings, train, valid, grid)


def _ridge_item_embeddings(features, ratings, train, valid, grid) -> tuple[np.ndarray, float]:
    F = np.asarray(features, dtype=float)
    T = np.asarray(train, dtype=bool)
    gram = np.stack([F[T[:, a]].T @ F[T[:, a]] for a in range(T.shape[1])])  # items x D x D
    rhs = (F.T @ (T * ratings)).T  # items x D
    eye = np.eye(F.shape[1])
    best, best_err, best_E = None, np.inf, None
    for lam in grid:
        E = np.linalg.solve(gram + lam * eye, rhs[:, :, None])[:, :, 0]
        err = float(np.sum(valid * (F @ E.T - ratings) ** 2))
        if err < best_err:
            best, best_err, best_E = float(lam), err, E
    return best_E, best


def restricted_softmax(scores: np.ndarray, allowed: np.ndarray, beta: float) -> np.ndarray:
    """The softmax policy of App. B.2, ``π^m(a) ∝ exp(β r̂^m(a))`` on the allowed items, 0 elsewhere.

    Parameters
    ----------
    scores : array_like
        Estimated ratings r̂, users x items.
    allowed : array_like of bool
        Users x items; every user needs at least one allowed item.
    beta : float
        Inverse temperature β > 0 (App. B.2's grid: 0.01 to 1).

    Returns
    -------
    numpy.ndarray
        Users x items, rows summing to 1.

    Examples
    --------
    >>> scores = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    >>> restricted_softmax(scores, np.array([[True, True, False], [True, True, True]]), beta=1.0).round(3).tolist()
    [[0.269, 0.731, 0.0], [0.333, 0.333, 0.333]]
    """
    beta = check_in_interval("beta", beta, 0.0, np.inf, high_open=True)
    allowed = np.asarray(allowed, dtype=bool)
    if not allowed.any(axis=1).all():
        raise ParameterError("every user needs at least one allowed item")
    return softmax(np.where(allowed, beta * np.asarray(scores, dtype=float), -np.inf), axis=1)


class MeasurementBiasEnvironment:
    """App. B.2's streaming platform whose inventory misses one group's listening history.

    Fig. 7: a little-observed group gets noisier recommendations. The embeddings and ρ are drawn
    at construction; the history and the recommender at each call. The model and the three
    ``reading`` values: docs/guide/envy.md (the literal parameters make ρ = 1 everywhere).

    Parameters
    ----------
    n_users_per_group : int
        Users in each of the two groups (App. B.2: 1000).
    n_items : int
        New items |A|.
    n_documents : int
        Inventory documents |D|; group i's history is on half of them.
    dim : int
        Embedding dimension d.
    alpha : float, optional
        Scale α of the logits ``α <v, e> - t``; default ``30 d``.
    threshold : float, optional
        Offset t of the logits; default ``1 / d``.
    tau1 : float
        Listening rate τ_1 of the advantaged group g_1.
    reading : {"literal", "logit", "sphere"}
        The paper's text as formalized, or one of the two documented readings that avoid its
        degeneracy (docs/guide/envy.md); ``"sphere"`` reproduces the findings stated for Fig. 7.
    rng : int
        Seed; it identifies the environment.

    Attributes
    ----------
    rho : numpy.ndarray
        Ground truth ρ, users x items (users ``0..n-1`` in g_1, ``n..2n-1`` in g_2).
    users : pandas.DataFrame
        ``user_id`` and ``group`` (0: advantaged g_1, 1: disadvantaged g_2).
    item_categories, category_names
        All items in one category ``"all"``.
    user_embeddings, item_embeddings, document_embeddings : numpy.ndarray
        v^m, e_a, e_h.
    logits : numpy.ndarray
        ``α <v^m, e_a> - t``, users x items.
    documents_of : dict
        Group label -> indices of its documents H_i.
    policy_on_test_items : bool
        Whether :meth:`policy` restricts the softmax to the test items (not in ``sphere``).
    description : str
        One line with every parameter.

    Examples
    --------
    >>> from ocef.policies import utility
    >>> env = MeasurementBiasEnvironment(20, 20, 20, 4, reading="sphere", rng=0)
    >>> labels, names = env.groups()
    >>> u = utility(env.rho, env.policy(1.0, beta=1.0, rng=0))      # τ_2 = 1 against τ_1 = 50
    >>> [float(u[labels == g].mean().round(3)) for g in (0, 1)]      # mean utility per group
    [0.979, 0.851]
    """

    partitions = ("group",)

    def __init__(self, n_users_per_group: int = 1000, n_items: int = 200, n_documents: int = 200,
                 dim: int = 10, *, alpha: float | None = None, threshold: float | None = None,
                 tau1: float = 50.0, reading: str = "literal", rng: int = 0):
        n = check_positive_int("n_users_per_group", n_users_per_group)
        self.n_items_ = check_positive_int("n_items", n_items, minimum=2)
        n_documents = check_positive_int("n_documents", n_documents, minimum=2)
        self.dim = check_positive_int("dim", dim)
        self.alpha = 30.0 * self.dim if alpha is None else check_in_interval("alpha", alpha, 0, np.inf, high_open=True)
        self.threshold = 1.0 / self.dim if threshold is None else float(threshold)
        self.tau1 = check_in_interval("tau1", tau1, 0.0, np.inf, high_open=True)
        self.seed = check_positive_int("rng", rng, minimum=0)   # an int: it keys the environment
        if reading not in READINGS:
            raise ParameterError(f"reading must be one of {READINGS}, got {reading!r}")
        self.reading = reading
        rng = as_generator(self.seed)
        positive = reading != "sphere"
        self.user_embeddings = unit_vectors(2 * n, self.dim, rng=rng, positive=positive)
        self.item_embeddings = unit_vectors(self.n_items_, self.dim, rng=rng, positive=positive)
        self.document_embeddings = unit_vectors(n_documents, self.dim, rng=rng, positive=positive)
        self.logits = self.alpha * self.user_embeddings @ self.item_embeddings.T - self.threshold
        if reading == "logit":
            self.rho = self.user_embeddings @ self.item_embeddings.T
        else:
            self.rho = expit(self.logits)
        #: App. B.2 restricts the softmax to the user's test items; the sphere reading does not.
        self.policy_on_test_items = reading != "sphere"
        labels = np.repeat([0, 1], n)
        self.users = pd.DataFrame({"user_id": np.arange(2 * n), "group": labels})
        self.item_categories = np.zeros(self.n_items_, dtype=int)
        self.category_names = ["all"]
        half = n_documents // 2
        self.documents_of = {0: np.arange(half), 1: np.arange(half, n_documents)}
        self.description = (f"measurement bias (App. B.2): 2 x {n} users, {self.n_items_} items, "
                            f"{n_documents} documents, d={self.dim}, alpha={self.alpha:g}, "
                            f"t={self.threshold:g}, tau1={self.tau1:g}, {reading} reading")

    @property
    def n_users(self) -> int:
        return self.rho.shape[0]

    @property
    def n_items(self) -> int:
        return self.rho.shape[1]

    def groups(self, partition_name: str = "group") -> tuple[np.ndarray, list[str]]:
        """The two groups of App. B.2: advantaged g_1 and disadvantaged g_2.

        Parameters
        ----------
        partition_name : str
            The only partition, ``"group"``.

        Returns
        -------
        labels : numpy.ndarray
            0 (g_1) or 1 (g_2) per user.
        names : list of str

        Examples
        --------
        >>> MeasurementBiasEnvironment(2, 4, 4, 3).groups()
        (array([0, 0, 1, 1]), ['g1 (advantaged)', 'g2 (disadvantaged)'])
        """
        if partition_name not in self.partitions:
            raise ParameterError(f"partition must be one of {list(self.partitions)}, got {partition_name!r}")
        return self.users["group"].to_numpy(), ["g1 (advantaged)", "g2 (disadvantaged)"]

    def history(self, tau2: float, *, rng=None) -> np.ndarray:
        """Draw the listening history of App. B.2: ``X_h^m ~ Pois(τ_i <v^m, e_h>) 1{h ∈ H_i}``.

        Parameters
        ----------
        tau2 : float
            Listening rate τ_2 of the disadvantaged group (0: no history).
        rng : None, int, SeedSequence or Generator, optional
            Draws the counts.

        Returns
        -------
        numpy.ndarray
            Counts (float), users x documents.

        Examples
        --------
        >>> MeasurementBiasEnvironment(2, 4, 4, 3).history(0.0, rng=0)[2:].sum()     # g_2: no history at τ_2 = 0
        0.0
        """
        tau2 = check_in_interval("tau2", tau2, 0.0, np.inf, low_open=False, high_open=True)
        rng = as_generator(rng)
        labels = self.users["group"].to_numpy()
        tau = np.where(labels == 0, self.tau1, tau2)
        in_h = np.zeros((2, self.document_embeddings.shape[0]), dtype=bool)
        for g, docs in self.documents_of.items():
            in_h[g, docs] = True
        affinity = np.maximum(self.user_embeddings @ self.document_embeddings.T, 0.0)  # >= 0 unless sphere
        lam = tau[:, None] * affinity * in_h[labels]
        return rng.poisson(lam).astype(float)

    def estimated_ratings(self, tau2: float, *, rng=0, split=SPLIT,
                          ridge_grid=RIDGE_GRID) -> tuple[np.ndarray, np.ndarray, float]:
        """The recommender of App. B.2 at history level ``tau2``: estimates, test items, ridge λ.

        :meth:`history`, :func:`split_items`, then :func:`ridge_item_embeddings` of the ratings
        (Bernoulli(ρ) draws in the literal reading, the logits otherwise): ``r̂^m(a) = (X^m / ||X^m||) Ê_aᵀ``.

        Parameters
        ----------
        tau2 : float
            Listening rate τ_2 of the disadvantaged group.
        rng : None, int, SeedSequence or Generator
            Draws the history, the split and the ratings.
        split : sequence of 3 float
            Train/valid/test shares of each user's items.
        ridge_grid : sequence of float
            Candidate ridge parameters.

        Returns
        -------
        scores : numpy.ndarray
            Estimates r̂, users x items (0 for users without history).
        test : numpy.ndarray
            Mask of each user's test items.
        lam : float

        Examples
        --------
        >>> scores, test, lam = MeasurementBiasEnvironment(3, 5, 4, 3).estimated_ratings(0.0, rng=0)
        >>> scores.shape, bool((scores[3:] == 0).all())      # g_2: no history
        ((6, 5), True)
        """
        rng = as_generator(rng)         # an int (the default) gives the same recommender every call
        X = self.history(tau2, rng=rng)
        part = split_items(self.n_users, self.n_items, split, rng=rng)
        if self.reading == "literal":
            y = (rng.random(self.rho.shape) < self.rho).astype(float)  # Bernoulli(σ(α<v,e> - t))
        else:
            y = self.logits
        feats = normalized_history(X)
        E, lam = ridge_item_embeddings(feats, y, part == 0, part == 1, ridge_grid)
        return feats @ E.T, part == 2, lam

    def policy(self, tau2: float, beta: float, *, rng=0) -> np.ndarray:
        """The softmax policy ``π^{m,softmax}`` of App. B.2 at history level ``tau2``.

        Parameters
        ----------
        tau2 : float
            Listening rate τ_2 of the disadvantaged group.
        beta : float
            Inverse temperature β > 0 (App. B.2: 0.01 to 1).
        rng : None, int, SeedSequence or Generator
            As in :meth:`estimated_ratings`.

        Returns
        -------
        numpy.ndarray
            Users x items, rows summing to 1.

        Examples
        --------
        >>> (MeasurementBiasEnvironment(3, 5, 4, 3).policy(1.0, beta=0.1, rng=0) > 0).sum(axis=1)   # the 3 test items
        array([3, 3, 3, 3, 3, 3])
        """
        scores, test, _ = self.estimated_ratings(tau2, rng=rng)
        return restricted_softmax(scores, self.policy_support(test), beta)

    def policy_support(self, test: np.ndarray) -> np.ndarray:
        """The items each user's softmax ranges over: the test items (App. B.2), or every item in the
        ``sphere`` reading.

        Parameters
        ----------
        test : numpy.ndarray
            Mask of each user's test items.

        Returns
        -------
        numpy.ndarray of bool

        Examples
        --------
        >>> MeasurementBiasEnvironment(2, 2, 2, 2, reading="sphere").policy_support(np.eye(2, dtype=bool)).all()
        True
        """
        return test if self.policy_on_test_items else np.ones_like(test, dtype=bool)
