"""False-positive rate of pairwise_accuracy's gap p-value (the one obtained by inverting the
Newcombe/MOVER gap interval) under a planted null of no gap (DESIGN.md, the statistical standard).

The null is a direct simulation of randomized pairs: Q queries with m pairs each; each pair's two
items fall in group 1 independently with probability ``share``; the audited model orders the pair
correctly with probability expit(logit(a_z) + u_q), a_z = 0.7 / 0.8 for engagement levels z = 1 / 2
and u_q ~ N(0, sd²) a query effect shared by the query's pairs (clustering). Correctness does not
depend on the items' groups, so every cell, every group's level-average and every gap (overall,
intra, inter) is exactly 0 in the population.

The rates are Binomial(R, alpha) proportions under a correct test; asserted
<= alpha + 2 sqrt(alpha (1 - alpha) / R). Full measurements (2,000 replicates per regime) are in
docs/guide/pairwise.md's notes and /work/notes/stat-checks.md.
"""
import math

import numpy as np
import pandas as pd
import pytest

from ocef.pairwise import pairwise_accuracy

ACC_Z = np.array([0.7, 0.8])
REGIMES = {  # queries, pairs per query, share of group 1, sd of the query effect (logit), replicates
    "small-cells": (30, 2, 0.5, 0.5, 300),      # ~7 pairs per (kind, group, z) cell
    "moderate": (300, 3, 0.3, 0.5, 200),
}


def null_pairs(n_queries, per_query, share, sd, rng):
    """Randomized pairs whose correctness does not depend on the items' groups (module doc)."""
    n = n_queries * per_query
    query = np.repeat(np.arange(n_queries), per_query)
    z = rng.integers(1, 3, n)
    logit = np.log(ACC_Z[z - 1] / (1 - ACC_Z[z - 1])) + rng.normal(0, sd, n_queries)[query]
    right = rng.random(n) < 1 / (1 + np.exp(-logit))
    base = rng.random(n)
    return pd.DataFrame({"query": query, "j": rng.integers(0, 50, n), "jp": rng.integers(50, 100, n),
                         "s_j": (rng.random(n) < share).astype(int), "s_jp": (rng.random(n) < share).astype(int),
                         "z": z, "score_j": np.where(right, base + 1, base), "score_jp": np.where(right, base, base + 1)})


@pytest.mark.slow
@pytest.mark.parametrize("regime", list(REGIMES))
def test_gap_p_value_false_positive_rate_under_no_gap(regime):
    n_queries, per_query, share, sd, n_sets = REGIMES[regime]
    rng = np.random.default_rng(2026)
    rejected, defined, any_significant = np.zeros(3), np.zeros(3), 0
    for _ in range(n_sets):
        summary = pairwise_accuracy(null_pairs(n_queries, per_query, share, sd, rng)).summary()
        p = summary.p_value.to_numpy(dtype=float)
        assert np.all(np.isnan(p) | ((p >= 0) & (p <= 1)))
        defined += ~np.isnan(p)
        rejected += np.nan_to_num(p, nan=1.0) <= 0.05
        any_significant += bool(summary.significant.fillna(False).any())
    assert defined.min() >= 0.9 * n_sets                    # the p-value exists in these regimes
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / n_sets)
    rates = rejected / defined
    assert rates.max() <= bound, (dict(zip(["overall", "intra", "inter"], rates)), bound)
    assert any_significant / n_sets <= bound                 # Holm over the three kinds


@pytest.mark.slow
def test_gap_p_value_rejects_a_planted_gap():
    """The same design with group 0's pairs ordered correctly more often (0.85 vs 0.65): the test
    that holds its level above also finds this gap in most replicates (so it is not vacuous)."""
    rng = np.random.default_rng(7)
    hits = 0
    n_sets = 40
    for _ in range(n_sets):
        pairs = null_pairs(300, 3, 0.5, 0.5, rng)
        n = len(pairs)
        right = np.where(pairs.s_j == 0, rng.random(n) < 0.85, rng.random(n) < 0.65)
        base = pairs.score_jp.clip(upper=1.0).to_numpy()
        pairs = pairs.assign(score_j=np.where(right, base + 1, base), score_jp=np.where(right, base, base + 1))
        s = pairwise_accuracy(pairs).summary().set_index("kind")
        hits += bool(s.p_value["overall"] <= 0.05 and s.gap["overall"] > 0)
    assert hits / n_sets >= 0.8, hits / n_sets
