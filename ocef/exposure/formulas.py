"""Position-aware exposure fairness of rankings: browsing models, expected exposure, shares and
their disparity to a target, AWRF, NDKL and exposure/merit ratios.

Provider side: the exposure an *item group* receives from the users' rankings. Consumer side:
the same quantities, or any per-user metric, compared across *user groups*
(:mod:`ocef.exposure.frame`). The small pure functions below define each formula once, on the
rankings of one user (or a few): the numpy reference of every metric computed over a whole log
(:mod:`ocef.exposure.statistics`, :mod:`ocef.exposure.ranking_metrics`); the weights of the browsing
models are those of :class:`ocef.exposure.browsing.BrowsingModel`.

Conventions follow the reference code named in /work/shared/specs/exposure-metrics.md (positions
``k`` are 1-based, ``i = k - 1``):

- browsing models (:func:`position_weights`): ``"geometric"`` (RBP) ``e_k = p^(k-1)`` with
  patience ``p`` (Moffat & Zobel 2008, as diazf/expeval ``rbp``: no ``(1 - p)`` factor, which
  cancels in every share); ``"dcg"`` (logarithmic) ``e_k = 1 / log2(k + 1)`` (Singh & Joachims
  2018, Fair-PGRank's ``position_bias_vector``); ``"cascade"`` (gERR, Chapelle et al. 2009, as
  expeval ``gerr``) ``e_k = p^(k-1) (1 - u)^(r_k)``, ``r_k`` the number of relevant items (y > 0)
  above position k in the same ranking and ``u`` the stop probability.
- expected exposure (Diaz et al., CIKM 2020, Eq. 1-4): ``ε_d`` = mean over the sampled rankings of
  the exposure of item d (0 where absent); target ``ε*`` = mean exposure of the positions of d's
  relevance level in an ideal ranking (ties share); EE-D = ‖ε‖², EE-R = ε·ε*, EE-L = ‖ε − ε*‖²
  (squared, unnormalised: expeval's ``-U``).
- AWRF (Sapiezynski et al. 2019, TREC Fair Ranking 2022 ``AWRFMetric.qr_awrf``): attention-weighted
  group distribution ``R`` vs a target ``T``, ``1 - JS(R, T)^2`` (Jensen-Shannon distance, natural
  log).
- NDKL (Geyik et al., KDD 2019, Eq. 6; FairRankTune ``NDKL``): ``(1/Z) Σ_i KL(D_{≤i} ‖ D*) /
  log2(i + 1)``.
- fairness of exposure (Singh & Joachims, KDD 2018, Sec. 4): demographic parity ratio, disparate
  treatment ratio and disparate impact ratio of two groups.

References
----------
F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega, B. Carterette, "Evaluating stochastic rankings
with expected exposure", CIKM 2020.
P. Sapiezynski, W. Zeng, R. E. Robertson, A. Mislove, C. Wilson, "Quantifying the impact of user
attention on fair group representation in ranked lists", WWW 2019 Companion.
S. C. Geyik, S. Ambler, K. Kenthapadi, "Fairness-aware ranking in search & recommendation systems
with application to LinkedIn talent search", KDD 2019.
A. Singh, T. Joachims, "Fairness of exposure in rankings", KDD 2018.
"""
from __future__ import annotations


import numpy as np

from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.exposure.browsing import BROWSING_MODELS, BrowsingModel

__all__ = [
    "BROWSING_MODELS", "position_weights", "cascade_weights", "expected_exposure", "target_exposure",
    "expected_exposure_metrics", "group_exposure", "exposure_shares", "share_disparity",
    "attention_weights_trec", "awrf", "awrf_rows", "ndkl", "ndkl_rows", "exposure_merit_ratios",
]

def _ranks(k) -> np.ndarray:
    ranks = np.asarray(k)
    if ranks.dtype == bool or not np.issubdtype(ranks.dtype, np.number):
        raise ParameterTypeError(f"ranks must be integers >= 1, got dtype {ranks.dtype}")
    if ranks.size and (np.any(ranks < 1) or np.any(ranks != np.floor(ranks))):
        raise DataError(f"ranks must be integers >= 1 (1 = top), got values down to {ranks.min()!r}")
    return ranks.astype(float)


# ------------------------------------------------------------------ browsing models

def position_weights(ranks, *, browsing: str = "geometric", patience: float = 0.5) -> np.ndarray:
    """Exposure of positions ``ranks`` (1-based) under a position-based browsing model.

    ``"geometric"`` (RBP): ``p^(k-1)``; ``"dcg"``: ``1 / log2(k + 1)``. The cascade model
    depends on the relevance above each position: :func:`cascade_weights`.

    Parameters
    ----------
    ranks : array_like of int
        Positions, 1 = top.
    browsing : {"geometric", "dcg"}
        Browsing model.
    patience : float, default 0.5
        Probability ``p`` of going on to the next position (geometric), in (0, 1).

    Returns
    -------
    numpy.ndarray
        Exposure of each position, same shape as ``ranks``.

    Examples
    --------
    >>> position_weights([1, 2, 3], browsing="geometric", patience=0.5).tolist()
    [1.0, 0.5, 0.25]
    >>> position_weights([1, 3], browsing="dcg").round(4).tolist()
    [1.0, 0.5]
    """
    model = BrowsingModel(browsing, patience)
    if model.uses_relevance:
        raise ParameterError("browsing='cascade' depends on the relevance above each position: use cascade_weights")
    return model.weights(_ranks(ranks))


def cascade_weights(relevance_in_order, *, patience: float = 0.5, stop: float = 0.5) -> np.ndarray:
    """Exposure of the positions of one ranking under the cascade (gERR) model.

    ``e_k = p^(k-1) (1 - u)^(r_k)`` with ``r_k`` the number of items with relevance > 0 above
    position k (Chapelle et al. 2009, Sec. 7.2; diazf/expeval ``gerr``). Graded relevance never
    changes ``e_k``: any relevance > 0 stops the user with probability ``u``.

    Parameters
    ----------
    relevance_in_order : array_like of float
        Relevance of the items at positions 1, 2, ... of the ranking.
    patience : float, default 0.5
        ``p`` in (0, 1).
    stop : float, default 0.5
        ``u`` in [0, 1].

    Returns
    -------
    numpy.ndarray
        Exposure of each position.

    Examples
    --------
    >>> cascade_weights([1, 0, 1, 1], patience=0.5, stop=0.5).tolist()
    [1.0, 0.25, 0.125, 0.03125]
    """
    model = BrowsingModel("cascade", patience, stop)
    rel = np.asarray(relevance_in_order, dtype=float)
    if rel.ndim != 1 or np.isnan(rel).any():
        raise DataError("relevance_in_order must be a 1-d array of numbers without NaN")
    above = np.concatenate(([0.0], np.cumsum(rel > 0)[:-1])) if rel.size else rel
    return model.weights(np.arange(1, rel.size + 1), above)


def _ranking_weights(ranking, relevance, model: BrowsingModel) -> np.ndarray:
    if model.uses_relevance:
        return cascade_weights(relevance[ranking], patience=model.patience, stop=model.stop)
    return model.weights(np.arange(1, len(ranking) + 1))


# ------------------------------------------------------------------ expected exposure

def _check_rankings(rankings, n_items: int) -> list[np.ndarray]:
    if isinstance(rankings, np.ndarray) and rankings.ndim == 1:
        rankings = [rankings]
    out = []
    for r in rankings:
        r = np.asarray(r)
        if r.ndim != 1 or not np.issubdtype(r.dtype, np.integer):
            raise DataError("each ranking must be a 1-d array of item indices (integers)")
        if r.size and (r.min() < 0 or r.max() >= n_items):
            raise DataError(f"item indices must lie in [0, {n_items - 1}], got {r.min()}..{r.max()}")
        if np.unique(r).size != r.size:
            raise DataError("an item appears twice in one ranking")
        out.append(r)
    if not out:
        raise DataError("rankings is empty: give at least one ranking")
    return out


def expected_exposure(rankings, relevance, *, browsing: str = "geometric", patience: float = 0.5,
                      stop: float = 0.5) -> np.ndarray:
    """Expected exposure ``ε_d`` of every item over a user's sampled rankings (Diaz et al. 2020, Eq. 2).

    ``ε_d = (1/S) Σ_s e(pos_s(d))``, S the number of rankings; an item absent from a ranking gets
    0 there (diazf/expeval ``exposure.expected``).

    Parameters
    ----------
    rankings : sequence of array_like of int
        The S rankings (each a 1-d array of item indices, best first); a single 1-d array is one ranking.
    relevance : array_like of float
        Relevance of every item (length = number of items); used by the cascade model only.
    browsing : {"geometric", "dcg", "cascade"}
        Browsing model (:func:`position_weights`, :func:`cascade_weights`).
    patience, stop : float
        Parameters of the browsing model.

    Returns
    -------
    numpy.ndarray
        ``ε`` over the items.

    Examples
    --------
    >>> rel = [1, 0, 1, 1]
    >>> expected_exposure([[0, 1, 2, 3], [2, 0, 3, 1]], rel).tolist()
    [0.75, 0.3125, 0.625, 0.1875]
    """
    model = BrowsingModel(browsing, patience, stop)
    rel = np.asarray(relevance, dtype=float)
    ranks = _check_rankings(rankings, rel.size)
    eps = np.zeros(rel.size)
    for r in ranks:
        np.add.at(eps, r, _ranking_weights(r, rel, model))
    return eps / len(ranks)


def target_exposure(relevance, *, browsing: str = "geometric", patience: float = 0.5,
                    stop: float = 0.5) -> np.ndarray:
    """Target exposure ``ε*`` of every item: the mean exposure of the positions its relevance level
    occupies in an ideal ranking, ties sharing equally (Diaz et al. 2020, Sec. 4; expeval ``exposure.target``).

    Levels are sorted decreasingly; a level with ``m`` items and ``b`` items strictly above gets
    the mean of the exposures of positions ``b+1 .. b+m`` of the ideal ranking
    (:meth:`ocef.exposure.browsing.BrowsingModel.weights`); in the cascade, a relevant item has
    every item above it relevant, an item of level <= 0 counts the ``b`` items above its level
    (expeval's formula; :meth:`~ocef.exposure.browsing.BrowsingModel.ideal_above`). Geometric:
    ``(p^b - p^(b+m)) / (m (1 - p))``; dcg: the mean of ``1 / log2(k + 1)``.

    Parameters
    ----------
    relevance : array_like of float
        Relevance of every candidate item (the complete judgments of the user).
    browsing : {"geometric", "dcg", "cascade"}
    patience, stop : float

    Returns
    -------
    numpy.ndarray
        ``ε*`` over the items.

    Examples
    --------
    >>> target_exposure([1, 0, 1, 1]).round(4).tolist()
    [0.5833, 0.125, 0.5833, 0.5833]
    """
    model = BrowsingModel(browsing, patience, stop)
    rel = np.asarray(relevance, dtype=float)
    if rel.ndim != 1 or np.isnan(rel).any():
        raise DataError("relevance must be a 1-d array of numbers without NaN")
    levels, counts = np.unique(rel, return_counts=True)
    out = np.empty(rel.size)
    b = 0
    for g, m in zip(levels[::-1], counts[::-1]):
        j = np.arange(b + 1, b + m + 1)
        out[rel == g] = float(np.mean(model.weights(j, model.ideal_above(j, np.full(m, g), b + 1))))
        b += m
    return out


def expected_exposure_metrics(exposure, target) -> dict[str, float]:
    """EE-D, EE-R and EE-L of one user (Diaz et al. 2020, Eq. 5-7; expeval ``metrics.py``, raw).

    ``disparity = ‖ε‖²`` (lower = exposure spread more equally), ``relevance = ε · ε*`` (higher =
    exposure where it is deserved), ``difference = ‖ε − ε*‖² = D − 2R + ‖ε*‖²`` (lower = closer to
    the target). Also works on group vectors (expeval ``-G``: :func:`group_exposure` of both).

    Parameters
    ----------
    exposure, target : array_like of float
        ``ε`` and ``ε*`` over the same items (or groups).

    Returns
    -------
    dict
        ``{"disparity", "relevance", "difference"}``.

    Examples
    --------
    >>> m = expected_exposure_metrics([0.75, 0.3125, 0.625, 0.1875], target_exposure([1, 0, 1, 1]))
    >>> {k: round(v, 6) for k, v in m.items()}
    {'disparity': 1.085938, 'relevance': 0.950521, 'difference': 0.221354}
    """
    e = np.asarray(exposure, dtype=float)
    t = np.asarray(target, dtype=float)
    if e.shape != t.shape:
        raise DataError(f"exposure and target must have the same shape, got {e.shape} and {t.shape}")
    return {"disparity": float(e @ e), "relevance": float(e @ t), "difference": float((e - t) @ (e - t))}


def group_exposure(exposure, groups) -> tuple[np.ndarray, np.ndarray]:
    """Exposure of each item group: ``E_g = Σ_{d ∈ g} ε_d`` (expeval ``group.exposure``).

    Parameters
    ----------
    exposure : array_like of float
        Exposure of each item.
    groups : array_like
        Group label of each item.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The sorted group labels and their exposure.

    Examples
    --------
    >>> labels, e = group_exposure([0.75, 0.3125, 0.625, 0.1875], ["A", "A", "B", "B"])
    >>> labels.tolist(), e.tolist()
    (['A', 'B'], [1.0625, 0.8125])
    """
    e = np.asarray(exposure, dtype=float)
    labels, codes = np.unique(np.asarray(groups), return_inverse=True)
    if codes.size != e.size:
        raise DataError(f"groups must give one label per item ({e.size}), got {codes.size}")
    return labels, np.bincount(codes, weights=e, minlength=labels.size)


def exposure_shares(group_totals) -> np.ndarray:
    """Shares ``E_g / Σ_h E_h`` of the total exposure received by each item group.

    The provider-side quantity compared with a target distribution by :func:`share_disparity` and
    :func:`exposure_fairness` (exposure-metrics spec, §4 and §6: pooled over users, a ratio of
    sums).

    Parameters
    ----------
    group_totals : array_like of float
        Exposure of each group, e.g. from :func:`group_exposure`.

    Returns
    -------
    numpy.ndarray
        The shares, summing to 1 (NaN everywhere when there is no exposure at all).

    Examples
    --------
    >>> exposure_shares([1.0625, 0.8125]).round(4).tolist()
    [0.5667, 0.4333]
    """
    e = np.asarray(group_totals, dtype=float)
    total = e.sum()
    return e / total if total > 0 else np.full(e.shape, np.nan)


def share_disparity(shares, target) -> dict[str, np.ndarray]:
    """Disparity of exposure shares to a target distribution: per group ``share - target`` and
    ``share / target`` (the exposure/merit ratio when the target is the merit share), and the
    total variation ``½ Σ |share - target|``.

    Parameters
    ----------
    shares, target : array_like of float
        Distributions over the same groups (the target: ``1/G`` each for equal exposure, or the
        merit shares for merit-proportional exposure).

    Returns
    -------
    dict
        ``{"difference", "ratio", "total_variation"}``.

    Examples
    --------
    >>> d = share_disparity([0.6, 0.4], [0.5, 0.5])
    >>> d["difference"].round(2).tolist(), d["ratio"].round(2).tolist(), round(float(d["total_variation"]), 2)
    ([0.1, -0.1], [1.2, 0.8], 0.1)
    """
    s = np.asarray(shares, dtype=float)
    t = np.asarray(target, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"difference": s - t, "ratio": s / t, "total_variation": 0.5 * np.abs(s - t).sum()}


# ------------------------------------------------------------------ AWRF, NDKL, Singh & Joachims

def attention_weights_trec(n: int) -> np.ndarray:
    """TREC Fair Ranking 2022 position weights ``w(k) = 1 / log2(max(k, 2))``, k = 1..n.

    As wptrec's ``discount`` (exposure-metrics spec, §1 "T22 variant" and §2): computed in float32
    and returned as float64, positions 1 and 2 both get 1. Used by :func:`awrf`.

    Parameters
    ----------
    n : int
        Length of the ranking.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        The weight of each position.

    Examples
    --------
    >>> attention_weights_trec(4).round(4).tolist()
    [1.0, 1.0, 0.6309, 0.5]
    """
    k = np.arange(1, int(n) + 1)
    return (1.0 / np.log2(np.maximum(k, 2))).astype(np.float32).astype(float)


def awrf(alignment, target, *, weights=None) -> float:
    """Attention-weighted rank fairness of one ranking (TREC Fair Ranking 2022, ``qr_awrf``).

    ``R_g = Σ_k w_k a(d_k, g) / Σ_k w_k``; ``AWRF = 1 - JS(R, T)²`` with JS the Jensen-Shannon
    distance in natural log (``scipy.spatial.distance.jensenshannon``, both inputs renormalised).
    Range ``[1 - ln 2, 1]``, 1 = the ranking's attention matches the target.

    Parameters
    ----------
    alignment : array_like of float, shape (n_positions, n_groups)
        Group membership (or fractional alignment) of the item at each position.
    target : array_like of float, shape (n_groups,)
        Target group distribution.
    weights : array_like of float, optional
        Attention of each position; default :func:`attention_weights_trec`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(awrf([[1, 0], [1, 0], [0, 1], [0, 1]], [1/3, 2/3]), 6)
    0.952555
    """
    a = np.asarray(alignment, dtype=float)
    t = np.asarray(target, dtype=float)
    if a.ndim != 2 or a.shape[1] != t.size:
        raise DataError(f"alignment must be (positions, groups) with {t.size} groups, got shape {a.shape}")
    return float(awrf_rows(a[None], t, weights=weights)[0])


def awrf_rows(alignment, target, *, weights=None) -> np.ndarray:
    """:func:`awrf` of many rankings of the same length at once (the one definition of the formula).

    Parameters
    ----------
    alignment : array_like of float, shape (n_rankings, n_positions, n_groups)
        Group membership of the item at each position of each ranking.
    target : array_like of float, shape (n_groups,)
    weights : array_like of float, shape (n_positions,), optional
        Attention of each position; default :func:`attention_weights_trec`.

    Returns
    -------
    numpy.ndarray of float, shape (n_rankings,)

    Examples
    --------
    >>> awrf_rows([[[1, 0], [1, 0], [0, 1], [0, 1]]], [1/3, 2/3]).round(6).tolist()
    [0.952555]
    """
    from scipy.spatial.distance import jensenshannon

    a = np.asarray(alignment, dtype=float)
    t = np.asarray(target, dtype=float)
    if a.ndim != 3 or a.shape[2] != t.size:
        raise DataError(f"alignment must be (rankings, positions, groups) with {t.size} groups, got shape {a.shape}")
    w = attention_weights_trec(a.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    r = np.einsum("p,npg->ng", w, a) / w.sum()
    return 1.0 - jensenshannon(r, np.broadcast_to(t, r.shape), axis=1) ** 2




def ndkl(groups_in_order, *, desired=None, eps: float = 1e-7) -> float:
    """Normalized discounted KL divergence of one ranking (Geyik et al. 2019, Eq. 6; FairRankTune ``NDKL``).

    ``NDKL = (1/Z) Σ_{i=1}^{n} KL(D_{≤i} ‖ D*) / log2(i + 1)``, ``Z = Σ_i 1/log2(i + 1)``,
    ``D_{≤i}`` the group proportions of the top-i prefix; KL in natural log with ``eps`` added to
    every entry (FairRankTune). ``desired`` default: the group distribution of the ranking itself
    (FairRankTune's choice); groups are those of the ranking (and of ``desired``'s keys).

    Parameters
    ----------
    groups_in_order : array_like
        Group label of the item at each position.
    desired : dict, optional
        ``{group: proportion}``.
    eps : float, default 1e-7

    Returns
    -------
    float
        0 = every prefix has the desired proportions.

    Examples
    --------
    >>> round(ndkl(["A", "A", "B", "B"]), 6)
    0.452368
    """
    g = np.asarray(groups_in_order)
    if g.ndim != 1 or g.size == 0:
        raise DataError("groups_in_order must be a non-empty 1-d array of labels")
    labels = sorted(set(g.tolist()) | (set(desired) if desired else set()), key=str)
    onehot = np.stack([(g == lab) for lab in labels], axis=1).astype(float)
    if desired is None:
        q = onehot.mean(axis=0)
    else:
        q = np.array([float(desired.get(lab, 0.0)) for lab in labels])
    return float(ndkl_rows(onehot[None], q, eps=eps)[0])


def ndkl_rows(onehot, desired, *, eps: float = 1e-7) -> np.ndarray:
    """:func:`ndkl` of many rankings of the same length at once (the one definition of Eq. 6).

    Parameters
    ----------
    onehot : array_like of float, shape (n_rankings, n_positions, n_groups)
        Group membership of the item at each position of each ranking.
    desired : array_like of float, shape (n_groups,)
        The desired distribution over the same groups.
    eps : float, default 1e-7

    Returns
    -------
    numpy.ndarray of float, shape (n_rankings,)

    Examples
    --------
    >>> ndkl_rows([[[1, 0], [1, 0], [0, 1], [0, 1]]], [0.5, 0.5]).round(6).tolist()
    [0.452368]
    """
    from scipy.special import rel_entr

    a = np.asarray(onehot, dtype=float)
    q = np.asarray(desired, dtype=float)
    if a.ndim != 3 or a.shape[2] != q.size:
        raise DataError(f"onehot must be (rankings, positions, groups) with {q.size} groups, got shape {a.shape}")
    n = a.shape[1]
    prefix = np.cumsum(a, axis=1) / np.arange(1, n + 1)[:, None]
    kl = rel_entr(prefix + eps, q + eps).sum(axis=2)
    disc = 1.0 / np.log2(np.arange(1, n + 1) + 1.0)
    return (kl * disc).sum(axis=1) / disc.sum()


def exposure_merit_ratios(exposure, merit, groups, group_a, group_b) -> dict[str, float]:
    """Singh & Joachims (2018) two-group ratios from item exposures and merits.

    ``Exposure(G) = mean_{d∈G} ε_d``, ``U(G) = mean_{d∈G} u_d``, ``CTR(G) = mean_{d∈G} u_d ε_d``;
    demographic parity ratio ``Exposure(a)/Exposure(b)`` (Eq. 4), disparate treatment ratio
    ``[Exposure(a)/U(a)] / [Exposure(b)/U(b)]`` (Eq. 6), disparate impact ratio
    ``[CTR(a)/U(a)] / [CTR(b)/U(b)]`` (Eq. 7); 1 = fair; NaN/inf when a group is empty or has no merit.

    Parameters
    ----------
    exposure, merit : array_like of float
        Exposure (e.g. :func:`expected_exposure` with ``browsing="dcg"``) and merit of each item.
    groups : array_like
        Group of each item.
    group_a, group_b
        The two groups compared.

    Returns
    -------
    dict
        ``{"dp_ratio", "dtr", "dir"}``.

    Examples
    --------
    >>> eps = expected_exposure([[0, 1, 2, 3], [2, 0, 3, 1]], [1, 0, 1, 1], browsing="dcg")
    >>> r = exposure_merit_ratios(eps, [1, 0, 1, 1], ["A", "A", "B", "B"], "A", "B")
    >>> {k: round(v, 6) for k, v in r.items()}
    {'dp_ratio': 1.107731, 'dtr': 2.215462, 'dir': 1.341955}
    """
    e = np.asarray(exposure, dtype=float)
    u = np.asarray(merit, dtype=float)
    g = np.asarray(groups)
    if not (e.shape == u.shape == g.shape):
        raise DataError(f"exposure, merit and groups must have one entry per item, got {e.shape}, {u.shape}, {g.shape}")
    stats = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, label in (("a", group_a), ("b", group_b)):
            m = g == label
            stats[name] = (e[m].mean() if m.any() else np.nan, u[m].mean() if m.any() else np.nan,
                           (u[m] * e[m]).mean() if m.any() else np.nan)
        (ea, ua, ca), (eb, ub, cb) = stats["a"], stats["b"]
        return {"dp_ratio": float(ea / eb), "dtr": float((ea / ua) / (eb / ub)),
                "dir": float((ca / ua) / (cb / ub))}
