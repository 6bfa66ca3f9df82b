"""Per-user metrics by group (MetricFrame-style) and the exposure-share intervals: hand-computed
values and interval coverage / false-positive rates by simulation (fixed seeds; tolerances from
binomial standard errors: with R replicates at nominal 0.95 the SE is sqrt(.95*.05/R))."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ocef.errors import DataError, ParameterError
from ocef.exposure.frame import compare_means, mean_interval, metric_frame, moments
from ocef.exposure.formulas import position_weights
from ocef.exposure.shares import share_intervals


def test_metric_frame_by_hand_intersectional():
    df = pd.DataFrame({"user": [1, 1, 2, 3, 4, 5, 6],
                       "g": list("aaabbbb"), "age": ["y", "y", "o", "y", "o", "o", "y"],
                       "hit": [1, 0, 1, 0, 1, 1, 0]})
    res = metric_frame(df, metrics="hit", by=["g", "age"], reference=("b", "o"))
    # user 1's two rows are averaged first: 0.5
    g = res.groups.set_index(["g", "age"])["estimate"]
    assert g[("a", "y")] == 0.5 and g[("a", "o")] == 1.0 and g[("b", "o")] == 1.0 and g[("b", "y")] == 0.0
    assert res.overall["estimate"].iloc[0] == pytest.approx((0.5 + 1 + 0 + 1 + 1 + 0) / 6)
    assert res.overall["n_users"].iloc[0] == 6
    assert len(res.pairs) == 2 * 3                       # 3 groups vs the reference, difference + ratio
    assert "hit" not in res.binary                       # 0.5 is not 0/1: t intervals


def test_compare_means_is_welch():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1, 1, 30), rng.normal(0.5, 2, 45)
    c = compare_means(moments(a), moments(b))
    assert c["p_value"] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert (c["difference_low"], c["difference_high"]) == pytest.approx((ci.low, ci.high))
    assert c["ratio"] == pytest.approx(a.mean() / b.mean())


def test_mean_interval_is_student_t_and_wilson():
    x = np.array([0.1, 0.4, 0.35, 0.8])
    m = moments(x)
    r = mean_interval(m["n"], m["sum"], m["sum_sq"])
    ci = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high))
    w = mean_interval(10, 0.0, 0.0, binary=True)
    assert w["ci_low"] == 0.0 and w["ci_high"] == pytest.approx(0.2775, abs=1e-4)
    one = mean_interval(1, 0.3, 0.09)
    assert np.isnan(one["ci_low"]) and one["reason"].startswith("no valid interval")


def test_metric_frame_errors():
    df = pd.DataFrame({"user": [1, 1], "g": ["a", "b"], "m": [0.1, 0.2]})
    with pytest.raises(DataError, match="constant per user"):
        metric_frame(df, metrics="m", by="g")
    with pytest.raises(DataError, match="missing"):
        metric_frame(df, metrics="x", by="g")
    ok = pd.DataFrame({"user": [1, 2], "g": ["a", "b"], "m": [0.1, 0.2]})
    with pytest.raises(ParameterError, match="reference"):
        metric_frame(ok, metrics="m", by="g", reference="c")


R = 1000
FLOOR = 0.93            # the bar; 0.95 - 3 SE(R = 1000) = 0.929


def test_coverage_of_group_means_and_differences():
    """Skewed per-user metric (Beta(2, 5), like an nDCG), 60 and 40 users: the t interval of each
    mean and Welch's interval of the difference cover in >= 93% of 1000 replicates."""
    rng = np.random.default_rng(20261125)
    mu = 2 / 7
    cover_mean = cover_diff = cover_ratio = 0
    for _ in range(R):
        a, b = rng.beta(2, 5, 60), rng.beta(2, 5, 40) + 0.1
        ma, mb = moments(a), moments(b)
        r = mean_interval(ma["n"], ma["sum"], ma["sum_sq"])
        cover_mean += r["ci_low"] <= mu <= r["ci_high"]
        c = compare_means(mb, ma)
        cover_diff += c["difference_low"] <= 0.1 <= c["difference_high"]
        cover_ratio += c["ratio_low"] <= (mu + 0.1) / mu <= c["ratio_high"]
    assert cover_mean / R >= FLOOR
    assert cover_diff / R >= FLOOR
    assert cover_ratio / R >= FLOOR


def test_holm_family_wise_false_positives_under_the_null():
    """Four groups with equal means (0/1 hit rates, p = 0.3): 'significant' somewhere in at most
    5% + 3 SE of 1000 replicates."""
    from ocef.inference import holm_adjust

    rng = np.random.default_rng(7)
    any_sig = 0
    for _ in range(R):
        hits = (rng.random((4, 100)) < 0.3).sum(axis=1).astype(float)     # 0/1 metric: sum = sum of squares
        ref = {"n": 100, "sum": hits[0], "sum_sq": hits[0]}
        p = [compare_means({"n": 100, "sum": h, "sum_sq": h}, ref)["p_value"] for h in hits[1:]]
        any_sig += bool((holm_adjust(p) <= 0.05).any())                    # metric_frame's rule
    assert any_sig / R <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)


def _simulate_users(rng, n, pi, rho, lengths, w):
    """Users' top-k lists: length L ~ uniform(lengths), group of position k ~ pi[k], relevance of an
    item of group g ~ Bernoulli(rho[g]). Returns V = (X, M) per user."""
    G = pi.shape[1]
    K = pi.shape[0]
    L = rng.choice(lengths, size=n)
    u = rng.random((n, K))
    g = (u[:, :, None] > np.cumsum(pi, axis=1)[None]).sum(axis=2)          # group index per position
    present = np.arange(K)[None, :] < L[:, None]
    y = rng.random((n, K)) < rho[g]
    X = np.zeros((n, G))
    M = np.zeros((n, G))
    for j in range(G):
        X[:, j] = ((g == j) & present) @ w
        M[:, j] = ((g == j) & present & y).sum(axis=1)
    return np.hstack([X, M])


def _truth(pi, rho, lengths, w):
    K = pi.shape[0]
    pl = np.array([np.mean([k < L for L in lengths]) for k in range(K)])     # P(position k is shown)
    ex = (pl * w) @ pi
    me = (pl @ pi) * rho
    return ex / ex.sum(), me / me.sum()


def test_coverage_of_exposure_shares_and_merit_disparity():
    """Delta-method intervals of exposure shares (clustered by user), of share - merit share and of
    their ratio, with list lengths 3..10 and position-dependent groups: >= 93% of 1000 replicates."""
    rng = np.random.default_rng(11)
    K = 10
    w = position_weights(np.arange(1, K + 1), browsing="geometric", patience=0.8)
    pi = np.stack([np.linspace(0.6, 0.2, K), np.linspace(0.3, 0.4, K), np.linspace(0.1, 0.4, K)], axis=1)
    rho = np.array([0.2, 0.5, 0.3])
    lengths = np.arange(3, 11)
    share, merit = _truth(pi, rho, lengths, w)
    z = stats.norm.ppf(0.975)
    cov_s = np.zeros(3)
    cov_d = np.zeros(3)
    cov_r = np.zeros(3)
    for _ in range(R):
        V = _simulate_users(rng, 150, pi, rho, lengths, w)
        eq = share_intervals(150, V.sum(0), V.T @ V, target="equal", n_groups=3)
        me = share_intervals(150, V.sum(0), V.T @ V, target="merit", n_groups=3)
        for j in range(3):
            cov_s[j] += abs(eq[j]["share"] - share[j]) <= z * eq[j]["share_se"]
            cov_d[j] += abs(me[j]["difference"] - (share[j] - merit[j])) <= z * me[j]["difference_se"]
            cov_r[j] += abs(np.log(me[j]["ratio"]) - np.log(share[j] / merit[j])) <= z * me[j]["log_ratio_se"]
    assert (cov_s / R >= FLOOR).all(), cov_s / R
    assert (cov_d / R >= FLOOR).all(), cov_d / R
    assert (cov_r / R >= FLOOR).all(), cov_r / R


def test_share_intervals_by_hand():
    # two users: X = (1, 0) and (0.5, 0.5): share_A = 1.5 / 2; IF_u = (X_uA - s T_u) / mean(T)
    X = np.array([[1.0, 0.0], [0.5, 0.5]])
    r = share_intervals(2, X.sum(0), X.T @ X)
    s = 0.75
    inf = (X[:, 0] - s * X.sum(1)) / 1.0
    assert r[0]["share"] == s and r[0]["target"] == 0.5
    assert r[0]["share_se"] == pytest.approx(np.sqrt((inf ** 2).sum() / 2))
    assert r[0]["difference"] == pytest.approx(0.25) and r[0]["ratio"] == pytest.approx(1.5)
    with pytest.raises(DataError, match="merit"):
        share_intervals(2, X.sum(0), X.T @ X, target="merit", n_groups=2)
