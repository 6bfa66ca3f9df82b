"""Random-traffic simulator (Dong et al. 2024, Sec. 3.2 and App. I).

Default strategy top-k with optional group boosts (Sec. 4.4), random traffic activated with
probability ``p_act`` (Sec. 3.2), labels ``Y ~ Bernoulli(preferences)``; logs with
:data:`LOG_COLUMNS`; A/B arms share one random log (:func:`simulate_ab`, App. D, I.2);
:func:`ground_truth` gives the exact p_g, q_g (App. D) and U_g (eq. 1). The full model is in
docs/guide/reo.md ("The random-traffic simulator").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit

from ocef.results import Result, presents
from ocef.validation import (check_resources,
    as_generator,
    check_in_interval,
    check_positive_int,
    check_unit_array,
)
from ocef.validation import Integer, Options, Real, Rng, validate_params
from ocef.errors import ParameterError, ParameterTypeError

#: Columns of both simulated logs, in order.
LOG_COLUMNS = ["request", "day", "user", "item", "R", "Y", "S", "source"]


# --------------------------------------------------------------------------- world


@dataclass(frozen=True)
class TrafficWorld:
    """An environment for the random-traffic simulator (Sec. 3.2, App. I): users, items, preferences
    and the default strategy's scores; built by :func:`as_world` or :func:`make_traffic_world`.

    Parameters
    ----------
    preferences : numpy.ndarray, shape (n_users, n_items)
        ``rho_ui = P(Y=1)`` for a shown pair.
    item_groups : numpy.ndarray of int64, shape (n_items,)
        The sensitive attribute ``S(i)``; at least 2 groups.
    scores : numpy.ndarray, shape (n_users, n_items)
        The default strategy's ranking scores, >= 0.
    user_weights : numpy.ndarray, shape (n_users,)
        ``w_u``, the probability that a request comes from user u.

    Examples
    --------
    >>> make_traffic_world(n_users=50, n_items=40, rng=0).groups.tolist()
    [0, 1]
    """

    preferences: np.ndarray
    item_groups: np.ndarray
    scores: np.ndarray
    user_weights: np.ndarray

    @property
    def n_users(self) -> int:
        return self.preferences.shape[0]

    @property
    def n_items(self) -> int:
        return self.preferences.shape[1]

    @property
    def groups(self) -> np.ndarray:
        """The distinct item groups, sorted."""
        return np.unique(self.item_groups)


def as_world(preferences, item_groups, scores, user_weights=None) -> TrafficWorld:
    """Validate arrays and bundle them into a :class:`TrafficWorld`.

    Parameters
    ----------
    preferences, item_groups, scores
        As in :class:`TrafficWorld` (boosts multiply the scores).
    user_weights : array_like, shape (n_users,), optional
        Request rates, not all 0, normalized (default: uniform).

    Returns
    -------
    TrafficWorld

    Examples
    --------
    >>> as_world([[0.1, 0.5, 0.2], [0.3, 0.1, 0.4]], [0, 1, 1], [[1, 2, 3], [3, 2, 1]]).user_weights.tolist()
    [0.5, 0.5]
    """
    pref = check_unit_array("preferences", preferences, ndim=2)
    n_users, n_items = pref.shape
    groups = np.asarray(item_groups)
    if groups.shape != (n_items,):
        raise ParameterError(f"item_groups must have one entry per item (shape ({n_items},)), got shape {groups.shape}")
    if not np.issubdtype(groups.dtype, np.integer):
        raise ParameterTypeError(f"item_groups must hold integer group labels, got dtype {groups.dtype}")
    if np.unique(groups).size < 2:
        raise ParameterError(f"item_groups must contain at least 2 groups, got {np.unique(groups).tolist()}")
    sc = np.asarray(scores, dtype=float)
    if sc.shape != pref.shape:
        raise ParameterError(f"scores must have the shape of preferences {pref.shape}, got {sc.shape}")
    if not np.all(np.isfinite(sc)) or sc.min() < 0:
        raise ParameterError("scores must be finite and >= 0 (multiplicative boosts rescale them), "
                         f"found min {np.nanmin(sc)!r}")
    if user_weights is None:
        w = np.full(n_users, 1.0 / n_users)
    else:
        w = np.asarray(user_weights, dtype=float)
        if w.shape != (n_users,):
            raise ParameterError(f"user_weights must have shape ({n_users},), got {w.shape}")
        if not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
            raise ParameterError("user_weights must be finite, >= 0 and not all 0")
        w = w / w.sum()
    return TrafficWorld(pref, groups.astype(np.int64), sc, w)


@validate_params(n_users=Integer(1, 10**9), n_items=Integer(2, 10**9), n_groups=Integer(2, 10**6), rank=Integer(1, 10**5),
                 positive_rate=Real(1e-9, 1 - 1e-9), preference_scale=Real(-1e6, 1e6),
                 score_noise=Real(0, 1e6), user_activity=Real(0, 1e3), rng=Rng())
def make_traffic_world(n_users: int = 500, n_items: int = 200, n_groups: int = 2, *,
                       rank: int = 8, group_shares=None, positive_rate: float = 0.1,
                       preference_scale: float = 1.5, group_preference_shift=None,
                       score_noise: float = 1.0, score_bias=None, user_activity: float = 0.0,
                       rng=None) -> TrafficWorld:
    """A small low-rank preference world for experiments and tests (App. I.3), no download needed.

    * item ``i`` gets a group ``S(i)`` with probabilities ``group_shares`` (each group at least one);
    * standard normal user and item factors of dimension ``rank``; preference logit
      ``preference_scale * <x_u, y_i> / sqrt(rank) + shift[S(i)] + c``, ``c`` making the mean
      preference ``positive_rate``; ``preferences = sigmoid(logit)``;
    * ``scores = sigmoid(logit + N(0, score_noise^2) + score_bias[S(i)])``: a noisy estimate (App.
      I.3) that may favour some groups (``score_bias``, in logits), the source of REO unfairness;
    * ``user_activity > 0``: request rates ``w_u ∝ exp(activity * z_u)``.

    Parameters
    ----------
    n_users, n_items, n_groups, rank : int
    group_shares : array_like, shape (n_groups,), optional
        Default: equal.
    positive_rate : float
        Mean preference, in (0, 1).
    preference_scale : float
        Scale of the factor term of the logit.
    group_preference_shift, score_bias : array_like, shape (n_groups,), optional
        Per-group shifts of the preference and of the score logits (default 0).
    score_noise : float
        Standard deviation of the logit noise of the scores, >= 0.
    user_activity : float
        Spread of the log request rates, >= 0 (0: every user equally active).
    rng : None, int, SeedSequence or Generator
        Randomness; the same seed gives the same world.

    Returns
    -------
    TrafficWorld

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> round(float(world.preferences.mean()), 3), np.bincount(world.item_groups).tolist()
    (0.1, [16, 24])
    """
    if n_groups > n_items:
        raise ParameterError(f"n_groups ({n_groups}) must be at most n_items ({n_items}): every group needs an item")
    check_resources("n_users, n_items, rank", memory=8.0 * (4 * n_users * n_items + rank * (n_users + n_items)),
                    work=float(n_users) * n_items * rank, what="operations")
    gen = as_generator(rng)
    shares = np.full(n_groups, 1.0 / n_groups) if group_shares is None else np.asarray(group_shares, float)
    if shares.shape != (n_groups,) or shares.min() <= 0 or not np.isclose(shares.sum(), 1.0):
        raise ParameterError(f"group_shares must be {n_groups} positive numbers summing to 1, got {group_shares!r}")
    shift = np.zeros(n_groups) if group_preference_shift is None else np.asarray(group_preference_shift, float)
    bias = np.zeros(n_groups) if score_bias is None else np.asarray(score_bias, float)
    for name, arr in (("group_preference_shift", shift), ("score_bias", bias)):
        if arr.shape != (n_groups,) or not np.all(np.isfinite(arr)):
            raise ParameterError(f"{name} must hold {n_groups} finite numbers, got {arr.tolist()}")
    # every group gets at least one item, the rest by the shares
    groups = np.concatenate([np.arange(n_groups), gen.choice(n_groups, size=n_items - n_groups, p=shares)])
    groups = gen.permutation(groups) if n_items > n_groups else groups
    x = gen.standard_normal((n_users, rank))
    y = gen.standard_normal((n_items, rank))
    raw = preference_scale * (x @ y.T) / np.sqrt(rank) + shift[groups]
    c = brentq(lambda c: expit(raw + c).mean() - positive_rate, -50.0, 50.0)
    logit = raw + c
    preferences = expit(logit)
    scores = expit(logit + score_noise * gen.standard_normal(logit.shape) + bias[groups])
    weights = np.exp(user_activity * gen.standard_normal(n_users))
    return as_world(preferences, groups, scores, weights / weights.sum())


# --------------------------------------------------------------------------- policy


def _boost_vector(boosts: Mapping | None, groups: np.ndarray, name: str = "boosts") -> np.ndarray:
    """Multiplicative score factor per item (Sec. 4.4); groups absent from ``boosts`` get 1."""
    factor = np.ones(groups.shape, dtype=float)
    if boosts is None:
        return factor
    known = set(np.unique(groups).tolist())
    for g, b in dict(boosts).items():
        if g not in known:
            raise ParameterError(f"{name} names group {g!r}, which no item has; groups are {sorted(known)}")
        check_in_interval(f"{name}[{g!r}]", b, 0.0, np.inf, low_open=True, high_open=True)
        factor[groups == g] = float(b)
    return factor


@validate_params(k=Integer(1))
def default_recommendations(world: TrafficWorld, k: int, boosts: Mapping | None = None) -> np.ndarray:
    """Items the default strategy shows each user: the top ``k`` of ``scores[u, i] * boosts[S(i)]``,
    ties by lower index (Sec. 3.2, Sec. 4.4).

    Parameters
    ----------
    world : TrafficWorld
        The environment.
    k : int
        Length of a recommendation list, 1 <= k <= ``world.n_items``.
    boosts : mapping of int to float, optional
        Score factor per item group (e.g. ``{1: 1.25}``); others keep 1.

    Returns
    -------
    numpy.ndarray of int, shape (n_users, k)
        Best first.

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> round(float(world.item_groups[default_recommendations(world, 3, {1: 2.0})].mean()), 3)   # group 1's share
    0.707
    """
    k = _check_k(k, world.n_items)
    boosted = world.scores * _boost_vector(boosts, world.item_groups)[None, :]
    order = np.argsort(-boosted, axis=1, kind="stable")
    return order[:, :k]


def _recommended_mask(top: np.ndarray, n_items: int) -> np.ndarray:
    mask = np.zeros((top.shape[0], n_items), dtype=bool)
    np.put_along_axis(mask, top, True, axis=1)
    return mask


def _check_k(k: int, n_items: int) -> int:
    """``k`` (declared an integer >= 1 by each caller) against the world's items."""
    if k > n_items:
        raise ParameterError(f"k must be <= the number of items {n_items}, got {k}")
    return k


#: The declared serving arguments of :func:`simulate_traffic`, :func:`simulate_ab` and :func:`stream_traffic`.
SERVING = dict(n_days=Integer(1, 10**9), requests_per_day=Integer(1, 10**12), k=Integer(1), p_act=Real(0, 1),
               log_rate=Real(0, 1, closed="right"), rng=Rng())


def _check_serving(world: TrafficWorld, n_days, requests_per_day, k, p_act, log_rate) -> None:
    """Refuse ``k`` above the world's items, or a serving load above the resource limits, before day one."""
    _check_k(k, world.n_items)
    check_resources("n_days, requests_per_day, k", work=float(n_days) * requests_per_day * k, what="served items",
                    memory=8.0 * 8 * float(requests_per_day) * k * max(log_rate, p_act))


# --------------------------------------------------------------------------- ground truth


@dataclass(frozen=True)
class TrafficTruth:
    """Exact REO quantities of the simulated pair space (App. D, eq. 1-3), from :func:`ground_truth`;
    ``p``, ``q`` and ``delta_u`` are ``groups``' columns as arrays.

    Parameters
    ----------
    groups : pandas.DataFrame
        ``group``, ``p`` (``P(Y=1, S=s_k)``), ``q`` (``P(Y=1, S=s_k | R=1)``), ``U`` (eq. 1) and
        ``delta_U`` (eq. 3).
    penalty : float
        ``Delta_REO`` (eq. 2).
    p_recommended : float
        ``P(R=1)``: the share of the item pool a list shows.
    relevance_default, relevance_random : float
        ``sum_k q_k`` and ``sum_k p_k`` (the App. I.2 trade-off).

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> ground_truth(world, 5).groups["U"].round(4).tolist()
    [0.434, 0.3575]
    """

    groups: pd.DataFrame
    penalty: float
    p_recommended: float
    relevance_default: float
    relevance_random: float

    @property
    def p(self) -> np.ndarray:
        return self.groups["p"].to_numpy()

    @property
    def q(self) -> np.ndarray:
        return self.groups["q"].to_numpy()

    @property
    def delta_u(self) -> np.ndarray:
        return self.groups["delta_U"].to_numpy()


@validate_params(k=Integer(1))
def ground_truth(world: TrafficWorld, k: int, boosts: Mapping | None = None) -> TrafficTruth:
    """Exact ``p_k``, ``q_k``, ``U_k``, ``delta_U_k`` and ``Delta_REO`` of the default strategy on ``world`` (App. D, eq. 1-3).

    Formulas in docs/guide/reo.md ("The random-traffic simulator"); ``U_k`` onwards come from
    :func:`ocef.reo.reo_point_estimates`, so truth and estimates share one definition.

    Parameters
    ----------
    world : TrafficWorld
        The environment.
    k : int
        Length of a recommendation list, 1 <= k <= ``world.n_items``.
    boosts : mapping of int to float, optional
        :func:`default_recommendations`.

    Returns
    -------
    TrafficTruth

    Examples
    --------
    >>> round(ground_truth(make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0), 5).penalty, 4)
    0.0966
    """
    k = _check_k(k, world.n_items)
    top = default_recommendations(world, k, boosts)
    rec = _recommended_mask(top, world.n_items)
    labels = world.groups
    onehot = world.item_groups[:, None] == labels[None, :]            # items x K
    w = world.user_weights
    p = (w @ world.preferences @ onehot) / world.n_items              # P(Y=1, S=s_g) per group g
    q = (w @ (world.preferences * rec) @ onehot) / k                          # P(Y=1, S=s_g | R=1), k = list length
    if np.any(p <= 0):
        raise ParameterError(f"group(s) {labels[p <= 0].tolist()} have no relevant pair: U_k is undefined")
    p_rec = k / world.n_items
    u_scaled, delta_u, penalty = _reo_point(p, q)
    u = u_scaled * p_rec                                                # eq. (1) by Bayes, Sec. 3.3
    table = pd.DataFrame({"group": labels, "p": p, "q": q, "U": u, "delta_U": delta_u})
    return TrafficTruth(table, float(penalty), p_rec, float(q.sum()), float(p.sum()))


def _reo_point(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(Q_k / P_k, ΔU_k, ΔREO)`` through :func:`ocef.reo.reo_point_estimates` (eq. 4, 6, 7)."""
    from ocef import reo

    u, delta_u, penalty = reo.reo_point_estimates(np.asarray(p, float), np.asarray(q, float))
    return np.asarray(u, float), np.asarray(delta_u, float), float(penalty)


@validate_params(k=Integer(1), p_act=Real(0, 1))
def expected_relevance(world: TrafficWorld, k: int, p_act: float, boosts: Mapping | None = None) -> float:
    """Expected share of relevant items among the items users are shown, as a function of ``p_act`` (App. I.1-I.2).

    Per request ``k`` default items, relevant with ``P(Y=1|R=1) = sum_g q_g``; with probability
    ``p_act`` also ``k`` uniform items, ``k^2 / N`` of them duplicates (shown once, App. I.1)::

        (k Q + p_act k (P - P(R=1) Q)) / (k + p_act k (1 - P(R=1)))

    with ``P = sum_g p_g``; it decreases in ``p_act`` whenever random items are less relevant than
    default ones (the trade-off of eq. 28).

    Parameters
    ----------
    world : TrafficWorld
        The environment.
    k : int
        Length of a recommendation list, 1 <= k <= ``world.n_items``.
    p_act : float
        Activation probability of the random traffic.
    boosts : mapping of int to float, optional
        :func:`default_recommendations`.

    Returns
    -------
    float

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> [round(expected_relevance(world, 5, p), 4) for p in (0.0, 0.1, 1.0)]
    [0.3076, 0.2885, 0.1969]
    """
    truth = ground_truth(world, k, boosts)
    Q, P, p_rec = truth.relevance_default, truth.relevance_random, truth.p_recommended
    return float((Q + p_act * (P - p_rec * Q)) / (1.0 + p_act * (1.0 - p_rec)))


# --------------------------------------------------------------------------- simulation


@dataclass
class AbTrafficLogs:
    """Simulated A/B logs, from :func:`simulate_ab`: one default log and one truth per arm, one shared random log.

    ``truth`` is each arm's strategy on the whole user population; ``truth_served`` is what the logs
    estimate: q_k of the arm's own users with p_k of the whole population. With
    ``assignment="request"`` the two are equal; with ``"user"`` they differ by the sampling error of
    the user split, which no interval computed from the logs includes.

    Parameters
    ----------
    default : dict of str to pandas.DataFrame
        Each arm's D_rec (:data:`LOG_COLUMNS` plus ``arm``).
    random : pandas.DataFrame
        The shared D_rand; ``R``: does the request's arm show the pair, ``arm``: that arm.
    truth : dict of str to TrafficTruth
        Each arm's strategy on the whole population.
    served : pandas.DataFrame
        Per (day, arm): requests, activated requests, impressions, relevant impressions,
        overlapping pairs (App. I.1) and their relevance share.
    truth_served : dict of str to TrafficTruth, optional
        The truth each arm's logs estimate (see above).

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> ab = simulate_ab(world, {"control": None, "treatment": {1: 1.5}}, requests_per_day=500, p_act=0.2, rng=0)
    >>> {arm: round(t.penalty, 4) for arm, t in ab.truth.items()}   # boosting group 1 lowers it
    {'control': 0.1078, 'treatment': 0.0239}
    """

    default: dict[str, pd.DataFrame]
    random: pd.DataFrame
    truth: dict[str, TrafficTruth]
    served: pd.DataFrame
    truth_served: dict[str, TrafficTruth] | None = None


@dataclass
class TrafficLogs:
    """Simulated logs of one default strategy, from :func:`simulate_traffic` (Sec. 3.2, App. I.1).

    Parameters
    ----------
    default, random : pandas.DataFrame
        D_rec and D_rand (:data:`LOG_COLUMNS`).
    truth : TrafficTruth
        The exact REO quantities the logs estimate.
    served : pandas.DataFrame
        Per-day requests, impressions and relevance (:class:`AbTrafficLogs`).

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> round(simulate_traffic(world, requests_per_day=500, p_act=0.2, rng=0).truth.penalty, 4)
    0.1078
    """

    default: pd.DataFrame
    random: pd.DataFrame
    truth: TrafficTruth
    served: pd.DataFrame = field(repr=False)


@validate_params(**SERVING)
def simulate_traffic(world: TrafficWorld, *, n_days: int = 1, requests_per_day: int = 10_000,
                     k: int = 10, p_act: float = 0.01, log_rate: float = 1.0,
                     boosts: Mapping | None = None, rng=None) -> TrafficLogs:
    """Simulate ``n_days`` of traffic of one default strategy with random traffic (Sec. 3.2, App. I.1).

    Each day ``requests_per_day`` requests arrive (users drawn with ``world.user_weights``); the
    model of a request is in docs/guide/reo.md ("The random-traffic simulator").

    Parameters
    ----------
    world : TrafficWorld
        The environment.
    n_days, requests_per_day, k : int
    p_act : float
        Activation probability of random traffic; 0 gives an empty random log.
    log_rate : float
        Share of recommended pairs logged in D_rec.
    boosts : mapping of int to float, optional
        :func:`default_recommendations`.
    rng : None, int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    TrafficLogs

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> logs = simulate_traffic(world, k=5, requests_per_day=500, p_act=0.2, rng=0)
    >>> len(logs.default), len(logs.random)
    (2500, 550)
    """
    out = simulate_ab(world, {"default": boosts}, n_days=n_days, requests_per_day=requests_per_day,
                      k=k, p_act=p_act, log_rate=log_rate, rng=rng)
    random = out.random.drop(columns="arm")
    default = out.default["default"].drop(columns="arm")
    return TrafficLogs(default, random, out.truth["default"], out.served.drop(columns="arm"))


@validate_params(**SERVING, assignment=Options("user", "request"))
def simulate_ab(world: TrafficWorld, arms: Mapping[str, Mapping | None], *, n_days: int = 1,
                requests_per_day: int = 10_000, k: int = 10, p_act: float = 0.01,
                log_rate: float = 1.0, assignment: str = "user", arm_shares=None,
                rng=None) -> AbTrafficLogs:
    """Simulate an A/B test whose arms differ by their boosts and share one random traffic (App. D, App. I.2, Fig. 11-12).

    With ``assignment="user"`` each user keeps one arm (shares ``arm_shares``) for the whole
    experiment (Fig. 11); with ``"request"`` every request is assigned afresh. Activation for random
    traffic is independent of the arm (orthogonal layers, App. I.2), so one random log serves every
    arm. Serving and logging follow :func:`simulate_traffic`.

    Parameters
    ----------
    arms : mapping of str to (mapping or None)
        Arm name -> boosts (None: unboosted), e.g. ``{"control": None, "treatment": {0: 1.25}}``.
    world, n_days, requests_per_day, k, p_act, log_rate, rng
        As in :func:`simulate_traffic` (``requests_per_day`` counts all arms).
    assignment : {"user", "request"}
        The unit assigned to an arm.
    arm_shares : array_like, optional
        Default: equal.

    Returns
    -------
    AbTrafficLogs

    Examples
    --------
    >>> from ocef.reo import ab_test
    >>> world = make_traffic_world(n_users=50, n_items=40, score_bias=[0.0, -1.0], rng=0)
    >>> ab = simulate_ab(world, {"control": None, "treatment": {1: 1.5}}, k=5, requests_per_day=500,
    ...                  p_act=0.2, assignment="request", rng=0)
    >>> round(ab_test(ab.default["control"], ab.default["treatment"], ab.random).D_reo, 3)
    -0.183
    """
    if not isinstance(arms, Mapping) or len(arms) == 0:
        raise ParameterError(f"arms must be a non-empty mapping name -> boosts, got {arms!r}")
    _check_serving(world, n_days, requests_per_day, k, p_act, log_rate)
    names = [str(a) for a in arms]
    n_arms = len(names)
    shares = np.full(n_arms, 1.0 / n_arms) if arm_shares is None else np.asarray(arm_shares, float)
    if shares.shape != (n_arms,) or shares.min() <= 0 or not np.isclose(shares.sum(), 1.0):
        raise ParameterError(f"arm_shares must be {n_arms} positive numbers summing to 1, got {arm_shares!r}")
    gen = as_generator(rng)

    tops = np.stack([default_recommendations(world, k, b) for b in arms.values()])  # A x users x k
    truth = {name: ground_truth(world, k, b) for name, b in zip(names, arms.values())}
    user_arm = gen.choice(n_arms, size=world.n_users, p=shares) if assignment == "user" else None

    default_parts: list[pd.DataFrame] = []
    random_parts: list[pd.DataFrame] = []
    served_parts: list[pd.DataFrame] = []
    first_request = 0
    for day in range(n_days):
        cols_def, cols_rand, served = _simulate_requests(world, tops, user_arm, shares, first_request,
                                                         requests_per_day, day, k, p_act, log_rate, gen)
        first_request += requests_per_day
        default_parts.append(pd.DataFrame(cols_def))
        random_parts.append(pd.DataFrame(cols_rand))
        served.insert(1, "arm", names)
        served_parts.append(served)

    default_all = pd.concat(default_parts, ignore_index=True)
    random_all = pd.concat(random_parts, ignore_index=True)
    arm_names = np.asarray(names, dtype=object)
    default = {}
    for a, name in enumerate(names):
        part = default_all[default_all["arm"] == a].reset_index(drop=True)
        part["arm"] = name
        default[name] = part
    random_all["arm"] = arm_names[random_all["arm"].to_numpy()] if len(random_all) else pd.Series(dtype=object)
    truth_served = dict(truth) if user_arm is None else {
        name: _served_truth(world, k, b, user_arm == a, truth[name])
        for a, (name, b) in enumerate(zip(names, arms.values()))}
    return AbTrafficLogs(default, random_all, truth, pd.concat(served_parts, ignore_index=True), truth_served)


def _served_truth(world: TrafficWorld, k: int, boosts, in_arm: np.ndarray,
                  population: TrafficTruth) -> TrafficTruth:
    """The truth an arm's logs estimate under user assignment: q_k over its users, p_k over everyone."""
    if not in_arm.any():
        return population
    w = np.where(in_arm, world.user_weights, 0.0)
    sub = as_world(world.preferences, world.item_groups, world.scores, w / w.sum())
    q = ground_truth(sub, k, boosts).q
    p = population.p
    u_scaled, delta_u, penalty = _reo_point(p, q)
    table = pd.DataFrame({"group": population.groups["group"].to_numpy(), "p": p, "q": q,
                          "U": u_scaled * population.p_recommended, "delta_U": delta_u})
    return TrafficTruth(table, float(penalty), population.p_recommended, float(q.sum()), population.relevance_random)


def _simulate_requests(world: TrafficWorld, tops: np.ndarray, user_arm, shares, first_request: int, n: int,
                       day: int, k: int, p_act: float, log_rate: float, gen: np.random.Generator):
    """Serve ``n`` requests of one day: ``(default columns, random columns, served)`` (docs/guide/reo.md)."""
    n_arms = tops.shape[0]
    request = np.arange(first_request, first_request + n)
    user = gen.choice(world.n_users, size=n, p=world.user_weights)
    arm = user_arm[user] if user_arm is not None else gen.choice(n_arms, size=n, p=shares)
    # default strategy: k items per request, one Bernoulli label per impression
    shown = tops[arm, user]                                                   # n x k
    y_def = gen.random(shown.shape) < world.preferences[user[:, None], shown]
    logged = gen.random(shown.shape) < log_rate                               # uniform sample of R=1 pairs
    rows, cols = np.nonzero(logged)
    default = _log_columns(request[rows], day, user[rows], shown[rows, cols], np.ones(rows.size, dtype=np.int8),
                           y_def[rows, cols], world.item_groups, "default", arm[rows])
    # random traffic: Bernoulli(p_act) activation, k uniform items without replacement
    act = np.flatnonzero(gen.random(n) < p_act)
    if act.size:
        draws = gen.random((act.size, world.n_items))
        items = np.argpartition(draws, k - 1, axis=1)[:, :k]        # uniform k-subsets
        match = items[:, :, None] == shown[act][:, None, :]                   # App. I.1 overlap
        overlap = match.any(axis=2)
        y_fresh = gen.random(items.shape) < world.preferences[user[act][:, None], items]
        y_same = y_def[act[:, None], match.argmax(axis=2)]
        y_rand = np.where(overlap, y_same, y_fresh)
        r_rand = overlap                    # R = 1 iff the request's default list has the item
    else:
        items = np.empty((0, k), dtype=np.int64)
        overlap = y_rand = r_rand = np.empty((0, k), dtype=bool)
    req = np.repeat(act, k)                                              # row -> request index
    random = _log_columns(request[req], day, user[req], items.ravel(), r_rand.ravel(), y_rand.ravel(),
                          world.item_groups, "random", arm[req])
    # what users saw: default items plus the non-duplicated random items
    extra = ~overlap
    served = pd.DataFrame({
        "day": day,
        "requests": np.bincount(arm, minlength=n_arms),
        "activated": np.bincount(arm[act], minlength=n_arms),
        "impressions": np.bincount(arm, minlength=n_arms) * k
                       + np.bincount(arm[act], weights=extra.sum(axis=1), minlength=n_arms).astype(int),
        "relevant": np.bincount(arm, weights=y_def.sum(axis=1), minlength=n_arms).astype(int)
                    + np.bincount(arm[act], weights=(y_rand & extra).sum(axis=1), minlength=n_arms).astype(int),
        "overlap": np.bincount(arm[act], weights=overlap.sum(axis=1), minlength=n_arms).astype(int),
    })
    served["relevance"] = served["relevant"] / served["impressions"]
    return default, random, served


def _log_columns(request, day, user, item, r, y, item_groups, source, arm) -> dict:
    item = np.asarray(item, dtype=np.int64)
    return {
        "request": np.asarray(request, dtype=np.int64),
        "day": np.full(len(request), day, dtype=np.int64),
        "user": np.asarray(user, dtype=np.int64),
        "item": item,
        "R": np.asarray(r, dtype=np.int8),
        "Y": np.asarray(y, dtype=np.int8),
        "S": item_groups[item],
        "source": source,
        "arm": np.asarray(arm, dtype=np.int64),
    }


# --------------------------------------------------------------------------- streaming to Parquet


@dataclass(frozen=True)
class StreamedTraffic(Result):
    """Where :func:`stream_traffic` wrote the logs (Parquet files ``day-DDDDD-part-PPPP.parquet``,
    readable as one log by :func:`ocef.reo.estimate_reo`), and the rows of each day.

    Parameters
    ----------
    default_dir, random_dir : pathlib.Path
        The directories of the default and the random log.
    days : pandas.DataFrame
        ``day, default_rows, random_rows``.
    truth : TrafficTruth
        The exact REO quantities of the simulated strategy.

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, rng=0)
    >>> stream_traffic(world, "out", n_days=2, requests_per_day=300, p_act=0.2, rng=0).random_rows
    1290
    """

    default_dir: Path
    random_dir: Path
    days: pd.DataFrame
    truth: TrafficTruth = field(repr=False)

    @property
    def default_rows(self) -> int:
        return int(self.days["default_rows"].sum())

    @property
    def random_rows(self) -> int:
        return int(self.days["random_rows"].sum())

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The rows written per day (a copy of ``days``).

        One row per simulated day: ``day``, ``default_rows`` and ``random_rows`` (int).
        """
        return self.days.copy()

    @presents
    def to_dict(self) -> dict:
        """Where the logs are and what they hold, as strict-JSON data.

        Keys ``default_dir`` and ``random_dir`` (str paths), ``days`` (the rows of
        :meth:`to_frame` as records), ``default_rows``, ``random_rows`` (totals) and
        ``truth_penalty`` (the exact ``Delta_REO`` of the simulated strategy, eq. 2, from
        ``truth``).
        """
        from ocef.results import jsonable

        return jsonable({"default_dir": self.default_dir, "random_dir": self.random_dir, "days": self.days,
                         "default_rows": self.default_rows, "random_rows": self.random_rows,
                         "truth_penalty": self.truth.penalty})


def _arrow_table(cols: dict):
    """A pyarrow table of one chunk in :data:`LOG_COLUMNS` order (``source`` dictionary-encoded)."""
    import pyarrow as pa

    n = len(cols["request"])
    data = {c: cols[c] for c in LOG_COLUMNS if c != "source"}
    data["source"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int8)), pa.array([cols["source"]]))
    return pa.table({c: data[c] for c in LOG_COLUMNS})


@validate_params(**SERVING, chunk_requests=Integer(1))
def stream_traffic(world: TrafficWorld, out_dir, *, n_days: int = 1, requests_per_day: int = 10_000,
                   k: int = 10, p_act: float = 0.01, log_rate: float = 1.0, boosts: Mapping | None = None,
                   chunk_requests: int = 200_000, rng=None, progress=None) -> StreamedTraffic:
    """Simulate like :func:`simulate_traffic` but write the logs to Parquet as they are drawn, with bounded memory.

    About ``chunk_requests * k`` rows are in memory at a time. Writes ``out_dir/default/`` and
    ``out_dir/random/`` (existing ``*.parquet`` files there are refused). Same distribution as
    :func:`simulate_traffic`, not the same draws for a seed.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Created if needed.
    world, n_days, requests_per_day, k, p_act, log_rate, boosts, rng
        As in :func:`simulate_traffic`.
    chunk_requests : int
        Requests per written chunk.
    progress : callable, optional
        ``progress(day, rows_written)`` after each chunk.

    Returns
    -------
    StreamedTraffic

    Examples
    --------
    >>> world = make_traffic_world(n_users=50, n_items=40, rng=0)
    >>> out = stream_traffic(world, "logs", k=5, n_days=2, requests_per_day=400, p_act=0.2, chunk_requests=250, rng=0)
    >>> len(list(out.default_dir.iterdir()))
    4
    """
    import pyarrow.parquet as pq

    _check_serving(world, n_days, requests_per_day, k, p_act, log_rate)
    gen = as_generator(rng)
    out = Path(out_dir)
    dirs = {"default": out / "default", "random": out / "random"}
    for d in dirs.values():
        if d.exists() and any(d.glob("*.parquet")):
            raise ParameterError(f"out_dir {d} already holds Parquet files; choose an empty directory")
        d.mkdir(parents=True, exist_ok=True)
    tops = default_recommendations(world, k, boosts)[None]
    single_arm = np.zeros(world.n_users, dtype=np.int64)
    truth = ground_truth(world, k, boosts)
    counts = []
    first = 0
    written = 0
    for day in range(n_days):
        rows = {"default": 0, "random": 0}
        for part, start in enumerate(range(0, requests_per_day, chunk_requests)):
            n = min(chunk_requests, requests_per_day - start)
            cols_def, cols_rand, _ = _simulate_requests(world, tops, single_arm, np.ones(1), first, n, day, k,
                                                        p_act, log_rate, gen)
            first += n
            for name, cols in (("default", cols_def), ("random", cols_rand)):
                if len(cols["request"]) == 0 and part > 0:
                    continue
                pq.write_table(_arrow_table(cols), dirs[name] / f"day-{day:05d}-part-{part:04d}.parquet")
                rows[name] += len(cols["request"])
            written += len(cols_def["request"]) + len(cols_rand["request"])
            del cols_def, cols_rand
            if progress is not None:
                progress(day, written)
        counts.append((day, rows["default"], rows["random"]))
    days = pd.DataFrame(counts, columns=["day", "default_rows", "random_rows"])
    return StreamedTraffic(dirs["default"], dirs["random"], days, truth)


# --------------------------------------------------------------------------- count-level draws


def draw_log_counts(p, q, n_random: int, n_default: int, size: int | tuple = 1,
                    *, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Positive counts per group of i.i.d. logs, for ``size`` replicates at once (Sec. 4.1): the
    sufficient statistics of eq. (5), ``(#{Y=1,S=s_1}, ..., rest) ~ Mult(n_random, (p_1, ...,
    p_K, 1 - sum p))`` (likewise ``q``, ``n_default``).

    Parameters
    ----------
    p, q : array_like, shape (K,)
        ``P(Y=1, S=s_k)`` of the random and ``P(Y=1, S=s_k | R=1)`` of the default traffic.
    n_random, n_default : int
        Rows of the random and of the default log, >= 1.
    size : int or tuple of int
        Replicate shape.
    rng : None, int, SeedSequence or Generator
        Randomness.

    Returns
    -------
    tuple of numpy.ndarray
        ``(random_counts, default_counts)``, each of shape ``size + (K,)``.

    Examples
    --------
    >>> draw_log_counts([0.05, 0.03], [0.12, 0.05], 1000, 2000, size=3, rng=0)[0].tolist()
    [[51, 35], [63, 33], [60, 35]]
    """
    p = check_unit_array("p", p, ndim=1)
    q = check_unit_array("q", q, ndim=1)
    if p.shape != q.shape:
        raise ParameterError(f"p and q must have the same length, got {p.size} and {q.size}")
    for name, v in (("p", p), ("q", q)):
        if v.sum() > 1 + 1e-12:
            raise ParameterError(f"{name} must sum to at most 1 (joint probabilities), got {v.sum()!r}")
    n_random = check_positive_int("n_random", n_random)
    n_default = check_positive_int("n_default", n_default)
    gen = as_generator(rng)
    size = (size,) if np.isscalar(size) else tuple(size)

    def draw(v, n):
        probs = np.append(v, max(0.0, 1.0 - v.sum()))
        return gen.multinomial(n, probs / probs.sum(), size=size)[..., :-1]

    return draw(p, n_random), draw(q, n_default)
