"""Coverage of recommender_bias's default intervals and the family-wise error rate of its
Holm-adjusted comparisons, by simulation with a known population (issue 20).

The regime: 40 items, each user shown the top 10 of scores = truth + noise, truth = item quality
(+ a group shift on 6 items for group "a") + user noise; group "a"'s scores are noisier. The
population values (exposure distributions, mean scores, average precisions) come from 100,000
users per group. Coverage is a Binomial(R, 0.95) proportion: asserted >= 0.95 - 2 SE.
"""
import math

import numpy as np
import pytest

from ocef.metrics import recommender_bias
from ocef.metrics.recommender import aggregate, exposure_distribution, kl_divergence, total_variation, user_stats

N_ITEMS, K = 40, 10
QUALITY = np.random.default_rng(123).normal(0, 1, N_ITEMS)
SHIFT = np.zeros(N_ITEMS)
SHIFT[:6] = np.random.default_rng(123).normal(0, 0.6, 6)


def draw(n, group, rng):
    truth = QUALITY + (SHIFT if group == "a" else 0.0) + rng.normal(0, 1, (n, N_ITEMS))
    scores = truth + rng.normal(0, 1.5 if group == "a" else 1.0, (n, N_ITEMS))
    return scores, truth


@pytest.fixture(scope="module")
def population():
    agg = {g: aggregate(user_stats(*draw(100_000, g, np.random.default_rng(i)), k=K, thresh=None), np.ones(100_000))
           for i, g in enumerate("ab")}
    pa, pb = (exposure_distribution(agg[g]["counts"]) for g in "ab")
    return {"exposure_total_variation": float(total_variation(pa, pb)), "exposure_kl": float(kl_divergence(pa, pb)),
            "mad": float(agg["a"]["mean_score"] - agg["b"]["mean_score"]),
            "avg_precision_ratio": float(agg["a"]["avg_precision"] / agg["b"]["avg_precision"])}


@pytest.mark.slow
@pytest.mark.parametrize("n_users,n_sets", [(30, 150), (100, 150), (400, 100)])
def test_default_intervals_cover_at_30_100_400_users_per_group(population, n_users, n_sets):
    rng = np.random.default_rng(n_users)
    labels = np.repeat(["a", "b"], n_users)
    hits = {m: 0 for m in population}
    finite_kl = 0
    for _ in range(n_sets):
        (sa, ta), (sb, tb) = draw(n_users, "a", rng), draw(n_users, "b", rng)
        res = recommender_bias(np.vstack([sa, sb]), np.vstack([ta, tb]), groups=labels, reference="b", k=K,
                               n_resamples=100, rng=rng)
        pair = res.table[res.table.level == "pair"].set_index("metric")
        for metric, true in population.items():
            hits[metric] += bool(pair.ci_low[metric] <= true <= pair.ci_high[metric])
            assert pair.ci_low[metric] <= pair.estimate[metric] <= pair.ci_high[metric]
        finite_kl += bool(np.isfinite(pair.value["exposure_kl"]))
    bound = 0.95 - 2 * math.sqrt(0.95 * 0.05 / n_sets)
    coverage = {m: h / n_sets for m, h in hits.items()}
    assert all(c >= bound for c in coverage.values()), (coverage, bound)
    if n_users == 30:
        assert finite_kl < n_sets        # the seed's plug-in EKL is often +inf here; the estimate never


@pytest.mark.slow
def test_family_wise_error_rate_with_10_null_groups_is_at_most_5_percent():
    """11 groups of 30 users from one population, each compared with the reference: the chance that
    any of the 10 comparisons of a metric is 'significant' (Holm) is <= 0.05 + 2 SE (R = 200)."""
    rng = np.random.default_rng(7)
    n_sets, n_users, n_groups = 200, 30, 11
    labels = np.repeat([f"g{i:02d}" for i in range(n_groups)], n_users)
    any_sig = {}
    raw = {}
    for _ in range(n_sets):
        scores, truth = draw(n_users * n_groups, "b", rng)
        res = recommender_bias(scores, truth, groups=labels, reference="g00", k=K, n_resamples=100, rng=rng)
        for metric, sub in res.summary().groupby("metric"):
            any_sig[metric] = any_sig.get(metric, 0) + bool(sub.significant.fillna(False).any())
            raw[metric] = raw.get(metric, 0) + int((sub.p_value <= 0.05).sum())
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / n_sets)
    fwer = {m: v / n_sets for m, v in any_sig.items()}
    assert all(v <= bound for v in fwer.values()), (fwer, bound)
    # without adjustment, some comparison is 'significant' far more often than 5% of the time
    assert max(raw.values()) / n_sets > 0.2


@pytest.mark.slow
def test_false_positive_rate_of_each_comparison_with_two_groups_of_20_users():
    """Two groups of 20 users from one population (one comparison per metric, so Holm changes
    nothing): each metric's 'significant' rate is <= 0.05 + 2 SE (R = 300). Measured with 1,000
    replicates: 0.032 (ETV/EKL) to 0.053 (MAE ratio)."""
    rng = np.random.default_rng(20)
    n_sets, n_users = 300, 20
    labels = np.repeat(["g00", "g01"], n_users)
    significant = {}
    for _ in range(n_sets):
        scores, truth = draw(2 * n_users, "b", rng)
        res = recommender_bias(scores, truth, groups=labels, reference="g00", k=K, n_resamples=100, rng=rng)
        for metric, sub in res.summary().groupby("metric"):
            significant[metric] = significant.get(metric, 0) + bool(sub.significant.fillna(False).any())
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / n_sets)
    rates = {m: v / n_sets for m, v in significant.items()}
    assert len(rates) == 8, rates
    assert all(v <= bound for v in rates.values()), sorted(rates.items(), key=lambda kv: -kv[1])
