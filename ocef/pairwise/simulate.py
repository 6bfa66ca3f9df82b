"""Randomized pairs served on the traffic simulator's world, with their exact accuracies
(Beutel et al. 2019, Sec. 3.4, on :class:`ocef.reo.simulate.TrafficWorld`).

Per request, the user is drawn with ``world.user_weights``; with probability ``p_pair`` the
request is in the experimental slice: two distinct items are drawn uniformly from the relevant set
R_u (the user's top ``n_relevant`` items by the world's default scores, the retrieval stage of
Sec. 3.1; all items when ``n_relevant`` is None) and shown at positions 2 and 3 in random order.
Each of the two is clicked independently with probability θ_pos · ρ_ui (ρ = ``world.preferences``,
θ = ``position_bias`` for positions 2 and 3). A pair is recorded when exactly one is clicked:
j = the clicked item, j′ = the other; its engagement bucket is z = 1 + Binomial(n_levels − 1, ρ_uj)
(more engagement for better-liked items). The audited model's scores (``model_scores``, users ×
items; default the world's scores) give score_j, score_jp.

Ground truth: a recorded pair (u, j, j′, z) has probability proportional to
``w_u · ½[θ2 ρ_uj (1 − θ3 ρ_uj′) + θ3 ρ_uj (1 − θ2 ρ_uj′)] · P(z | u, j)`` over ordered pairs of
R_u (|R_u| is the same for every user, so the uniform pair draw is a common factor). The exact
"expected counts" N[s, t, z, o] (probability mass of each group / kind / level / outcome) go
through the same :func:`ocef.pairwise.accuracy.cell_statistics` as the estimates.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ocef.pairwise.counts import KINDS, grid_frame
from ocef.pairwise.accuracy import _exposure_statistics, cell_statistics, summary_statistics
from ocef.results import Result, jsonable, records, presents
from ocef.reo.simulate import TrafficWorld
from ocef.validation import (Boolean, Integer, OrNone, Real, as_generator, check_positive_int, check_resources,
                             validate_params)
from ocef.errors import DataError, ParameterError, ParameterTypeError

__all__ = ["SimulatedPairs", "PairsTruth", "simulate_pairs", "pairs_truth", "relevant_sets"]

#: Most relevance grades ``n_levels`` (the truth's table has 12 cells per grade).
MAX_LEVELS = 10**6


@dataclass(frozen=True)
class PairsTruth(Result):
    """The exact pairwise accuracies of a randomized-pairs experiment (:func:`pairs_truth`): the
    population values :func:`ocef.pairwise.pairwise_accuracy` estimates.

    Attributes
    ----------
    mass : numpy.ndarray, shape (2, 2, Z, 3)
        Probability of a recorded pair per (clicked group, intra/inter, z, outcome).
    cells : pandas.DataFrame
        kind, group, z, probability, accuracy (eq. 1-6).
    summary_table : pandas.DataFrame
        kind, accuracy_0, accuracy_1, ratio, gap (Sec. 6.1; levels with mass for both groups).
    exposure : pandas.DataFrame
        group, z, click_share, exposure over the inter-group pairs (Sec. 6.4).

    Examples
    --------
    >>> from ocef.reo.simulate import make_traffic_world
    >>> float(pairs_truth(make_traffic_world(n_users=20, n_items=6, rng=0)).mass.sum())
    1.0
    """

    mass: np.ndarray = dataclasses.field(repr=False)
    cells: pd.DataFrame = dataclasses.field(repr=False)
    summary_table: pd.DataFrame = dataclasses.field(repr=False)
    exposure: pd.DataFrame = dataclasses.field(repr=False)

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The exact accuracy of every cell: ``kind, group, z, probability, accuracy`` (``cells``)."""
        return self.cells.copy()

    def summary(self) -> pd.DataFrame:
        """Per kind: the exact ``accuracy_0``, ``accuracy_1``, ``ratio`` and ``gap`` (Sec. 6.1).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> from ocef.reo.simulate import make_traffic_world
        >>> pairs_truth(make_traffic_world(n_users=20, n_items=6, rng=0)).summary()["gap"].round(4).tolist()
        [0.0728, 0.092, 0.0669]
        """
        return self.summary_table.copy()

    @presents
    def to_dict(self) -> dict:
        """``cells``, ``summary`` and ``exposure`` as lists of JSON-ready records."""
        return jsonable({"cells": records(self.cells), "summary": records(self.summary_table),
                         "exposure": records(self.exposure)})


@dataclass(frozen=True)
class SimulatedPairs(Result):
    """Randomized pairs served on a simulated world, with their exact accuracies (:func:`simulate_pairs`).

    Attributes
    ----------
    pairs : pandas.DataFrame
        query, user, j (clicked), jp, s_j, s_jp, z, score_j, score_jp, position_j (2 or 3).
    truth : PairsTruth or None
        None with ``truth=False``.
    n_requests : int
        Requests served.
    n_experimental : int
        Requests shown a randomized pair.
    n_recorded : int
        Pairs with exactly one of the two items clicked.

    Examples
    --------
    >>> from ocef.reo.simulate import make_traffic_world
    >>> simulate_pairs(make_traffic_world(n_users=20, n_items=6, rng=0), n_requests=20_000, p_pair=0.5, rng=0).n_recorded
    1762
    """

    pairs: pd.DataFrame = dataclasses.field(repr=False)
    truth: PairsTruth = dataclasses.field(repr=False)
    n_requests: int = 0
    n_experimental: int = 0
    n_recorded: int = 0

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The recorded pairs table (a copy of ``pairs``), the input of :func:`ocef.pairwise.pair_counts`."""
        return self.pairs.copy()

    @presents
    def to_dict(self) -> dict:
        """The numbers of requests, experimental requests and recorded pairs, and the truth's records.

        ``n_requests``, ``n_experimental``, ``n_recorded``, ``truth`` (:meth:`PairsTruth.to_dict`).
        """
        return {"n_requests": self.n_requests, "n_experimental": self.n_experimental,
                "n_recorded": self.n_recorded, "truth": self.truth.to_dict()}


def relevant_sets(world: TrafficWorld, n_relevant: int | None) -> np.ndarray:
    """The relevant set R_u of each user (R_q of the retrieval stage, Sec. 3.1): the top
    ``n_relevant`` items by the world's default scores, ties by lower index.

    Parameters
    ----------
    world : ocef.reo.simulate.TrafficWorld
        The simulated world.
    n_relevant : int or None
        In [2, n_items]; None: all items.

    Returns
    -------
    numpy.ndarray of int, shape (n_users, n_relevant)

    Examples
    --------
    >>> from ocef.reo.simulate import make_traffic_world
    >>> relevant_sets(make_traffic_world(n_users=20, n_items=6, rng=0), 2)[:2].tolist()
    [[4, 1], [5, 2]]
    """
    if n_relevant is None:
        return np.broadcast_to(np.arange(world.n_items), (world.n_users, world.n_items))
    n_relevant = check_positive_int("n_relevant", n_relevant, minimum=2)
    if n_relevant > world.n_items:
        raise ParameterError(f"n_relevant must be <= the number of items {world.n_items}, got {n_relevant}")
    return np.argsort(-world.scores, axis=1, kind="stable")[:, :n_relevant]


def _check(world, model_scores, position_bias, n_levels):
    if not isinstance(world, TrafficWorld):
        raise ParameterTypeError(f"world must be an ocef.reo.simulate.TrafficWorld, got {type(world).__name__}")
    groups = np.unique(world.item_groups)
    if groups.tolist() != [0, 1]:
        raise DataError(f"pairwise fairness compares two item groups 0 and 1; the world has {groups.tolist()}")
    scores = world.scores if model_scores is None else np.asarray(model_scores, dtype=float)
    if scores.shape != world.preferences.shape or not np.all(np.isfinite(scores)):
        raise ParameterError(f"model_scores must be finite with shape {world.preferences.shape}, got {scores.shape}")
    try:
        theta = np.asarray(position_bias, dtype=float)
    except (TypeError, ValueError, OverflowError):
        theta = np.full(1, np.nan)                # refused below, with the value given
    if theta.shape != (2,) or not np.all((theta > 0) & (theta <= 1)):
        raise ParameterError(f"position_bias must be two examination probabilities in (0, 1], got {position_bias!r}")
    return scores, theta, n_levels


@validate_params(n_relevant=OrNone(Integer(2)), n_levels=Integer(1, MAX_LEVELS), chunk=Integer(1))
def pairs_truth(world: TrafficWorld, *, model_scores=None, n_relevant: int | None = None,
                position_bias=(1.0, 1.0), n_levels: int = 2, chunk: int = 2_000_000) -> PairsTruth:
    """The exact pairwise accuracies of ``model_scores`` on the randomized pairs of ``world`` (the
    ground truth of the module docstring), in chunks of bounded memory.

    Parameters
    ----------
    world : ocef.reo.simulate.TrafficWorld
        Two item groups 0 and 1.
    model_scores : array_like, shape (n_users, n_items), optional
        g(f(q, v)) of the audited model (default: ``world.scores``).
    n_relevant : int, optional
        :func:`relevant_sets`.
    position_bias : (float, float)
        Examination probabilities θ₂, θ₃ of positions 2 and 3.
    n_levels : int
        Engagement levels z.
    chunk : int
        Largest U x |R| x |R| block held in memory.

    Returns
    -------
    PairsTruth

    Raises
    ------
    ocef.errors.DataError
        If its item groups are not exactly 0 and 1.

    Examples
    --------
    >>> from ocef.reo.simulate import make_traffic_world
    >>> pairs_truth(make_traffic_world(n_users=20, n_items=6, rng=0)).exposure["exposure"].round(4).tolist()[:2]
    [0.5434, 0.5241]
    """
    from scipy.stats import binom              # lazily: scipy.stats is slow to import

    scores, (t2, t3), n_levels = _check(world, model_scores, position_bias, n_levels)
    R = relevant_sets(world, n_relevant)
    M = R.shape[1]
    mass = np.zeros((2, 2, n_levels, 3))
    step = max(1, chunk // (M * M))
    lv = np.arange(n_levels)
    for u0 in range(0, world.n_users, step):     # chunks of users bound memory (U x M x M)
        u = np.arange(u0, min(world.n_users, u0 + step))
        items = R[u]
        rho = world.preferences[u[:, None], items]
        s = world.item_groups[items]
        g = scores[u[:, None], items]
        rj, rjp = rho[:, :, None], rho[:, None, :]
        W = 0.5 * (t2 * rj * (1 - t3 * rjp) + t3 * rj * (1 - t2 * rjp)) * world.user_weights[u][:, None, None]
        W = W * (1 - np.eye(M))[None]
        pz = binom.pmf(lv[None, None, :], n_levels - 1, rho[:, :, None])      # U x M x Z
        # cell (s_j, intra/inter, outcome) of each ordered pair, coded like the counts' (s, t, o)
        inter = s[:, :, None] != s[:, None, :]
        outcome = 1 + np.sign(g[:, :, None] - g[:, None, :]).astype(np.int64)  # 0 loss, 1 tie, 2 win
        cell = (s[:, :, None] * 2 + inter) * 3 + outcome
        row = np.arange(u.size * M).reshape(u.size, M, 1) * 12
        X = np.bincount((row + cell).ravel(), weights=W.ravel(), minlength=u.size * M * 12)  # sum over j′
        mass += np.einsum("ujc,ujz->cz", X.reshape(u.size, M, 12), pz).reshape(2, 2, 3, n_levels).swapaxes(2, 3)
    mass /= mass.sum()
    n, acc = cell_statistics(mass)
    common = (n > 0).all(axis=1)
    summ = summary_statistics(acc, common)
    groups, levels = np.arange(2), np.arange(1, n_levels + 1)
    cells = grid_frame({"kind": KINDS, "group": groups, "z": levels}, probability=n, accuracy=acc)
    summary = pd.DataFrame({"kind": list(KINDS), "accuracy_0": summ[:, 0], "accuracy_1": summ[:, 1],
                            "ratio": summ[:, 2], "gap": summ[:, 3]})
    ex = _exposure_statistics(mass)
    exposure = grid_frame({"group": groups, "z": levels}, click_share=ex[..., 1], exposure=ex[..., 2])
    return PairsTruth(mass, cells, summary, exposure)


@validate_params(n_requests=Integer(1, 2**53), p_pair=Real(0, 1, closed="right"), n_relevant=OrNone(Integer(2)),
                 n_levels=Integer(1, MAX_LEVELS), truth=Boolean())
def simulate_pairs(world: TrafficWorld, *, n_requests: int = 100_000, p_pair: float = 0.05,
                   model_scores=None, n_relevant: int | None = None, position_bias=(1.0, 1.0),
                   n_levels: int = 2, rng=None, truth: bool = True) -> SimulatedPairs:
    """Serve requests on a simulated world and record the randomized pairs of Beutel et al.'s experiment
    (Sec. 3.4; serving model in the module docstring).

    Parameters
    ----------
    world : ocef.reo.simulate.TrafficWorld
        Two item groups 0 and 1.
    n_requests : int
        Requests served.
    p_pair : float
        Probability that a request is in the experimental slice.
    model_scores, n_relevant, position_bias, n_levels
        As in :func:`pairs_truth`.
    rng : None, int, SeedSequence or Generator
        Seeds the requests, pairs, clicks and engagements.
    truth : bool
        Also compute the exact accuracies.

    Returns
    -------
    SimulatedPairs

    Examples
    --------
    >>> from ocef.reo.simulate import make_traffic_world
    >>> from ocef.pairwise import pairwise_accuracy
    >>> sim = simulate_pairs(make_traffic_world(n_users=20, n_items=6, rng=0), n_requests=20_000, p_pair=0.5, rng=0)
    >>> estimate, truth = pairwise_accuracy(sim.pairs).summary(), sim.truth.summary()
    >>> estimate["accuracy_0"].round(2).tolist(), truth["accuracy_0"].round(2).tolist()
    ([0.8, 0.8, 0.8], [0.8, 0.8, 0.79])
    """
    scores, (t2, t3), n_levels = _check(world, model_scores, position_bias, n_levels)
    check_resources("n_requests", memory=8.0 * n_requests, what="one uniform draw per request")
    gen = as_generator(rng)
    R = relevant_sets(world, n_relevant)
    M = R.shape[1]
    exp = np.flatnonzero(gen.random(n_requests) < p_pair)                  # experimental requests
    k = exp.size
    user = gen.choice(world.n_users, size=k, p=world.user_weights)
    a = gen.integers(0, M, k)
    b = gen.integers(0, M - 1, k)
    b = b + (b >= a)                                                        # two distinct items of R_u
    first_at_2 = gen.random(k) < 0.5                                        # random order in positions 2, 3
    ia, ib = R[user, a], R[user, b]
    theta_a = np.where(first_at_2, t2, t3)
    theta_b = np.where(first_at_2, t3, t2)
    click_a = gen.random(k) < theta_a * world.preferences[user, ia]
    click_b = gen.random(k) < theta_b * world.preferences[user, ib]
    one = click_a ^ click_b
    j = np.where(click_a, ia, ib)[one]
    jp = np.where(click_a, ib, ia)[one]
    u = user[one]
    pos_j = np.where(click_a == first_at_2, 2, 3)[one]
    z = 1 + gen.binomial(n_levels - 1, world.preferences[u, j])
    pairs = pd.DataFrame({
        "query": exp[one].astype(np.int64), "user": u.astype(np.int64), "j": j.astype(np.int64),
        "jp": jp.astype(np.int64), "s_j": world.item_groups[j], "s_jp": world.item_groups[jp],
        "z": z.astype(np.int64), "score_j": scores[u, j], "score_jp": scores[u, jp], "position_j": pos_j,
    })
    tr = pairs_truth(world, model_scores=scores, n_relevant=n_relevant, position_bias=(t2, t3),
                     n_levels=n_levels) if truth else None
    return SimulatedPairs(pairs, tr, n_requests, int(k), int(one.sum()))
