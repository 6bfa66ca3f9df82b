"""Pairwise accuracies, their decomposition, exposure and rank positions (Beutel et al. 2019, Sec. 3-4).

Overall (eq. 1-2, Def. 1), intra-group (eq. 3, 5, Def. 2) and inter-group (eq. 4, 6, Def. 3)
pairwise accuracies on randomized pairs, ties counted ½ (Lemma 1), the exact decomposition of
eq. (7), the Sec. 6.1 summary and the Sec. 6.4 exposure. Intervals are cluster-robust Wilson
(default) or a clustered percentile bootstrap; the definitions, interval formulas and their
measured coverage are in docs/guide/pairwise.md ("Pairwise accuracy: definitions and intervals").
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
from ocef.validation import CONFIDENCE, Integer, Options, Rng, validate_params
from ocef._progress import PROGRESS

from ocef.pairwise.counts import BACKENDS, KINDS, PairCounts, grid_columns, grid_frame, pair_counts
from ocef.results import Result, column_records, jsonable, presents
from ocef.validation import as_generator, check_in_interval, check_positive_int
from ocef.errors import DataError, ParameterError

if TYPE_CHECKING:       # annotations only: pandas is imported where a DataFrame is built
    import pandas as pd

__all__ = ["PairwiseAccuracy", "pairwise_accuracy", "cell_statistics", "summary_statistics", "cell_intervals",
           "summary_intervals", "wilson_bounds", "INTERVALS", "min_percentile_resamples", "check_percentile_resamples",
           "decompose_accuracy", "exposure_table", "rank_positions", "position_decomposition",
           "bootstrap_counts", "bootstrap_counts_literal"]


INTERVALS = ("cluster-wilson", "percentile")

# --------------------------------------------------------------------------- pure count math


def _kind_counts(N: np.ndarray) -> np.ndarray:
    """(..., 2, 2, Z, 3) -> (..., 3 kinds, 2 groups, Z, 3 outcomes): overall = intra + inter."""
    intra, inter = N[..., 0, :, :], N[..., 1, :, :]
    return np.stack([intra + inter, intra, inter], axis=-4)


def cell_statistics(N: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs and pairwise accuracy per (kind, clicked group, engagement level) from pair counts.

    Kinds ``overall`` (eq. 1-2, Def. 1), ``intra`` (s_j = s_j′, eq. 3, 5, Def. 2) and ``inter``
    (s_j ≠ s_j′, eq. 4, 6, Def. 3); accuracy = (#wins + ½ #ties) / #pairs (Lemma 1); see
    docs/guide/pairwise.md. Vectorized over leading axes; expected counts work too.

    Parameters
    ----------
    N : array_like, shape (..., 2, 2, Z, 3)
        Counts N[s, t, z, o]: clicked group s, kind t (0 intra, 1 inter), level z, outcome o (0
        loss, 1 tie, 2 win), e.g. :attr:`PairCounts.total`.

    Returns
    -------
    n_pairs, accuracy : numpy.ndarray, shape (..., 3, 2, Z)
        Kinds in the order of :data:`KINDS`; accuracy NaN where a cell has no pair.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> cell_statistics(pair_counts(make_toy_pairs()).total)[1][:, :, 0].tolist()      # overall, intra, inter
    [[0.5, 0.625], [0.5, 0.75], [0.5, 0.5]]
    """
    K = _kind_counts(np.asarray(N, dtype=float))
    n = K.sum(axis=-1)
    wins = K[..., 2] + 0.5 * K[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n > 0, wins / np.where(n > 0, n, 1.0), np.nan)
    return n, acc


def summary_statistics(acc: np.ndarray, common: np.ndarray) -> np.ndarray:
    """Per kind, each group's accuracy averaged over engagement levels, their ratio and their gap (Sec. 6.1).

    Equal-weight means over the levels in ``common`` (Sec. 6.1's "simple average"), ratio =
    accuracy_0 / accuracy_1 (group 1 the subgroup), gap = their difference.

    Parameters
    ----------
    acc : array_like, shape (..., 3, 2, Z)
        :func:`cell_statistics`.
    common : array_like of bool, shape (3, Z)
        Per kind, the levels averaged (where both groups have pairs).

    Returns
    -------
    numpy.ndarray, shape (..., 3, 4)
        Per kind: ``(accuracy_0, accuracy_1, ratio, gap)``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> n, acc = cell_statistics(pair_counts(make_toy_pairs()).total)
    >>> summary_statistics(acc, (n > 0).all(axis=1)).round(4).tolist()[0]
    [0.5, 0.625, 0.8, -0.125]
    """
    w = common.astype(float)[:, None, :]                                  # (3, 1, Z)
    k = common.sum(axis=-1)[:, None]                                      # (3, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(k > 0, np.nansum(np.where(w > 0, acc, 0.0), axis=-1) / np.where(k > 0, k, 1), np.nan)
        # a replicate where a common level lost its pairs is undefined for that kind
        undefined = np.any((w > 0) & np.isnan(acc), axis=-1)
        mean = np.where(undefined, np.nan, mean)
        a0, a1 = mean[..., 0], mean[..., 1]
        ratio = a0 / a1
    return np.stack([a0, a1, ratio, a0 - a1], axis=-1)


def _exposure_statistics(N: np.ndarray) -> np.ndarray:
    """Inter-group ``(n_pairs, click share, exposure)`` per (group s, z); ties count ½."""
    inter = np.asarray(N, dtype=float)[..., 1, :, :]                    # (..., 2 clicked, Z, 3)
    n_s = inter.sum(axis=-1)                                             # (..., 2, Z)
    n = n_s.sum(axis=-2, keepdims=True)                                  # (..., 1, Z)
    above_if_clicked = inter[..., 2] + 0.5 * inter[..., 1]               # s item first, s clicked
    above_if_other = (inter[..., 0] + 0.5 * inter[..., 1])[..., ::-1, :]  # s item first, other clicked
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, n_s / np.where(n > 0, n, 1), np.nan)
        expo = np.where(n > 0, (above_if_clicked + above_if_other) / np.where(n > 0, n, 1), np.nan)
    return np.stack([np.broadcast_to(n, n_s.shape), share, expo], axis=-1)


# --------------------------------------------------------------------------- cluster-robust intervals


def _critical(confidence: float, df):
    """Student's t critical value at ``confidence`` (two-sided) on ``df`` degrees of freedom."""
    from ocef.inference import student_t

    return student_t.ppf(0.5 + confidence / 2.0, np.maximum(df, 1.0))


def wilson_bounds(p, n_eff, crit) -> tuple[np.ndarray, np.ndarray]:
    """Wilson (1927) score bounds of proportions with an elementwise critical value (as
    :func:`ocef.inference.wilson_interval`).

    Parameters
    ----------
    p : array_like of float
        Proportions (pairwise accuracies).
    n_eff : array_like of float
        Effective numbers of observations.
    crit : array_like of float
        E.g. 1.96, or a t quantile.

    Returns
    -------
    low, high : numpy.ndarray
        NaN where ``n_eff`` is 0 or NaN.

    Examples
    --------
    >>> [b.round(4).tolist() for b in wilson_bounds([0.5, 1.0], [20.0, 0.0], 1.96)]
    [[0.2993, nan], [0.7007, nan]]
    """
    p, n, z = (np.asarray(x, dtype=float) for x in (p, n_eff, crit))
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        ok = n > 0
        return (np.where(ok, np.clip(centre - half, 0.0, 1.0), np.nan),
                np.where(ok, np.clip(centre + half, 0.0, 1.0), np.nan))


def _cluster_parts(counts: PairCounts):
    """Per profile: pairs and wins per (kind, group, z), multiplicities, totals, accuracies, clusters."""
    n_p, acc_p = cell_statistics(counts.profiles)
    m = counts.multiplicity.astype(float)
    w_p = np.where(n_p > 0, np.nan_to_num(acc_p), 0.0) * n_p
    N, W = np.tensordot(m, n_p, axes=1), np.tensordot(m, w_p, axes=1)
    Qc = np.tensordot(m, (n_p > 0).astype(float), axes=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(N > 0, W / np.where(N > 0, N, 1.0), np.nan)
    return n_p, w_p, m, N, a, Qc


def cell_intervals(counts: PairCounts, *, confidence: float = 0.95) -> dict[str, np.ndarray]:
    """Cluster-robust Wilson intervals of every cell's accuracy (docs/guide/pairwise.md), (3, 2, Z).

    Parameters
    ----------
    counts : PairCounts
        :func:`ocef.pairwise.pair_counts`.
    confidence : float
        Two-sided level.

    Returns
    -------
    dict
        ``accuracy``, ``n_pairs``, ``n_clusters``, ``n_effective``, ``ci_low``, ``ci_high`` (NaN
        with fewer than 2 clusters).

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> int(cell_intervals(pair_counts(make_toy_pairs()))["n_clusters"][0, 0, 0])
    4
    """
    n_p, w_p, m, N, a, Qc = _cluster_parts(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        resid = w_p - np.nan_to_num(a)[None] * n_p
        V = np.tensordot(m, resid ** 2, axes=1) / N ** 2 * Qc / (Qc - 1)
        n_eff = np.where((V > 0) & (Qc >= 2), np.minimum(a * (1 - a) / V, N), N)
    low, high = wilson_bounds(a, np.where(Qc >= 2, n_eff, 0.0), _critical(confidence, Qc - 1))
    return {"accuracy": a, "n_pairs": N, "n_clusters": Qc, "n_effective": n_eff, "ci_low": low, "ci_high": high}


def summary_intervals(counts: PairCounts, common: np.ndarray, *, confidence: float = 0.95) -> dict[str, np.ndarray]:
    """Cluster-robust intervals and tests of the per-kind summary (Sec. 6.1) over the levels ``common``.

    Accuracies: cluster-robust Wilson intervals; gap and ratio: Newcombe's hybrid score (MOVER)
    intervals (Newcombe 1998), the ratio on log scale; ``p_value`` of "gap = 0": the level at which
    the gap interval starts to exclude 0. Formulas and measured coverage: docs/guide/pairwise.md.

    Parameters
    ----------
    counts : PairCounts
        Counts per cluster profile (:func:`ocef.pairwise.pair_counts`).
    common : array_like of bool, shape (3, Z)
        Per kind, the levels averaged.
    confidence : float
        Two-sided level.

    Returns
    -------
    dict of numpy.ndarray
        ``accuracy``, ``accuracy_ci_low``, ``accuracy_ci_high`` (3 kinds x 2 groups); ``gap``,
        ``gap_ci_low``, ``gap_ci_high``, ``ratio``, ``ratio_ci_low``, ``ratio_ci_high``,
        ``p_value``, ``n_clusters`` (3 kinds).

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> summary_intervals(pair_counts(make_toy_pairs()), np.ones((3, 1), bool))["gap"].tolist()
    [-0.125, -0.25, 0.0]
    """
    n_p, w_p, m, N, a, _ = _cluster_parts(counts)                        # (P, 3, 2, Z), (3, 2, Z)
    use = np.broadcast_to(common[:, None, :], a.shape)                   # (3, 2, Z)
    L = common.sum(axis=-1).astype(float)                                # (3,)
    with np.errstate(invalid="ignore", divide="ignore"):
        contrib = np.where(use[None], (w_p - np.nan_to_num(a)[None] * n_p) / np.where(N > 0, N, 1.0)[None], 0.0)
        infl = contrib.sum(axis=-1) / L[None, :, None]                   # (P, 3, 2)
        mean = np.where(use, np.nan_to_num(a), 0.0).sum(axis=-1) / L[:, None]
        mean = np.where(np.any(use & np.isnan(a), axis=-1), np.nan, mean)
        q = np.tensordot(m, (np.where(use[None], n_p, 0).sum(axis=(-1, -2)) > 0).astype(float), axes=1)   # (3,)
        corr = q / (q - 1)
        var_g = np.tensordot(m, infl ** 2, axes=1) * corr[:, None]       # (3, 2)
        n_used = np.where(use, N, 0.0).sum(axis=-1)                       # pairs in the averaged cells
        n_eff = np.where(var_g > 0, np.minimum(mean * (1 - mean) / var_g, n_used), n_used)
        n_eff = np.where(q[:, None] >= 2, n_eff, 0.0)
        gap = mean[:, 0] - mean[:, 1]
        ratio = mean[:, 0] / mean[:, 1]

        def at(level):
            """Wilson bounds of both groups, then Newcombe's (MOVER) gap and log-ratio bounds."""
            lo, hi = wilson_bounds(mean, n_eff, _critical(level, q - 1)[:, None])
            a0, a1, l0, l1, u0, u1 = mean[:, 0], mean[:, 1], lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]
            g_lo = gap - np.sqrt((a0 - l0) ** 2 + (u1 - a1) ** 2)
            g_hi = gap + np.sqrt((u0 - a0) ** 2 + (a1 - l1) ** 2)
            la0, la1, ll0, ll1, lu0, lu1 = (np.log(x) for x in (a0, a1, l0, l1, u0, u1))
            r_lo = np.exp(la0 - la1 - np.sqrt((la0 - ll0) ** 2 + (lu1 - la1) ** 2))
            r_hi = np.exp(la0 - la1 + np.sqrt((lu0 - la0) ** 2 + (la1 - ll1) ** 2))
            return lo, hi, g_lo, g_hi, r_lo, r_hi

        lo_g, hi_g, gap_lo, gap_hi, ratio_lo, ratio_hi = at(confidence)
        # p-value of gap = 0: the level at which the gap interval starts to exclude 0 (bisection)
        low_a, high_a = np.zeros(3), np.ones(3)
        for _ in range(40):
            mid = (low_a + high_a) / 2
            _, _, g_lo, g_hi, _, _ = at(np.clip(1 - mid, 1e-12, 1 - 1e-12))
            excludes = (g_lo > 0) | (g_hi < 0)
            high_a = np.where(excludes, mid, high_a)
            low_a = np.where(excludes, low_a, mid)
        p = np.where((q >= 2) & np.isfinite(gap), (low_a + high_a) / 2, np.nan)
    return {"accuracy": mean, "accuracy_ci_low": lo_g, "accuracy_ci_high": hi_g, "gap": gap, "gap_ci_low": gap_lo,
            "gap_ci_high": gap_hi, "ratio": ratio, "ratio_ci_low": ratio_lo, "ratio_ci_high": ratio_hi,
            "p_value": p, "n_clusters": q}


# --------------------------------------------------------------------------- bootstrap


def bootstrap_counts(counts: PairCounts, n_resamples: int, *, rng=None, chunk: int = 20_000_000,
                     progress=False) -> np.ndarray:
    """Replicate counts of the bootstrap clustered by ``counts.cluster`` (queries by default).

    A resample is a Multinomial(Q, m/Q) draw over the distinct cluster profiles (m their
    multiplicities), as :func:`bootstrap_counts_literal`'s; memory bounded by ``chunk``.

    Parameters
    ----------
    counts : PairCounts
        Counts per cluster profile (:func:`ocef.pairwise.pair_counts`).
    n_resamples : int
        Number of bootstrap resamples (>= 1).
    rng : None, int, SeedSequence or Generator
        Seeds the draws.
    chunk : int
        Largest number of draws held in memory at once.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    numpy.ndarray of int64, shape (n_resamples, 2, 2, Z, 3)

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> bootstrap_counts(pair_counts(make_toy_pairs()), 3, rng=0).sum(axis=(1, 2, 3, 4)).tolist()   # 8 pairs each
    [8, 8, 8]
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    gen = as_generator(rng)
    prof = counts.profiles.reshape(counts.profiles.shape[0], -1)
    m = counts.multiplicity
    Q = int(m.sum())
    out = np.empty((n_resamples, prof.shape[1]), dtype=np.int64)
    if Q == 0:
        out[:] = 0
        return out.reshape((n_resamples,) + counts.profiles.shape[1:])
    P = prof.shape[0]
    proff = prof.astype(float)                            # BLAS product; exact for counts < 2**53
    # few profiles: one multinomial over them; many: draw Q query indices (same distribution, and
    # the same draws as bootstrap_counts_literal: one (chunk, Q) call is those Q-draws in a row)
    by_index = P * 8 > Q
    profile_of_query = np.repeat(np.arange(P), m) if by_index else None
    step = max(1, chunk // max(Q if by_index else P, 1))
    from ocef._progress import progress_bar

    with progress_bar(progress, total=n_resamples, desc="bootstrap resamples", unit="resample") as bar:
        for b0 in range(0, n_resamples, step):                # chunks bound memory, not a per-draw loop
            b1 = min(n_resamples, b0 + step)
            if by_index:
                draws = profile_of_query[gen.integers(0, Q, (b1 - b0, Q))]
                draws += np.arange(b1 - b0)[:, None] * P                      # row b's profiles -> b·P + p
                W = np.bincount(draws.ravel(), minlength=(b1 - b0) * P).reshape(b1 - b0, P)
                del draws
            else:
                W = gen.multinomial(Q, m / Q, size=b1 - b0)
            out[b0:b1] = np.rint(W.astype(float) @ proff).astype(np.int64)
            bar.update(b1 - b0)
    return out.reshape((n_resamples,) + counts.profiles.shape[1:])


def bootstrap_counts_literal(counts: PairCounts, n_resamples: int, *, rng=None) -> np.ndarray:
    """The literal clustered bootstrap (a Python loop over resamples), to check :func:`bootstrap_counts`.

    Parameters
    ----------
    counts : PairCounts
        Counts per cluster profile.
    n_resamples : int
        Number of bootstrap resamples.
    rng : None, int, SeedSequence or Generator
        Seeds the draws.

    Returns
    -------
    numpy.ndarray of int64, shape (n_resamples, 2, 2, Z, 3)

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> from ocef.pairwise import pair_counts
    >>> counts = pair_counts(make_toy_pairs())
    >>> bool((bootstrap_counts_literal(counts, 3, rng=0) == bootstrap_counts(counts, 3, rng=0)).all())
    True
    """
    gen = as_generator(rng)
    prof = counts.profiles.reshape(counts.profiles.shape[0], -1)
    per_query = np.repeat(prof, counts.multiplicity, axis=0)
    Q = per_query.shape[0]
    out = np.stack([per_query[gen.integers(0, Q, Q)].sum(axis=0) for _ in range(n_resamples)])
    return out.reshape((n_resamples,) + counts.profiles.shape[1:])


#: Bootstrap resamples beyond each end of a percentile interval, at least.
TAIL_RESAMPLES = 5


def min_percentile_resamples(confidence: float) -> int:
    """Fewest resamples of a percentile interval at ``confidence``: ``TAIL_RESAMPLES`` (5) beyond each
    end, ``ceil(2 * 5 / (1 - confidence))`` (issue 28: one resample printed a one-point interval that
    excluded its estimate).

    Parameters
    ----------
    confidence : float
        Two-sided level in (0, 1).

    Returns
    -------
    int

    Examples
    --------
    >>> min_percentile_resamples(0.95), min_percentile_resamples(0.9)
    (200, 100)
    """
    return int(math.ceil(round(2 * TAIL_RESAMPLES / (1.0 - confidence), 6)))


def check_percentile_resamples(n_resamples: int, confidence: float) -> None:
    """Refuse fewer than :func:`min_percentile_resamples` resamples (one-line ``ParameterError``).

    Parameters
    ----------
    n_resamples : int
        Bootstrap resamples asked for.
    confidence : float
        Two-sided level in (0, 1).

    Examples
    --------
    >>> check_percentile_resamples(200, 0.95)
    >>> check_percentile_resamples(1, 0.95)
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: n_resamples=1 is too few for a percentile interval at confidence 0.95: give at least 200 (5 resamples beyond each end), or 0 for no interval
    """
    need = min_percentile_resamples(confidence)
    if n_resamples < need:
        raise ParameterError(f"n_resamples={n_resamples} is too few for a percentile interval at confidence "
                             f"{confidence:g}: give at least {need} ({TAIL_RESAMPLES} resamples beyond each end), "
                             f"or 0 for no interval")


def _percentile(rep: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(rep, alpha, axis=0), np.nanquantile(rep, 1.0 - alpha, axis=0)


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class PairwiseAccuracy(Result):
    """Pairwise accuracies with intervals (Definitions 1-3, eq. 1-7, Sec. 6.1), made by :func:`pairwise_accuracy`.

    ``summary()``: one row per kind, both groups' accuracies averaged over the z levels both have
    (Sec. 6.1), gap, ratio (group 0 / group 1), intervals and the Holm-adjusted test of "gap = 0".
    The tables are kept as columns and made DataFrames when first read (``to_dict`` needs no pandas).

    Attributes
    ----------
    cell_columns, summary_columns : mapping of str to sequence
        The columns of ``cells`` and ``summary_table``.
    cells : pandas.DataFrame
        kind, group, z, n_pairs, n_clusters, accuracy, ci_low, ci_high, reason.
    summary_table : pandas.DataFrame
        kind, accuracy_0, accuracy_1, ratio, gap, their ``_ci_low`` / ``_ci_high``, p_value,
        p_adjusted, significant, n_levels, z_levels, z_levels_dropped, reason.
    group_names : tuple
        (group 0, group 1).
    z_levels : tuple
        The engagement levels, in order.
    n_pairs, n_queries : int
        Pairs and clusters counted.
    confidence : float
        Two-sided level of the intervals.
    n_resamples : int
        0 unless ``interval="percentile"``.
    counts : PairCounts
        The counts the result was computed from.
    interval : {"cluster-wilson", "percentile"}
        The interval method.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> pairwise_accuracy(make_toy_pairs()).summary()["accuracy_1"].tolist()
    [0.625, 0.75, 0.5]
    """

    cell_columns: Mapping[str, Any] = dataclasses.field(repr=False)
    summary_columns: Mapping[str, Any] = dataclasses.field(repr=False)
    group_names: tuple
    z_levels: tuple
    n_pairs: int
    n_queries: int
    confidence: float
    n_resamples: int
    counts: PairCounts = dataclasses.field(repr=False)
    interval: str = "cluster-wilson"

    @cached_property
    def cells(self) -> pd.DataFrame:
        """The per-cell table (see the class docstring)."""
        import pandas as pd

        return pd.DataFrame(self.cell_columns)

    @cached_property
    def summary_table(self) -> pd.DataFrame:
        """The per-kind table (see the class docstring); ``significant`` is a nullable boolean."""
        import pandas as pd

        return pd.DataFrame({name: pd.array(col, dtype="boolean") if name == "significant" else col
                             for name, col in self.summary_columns.items()})

    @presents
    def to_frame(self) -> pd.DataFrame:
        """The per-cell accuracies with their intervals (a copy of ``cells``).

        kind, group, z, n_pairs, n_clusters, accuracy, ci_low, ci_high, reason.
        """
        return self.cells.copy()

    def summary(self) -> pd.DataFrame:
        """Per kind: both groups' accuracies, gap, ratio, intervals, adjusted p-values and levels (Sec. 6.1).

        Returns
        -------
        pandas.DataFrame
            One row per kind (overall, intra, inter); columns as ``summary_table``.

        Examples
        --------
        >>> from ocef.datasets import make_toy_pairs
        >>> pairwise_accuracy(make_toy_pairs()).summary()[["kind", "gap", "gap_ci_low", "gap_ci_high", "p_adjusted"]].round(3)
              kind    gap  gap_ci_low  gap_ci_high  p_adjusted
        0  overall -0.125      -0.621        0.472         1.0
        1    intra -0.250      -0.774        0.555         1.0
        2    inter  0.000      -0.660        0.660         1.0
        """
        return self.summary_table.copy()

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group: ``group`` (name), ``index`` (0 or 1), ``n_pairs`` (as the clicked
        item), and its summary accuracy per kind with intervals (``overall``, ``overall_ci_low``, ...)."""
        import pandas as pd

        rows = []
        for g, name in enumerate(self.group_names):
            row = {"group": name, "index": g,
                   "n_pairs": int(self.cells[(self.cells.kind == "overall") & (self.cells.group == name)].n_pairs.sum())}
            for r in self.summary_table.itertuples(index=False):
                row[r.kind] = getattr(r, f"accuracy_{g}")
                row[f"{r.kind}_ci_low"] = getattr(r, f"accuracy_{g}_ci_low")
                row[f"{r.kind}_ci_high"] = getattr(r, f"accuracy_{g}_ci_high")
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def pairs(self) -> pd.DataFrame:
        """One row per kind: group 0 vs group 1, ``gap``/``ratio`` with intervals, ``p_value``,
        ``p_adjusted``, ``significant``."""
        cols = ["kind", "gap", "gap_ci_low", "gap_ci_high", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                "p_adjusted", "significant", "reason"]
        out = self.summary_table[cols].copy()
        out.insert(1, "group_0", self.group_names[0])
        out.insert(2, "group_1", self.group_names[1])
        return out

    @presents
    def to_dict(self) -> dict:
        """The cells, the summary and the settings as JSON-ready values (strict JSON: NaN becomes null).

        ``cells``, ``summary`` (lists of records), ``groups``, ``z_levels``, ``n_pairs``,
        ``n_queries``, ``confidence``, ``interval``, ``n_resamples``, ``cluster``, ``p_adjustment``.
        """
        return jsonable({"cells": column_records(self.cell_columns), "summary": column_records(self.summary_columns),
                         "groups": list(self.group_names), "z_levels": list(self.z_levels),
                         "n_pairs": self.n_pairs, "n_queries": self.n_queries,
                         "confidence": self.confidence, "interval": self.interval, "n_resamples": self.n_resamples,
                         "cluster": self.counts.cluster, "p_adjustment": "holm over the three kinds"})


def _as_counts(pairs, **kwargs) -> PairCounts:
    if isinstance(pairs, PairCounts):
        extra = [k for k, v in kwargs.items() if v is not None and k in ("scores", "subgroup", "z_levels")]
        if extra:
            raise ParameterError(f"{extra} apply to a pairs table, not to PairCounts")
        return pairs
    return pair_counts(pairs, **kwargs)


def _level_names(levels, mask) -> str:
    return ", ".join(str(z) for z, keep in zip(levels, mask) if keep)


@validate_params(n_resamples=Integer(0, 10**6),     # issue 23: 10**12 resamples tried 87 TiB
                 confidence=CONFIDENCE, interval=Options(*INTERVALS), rng=Rng(), backend=Options(*BACKENDS),
                 progress=PROGRESS)
def pairwise_accuracy(pairs, *, scores=None, subgroup=None, cluster: str = "query", interval: str = "cluster-wilson",
                      n_resamples: int = 200, confidence: float = 0.95, rng=None, backend: str = "auto", z_levels=None,
                      progress=False) -> PairwiseAccuracy:
    """Overall, intra- and inter-group pairwise accuracies per (clicked group, z) with intervals
    clustered by ``cluster``, and their per-kind summary (ratio, gap) with adjusted p-values.

    Parameters
    ----------
    pairs : DataFrame, path or PairCounts
        A pairs table (:mod:`ocef.pairwise.counts`) or its counts.
    scores, subgroup, cluster, z_levels
        As :func:`ocef.pairwise.pair_counts`; ``cluster``: the column whose values are independent
        units (queries, or users making many queries).
    interval : {"cluster-wilson", "percentile"}
        Cluster-robust Wilson intervals (docs/guide/pairwise.md; measured to cover in small cells),
        or the clustered bootstrap.
    n_resamples : int
        For ``"percentile"`` (0: no intervals), at least :func:`min_percentile_resamples`.
    confidence : float
        A gap is ``significant`` when its Holm-adjusted p-value is at most 1 − ``confidence``.
    rng : None, int, SeedSequence or Generator
        Seeds the bootstrap.
    backend : {"auto", "pandas", "duckdb"}
        How the pairs table is counted.
    progress : bool or "auto"
        A progress bar on stderr; never changes the result.

    Returns
    -------
    PairwiseAccuracy

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> pairwise_accuracy(make_toy_pairs()).summary()[["gap", "gap_ci_low", "gap_ci_high"]].round(3).values.tolist()[0]
    [-0.125, -0.621, 0.472]
    """
    rng = as_generator(rng)
    if interval == "percentile" and n_resamples:
        check_percentile_resamples(n_resamples, confidence)
    from ocef._progress import query_progress

    with query_progress(progress, "pairwise: counting the pairs"):       # a long DuckDB query's own bar
        counts = _as_counts(pairs, scores=scores, subgroup=subgroup, cluster=cluster,
                            backend=backend, z_levels=z_levels)
    N = counts.total
    n, acc = cell_statistics(N)
    # levels averaged: those where both groups have pairs, per kind (Sec. 6.1), stated in the summary
    common = (n > 0).all(axis=1)                                           # (3, Z)
    present = (n > 0).any(axis=1)                                          # some group has pairs there
    summ = summary_statistics(acc, common)                                 # (3, 4)
    ci = cell_intervals(counts, confidence=confidence)
    si = summary_intervals(counts, common, confidence=confidence)
    cell_reason = np.full(acc.shape, None, dtype=object)
    if interval == "cluster-wilson":
        lo, hi = ci["ci_low"], ci["ci_high"]
        slo = np.stack([si["accuracy_ci_low"][:, 0], si["accuracy_ci_low"][:, 1], si["ratio_ci_low"],
                        si["gap_ci_low"]], axis=1)
        shi = np.stack([si["accuracy_ci_high"][:, 0], si["accuracy_ci_high"][:, 1], si["ratio_ci_high"],
                        si["gap_ci_high"]], axis=1)
        few = (ci["n_pairs"] > 0) & (ci["n_clusters"] < 2)
        cell_reason[few] = "no valid interval: the cell's pairs come from a single cluster"
    elif n_resamples:
        rep = bootstrap_counts(counts, n_resamples, rng=rng, progress=progress)
        _, rep_acc = cell_statistics(rep)
        lo, hi = _percentile(rep_acc, confidence)
        slo, shi = _percentile(summary_statistics(rep_acc, common), confidence)
    else:
        lo = hi = np.full(acc.shape, np.nan)
        slo = shi = np.full(summ.shape, np.nan)
        cell_reason[:] = "no interval: n_resamples = 0"
    cell_reason[n == 0] = "undefined: no pairs in the cell"
    # issue 28: at confidence 0.9999999999999999 every interval end was null with no reason
    why = (f"no valid interval at confidence {confidence!r}: its critical value is not finite in double "
           f"precision (use a confidence of at most 1 - 1e-12)" if confidence > 1 - 1e-12 else
           f"no valid interval: the {interval} interval is not defined for this cell")
    unexplained = (n > 0) & ~(np.isfinite(lo) & np.isfinite(hi)) & np.equal(cell_reason, None)
    cell_reason[unexplained] = why
    cells = grid_columns({"kind": KINDS, "group": counts.group_names, "z": counts.z_levels},
                         n_pairs=n.astype(np.int64), n_clusters=ci["n_clusters"].astype(np.int64), accuracy=acc,
                         ci_low=lo, ci_high=hi, reason=cell_reason)
    from ocef.inference import holm_adjust

    p = si["p_value"] if interval == "cluster-wilson" else np.full(3, np.nan)
    p_adj = holm_adjust(p)
    reasons = []
    for kk in range(3):
        dropped = present[kk] & ~common[kk]
        notes = []
        if not common[kk].any():
            notes.append("undefined: no z level has pairs of both groups")
        if dropped.any():
            missing = [counts.group_names[g] for g in range(2) if (present[kk] & (n[kk, g] == 0)).any()]
            notes.append(f"z levels {_level_names(counts.z_levels, dropped)} dropped: no pairs of group "
                         f"{', '.join(map(str, missing))} there; the average is over the other levels only")
        ends = np.r_[slo[kk], shi[kk]]
        if common[kk].any() and not np.isfinite(ends).all() and not (interval != "cluster-wilson" and not n_resamples):
            notes.append(why)
        reasons.append("; ".join(notes) or None)
    summary = {
        "kind": list(KINDS), "accuracy_0": summ[:, 0], "accuracy_1": summ[:, 1],
        "ratio": summ[:, 2], "gap": summ[:, 3],
        "accuracy_0_ci_low": slo[:, 0], "accuracy_0_ci_high": shi[:, 0],
        "accuracy_1_ci_low": slo[:, 1], "accuracy_1_ci_high": shi[:, 1],
        "ratio_ci_low": slo[:, 2], "ratio_ci_high": shi[:, 2],
        "gap_ci_low": slo[:, 3], "gap_ci_high": shi[:, 3],
        "p_value": p, "p_adjusted": p_adj,
        "significant": np.where(np.isnan(p_adj), None, p_adj <= 1.0 - confidence),
        "n_levels": common.sum(axis=1),
        "z_levels": [_level_names(counts.z_levels, common[kk]) for kk in range(3)],
        "z_levels_dropped": [_level_names(counts.z_levels, present[kk] & ~common[kk]) for kk in range(3)],
        "reason": reasons,
    }
    return PairwiseAccuracy(cells, summary, counts.group_names, counts.z_levels, counts.n_pairs, counts.n_queries,
                            confidence, n_resamples if interval == "percentile" else 0, counts, interval)


def decompose_accuracy(pairs, **kwargs) -> pd.DataFrame:
    """Eq. (7): the overall accuracy of each clicked group as a weighted sum of its intra- and inter-group accuracies.

    P(c | y_j > y_j′, s_j = s̃, z̃) = Σ_{s̃′} P(s_j′ = s̃′ | s_j = s̃, z̃) · P(c | s_j = s̃, s_j′ = s̃′, z̃),
    exact for the empirical estimates (``recomposed`` equals ``overall``).

    Parameters
    ----------
    pairs : DataFrame, path or PairCounts
        A pairs table (:mod:`ocef.pairwise.counts`) or its counts.
    **kwargs
        How a table is read (:func:`ocef.pairwise.pair_counts`).

    Returns
    -------
    pandas.DataFrame
        One row per (group, z): n_pairs, weight_intra, accuracy_intra, weight_inter,
        accuracy_inter, overall, recomposed.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> decompose_accuracy(make_toy_pairs())[["overall", "recomposed"]].values.tolist()
    [[0.5, 0.5], [0.625, 0.625]]
    """
    counts = _as_counts(pairs, **kwargs)
    n, acc = cell_statistics(counts.total)                                # (3, 2, Z)
    with np.errstate(invalid="ignore", divide="ignore"):
        w_intra = np.where(n[0] > 0, n[1] / np.where(n[0] > 0, n[0], 1), np.nan)
        w_inter = np.where(n[0] > 0, n[2] / np.where(n[0] > 0, n[0], 1), np.nan)
    recomposed = (np.where(n[1] > 0, w_intra * np.nan_to_num(acc[1]), 0.0)
                  + np.where(n[2] > 0, w_inter * np.nan_to_num(acc[2]), 0.0))
    recomposed = np.where(n[0] > 0, recomposed, np.nan)
    return grid_frame({"group": counts.group_names, "z": counts.z_levels}, n_pairs=n[0].astype(np.int64),
                      weight_intra=w_intra, accuracy_intra=acc[1], weight_inter=w_inter, accuracy_inter=acc[2],
                      overall=acc[0], recomposed=recomposed)


def exposure_table(pairs, *, n_resamples: int = 200, confidence: float = 0.95, rng=None, **kwargs) -> pd.DataFrame:
    """Exposure of each group over inter-group pairs (Sec. 6.4, Fig. 4), with clustered bootstrap intervals.

    Per (group s, level z): ``click_share``, the share of inter-group pairs where the user clicked
    the group's item (Fig. 4a), and ``exposure`` = P(c_q(j, j′) | s_j = s, s_j′ = 1 − s, z), the
    share where the model ranks it first (ties ½).

    Parameters
    ----------
    pairs : DataFrame, path or PairCounts
        A pairs table or its counts.
    n_resamples : int
        :func:`bootstrap_counts`; 0: no intervals.
    confidence : float
        Two-sided level of the percentile intervals.
    rng : None, int, SeedSequence or Generator
        Seeds the bootstrap.
    **kwargs
        How a table is read (:func:`ocef.pairwise.pair_counts`).

    Returns
    -------
    pandas.DataFrame
        One row per (group, z): n_pairs, click_share and exposure with ``_ci_low`` / ``_ci_high``.

    Examples
    --------
    >>> from ocef.datasets import make_toy_pairs
    >>> exposure_table(make_toy_pairs(), n_resamples=0)["exposure"].tolist()
    [0.5, 0.5]
    """
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    counts = _as_counts(pairs, **kwargs)
    stats = _exposure_statistics(counts.total)                            # (2, Z, 3)
    if n_resamples:
        rep = _exposure_statistics(bootstrap_counts(counts, n_resamples, rng=rng))
        lo, hi = _percentile(rep, confidence)
    else:
        lo = hi = np.full(stats.shape, np.nan)
    return grid_frame({"group": counts.group_names, "z": counts.z_levels}, n_pairs=stats[..., 0].astype(np.int64),
                      click_share=stats[..., 1], click_share_ci_low=lo[..., 1], click_share_ci_high=hi[..., 1],
                      exposure=stats[..., 2], exposure_ci_low=lo[..., 2], exposure_ci_high=hi[..., 2])


# --------------------------------------------------------------------------- rank positions (Sec. 4.1)


def rank_positions(scores) -> np.ndarray:
    r"""Eq. (8): the position ℓ(j)_q = |R_q| − Σ_{j′ ∈ R_q \ j} 1[g_j > g_j′] of every item of every query.

    Position 1 is the top; tied items share the worse position (eq. 8 is strict); items outside
    R_q (NaN scores) have none.

    Parameters
    ----------
    scores : array_like of float, shape (queries, items) or (items,)
        g(f(q, v_j)); NaN marks an item not in R_q.

    Returns
    -------
    numpy.ndarray of float

    Raises
    ------
    ocef.errors.DataError
        If ``scores`` holds ±inf.

    Examples
    --------
    >>> rank_positions([[0.9, 0.5, 0.5, float("nan")]]).tolist()
    [[1.0, 3.0, 3.0, nan]]
    """
    g = np.asarray(scores, dtype=float)
    one = g.ndim == 1
    g = np.atleast_2d(g)
    if g.ndim != 2:
        raise ParameterError(f"scores must be a 1-d or 2-d array, got shape {np.shape(scores)}")
    from scipy.stats import rankdata           # lazily: scipy.stats is slow to import

    if np.isinf(g).any():
        raise DataError("scores must be finite (NaN marks an item outside R_q)")
    valid = ~np.isnan(g)
    size = valid.sum(axis=1, keepdims=True)
    # 1 + #items strictly below = the 'min' rank; items outside R_q sort last (+inf)
    below = rankdata(np.where(valid, g, np.inf), method="min", axis=1) - 1
    pos = np.where(valid, size - below, np.nan).astype(float)
    return pos[0] if one else pos


def position_decomposition(scores, item_groups) -> pd.DataFrame:
    """Sec. 4.1: each item's position as |R_q| minus its wins within its group and against the other group.

    ℓ(j)_q = |R_q| − #{j′: s_j′ = s_j}·P(c | same group) − #{j′: s_j′ ≠ s_j}·P(c | other group)
    (after Theorem 1, whose proof is off by one: ℓ = 1 for the top item, not 0).

    Parameters
    ----------
    scores : array_like of float, shape (queries, items) or (items,)
        NaN marks an item not in R_q.
    item_groups : array_like, shape (items,)
        Group of each item.

    Returns
    -------
    pandas.DataFrame
        One row per (query, item in R_q): query, item, group, position, n_same, acc_same,
        n_other, acc_other, recomposed (equal to position).

    Examples
    --------
    >>> position_decomposition([[0.9, 0.2, 0.5, 0.4]], ["a", "a", "b", "b"])["acc_other"].tolist()
    [1.0, 0.0, 0.5, 0.5]
    """
    import pandas as pd

    g = np.atleast_2d(np.asarray(scores, dtype=float))
    groups = np.asarray(item_groups)
    if groups.shape != (g.shape[1],):
        raise ParameterError(f"item_groups must have one entry per item ({g.shape[1]}), got shape {groups.shape}")
    valid = ~np.isnan(g)
    pos = np.atleast_2d(rank_positions(g))
    same = groups[:, None] == groups[None, :]
    np.fill_diagonal(same, False)
    other = groups[:, None] != groups[None, :]
    win = (g[:, :, None] > g[:, None, :]) & valid[:, None, :]            # (Q, j, j′)
    vj = valid[:, None, :]
    n_same = (same[None] & vj).sum(axis=2)
    n_other = (other[None] & vj).sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_same = (win & same[None]).sum(axis=2) / n_same
        acc_other = (win & other[None]).sum(axis=2) / n_other
    size = valid.sum(axis=1, keepdims=True)
    recomposed = size - np.nan_to_num(n_same * acc_same) - np.nan_to_num(n_other * acc_other)
    q, j = np.nonzero(valid)
    return pd.DataFrame({"query": q, "item": j, "group": groups[j], "position": pos[q, j],
                         "n_same": n_same[q, j], "acc_same": acc_same[q, j], "n_other": n_other[q, j],
                         "acc_other": acc_other[q, j], "recomposed": recomposed[q, j].astype(float)})
