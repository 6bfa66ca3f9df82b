"""Coverage of recommender_bias's overall and per-group intervals of the seed-004 item metrics
(Gini index, exposure entropy, average recommendation popularity) and of the per-group means, by
simulation with a known population (DESIGN.md, the statistical standard).

Regime "small groups": 40 items, two groups of 20 users, each user shown the top 10 of
scores = truth + noise, truth = item quality + a group shift on ~20% of the items + user noise.
Population values from 100,000 users per group (the plug-ins at that size). ARP counts exposures
over the sample's N users, so its population quantity at N is the expected ARP of N users,
1 + (N − 1)·θ, θ = ARP_pop / N_pop.

Full measurements (500 replicates, 200 resamples; also 10 groups of 30 users and 400 items) are
in /work/notes/stat-checks.md. Coverage is a Binomial(R, 0.95) proportion: asserted >= 0.95 − 2 SE,
except the Gini index, measured at 0.89-0.92 and labelled approximate in its ``reason``.
"""
import math

import numpy as np
import pytest

from ocef.metrics import recommender_bias
from ocef.metrics.bias import GINI_NO_INTERVAL

N_ITEMS, K = 40, 10
_r = np.random.default_rng(123)
QUALITY = _r.normal(0, 1, N_ITEMS)
SHIFTS = _r.normal(0, 0.5, (2, N_ITEMS)) * (_r.random((2, N_ITEMS)) < 0.2)


def draw(n, rng, n_items=N_ITEMS, quality=QUALITY, shifts=SHIFTS):
    truth = np.vstack([quality + shifts[g] + rng.normal(0, 1, (n, n_items)) for g in range(2)])
    noise = np.vstack([rng.normal(0, 1.0 + 0.1 * g, (n, n_items)) for g in range(2)])
    return truth + noise, truth, np.repeat(["g00", "g01"], n)


def rows(table):
    table = table[table.level != "pair"]
    return {(lv, g, m): i for i, (lv, g, m) in enumerate(zip(table.level, table.group, table.metric))}


@pytest.fixture(scope="module")
def population():
    s, t, labels = draw(100_000, np.random.default_rng(999))
    table = recommender_bias(s, t, groups=labels, reference="g00", k=K, n_resamples=0).table
    table = table[table.level != "pair"]
    truth = {(lv, g, m): v for lv, g, m, v in zip(table.level, table.group, table.metric, table.value)}
    return truth, len(labels)


@pytest.mark.slow
def test_item_metric_and_group_intervals_cover_with_20_users_per_group(population):
    truth, n_pop = population
    n_users, n_sets = 20, 200
    rng = np.random.default_rng(11)
    hits, counts = {}, {}
    for _ in range(n_sets):
        s, t, labels = draw(n_users, rng)
        table = recommender_bias(s, t, groups=labels, reference="g00", k=K, n_resamples=100, rng=rng).table
        table = table[table.level != "pair"]
        for lv, g, m, lo, hi, reason in zip(table.level, table.group, table.metric, table.ci_low, table.ci_high,
                                            table.reason):
            if m == "aggregate_diversity":
                assert np.isnan(lo) and reason.startswith("no valid interval")
                continue
            true = truth[(lv, g, m)]
            if m == "avg_recommendation_popularity":
                true = 1 + (2 * n_users - 1) * true / n_pop
            if m == "gini_index":   # never an interval: it under-covers (measured 0.89-0.92 before this rule)
                assert np.isnan(lo) and (reason == GINI_NO_INTERVAL or "Good-Turing" in reason)
                continue
            if np.isnan(lo):        # many exposures on items shown once (Good-Turing), or below the basic floor (30)
                assert m == "exposure_entropy" and ("Good-Turing" in reason or "measured floor" in reason)
            if np.isnan(lo):
                continue
            counts[(lv, m)] = counts.get((lv, m), 0) + 1
            hits[(lv, m)] = hits.get((lv, m), 0) + bool(lo <= true <= hi)
    coverage = {key: hits[key] / counts[key] for key in counts}
    assert min(counts.values()) >= 0.5 * n_sets, counts       # the rule nulls a minority of the intervals
    bound = 0.95 - 2 * math.sqrt(0.95 * 0.05 / n_sets)
    assert all(c >= bound for c in coverage.values()), (coverage, bound)


def test_gini_and_entropy_intervals_are_null_with_a_reason_when_many_items_are_unseen():
    """400 items, 100 users per group, top-10: ~3-7% of the exposures are on items shown once (the
    basic intervals covered 0.57-0.82 there); the intervals are null and the reason says why."""
    rng = np.random.default_rng(3)
    quality = rng.normal(0, 1, 400)
    s, t, labels = draw(100, rng, n_items=400, quality=quality, shifts=np.zeros((2, 400)))
    table = recommender_bias(s, t, groups=labels, reference="g00", k=K, n_resamples=50, rng=rng).table
    sub = table[table.level.isin(["overall", "group"]) & table.metric.isin(["gini_index", "exposure_entropy"])]
    assert len(sub) == 6
    assert sub.ci_low.isna().all() and sub.ci_high.isna().all()
    assert sub.reason.str.startswith("no valid interval:").all()
    assert sub.reason.str.contains("Good-Turing").all()
    # ARP and the group means keep their intervals there (measured 0.93-0.95)
    keep = table[table.level.isin(["overall", "group"]) & table.metric.isin(["avg_recommendation_popularity",
                                                                             "mean_score"])]
    assert keep.ci_low.notna().all()
