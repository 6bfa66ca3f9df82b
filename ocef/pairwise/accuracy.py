"""Pairwise accuracies, their decomposition, exposure and rank positions (seed 003, Sec. 3-4).

Definitions, with c_q(j, j′) = 1[g(f(q, v_j)) > g(f(q, v_j′))] and ties counted ½ (Lemma 1's
"ties are split randomly"); every probability below is estimated on randomized pairs
(Sec. 3.4: j clicked, j′ not, z the engagement of the click):

* overall pairwise accuracy of group s̃ at z̃: P(c | y_j > y_j′, s_j = s̃, z_j = z̃)      (eq. 1-2, Def. 1)
* intra-group: the same restricted to s_j = s_j′                                       (eq. 3, 5, Def. 2)
* inter-group: the same restricted to s_j ≠ s_j′                                       (eq. 4, 6, Def. 3)
* eq. (7): overall = Σ_{s̃′} P(s_j′ = s̃′ | s_j = s̃, z̃) · accuracy(s̃, s̃′, z̃) — exact for the
  empirical estimates (:func:`decompose_accuracy`).
* summary (Sec. 6.1): per kind, each group's accuracies averaged over the z levels both groups
  have; ratio = accuracy_0 / accuracy_1 (group 1 is the subgroup), gap = accuracy_0 − accuracy_1.
* exposure (Sec. 6.4): Exposure_{s̃,z̃} = P(c_q(j, j′) | s_j = s̃, s_j′ = 1 − s̃, z̃) over inter-group
  pairs irrespective of the click, i.e. the share of inter pairs at z̃ where the model ranks the
  group-s̃ item first; beside it the click share (Fig. 4a, the users' preference). The seed
  writes the condition as z_{q,j′} = z̃; only the clicked item has an engagement, so z̃ is the
  pair's bucket (the clicked item's engagement), as in every other metric.

Intervals: bootstrap clustered by query (or any cluster column). Queries with the same count
profile are exchangeable, so resampling Q queries with replacement is exactly a
Multinomial(Q, m/Q) draw over the P distinct profiles (m = their multiplicities): replicate counts
are ``W @ profiles`` for a (B, P) weight matrix — no per-query loop, whatever the log size.
:func:`bootstrap_counts_literal` resamples queries one by one for comparison (tests: same
distribution). Percentile intervals at ``confidence``. A cell without pairs is NaN with
n_pairs 0; a replicate where a cell is empty is dropped for that cell.
"""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
from ocef.validation import Integer, validate_params
import pandas as pd

from ocef.pairwise.counts import KINDS, PairCounts, grid_frame, pair_counts
from ocef.results import Result, jsonable, records
from ocef.validation import as_generator, check_in_interval, check_positive_int

__all__ = ["PairwiseAccuracy", "pairwise_accuracy", "cell_statistics", "summary_statistics",
           "decompose_accuracy", "exposure_table", "rank_positions", "position_decomposition",
           "bootstrap_counts", "bootstrap_counts_literal"]


# --------------------------------------------------------------------------- pure count math


def _kind_counts(N: np.ndarray) -> np.ndarray:
    """(..., 2, 2, Z, 3) -> (..., 3 kinds, 2 groups, Z, 3 outcomes): overall = intra + inter."""
    intra, inter = N[..., 0, :, :], N[..., 1, :, :]
    return np.stack([intra + inter, intra, inter], axis=-4)


def cell_statistics(N: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(n_pairs, accuracy)`` per (kind, clicked group, z) from counts N (..., 2, 2, Z, 3).

    accuracy = (#wins + ½ #ties) / #pairs (eq. 1-6); NaN where a cell has no pair.
    Shapes: (..., 3, 2, Z)."""
    K = _kind_counts(np.asarray(N, dtype=float))
    n = K.sum(axis=-1)
    wins = K[..., 2] + 0.5 * K[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n > 0, wins / np.where(n > 0, n, 1.0), np.nan)
    return n, acc


def summary_statistics(acc: np.ndarray, common: np.ndarray) -> np.ndarray:
    """Per kind: ``(accuracy_0, accuracy_1, ratio, gap)`` (..., 3, 4) from cell accuracies
    (..., 3, 2, Z), averaged over the z levels in ``common`` (3, Z) boolean (Sec. 6.1)."""
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
    """Inter-group pairs per (group s, z): ``(n_pairs at z, click share of s, exposure of s)``
    (..., 2, Z, 3); exposure = (wins of s-clicked + losses of (1−s)-clicked, ties ½) / n."""
    inter = np.asarray(N, dtype=float)[..., 1, :, :]                    # (..., 2 clicked, Z, 3)
    n_s = inter.sum(axis=-1)                                             # (..., 2, Z)
    n = n_s.sum(axis=-2, keepdims=True)                                  # (..., 1, Z)
    above_if_clicked = inter[..., 2] + 0.5 * inter[..., 1]               # s item first, s clicked
    above_if_other = (inter[..., 0] + 0.5 * inter[..., 1])[..., ::-1, :]  # s item first, other clicked
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, n_s / np.where(n > 0, n, 1), np.nan)
        expo = np.where(n > 0, (above_if_clicked + above_if_other) / np.where(n > 0, n, 1), np.nan)
    return np.stack([np.broadcast_to(n, n_s.shape), share, expo], axis=-1)


# --------------------------------------------------------------------------- bootstrap


def bootstrap_counts(counts: PairCounts, n_resamples: int, rng=None, *, chunk: int = 20_000_000) -> np.ndarray:
    """Replicate counts (B, 2, 2, Z, 3) of the bootstrap clustered by ``counts.cluster``:
    the Q clusters are resampled with replacement, i.e. Multinomial(Q, m/Q) over the distinct
    profiles (exact; see the module docstring)."""
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
    return out.reshape((n_resamples,) + counts.profiles.shape[1:])


def bootstrap_counts_literal(counts: PairCounts, n_resamples: int, rng=None) -> np.ndarray:
    """The literal clustered bootstrap: expand to one count vector per query, draw Q query
    indices with replacement and add their vectors (for checking :func:`bootstrap_counts`)."""
    gen = as_generator(rng)
    prof = counts.profiles.reshape(counts.profiles.shape[0], -1)
    per_query = np.repeat(prof, counts.multiplicity, axis=0)
    Q = per_query.shape[0]
    out = np.stack([per_query[gen.integers(0, Q, Q)].sum(axis=0) for _ in range(n_resamples)])
    return out.reshape((n_resamples,) + counts.profiles.shape[1:])


def _percentile(rep: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanquantile(rep, alpha, axis=0), np.nanquantile(rep, 1.0 - alpha, axis=0)


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class PairwiseAccuracy(Result):
    """Pairwise accuracies with clustered bootstrap intervals (Defs. 1-3, eq. 1-7).

    ``cells``: kind, group, z, n_pairs, accuracy, ci_low, ci_high (group = the clicked item's
    group name). ``summary``: kind, accuracy_0, accuracy_1, ratio, gap, their intervals and the
    number of z levels averaged (``n_levels``). ``groups``: (group 0, group 1); ratio = 0 / 1.
    """

    cells: pd.DataFrame
    summary: pd.DataFrame
    groups: tuple
    z_levels: tuple
    n_pairs: int
    n_queries: int
    confidence: float
    n_resamples: int
    counts: PairCounts = dataclasses.field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        return self.cells.copy()

    def to_dict(self) -> dict:
        return jsonable({"cells": records(self.cells), "summary": records(self.summary),
                         "groups": list(self.groups), "z_levels": list(self.z_levels),
                         "n_pairs": self.n_pairs, "n_queries": self.n_queries,
                         "confidence": self.confidence, "n_resamples": self.n_resamples,
                         "cluster": self.counts.cluster})


def _as_counts(pairs, **kwargs) -> PairCounts:
    if isinstance(pairs, PairCounts):
        extra = [k for k, v in kwargs.items() if v is not None and k in ("scores", "subgroup", "z_levels")]
        if extra:
            raise ValueError(f"{extra} apply to a pairs table, not to PairCounts")
        return pairs
    return pair_counts(pairs, **kwargs)


@validate_params(n_resamples=Integer(0, 10**6))     # issue 23: 10**12 resamples tried 87 TiB
def pairwise_accuracy(pairs, *, scores=None, subgroup=None, cluster: str = "query", n_resamples: int = 200,
                      confidence: float = 0.95, rng=None, engine: str = "auto", z_levels=None) -> PairwiseAccuracy:
    """Overall, intra- and inter-group pairwise accuracies per (clicked group, z) with bootstrap
    intervals clustered by ``cluster``, and their per-kind summary (ratio, gap).

    ``pairs``: a pairs table (DataFrame or file; see :mod:`ocef.pairwise.counts`) or
    :class:`PairCounts`. ``n_resamples`` = 0 gives no intervals (NaN).
    """
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=0)
    counts = _as_counts(pairs, scores=scores, subgroup=subgroup, cluster=cluster, engine=engine, z_levels=z_levels)
    N = counts.total
    n, acc = cell_statistics(N)
    # levels averaged: those where both groups have pairs, per kind (Sec. 6.1)
    common = (n > 0).all(axis=1)                                           # (3, Z)
    summ = summary_statistics(acc, common)                                  # (3, 4)
    if n_resamples:
        rep = bootstrap_counts(counts, n_resamples, rng)
        _, rep_acc = cell_statistics(rep)
        lo, hi = _percentile(rep_acc, confidence)
        slo, shi = _percentile(summary_statistics(rep_acc, common), confidence)
    else:
        lo = hi = np.full(acc.shape, np.nan)
        slo = shi = np.full(summ.shape, np.nan)
    cells = grid_frame({"kind": KINDS, "group": counts.groups, "z": counts.z_levels},
                       n_pairs=n.astype(np.int64), accuracy=acc, ci_low=lo, ci_high=hi)
    summary = pd.DataFrame({
        "kind": list(KINDS), "accuracy_0": summ[:, 0], "accuracy_1": summ[:, 1],
        "ratio": summ[:, 2], "gap": summ[:, 3],
        "accuracy_0_ci_low": slo[:, 0], "accuracy_0_ci_high": shi[:, 0],
        "accuracy_1_ci_low": slo[:, 1], "accuracy_1_ci_high": shi[:, 1],
        "ratio_ci_low": slo[:, 2], "ratio_ci_high": shi[:, 2],
        "gap_ci_low": slo[:, 3], "gap_ci_high": shi[:, 3],
        "n_levels": common.sum(axis=1),
    })
    return PairwiseAccuracy(cells, summary, counts.groups, counts.z_levels, counts.n_pairs, counts.n_queries,
                            confidence, n_resamples, counts)


def decompose_accuracy(pairs, **kwargs) -> pd.DataFrame:
    """Eq. (7): overall accuracy of clicked group s̃ at z̃ as Σ over s̃′ ∈ {s̃, 1 − s̃} of
    P(s_j′ = s̃′ | s_j = s̃, z̃) × accuracy(s̃, s̃′, z̃).

    Columns: group, z, n_pairs, weight_intra, accuracy_intra, weight_inter, accuracy_inter,
    overall, recomposed (= the weighted sum; equal to ``overall`` up to rounding). A term with
    weight 0 contributes 0 (its accuracy is NaN)."""
    counts = _as_counts(pairs, **kwargs)
    n, acc = cell_statistics(counts.total)                                # (3, 2, Z)
    with np.errstate(invalid="ignore", divide="ignore"):
        w_intra = np.where(n[0] > 0, n[1] / np.where(n[0] > 0, n[0], 1), np.nan)
        w_inter = np.where(n[0] > 0, n[2] / np.where(n[0] > 0, n[0], 1), np.nan)
    recomposed = (np.where(n[1] > 0, w_intra * np.nan_to_num(acc[1]), 0.0)
                  + np.where(n[2] > 0, w_inter * np.nan_to_num(acc[2]), 0.0))
    recomposed = np.where(n[0] > 0, recomposed, np.nan)
    return grid_frame({"group": counts.groups, "z": counts.z_levels}, n_pairs=n[0].astype(np.int64),
                      weight_intra=w_intra, accuracy_intra=acc[1], weight_inter=w_inter, accuracy_inter=acc[2],
                      overall=acc[0], recomposed=recomposed)


def exposure_table(pairs, *, n_resamples: int = 200, confidence: float = 0.95, rng=None, **kwargs) -> pd.DataFrame:
    """Sec. 6.4 / Fig. 4 over inter-group pairs, per (group, z): ``n_pairs`` (inter pairs at z),
    ``click_share`` (share where the user clicked the group's item: the users' preference, Fig.
    4a), ``exposure`` (share where the model ranks the group's item first, ties ½: Exposure_{s,z}),
    with clustered bootstrap intervals. The two groups' shares and exposures sum to 1 at each z."""
    confidence = check_in_interval("confidence", confidence, 0.0, 1.0, high_open=True)
    counts = _as_counts(pairs, **kwargs)
    stats = _exposure_statistics(counts.total)                            # (2, Z, 3)
    if n_resamples:
        rep = _exposure_statistics(bootstrap_counts(counts, n_resamples, rng))
        lo, hi = _percentile(rep, confidence)
    else:
        lo = hi = np.full(stats.shape, np.nan)
    return grid_frame({"group": counts.groups, "z": counts.z_levels}, n_pairs=stats[..., 0].astype(np.int64),
                      click_share=stats[..., 1], click_share_ci_low=lo[..., 1], click_share_ci_high=hi[..., 1],
                      exposure=stats[..., 2], exposure_ci_low=lo[..., 2], exposure_ci_high=hi[..., 2])


# --------------------------------------------------------------------------- rank positions (Sec. 4.1)


def rank_positions(scores) -> np.ndarray:
    """Eq. (8): ℓ(j)_q = |R_q| − Σ_{j′ ∈ R_q \\ j} 1[g_j > g_j′] for every item of every query.

    ``scores`` (queries, items): g(f(q, v_j)); NaN marks an item not in R_q (its position is
    NaN). 1 is the top; tied items share the worse position (strict comparison, as in eq. 8).
    A 1-d array is one query.
    """
    g = np.asarray(scores, dtype=float)
    one = g.ndim == 1
    g = np.atleast_2d(g)
    if g.ndim != 2:
        raise ValueError(f"scores must be a 1-d or 2-d array, got shape {np.shape(scores)}")
    from scipy.stats import rankdata           # lazily: scipy.stats is slow to import

    if np.isinf(g).any():
        raise ValueError("scores must be finite (NaN marks an item outside R_q)")
    valid = ~np.isnan(g)
    size = valid.sum(axis=1, keepdims=True)
    # 1 + #items strictly below = the 'min' rank; items outside R_q sort last (+inf)
    below = rankdata(np.where(valid, g, np.inf), method="min", axis=1) - 1
    pos = np.where(valid, size - below, np.nan).astype(float)
    return pos[0] if one else pos


def position_decomposition(scores, item_groups) -> pd.DataFrame:
    """Sec. 4.1: ℓ(j)_q = |R_q| − #{j′: s_j′ = s_j}·P(c | same group) − #{j′: s_j′ ≠ s_j}·P(c | other group),
    for every item in R_q. Columns: query, item, group, position, n_same, acc_same, n_other,
    acc_other, recomposed (equal to position). Note: Theorem 1's proof writes
    E[ℓ] = |R_q|(1 − PairwiseAccuracy_q(j)); with |R_q| − 1 comparisons the exact identity is
    ℓ(j)_q = |R_q| − (|R_q| − 1)·PairwiseAccuracy_q(j) (e.g. the top item: ℓ = 1, not 0); the
    theorem's conclusion (equal accuracies give equal expected positions) holds either way."""
    g = np.atleast_2d(np.asarray(scores, dtype=float))
    groups = np.asarray(item_groups)
    if groups.shape != (g.shape[1],):
        raise ValueError(f"item_groups must have one entry per item ({g.shape[1]}), got shape {groups.shape}")
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
