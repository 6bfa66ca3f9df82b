"""Recommender bias metrics of holisticai (item, equality-of-outcome and equality-of-opportunity
metrics), for two groups, with the numbers of ``holisticai`` 1.0.14 by default.

``scores`` is a users x items matrix (NaN = not scored, never shown), ``truth`` the same shape,
``group_a``/``group_b`` 0/1 membership vectors over the users; the recommendations are read by
:func:`exposure` (the ``k`` highest per user, else every score ``>= thresh``; a 0/1 matrix as is).
The formulas, holisticai's documented and computed forms, and where we depart from both:
``docs/guide/metrics.md`` ("Two groups, as holisticai computes them"). Options after the data are
keyword-only (holisticai's ``f(scores, top, thresh, normalize)`` is ``f(scores, k=top, ...)``).
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field
from typing import Callable
from ocef.errors import DataError, ParameterError, ParameterTypeError
from ocef.validation import Boolean, Options, OrNone, Real, validate_params

import numpy as np

from ocef.validation import fill_doc

__all__ = [
    "exposure", "min_max_normalize", "exposure_distribution", "gini", "entropy",
    "total_variation", "kl_divergence",
    "aggregate_diversity", "gini_index", "exposure_entropy", "avg_recommendation_popularity",
    "mad_score", "exposure_total_variation", "exposure_l1", "exposure_kl",
    "avg_precision_ratio", "avg_recall_ratio", "avg_f1_ratio",
    "recommender_rmse_ratio", "recommender_mae_ratio", "recommender_bias_metrics",
    "user_stats", "aggregate", "item_metrics", "pair_metrics", "UserStats", "TRUTH_METRICS",
    "GINI_CONVENTIONS", "RATIO_ORIENTATIONS", "DIFFERENCE_ORIENTATIONS", "REGISTRY", "BiasMetric", "LogPiece",
    "register", "entries",
]

GINI_CONVENTIONS = ("holisticai", "formula")
RATIO_ORIENTATIONS = ("a/b", "b/a")
DIFFERENCE_ORIENTATIONS = ("a-b", "b-a")
#: The declared constraints of the parameters that change a metric's value (one object each, shared by
#: every front door that takes the parameter and by the metric's :data:`REGISTRY` entry).
GINI_CONVENTION = Options(*GINI_CONVENTIONS)
RATIO_ORIENTATION = Options(*RATIO_ORIENTATIONS)
DIFFERENCE_ORIENTATION = Options(*DIFFERENCE_ORIENTATIONS)
#: The parameter blocks the metrics share (``%(name)s`` in their docstrings).
_BLOCKS = dict(
    groups="""
group_a, group_b : array_like of 0/1
    Membership of each user (not necessarily complementary).""",
    scores="""
scores : array_like
    Users x items; NaN = not scored, never shown.""",
    selection="""
k : int, optional
    List length: the ``k`` highest scores of each user are shown (ties: lower item index).
thresh : float, default 0.5
    Without ``k``: every score ``>= thresh`` is shown.
normalize : bool, default False
    Min-max scale the matrix first (holisticai's ``normalize``).""",
    truth="""
truth : array_like
    True relevance, the scores' shape (binarised with the same ``k``/``thresh``).""",
    orientation="""
orientation : {"a/b", "b/a"}
    holisticai's a / b (default) or holisticai's documented formula b / a.""",
    ratio="""
Returns
-------
float
    The ratio; x/0 = inf, 0/0 = nan.""",
)
#: The parameters of the three opportunity ratios, in their order.
_BLOCKS["opportunity"] = "\n".join(_BLOCKS[key].strip("\n") for key in ("groups", "scores", "truth", "selection",
                                                                       "orientation"))
_fill = fill_doc(**_BLOCKS)
#: Entries processed at a time by the row-block loops (bounded temporaries, cache-friendly).
_BLOCK = 1 << 20


# ------------------------------------------------------------------ checks

def check_scores(scores, name: str = "scores") -> np.ndarray:
    """A 2-d float matrix (users x items) with at least one scored (non-NaN) entry; NaN =
    not scored, ±inf refused."""
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ParameterTypeError(f"{name} must be a numeric users x items matrix, got {type(scores).__name__}") from None
    if arr.ndim != 2:
        raise ParameterError(f"{name} must be a 2-d array (users x items), got shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ParameterError(f"{name} must have at least one user and one item, got shape {arr.shape}")
    nan = np.isnan(arr)
    if nan.all():
        raise DataError(f"{name} holds no score: every entry is NaN")
    if np.isinf(arr).any():
        raise DataError(f"{name} must be finite or NaN (not scored), found ±inf")
    return arr


def check_truth(truth, shape: tuple[int, int]) -> np.ndarray:
    """The truth matrix: the same shape as the scores."""
    arr = check_scores(truth, "truth")
    if arr.shape != shape:
        raise ParameterError(f"truth must have the shape of scores {shape}, got {arr.shape}")
    return arr


def _check_two_valued_truth(t: np.ndarray) -> None:
    """Refuse a truth of 0 and one other value c != 1 (issue 28: a 0/2 truth was not binarised like a 0/1
    truth but ranked by ``k``, which made 0 entries relevant, or compared with ``thresh``)."""
    nz = t[(t != 0) & ~np.isnan(t)]
    if nz.size and nz.size < t.size and (nz == nz[0]).all():
        raise DataError(f"truth holds only 0 and {nz[0]:g}: a 0/1 truth is used as is, any other truth is graded "
                        f"and binarised by k or thresh (0 entries could become relevant); give the truth as 0/1 "
                        f"(e.g. truth > 0) or as graded relevance")


def check_selection(k, thresh, n_items: int) -> tuple[int | None, float | None]:
    """``k`` an integer in [1, n_items] (it takes precedence), else a finite ``thresh``."""
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise ParameterTypeError(f"k must be an integer in [1, {n_items}] (the number of items), got {k!r}")
        if not 1 <= k <= n_items:
            raise ParameterError(f"k must be an integer in [1, {n_items}] (the number of items), got {k!r}")
        return int(k), None
    if thresh is None:
        raise ParameterError("give k (items shown per user) or thresh (score at which an item is shown)")
    if isinstance(thresh, bool) or not isinstance(thresh, numbers.Real) or not np.isfinite(thresh):
        raise ParameterError(f"thresh must be a finite number, got {thresh!r}")
    return None, float(thresh)


def check_membership(group, n_users: int, name: str) -> np.ndarray:
    """A 0/1 (or boolean) membership vector over the users, with at least one member."""
    arr = np.asarray(group)
    if arr.ndim != 1 or arr.shape[0] != n_users:
        raise ParameterError(f"{name} must be a 0/1 vector with one entry per user (length {n_users}), "
                         f"got shape {arr.shape}")
    if arr.dtype != bool:
        if not np.issubdtype(arr.dtype, np.number) or not np.isin(arr, (0, 1)).all():
            raise ParameterError(f"{name} must hold only 0 and 1 (membership of each user)")
        arr = arr == 1
    if not arr.any():
        raise ParameterError(f"{name} is empty: it must contain at least one user")
    return arr


# ------------------------------------------------------------------ exposure

def _min_max(*arrays, name: str) -> tuple[float, float]:
    """(min, max − min) over the scored entries of ``arrays`` together; ValueError if constant."""
    low = min(float(np.nanmin(a)) for a in arrays)
    high = max(float(np.nanmax(a)) for a in arrays)
    if not high > low:
        raise ParameterError(f"normalize: cannot min-max normalise a constant matrix ({name}): every scored entry equals {low:g}")
    return low, high - low


def _scaled(block: np.ndarray, affine: tuple[float, float] | None) -> np.ndarray:
    return block if affine is None else (block - affine[0]) / affine[1]


def min_max_normalize(matrix, name: str = "scores") -> np.ndarray:
    """Min-max scale an array over all its entries: ``(x − min) / (max − min)``, NaN-aware.

    This is holisticai's ``normalize`` option of the holisticai metrics: one affine map for the whole
    matrix (not per user), so the order of every user's scores is kept and the scores land in
    [0, 1]. NaN entries (not scored) stay NaN and are ignored by the minimum and the maximum.

    Parameters
    ----------
    matrix : array_like of float
        Any shape, usually users x items; NaN = not scored.
    name : str, default "scores"
        The argument's name, used in the error message.

    Returns
    -------
    numpy.ndarray
        Float array of ``matrix``'s shape with values in [0, 1] (NaN kept).

    Raises
    ------
    ocef.errors.ParameterError
        If every scored entry has the same value (holisticai returns NaN everywhere then).

    Examples
    --------
    >>> min_max_normalize([[1.0, 3.0], [5.0, float("nan")]]).tolist()
    [[0.0, 0.5], [1.0, nan]]
    """
    arr = np.asarray(matrix, dtype=float)
    return _scaled(arr, _min_max(arr, name=name))


def _is_binary(arr: np.ndarray, affine: tuple[float, float] | None = None) -> bool:
    """Every scored entry (after the affine map) is 0 or 1, checked in row blocks. NaN (not
    scored / unknown) does not make a 0/1 matrix non-binary: it is neither shown nor relevant,
    whereas ranking the matrix by ``k`` would make 0 entries shown (or relevant)."""
    step = max(1, _BLOCK // max(arr.shape[1], 1))
    for lo in range(0, arr.shape[0], step):
        block = _scaled(arr[lo:lo + step], affine)
        if not ((block == 0) | (block == 1) | np.isnan(block)).all():
            return False
    return True


def _top_per_row(arr: np.ndarray, k: int) -> np.ndarray:
    """Boolean matrix of the ``k`` highest scores of each row (ties: lower index first; NaN never)."""
    n_rows, n_items = arr.shape
    out = np.empty(arr.shape, dtype=bool)
    step = max(1, _BLOCK // n_items)
    for lo in range(0, n_rows, step):                    # blocks of rows, vectorized inside
        block = arr[lo:lo + step]
        nan = np.isnan(block)
        filled = np.where(nan, -np.inf, block) if nan.any() else block
        kth = np.partition(filled, n_items - k, axis=1)[:, n_items - k:n_items - k + 1]  # k-th largest
        shown = filled > kth
        ties = filled == kth
        need = k - shown.sum(axis=1)
        excess = np.flatnonzero(ties.sum(axis=1) > need)
        shown |= ties
        if excess.size:                                  # more tied entries than places: lowest indices
            t = ties[excess]
            shown[excess] = (shown[excess] & ~t) | (t & (np.cumsum(t, axis=1) <= need[excess, None]))
        if nan.any():
            shown &= ~nan
        out[lo:lo + step] = shown
    return out


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def exposure(scores, *, k: int | None = None, thresh: float | None = 0.5, normalize: bool = False) -> np.ndarray:
    """0/1 exposure matrix (int8, users x items): which items are shown to which user.

    A matrix whose scored entries are only 0 and 1 (after ``normalize``; NaN cells become 0) is
    returned as is (``k`` ignored, as holisticai's ``mat_to_binary``); otherwise the ``k`` highest
    scores of each user (ties: lower item index first), or, when ``k`` is None, every score
    ``>= thresh``. NaN (not scored) is never shown, so a user with fewer than ``k`` scores sees
    them all.

    Parameters
    ----------
    scores : array_like
        Users x items; NaN = not scored.
    %(selection)s

    Returns
    -------
    numpy.ndarray
        int8 matrix of the scores' shape.

    Examples
    --------
    >>> exposure([[0.9, 0.1, 0.5], [0.2, 0.8, float("nan")]], k=1).tolist()
    [[1, 0, 0], [0, 1, 0]]
    """
    arr = check_scores(scores)
    k, thresh = check_selection(k, thresh, arr.shape[1])
    if normalize:
        arr = min_max_normalize(arr)
    return _binarize(arr, k, thresh)


def _binarize(arr: np.ndarray, k: int | None, thresh: float | None, binary: bool | None = None) -> np.ndarray:
    if _is_binary(arr) if binary is None else binary:
        return (arr == 1).astype(np.int8)           # NaN (not scored) is never shown
    if k is not None:
        return _top_per_row(arr, k).astype(np.int8)
    return (arr >= thresh).astype(np.int8)          # NaN >= thresh is False


# ------------------------------------------------------------------ distributions (last axis)

def exposure_distribution(counts) -> np.ndarray:
    """The exposure distribution ``item_dist`` of holisticai's bias metrics: exposure counts divided by their sum.

    ``item_dist_i`` = (number of times item i is recommended) / (number of recommendations), the
    distribution over the n items on which the item metrics (GINI, EDE) and the group comparisons
    (ETV, EKL) of holisticai's bias metrics are defined. Vectorized over leading axes (e.g. groups or bootstrap
    resamples); a row with no recommendation at all is undefined (NaN).

    Parameters
    ----------
    counts : array_like of float, shape (..., n_items)
        Exposure counts per item (last axis), e.g. ``exposure(scores, k=k).sum(axis=0)``.

    Returns
    -------
    numpy.ndarray, shape (..., n_items)
        Each row sums to 1 (NaN where its counts sum to 0).

    Examples
    --------
    >>> exposure_distribution([[2, 1, 1], [0, 0, 0]]).tolist()
    [[0.5, 0.25, 0.25], [nan, nan, nan]]
    """
    c = np.asarray(counts, dtype=float)
    total = c.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return c / total


@validate_params(convention=GINI_CONVENTION)
def gini(dist, convention: str = "holisticai") -> np.ndarray:
    """Gini index of distributions over the last axis (holisticai, GINI).

    holisticai's bias metrics defines ``GINI = Σ_i (2i − n − 1) item_dist_(i) / (n Σ_i item_dist_i)`` with the
    ``item_dist`` sorted ascending (i = 1..n): 0 when every item is recommended equally often.
    holisticai divides by ``n − 1`` instead of ``n`` (``convention="holisticai"``, the default), so
    that one item taking every recommendation gives exactly 1 (holisticai's documentation); with
    ``convention="formula"`` that extreme is ``(n − 1)/n``.

    Parameters
    ----------
    dist : array_like of float, shape (..., n_items)
        Exposure distributions (or counts: the index is scale-free) over the last axis.
    convention : {"holisticai", "formula"}, default "holisticai"
        Divide by ``n − 1`` (holisticai) or by ``n`` (holisticai's documented formula).

    Returns
    -------
    numpy.ndarray, shape (...)
        The Gini index of each distribution (NaN for an all-zero one).

    Raises
    ------
    ocef.errors.ParameterError
        If ``convention`` is not one of :data:`GINI_CONVENTIONS`.

    Examples
    --------
    >>> float(gini([0.5, 0.25, 0.25, 0.0])), float(gini([0.5, 0.25, 0.25, 0.0], convention="formula"))
    (0.5, 0.375)
    >>> float(gini([0.0, 0.0, 1.0])), float(gini([1 / 3, 1 / 3, 1 / 3]))
    (1.0, 0.0)
    """
    d = np.sort(np.asarray(dist, dtype=float), axis=-1)
    n = d.shape[-1]
    w = 2.0 * np.arange(1, n + 1) - n - 1
    denom = (n - 1) if convention == "holisticai" else n
    with np.errstate(invalid="ignore", divide="ignore"):
        return (d @ w) / (denom * d.sum(axis=-1))


def entropy(dist) -> np.ndarray:
    """Shannon entropy of distributions over the last axis (holisticai, EDE).

    ``EDE = −Σ_i item_dist_i ln item_dist_i`` in nats, with ``0 ln 0 = 0`` (``scipy.special.entr``):
    0 when one item takes every recommendation, ``ln n`` when the n items are recommended equally
    often. Vectorized over leading axes.

    Parameters
    ----------
    dist : array_like of float, shape (..., n_items)
        Exposure distributions (each summing to 1) over the last axis.

    Returns
    -------
    numpy.ndarray, shape (...)
        The entropy of each distribution, in nats.

    Examples
    --------
    >>> round(float(entropy([0.5, 0.25, 0.25, 0.0])), 4)        # 1.5 ln 2
    1.0397
    """
    from scipy.special import entr

    return entr(np.asarray(dist, dtype=float)).sum(axis=-1)


def total_variation(p, q) -> np.ndarray:
    """Total variation distance of two distributions over the last axis (holisticai, ETV).

    ``ETV = ½ Σ_i |p_i − q_i|``, in [0, 1]: 0 for equal distributions, 1 for disjoint supports.
    holisticai's bias metrics writes an extra factor ``× n`` that contradicts its own "the maximum value is 1";
    holisticai computes ``0.5 × mean|p − q| × n``, which is this distance, and so do we.

    Parameters
    ----------
    p, q : array_like of float, shape (..., n_items)
        Exposure distributions (broadcast against each other).

    Returns
    -------
    numpy.ndarray, shape (...)
        The distance of each pair of distributions.

    Examples
    --------
    >>> float(total_variation([0.5, 0.5, 0.0], [0.25, 0.25, 0.5]))
    0.5
    """
    return 0.5 * np.abs(np.asarray(p, dtype=float) - np.asarray(q, dtype=float)).sum(axis=-1)


def kl_divergence(p, q) -> np.ndarray:
    """Kullback-Leibler divergence of ``p`` from ``q`` over the last axis (holisticai, EKL).

    ``EKL = Σ_{i: p_i > 0} p_i ln(p_i / q_i)`` in nats (``scipy.special.rel_entr``): 0 for equal
    distributions, ``+inf`` when ``q_i = 0`` for an item with ``p_i > 0`` (the reference group is
    never shown an item the first group is shown). Not symmetric.

    Parameters
    ----------
    p, q : array_like of float, shape (..., n_items)
        Exposure distributions of group a (``p``) and of group b (``q``).

    Returns
    -------
    numpy.ndarray, shape (...)
        The divergence of each pair (possibly ``inf``).

    Examples
    --------
    >>> round(float(kl_divergence([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])), 4)     # ln 2
    0.6931
    >>> float(kl_divergence([0.25, 0.25, 0.5], [0.5, 0.5, 0.0]))
    inf
    """
    from scipy.special import rel_entr

    return rel_entr(np.asarray(p, dtype=float), np.asarray(q, dtype=float)).sum(axis=-1)


def ratio(a, b) -> np.ndarray:
    """a / b with x/0 = ±inf and 0/0 = nan (holisticai's numpy division), without warnings."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(a, dtype=float) / np.asarray(b, dtype=float)


# ------------------------------------------------------------------ per-user statistics

@dataclass(frozen=True)
class UserStats:
    """Per-user sufficient statistics of holisticai's metrics (made by :func:`user_stats`).

    Every metric of a group or of a bootstrap resample is a function of their weighted sums over
    users (:func:`aggregate`), with weights = membership or multiplicity. Arrays have one entry per
    user (``exposure``: one row per user); the truth statistics are None without a truth matrix
    (``has_truth`` is then False).

    Attributes
    ----------
    exposure : numpy.ndarray, shape (n_users, n_items)
        1.0 where the item is shown to the user, else 0.0.
    n_shown : numpy.ndarray
        Items shown to each user.
    score_sum, score_n : numpy.ndarray
        Sum and number of the user's scored (non-NaN) entries (the MAD ingredients).
    precision, recall, f1 : numpy.ndarray or None
        The user's precision, recall and F1 of the shown items against the binarised truth (0 when
        undefined, as holisticai).
    sq_err, abs_err, err_n : numpy.ndarray or None
        Sum of squared and of absolute errors of the scores against the truth, and the number of
        cells where both are defined (RMSE and MAE ingredients).

    Examples
    --------
    >>> st = user_stats(np.array([[0.9, 0.1], [0.2, 0.8]]), k=1)
    >>> st.n_shown.tolist(), st.score_sum.tolist(), st.has_truth
    ([1.0, 1.0], [1.0, 1.0], False)
    """

    exposure: np.ndarray
    n_shown: np.ndarray
    score_sum: np.ndarray
    score_n: np.ndarray
    precision: np.ndarray | None = None
    recall: np.ndarray | None = None
    f1: np.ndarray | None = None
    sq_err: np.ndarray | None = None
    abs_err: np.ndarray | None = None
    err_n: np.ndarray | None = None

    @property
    def has_truth(self) -> bool:
        return self.precision is not None


@_fill
def user_stats(scores, truth=None, *, k=None, thresh=0.5, normalize=False, order=None) -> UserStats:
    """Per-user sufficient statistics (:class:`UserStats`) of a score matrix and a truth matrix.

    Every holisticai metric of a group, or of a bootstrap resample of users, is a function of weighted
    sums over users of these statistics (:func:`aggregate`), computed once in row blocks of bounded
    memory. As holisticai: the exposure and MAD use the scores normalised alone; precision, recall and
    F1 the scores normalised jointly with the truth, against the truth binarised the same way; RMSE and
    MAE the jointly normalised matrices, where both are defined.

    Parameters
    ----------
    scores : array_like
        Users x items; NaN = not scored, never shown.
    truth : array_like, optional
        True relevance, the scores' shape; without it the truth statistics are None.
    %(selection)s
    order : array_like of int, optional
        A permutation of the users: the statistics are listed in that order.

    Returns
    -------
    UserStats
        One entry per user (``exposure`` one row per user).

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> user_stats(scores, truth, k=1).precision.tolist()       # only user 3's top item is relevant
    [0.0, 0.0, 0.0, 1.0]
    """
    s = check_scores(scores)
    k, thresh = check_selection(k, thresh, s.shape[1])
    t = None if truth is None else check_truth(truth, s.shape)
    n_users, n_items = s.shape
    alone = _min_max(s, name="scores") if normalize else None
    joint = _min_max(s, t, name="scores and truth (together)") if normalize and t is not None else None
    binary_alone = _is_binary(s, alone)
    binary_joint = binary_alone if joint is None else _is_binary(s, joint)
    binary_truth = None if t is None else _is_binary(t, joint)
    if t is not None and joint is None and not binary_truth:
        _check_two_valued_truth(t)
    e = np.empty((n_users, n_items))
    sums = np.zeros((9 if t is not None else 3, n_users))
    step = max(1, _BLOCK // n_items)
    for lo in range(0, n_users, step):               # blocks of rows: bounded temporaries
        rows = slice(lo, lo + step)
        src = rows if order is None else order[rows]
        sa = _scaled(s[src], alone)
        eb = _binarize(sa, k, thresh, binary_alone)
        e[rows] = eb
        scored = ~np.isnan(sa)
        sums[0, rows] = eb.sum(axis=1)
        sums[1, rows] = np.where(scored, sa, 0.0).sum(axis=1)
        sums[2, rows] = scored.sum(axis=1)
        if t is None:
            continue
        sj = sa if joint is None else _scaled(s[src], joint)
        tj = _scaled(t[src], joint)
        ej = eb if joint is None else _binarize(sj, k, thresh, binary_joint)
        rel = _binarize(tj, k, thresh, binary_truth)
        diff = sj - tj
        defined = ~np.isnan(diff)
        diff = np.where(defined, diff, 0.0)
        sums[3, rows] = (ej & rel).sum(axis=1)                    # true positives
        sums[4, rows] = ej.sum(axis=1)
        sums[5, rows] = rel.sum(axis=1)
        sums[6, rows] = (diff * diff).sum(axis=1)
        sums[7, rows] = np.abs(diff).sum(axis=1)
        sums[8, rows] = defined.sum(axis=1)                        # cells where both are defined
    fields = dict(exposure=e, n_shown=sums[0], score_sum=sums[1], score_n=sums[2])
    if t is None:
        return UserStats(**fields)
    tp, n_pred, n_true = sums[3], sums[4], sums[5]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_pred > 0, tp / n_pred, 0.0)
        recall = np.where(n_true > 0, tp / n_true, 0.0)
        f1 = np.where(n_pred + n_true > 0, 2.0 * tp / (n_pred + n_true), 0.0)
    fields.update(precision=precision, recall=recall, f1=f1, sq_err=sums[6], abs_err=sums[7], err_n=sums[8])
    return UserStats(**fields)


def aggregate(stats: UserStats, weights) -> dict[str, np.ndarray]:
    """Group values of holisticai's bias metrics from per-user statistics: weighted sums over the users.

    For every row of ``weights`` (0/1 membership of a group, or the multiplicities of a bootstrap
    resample) the sums of :class:`UserStats` give the group's exposure counts per item and the
    ingredients of the item metrics (:func:`item_metrics`), of MAD (mean score) and of the
    opportunity ratios (:func:`pair_metrics`). Averages over users count every user of the group
    (a user without a relevant or shown item contributes 0, as holisticai); RMSE and MAE are over
    the group's scored cells.

    Parameters
    ----------
    stats : UserStats
        Per-user statistics (:func:`user_stats`).
    weights : array_like of float, shape (..., n_users)
        One weight vector per group or resample.

    Returns
    -------
    dict of numpy.ndarray
        ``n_users`` (Σ w), ``counts`` (exposure count per item, (..., items)), ``pop`` (Σ_u w_u ·
        exposure_u / n_shown_u, (..., items)), ``n_active`` (weighted users shown at least one
        item), ``mean_score`` (mean of the scored entries); with a truth matrix also
        ``avg_precision``, ``avg_recall``, ``avg_f1`` (means over users), ``rmse`` and ``mae``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> groups = aggregate(user_stats(scores, truth, k=1), [a, b])
    >>> groups["counts"].tolist(), groups["avg_precision"].tolist()
    ([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]], [0.0, 0.5])
    """
    w = np.asarray(weights, dtype=float)
    n = w.sum(axis=-1)
    active = stats.n_shown > 0
    inv_shown = np.where(active, 1.0 / np.where(active, stats.n_shown, 1.0), 0.0)
    out = {"n_users": n, "counts": w @ stats.exposure, "pop": (w * inv_shown) @ stats.exposure,
           "n_active": w @ active.astype(float)}
    sums = {"n_users": n}              # the weighted sums of the statistics, the input of the group entries
    for f in dataclasses.fields(stats):
        if f.name != "exposure" and getattr(stats, f.name) is not None:
            sums[f.name] = w @ getattr(stats, f.name)
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in entries("group"):
            if stats.has_truth or "truth" not in m.needs:
                out[m.name] = m.kernel(sums)
    return out


def avg_popularity(pop, counts, n_active) -> np.ndarray:
    """ARP from :func:`aggregate`'s sums: Σ_u w_u (Σ_{i shown to u} c_i) / n_shown_u over the
    users shown something, divided by their number; ``counts`` c = exposure counts over all users."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.asarray(pop) * np.asarray(counts)).sum(axis=-1) / np.asarray(n_active)


def item_metrics(counts, pop, n_active, popularity=None, convention: str = "holisticai",
                 dist=None) -> dict[str, np.ndarray]:
    """holisticai's item metrics from :func:`aggregate`'s sums, vectorized over leading axes.

    Aggregate diversity ``|items shown| / |items|``; the Gini index (:func:`gini`) and the entropy
    (:func:`entropy`, EDE) of the exposure distribution; and the average recommendation popularity
    (ARP) as holisticai computes it: over the users shown at least one item, the mean of the mean
    ``popularity`` of the items they are shown (holisticai's ``(1/n) Σ item_dist`` is always ``1/n``).

    Parameters
    ----------
    counts : array_like of float, shape (..., n_items)
        Exposure counts per item of the users considered.
    pop : array_like of float, shape (..., n_items)
        :func:`aggregate`'s ``pop``: Σ over users of their exposure row divided by their list size.
    n_active : array_like of float, shape (...)
        Users (weighted) shown at least one item.
    popularity : array_like of float, shape (..., n_items), optional
        The popularity of each item for ARP: its exposure count over all users (default:
        ``counts``, right when the users considered are all users).
    convention : {"holisticai", "formula"}, default "holisticai"
        Gini convention (:func:`gini`).
    dist : array_like of float, optional
        ``exposure_distribution(counts)`` when already computed.

    Returns
    -------
    dict of numpy.ndarray
        ``aggregate_diversity``, ``gini_index``, ``exposure_entropy``,
        ``avg_recommendation_popularity``, each of shape (...).

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> s = aggregate(user_stats(make_toy_scores().scores, k=1), [1, 1, 1, 1])
    >>> {key: round(float(v), 4) for key, v in item_metrics(s["counts"], s["pop"], s["n_active"]).items()}
    {'aggregate_diversity': 1.0, 'gini_index': 0.25, 'exposure_entropy': 1.0397, 'avg_recommendation_popularity': 1.5}
    """
    c = np.asarray(counts, dtype=float)
    v = {"counts": c, "dist": exposure_distribution(c) if dist is None else dist, "pop": pop,
         "popularity": c if popularity is None else popularity, "n_active": n_active, "convention": convention}
    return {m.name: m.kernel(v) for m in entries("system")}


def pair_metrics(a: dict, b: dict) -> dict[str, np.ndarray]:
    """holisticai's comparisons of group a with group b from :func:`aggregate`'s group values.

    MAD ``= mean_score_a − mean_score_b`` (holisticai's orientation; holisticai's documentation writes b − a), ETV
    (:func:`total_variation`) and EKL(a ‖ b) (:func:`kl_divergence`) of the two exposure
    distributions, and with a truth matrix the ratios a / b of average precision, recall and F1
    (APR, the average recall ratio and AFR; holisticai's documentation writes b / a) and of RMSE and MAE (x/0 = inf,
    0/0 = NaN). Broadcast over leading axes (e.g. bootstrap resamples).

    Parameters
    ----------
    a, b : dict
        Group values as returned by :func:`aggregate` (one group each, or stacked resamples); an
        entry ``dist`` (the exposure distribution) is used when present instead of recomputing it
        from ``counts``.

    Returns
    -------
    dict of numpy.ndarray
        ``mad``, ``exposure_total_variation``, ``exposure_kl`` and, with a truth matrix,
        ``avg_precision_ratio``, ``avg_recall_ratio``, ``avg_f1_ratio``, ``rmse_ratio``, ``mae_ratio``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> s = aggregate(user_stats(scores, k=1), [a, b])
    >>> out = pair_metrics({key: v[0] for key, v in s.items()}, {key: v[1] for key, v in s.items()})
    >>> float(out["exposure_total_variation"]), float(out["exposure_kl"])
    (0.5, inf)
    """
    a, b = ({**g, "dist": g["dist"] if "dist" in g else exposure_distribution(g["counts"])} for g in (a, b))
    return {m.name: m.kernel(a, b) for m in entries("pair") if m.compares in a}


# ------------------------------------------------------------------ the registry: one entry per metric

@dataclass(frozen=True)
class LogPiece:
    """How :func:`ocef.metrics.seed004_from_log` computes a group value of :data:`REGISTRY` from a top-k log.

    Attributes
    ----------
    needs : tuple of str
        Roles of the log it needs (``"score"``, ``"relevance"``, ``"n_relevant"``).
    sql : dict
        Column -> SQL sum over the users of a user group, of the per-user columns of
        :func:`ocef.metrics.from_log.seed004_sql` (``_n`` items shown, ``_ss``/``_sn`` sum and number of
        the scores, ``_tp`` relevant items shown, ``_nr`` the user's ``n_relevant``).
    pandas : callable
        ``pandas(per_user) -> dict``: the same sums from the per-user frame (the pandas backend).
    value : callable
        ``value(row, n_users) -> float``: the group value from those sums.
    noun : str
        What the value is, in the ``reason`` when the log lacks a role.

    Examples
    --------
    >>> REGISTRY["avg_precision"].log.sql
    {'p_sum': 'sum(_tp / _n)'}
    """

    needs: tuple
    sql: dict
    pandas: Callable
    value: Callable
    noun: str = ""


@dataclass(frozen=True)
class BiasMetric:
    """One metric of seed 004 (holisticai's recommender bias metrics) in :data:`REGISTRY`.

    Attributes
    ----------
    name : str
        Its key in tables, JSON and dicts.
    kind : {"system", "group", "pair"}
        ``"system"``: an item metric of a set of users (all users, and each group);
        ``"group"``: a value of each group that a pair metric compares; ``"pair"``: group a relative
        to group b.
    formula : str
        Where it is defined: ``seed 004 eq. (n)`` numbers the displayed formulas of
        ``seeds/004`` in their order (MAD 1, ETV 2, EKL 3, APR 4, recall ratio 5, AFR 6, aggregate
        diversity 7, GINI 8, EDE 9, ARP 10), else holisticai 1.0.14's code.
    kernel : callable
        The numpy formula, vectorized over leading axes (groups, bootstrap resamples).
        ``"system"``: ``kernel(v)``, ``v`` a dict of ``counts``, ``dist``, ``pop``, ``popularity``,
        ``n_active``, ``convention`` (:func:`item_metrics`); ``"group"``: ``kernel(s)``, ``s`` the
        weighted sums of :class:`UserStats`' fields and ``n_users`` (:func:`aggregate`); ``"pair"``:
        ``kernel(a, b)`` of two groups' values (:func:`pair_metrics`).
    interval : str
        Its interval method in :func:`ocef.metrics.recommender_bias` with ``interval="auto"``
        (``"t"``, ``"t-log"``, ``"triangle"``, ``"basic-smoothed"``, ``"basic"``, ``"none"``).
    label : str
        holisticai's row name (:func:`recommender_bias_metrics`; empty for group values).
    unbiased : float or str
        The value of an unbiased system (``"-"``: none).
    metric_type : str
        holisticai's ``metric_type`` it belongs to (``"item_based"``, ``"equal_outcome"``,
        ``"equal_opportunity"``; empty for group values).
    compares : str or None
        Pair metrics: the group value they compare (``"dist"``: the exposure distribution).
    needs : tuple of str
        ``("truth",)`` when it needs a truth matrix.
    params : dict
        Parameters that change its value: name -> the declared constraint (the same object on every
        front door that takes it).
    log : LogPiece or None
        Group values: how :func:`ocef.metrics.seed004_from_log` gets it from a log (None: a log
        cannot give it, and the pair metrics comparing it are left out there). System metrics are
        functions of the log's exposure counts; pair metrics, of the group values.

    Examples
    --------
    >>> REGISTRY["exposure_total_variation"].formula, REGISTRY["exposure_total_variation"].interval
    ('seed 004 eq. (2)', 'triangle')
    """

    name: str
    kind: str
    formula: str
    kernel: Callable
    interval: str
    label: str = ""
    unbiased: object = "-"
    metric_type: str = ""
    compares: str | None = None
    needs: tuple = ()
    params: dict = field(default_factory=dict)
    log: LogPiece | None = None


#: name -> :class:`BiasMetric`, in the order of the tables. **Adding a metric is one entry here**
#: (docs/contributing.md, "Adding a metric").
REGISTRY: dict[str, BiasMetric] = {}


def register(metric: BiasMetric) -> BiasMetric:
    """Add a metric to :data:`REGISTRY` (its name must be new).

    Parameters
    ----------
    metric : BiasMetric

    Returns
    -------
    BiasMetric

    Examples
    --------
    >>> [m.name for m in entries("pair")][:3]
    ['mad', 'exposure_total_variation', 'exposure_kl']
    """
    if metric.name in REGISTRY:
        raise ParameterError(f"metric {metric.name!r} is registered twice")
    REGISTRY[metric.name] = metric
    return metric


def entries(kind: str) -> list[BiasMetric]:
    """The entries of :data:`REGISTRY` of one kind, in order.

    Parameters
    ----------
    kind : {"system", "group", "pair"}

    Returns
    -------
    list of BiasMetric

    Examples
    --------
    >>> [m.name for m in entries("system")]
    ['aggregate_diversity', 'gini_index', 'exposure_entropy', 'avg_recommendation_popularity']
    """
    return [m for m in REGISTRY.values() if m.kind == kind]


def _ratio_of(key):
    return lambda a, b: ratio(a[key], b[key])


def _where_positive(tp, nr):
    """tp / nr where nr > 0, else 0 (a user without a relevant item has recall 0, as holisticai)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(nr > 0, tp / nr, 0.0)


def _user_mean(key):
    """A group value that is a mean over users of a per-user statistic."""
    return lambda s: s[key] / s["n_users"]


# item metrics of a set of users (seed 004, "Item Metrics")
register(BiasMetric("aggregate_diversity", "system", "seed 004 eq. (7)", lambda v: (v["counts"] > 0).mean(axis=-1),
                    "none", "Aggregate Diversity", 1, "item_based"))
register(BiasMetric("gini_index", "system", "seed 004 eq. (8)", lambda v: gini(v["dist"], v["convention"]), "basic",
                    "GINI index", 0, "item_based", params={"gini_convention": GINI_CONVENTION}))
register(BiasMetric("exposure_entropy", "system", "seed 004 eq. (9)", lambda v: entropy(v["dist"]), "basic",
                    "Exposure Distribution Entropy", "-", "item_based"))
register(BiasMetric("avg_recommendation_popularity", "system", "seed 004 eq. (10), as holisticai computes it",
                    lambda v: avg_popularity(v["pop"], v["popularity"], v["n_active"]), "t",
                    "Average Recommendation Popularity", "-", "item_based"))
# the group values the pair metrics compare (weighted sums over users, :func:`aggregate`)
register(BiasMetric(
    "mean_score", "group", "seed 004 eq. (1): the group's mean predicted score",
    lambda s: s["score_sum"] / s["score_n"], "t",
    log=LogPiece(("score",), {"s_sum": "sum(_ss)", "s_n": "sum(_sn)"},
                 lambda pu: {"s_sum": float(pu["_ss"].sum()), "s_n": int(pu["_sn"].sum())},
                 lambda r, n: float(r["s_sum"]) / float(r["s_n"]) if r["s_n"] else math.nan, "the mean score")))
register(BiasMetric(
    "avg_precision", "group", "seed 004 eq. (4): AP_g, the mean precision over users", _user_mean("precision"),
    "t", needs=("truth",),
    log=LogPiece(("relevance",), {"p_sum": "sum(_tp / _n)"},
                 lambda pu: {"p_sum": float((pu["_tp"] / pu["_n"].astype(float)).sum())},
                 lambda r, n: float(r["p_sum"]) / n, "precision")))
register(BiasMetric(
    "avg_recall", "group", "seed 004 eq. (5): the mean recall over users", _user_mean("recall"), "t",
    needs=("truth",),
    log=LogPiece(("relevance", "n_relevant"),
                 {"r_sum": "sum(CASE WHEN _nr > 0 THEN _tp / _nr ELSE CAST(0 AS DOUBLE) END)"},
                 lambda pu: {"r_sum": float(_where_positive(pu["_tp"].to_numpy(), pu["_nr"].to_numpy()).sum())},
                 lambda r, n: float(r["r_sum"]) / n, "recall")))
register(BiasMetric(
    "avg_f1", "group", "seed 004 eq. (6): the mean F1 over users", _user_mean("f1"), "t", needs=("truth",),
    log=LogPiece(("relevance", "n_relevant"), {"f_sum": "sum(2 * _tp / (_n + _nr))"},     # _n >= 1: always defined
                 lambda pu: {"f_sum": float((2 * pu["_tp"].to_numpy() / (pu["_n"].to_numpy(dtype=float)
                                                                                 + pu["_nr"].to_numpy())).sum())},
                 lambda r, n: float(r["f_sum"]) / n, "F1")))
register(BiasMetric("rmse", "group", "holisticai 1.0.14: RMSE over the group's scored cells",
                    lambda s: np.sqrt(s["sq_err"] / s["err_n"]), "t", needs=("truth",)))
register(BiasMetric("mae", "group", "holisticai 1.0.14: MAE over the group's scored cells",
                    lambda s: s["abs_err"] / s["err_n"], "t", needs=("truth",)))
# comparisons of group a with group b (seed 004, "Equality of Outcome / Opportunity Metrics")
register(BiasMetric("mad", "pair", "seed 004 eq. (1), oriented a - b as holisticai computes it",
                    lambda a, b: np.asarray(a["mean_score"]) - np.asarray(b["mean_score"]), "t",
                    "Mean Absolute Deviation", 0, "equal_outcome", "mean_score"))
register(BiasMetric("exposure_total_variation", "pair", "seed 004 eq. (2)",
                    lambda a, b: total_variation(a["dist"], b["dist"]), "triangle", "Exposure Total Variation", 0,
                    "equal_outcome", "dist"))
register(BiasMetric("exposure_kl", "pair", "seed 004 eq. (3)", lambda a, b: kl_divergence(a["dist"], b["dist"]),
                    "basic-smoothed", "Exposure KL Divergence", 0, "equal_outcome", "dist"))
for _key, _label, _eq in (("avg_precision", "Average Precision Ratio", "seed 004 eq. (4)"),
                          ("avg_recall", "Average Recall Ratio", "seed 004 eq. (5)"),
                          ("avg_f1", "Average F1 Ratio", "seed 004 eq. (6)"),
                          ("rmse", "Recommender RMSE Ratio", "holisticai 1.0.14's recommender_rmse_ratio"),
                          ("mae", "Recommender MAE Ratio", "holisticai 1.0.14's recommender_mae_ratio")):
    register(BiasMetric(f"{_key}_ratio", "pair", f"{_eq}, oriented a / b as holisticai computes it",
                        _ratio_of(_key), "t-log", _label, 1, "equal_opportunity", _key, needs=("truth",)))
#: Group values that need a truth matrix (:func:`aggregate`); :func:`pair_metrics` gives their ``_ratio``.
TRUTH_METRICS = tuple(m.name for m in entries("group") if "truth" in m.needs)


# ------------------------------------------------------------------ item metrics (holisticai)

def _system_item_metrics(stats: UserStats, convention: str) -> dict[str, np.ndarray]:
    """The item metrics of all users together."""
    agg = aggregate(stats, np.ones(stats.exposure.shape[0]))
    return item_metrics(agg["counts"], agg["pop"], agg["n_active"], convention=convention)


def _overall(scores, k, thresh, normalize, convention: str = "holisticai") -> dict[str, np.ndarray]:
    return _system_item_metrics(user_stats(scores, None, k=k, thresh=thresh, normalize=normalize), convention)


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def aggregate_diversity(scores, *, k=None, thresh=0.5, normalize=False) -> float:
    """Aggregate diversity: |items shown| / |items| (holisticai).

    Parameters
    ----------
    %(scores)s
    %(selection)s

    Returns
    -------
    float
        Share of items shown to at least one user.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(aggregate_diversity(scores, k=1), 4)
    1.0
    """
    return float(_overall(scores, k, thresh, normalize)["aggregate_diversity"])


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean(), convention=GINI_CONVENTION)
@_fill
def gini_index(scores, *, k=None, thresh=0.5, normalize=False, convention: str = "holisticai") -> float:
    """Gini index of the item exposure distribution (holisticai GINI; ``convention`` see :func:`gini`).

    Parameters
    ----------
    %(scores)s
    %(selection)s
    convention : {"holisticai", "formula"}
        Divide by n − 1 (holisticai) or n (holisticai's documented formula).

    Returns
    -------
    float
        Gini index, 0 (equal exposure) to 1 (one item takes everything, holisticai's n − 1).

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(gini_index(scores, k=1), 4)
    0.25
    """
    return float(_overall(scores, k, thresh, normalize, convention)["gini_index"])


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def exposure_entropy(scores, *, k=None, thresh=0.5, normalize=False) -> float:
    """Entropy of the item exposure distribution (holisticai EDE): −Σ d ln d.

    Parameters
    ----------
    %(scores)s
    %(selection)s

    Returns
    -------
    float
        Entropy in nats.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(exposure_entropy(scores, k=1), 4)
    1.0397
    """
    return float(_overall(scores, k, thresh, normalize)["exposure_entropy"])


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def avg_recommendation_popularity(scores, *, k=None, thresh=0.5, normalize=False) -> float:
    """Average recommendation popularity (holisticai ARP, as holisticai: see the metrics guide).

    Parameters
    ----------
    %(scores)s
    %(selection)s

    Returns
    -------
    float
        Mean over users shown something of the mean number of users their items are shown to.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> avg_recommendation_popularity(scores, k=1)
    1.5
    """
    return float(_overall(scores, k, thresh, normalize)["avg_recommendation_popularity"])


# ------------------------------------------------------------------ two-group metrics (holisticai)

def _two_groups(group_a, group_b, stats: UserStats) -> tuple[dict, dict]:
    n_users = stats.exposure.shape[0]
    w = np.stack((check_membership(group_a, n_users, "group_a"), check_membership(group_b, n_users, "group_b")))
    agg = aggregate(stats, w)
    return {k: v[0] for k, v in agg.items()}, {k: v[1] for k, v in agg.items()}


def _pair(key, group_a, group_b, scores, truth, k, thresh, normalize, orientation) -> float:
    a, b = _two_groups(group_a, group_b, user_stats(scores, truth, k=k, thresh=thresh, normalize=normalize))
    first, second = (a, b) if orientation in ("a/b", "a-b") else (b, a)
    return float(pair_metrics(first, second)[key])


@validate_params(normalize=Boolean(), orientation=DIFFERENCE_ORIENTATION)
@_fill
def mad_score(group_a, group_b, scores, normalize: bool = False, orientation: str = "a-b") -> float:
    """MAD: mean score of group a − mean score of group b over their scored entries (holisticai).

    Parameters
    ----------
    %(groups)s
    %(scores)s
    normalize : bool, default False
        Min-max scale the scores first.
    orientation : {"a-b", "b-a"}
        holisticai's a − b (default) or holisticai's b − a.

    Returns
    -------
    float
        The difference of mean scores (``orientation="b-a"``: holisticai's documented formula b − a).

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(mad_score(a, b, scores), 4)
    0.0
    """
    return _pair("mad", group_a, group_b, scores, None, None, 0.5, normalize, orientation)


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def exposure_total_variation(group_a, group_b, scores, *, k=None, thresh=0.5, normalize=False) -> float:
    """ETV = ½ Σ_i |item_dist_a − item_dist_b| (holisticai, without the stray × n).

    Parameters
    ----------
    %(groups)s
    %(scores)s
    %(selection)s

    Returns
    -------
    float
        Total variation distance of the two exposure distributions, in [0, 1] (NaN if a group is shown nothing).

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> exposure_total_variation(a, b, scores, k=1)
    0.5
    """
    return _pair("exposure_total_variation", group_a, group_b, scores, None, k, thresh, normalize, "a/b")


#: holisticai's name of :func:`exposure_total_variation`.
exposure_l1 = exposure_total_variation


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean())
@_fill
def exposure_kl(group_a, group_b, scores, *, k=None, thresh=0.5, normalize=False) -> float:
    """EKL = Σ_i item_dist_a ln(item_dist_a / item_dist_b) (holisticai).

    Parameters
    ----------
    %(groups)s
    %(scores)s
    %(selection)s

    Returns
    -------
    float
        KL divergence; +inf if b is never shown an item that a is shown.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> exposure_kl(a, b, scores, k=1)
    inf
    """
    return _pair("exposure_kl", group_a, group_b, scores, None, k, thresh, normalize, "a/b")


def _opportunity_ratio(key, group_a, group_b, scores, truth, k, thresh, normalize, orientation) -> float:
    if truth is None:
        raise ParameterError(f"truth is required for {key}")
    return _pair(key, group_a, group_b, scores, truth, k, thresh, normalize, orientation)


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean(), orientation=RATIO_ORIENTATION)
@_fill
def avg_precision_ratio(group_a, group_b, scores, truth, *, k=None, thresh=0.5, normalize=False,
                        orientation: str = "a/b") -> float:
    """Average (over users) precision of group a / that of group b (holisticai; holisticai's b / a with ``orientation="b/a"``).

    Parameters
    ----------
    %(opportunity)s

    %(ratio)s

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> avg_precision_ratio(a, b, scores, truth, k=1)     # a's users never get their relevant item
    0.0
    """
    return _opportunity_ratio("avg_precision_ratio", group_a, group_b, scores, truth, k, thresh, normalize,
                              orientation)


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean(), orientation=RATIO_ORIENTATION)
@_fill
def avg_recall_ratio(group_a, group_b, scores, truth, *, k=None, thresh=0.5, normalize=False,
                     orientation: str = "a/b") -> float:
    """Average (over users) recall of group a / that of group b (holisticai; holisticai's b / a with ``orientation="b/a"``).

    Parameters
    ----------
    %(opportunity)s

    %(ratio)s

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> avg_recall_ratio(a, b, scores, truth, k=1)     # a's users never get their relevant item
    0.0
    """
    return _opportunity_ratio("avg_recall_ratio", group_a, group_b, scores, truth, k, thresh, normalize,
                              orientation)


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean(), orientation=RATIO_ORIENTATION)
@_fill
def avg_f1_ratio(group_a, group_b, scores, truth, *, k=None, thresh=0.5, normalize=False,
                 orientation: str = "a/b") -> float:
    """Average (over users) F1 of group a / that of group b (holisticai; holisticai's b / a with ``orientation="b/a"``).

    Parameters
    ----------
    %(opportunity)s

    %(ratio)s

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> avg_f1_ratio(a, b, scores, truth, k=1)     # a's users never get their relevant item
    0.0
    """
    return _opportunity_ratio("avg_f1_ratio", group_a, group_b, scores, truth, k, thresh, normalize, orientation)


@validate_params(normalize=Boolean(), orientation=RATIO_ORIENTATION)
@_fill
def recommender_rmse_ratio(group_a, group_b, scores, truth, normalize=False, orientation: str = "a/b") -> float:
    """RMSE of the scores against the truth over group a's scored cells / that of group b.

    Parameters
    ----------
    %(groups)s
    %(scores)s
    truth : array_like
        The scores' shape.
    normalize : bool, default False
        Min-max scale scores and truth together first.
    %(orientation)s

    %(ratio)s

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(recommender_rmse_ratio(a, b, scores, scores + 0.1), 4)
    1.0
    """
    return _opportunity_ratio("rmse_ratio", group_a, group_b, scores, truth, None, 0.5, normalize, orientation)


@validate_params(normalize=Boolean(), orientation=RATIO_ORIENTATION)
@_fill
def recommender_mae_ratio(group_a, group_b, scores, truth, normalize=False, orientation: str = "a/b") -> float:
    """MAE of the scores against the truth over group a's scored cells / that of group b.

    Parameters
    ----------
    %(groups)s
    %(scores)s
    truth : array_like
        The scores' shape.
    normalize : bool, default False
        Min-max scale scores and truth together first.
    %(orientation)s

    %(ratio)s

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> round(recommender_mae_ratio(a, b, scores, scores + 0.1), 4)
    1.0
    """
    return _opportunity_ratio("mae_ratio", group_a, group_b, scores, truth, None, 0.5, normalize, orientation)


#: holisticai's metric names, the key of each in :func:`ocef.metrics.recommender_bias`, and the
#: value of an unbiased system ("-": none): the labelled entries of :data:`REGISTRY`.
METRIC_NAMES = {m.label: (m.name, m.unbiased) for m in REGISTRY.values() if m.label}
METRIC_TYPES = ("all", "item_based", "equal_outcome", "equal_opportunity")


@validate_params(thresh=OrNone(Real(closed="neither")), normalize=Boolean(), metric_type=Options(*METRIC_TYPES),
                 gini_convention=GINI_CONVENTION)
@_fill
def recommender_bias_metrics(group_a=None, group_b=None, scores=None, truth=None, *, k=None, thresh=0.5,
                             normalize=False, metric_type: str = "equal_outcome",
                             gini_convention: str = "holisticai"):
    """holisticai's batch table of its metrics for two groups (point values, no intervals).

    The rows are holisticai's metric names with their value and that of an unbiased system
    (``Reference``): the item metrics always, the equality-of-outcome metrics (MAD, ETV, EKL) with both
    groups, the equality-of-opportunity ratios with ``truth`` too. For any number of groups, with
    intervals: :func:`ocef.metrics.recommender_bias`.

    Parameters
    ----------
    group_a, group_b : array_like of 0/1, optional
        Membership of each user (not necessarily complementary); both or neither.
    scores : array_like
        Users x items; NaN = not scored, never shown. Required.
    truth : array_like, optional
        True relevance, the scores' shape; adds the opportunity ratios.
    %(selection)s
    metric_type : {"equal_outcome", "item_based", "equal_opportunity", "all"}
        Which rows to return (holisticai's default ``"equal_outcome"``).
    gini_convention : {"holisticai", "formula"}, default "holisticai"
        The GINI row divided by ``n − 1`` or by ``n`` (:func:`gini`).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``Metric`` (holisticai's names), columns ``Value`` (float) and ``Reference``.

    Raises
    ------
    ocef.errors.ParameterError
        Without ``scores``; with one group only; with ``truth`` but no groups; an unknown
        ``metric_type`` or ``gini_convention``; as :func:`exposure` for bad matrices.

    Examples
    --------
    >>> from ocef.datasets import make_toy_scores
    >>> scores, truth, a, b = make_toy_scores()
    >>> recommender_bias_metrics(a, b, scores, k=1, metric_type="all").round(4)
                                        Value Reference
    Metric
    Aggregate Diversity                1.0000         1
    GINI index                         0.2500         0
    Exposure Distribution Entropy      1.0397         -
    Average Recommendation Popularity  1.5000         -
    Mean Absolute Deviation            0.0000         0
    Exposure Total Variation           0.5000         0
    Exposure KL Divergence                inf         0
    """
    import pandas as pd

    if scores is None:
        raise ParameterError("scores is required")
    if (group_a is None) != (group_b is None):
        raise ParameterError("give both group_a and group_b, or neither")
    if truth is not None and group_a is None:
        raise ParameterError("the opportunity ratios (truth given) need group_a and group_b")
    stats = user_stats(scores, truth, k=k, thresh=thresh, normalize=normalize)
    computed = _system_item_metrics(stats, gini_convention)
    if group_a is not None:
        computed.update(pair_metrics(*_two_groups(group_a, group_b, stats)))
    shown = [m for m in REGISTRY.values() if m.label and m.name in computed
             and metric_type in ("all", m.metric_type)]
    frame = pd.DataFrame({"Metric": [m.label for m in shown], "Value": [float(computed[m.name]) for m in shown],
                          "Reference": [m.unbiased for m in shown]})
    return frame.set_index("Metric")
