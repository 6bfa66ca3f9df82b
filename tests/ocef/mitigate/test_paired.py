"""Paired intervals, the delta method on per-user moments and the TOST certificate: hand-computed
values, floors, and (slow) the certificate's error and power on planted worlds."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ocef.errors import DataError, ParameterError
from ocef.mitigate.paired import (MIN_USERS, Moments, delta_interval, equivalence_certificate, paired_interval,
                                  share_certificate)


def test_moments_equal_numpy_in_chunks():
    z = np.random.default_rng(0).normal(5.0, 2.0, size=(101, 3))
    m = Moments(3)
    for part in np.array_split(z, 7):
        m.add(part)
    np.testing.assert_allclose(m.mean(), z.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(m.cov(), np.cov(z.T), rtol=1e-10)
    assert m.n == 101


def test_paired_interval_by_hand():
    # D = (0.1, 0.3, 0.1, 0.3): mean 0.2, sd = sqrt(0.04 / 3), se = sd / 2, t_{3, 0.975} = 3.182446
    r = paired_interval([0.5, 0.7, 0.6, 0.9], [0.4, 0.4, 0.5, 0.6], min_users=2)
    se = np.sqrt(0.04 / 3) / 2
    q = 3.1824463052837078
    assert r["estimate"] == pytest.approx(0.2, abs=1e-12)
    assert r["se"] == pytest.approx(se, rel=1e-8)
    assert r["ci_low"] == pytest.approx(0.2 - q * se, rel=1e-8)
    assert r["ci_high"] == pytest.approx(0.2 + q * se, rel=1e-8)
    assert r["p_value"] == pytest.approx(2 * stats.t.sf(0.2 / se, 3), rel=1e-6)
    # equal to scipy's paired t test
    t = stats.ttest_rel([0.5, 0.7, 0.6, 0.9], [0.4, 0.4, 0.5, 0.6])
    assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-6)


def test_paired_is_narrower_than_unpaired_when_correlated():
    g = np.random.default_rng(1)
    b = g.random(200)
    m = b + 0.01 + 0.01 * g.standard_normal(200)
    r = paired_interval(m, b)
    unpaired = 1.96 * np.sqrt(m.var(ddof=1) / 200 + b.var(ddof=1) / 200)
    assert r["ci_high"] - r["estimate"] < unpaired / 10


def test_ratio_of_sums_by_hand():
    # share = sum X / sum T, linearised: se^2 = var(X - s T) / (n mean(T)^2)
    g = np.random.default_rng(2)
    T = 1.0 + g.random(300)
    X = T * g.beta(2, 3, size=300)
    m = Moments(2)
    m.add(np.column_stack([X, T]))
    r = delta_interval(m, lambda z: z[0] / z[1], null=None)
    s = X.sum() / T.sum()
    se = np.sqrt(np.var(X - s * T, ddof=1) / 300) / T.mean()
    assert r["estimate"] == pytest.approx(s, rel=1e-12)
    assert r["se"] == pytest.approx(se, rel=1e-6)


def test_floor_and_no_variation_print_no_interval():
    r = paired_interval(np.ones(10), np.zeros(10))
    assert np.isnan(r["ci_low"]) and "floor" in r["reason"] and str(MIN_USERS) in r["reason"]
    r = paired_interval(np.ones(40), np.zeros(40))
    assert r["estimate"] == 1.0 and np.isnan(r["ci_low"]) and "no variation" in r["reason"]


def test_bad_inputs():
    with pytest.raises(DataError, match="1-d"):
        paired_interval([1, 2], [1, 2, 3])
    with pytest.raises(DataError, match="NaN"):
        Moments(1).add([[np.nan]])
    with pytest.raises(ParameterError, match="margin"):
        equivalence_certificate([0.0], [0.1], 10, margin=0.0)


def test_certificate_by_hand():
    # est 0.01, se 0.01, df 99: p_low = P(T > (0.01 + 0.05)/0.01) , p_high = P(T < (0.01 - 0.05)/0.01)
    c = equivalence_certificate([0.01], [0.01], 99, margin=0.05, delta=0.05)
    assert c["p_within"] == pytest.approx(stats.t.cdf(-4.0, 99), rel=1e-9)
    assert c["certificate"] == "within"
    c = equivalence_certificate([0.09], [0.01], 99, margin=0.05, delta=0.05)
    assert c["p_outside"] == pytest.approx(2 * stats.t.sf(4.0, 99), rel=1e-9)
    assert c["certificate"] == "outside"
    # intersection-union: one group inconclusive makes the whole inconclusive
    assert equivalence_certificate([0.0, 0.04], [0.005, 0.02], 99)["certificate"] == "inconclusive"
    c = equivalence_certificate([0.0, 0.0], [np.nan, 0.01], 99)
    assert c["certificate"] == "inconclusive" and "no test" in c["reason"]


def planted_exposures(n, share, k=10, patience=0.5, rng=None):
    """Per-user exposure of two item groups under geometric browsing: the item at position j belongs to
    group 1 with probability q (the same at every position), so the population share of group 1 is q."""
    g = np.random.default_rng(rng)
    w = patience ** np.arange(k)
    in1 = g.random((n, k)) < share
    x1 = (in1 * w).sum(axis=1)
    return np.column_stack([w.sum() - x1, x1])


def certificate_rates(theta, n_users, reps, margin=0.05, seed=0):
    verdicts = []
    for r in range(reps):
        m = Moments(2)
        m.add(planted_exposures(n_users, 0.5 + theta, rng=[seed, r]))
        c = share_certificate(m, [lambda z: z[0] / z.sum() - 0.5, lambda z: z[1] / z.sum() - 0.5], margin=margin)
        verdicts.append(c["certificate"])
    v = np.array(verdicts)
    return {name: float(np.mean(v == name)) for name in ("within", "outside", "inconclusive")}


@pytest.mark.slow
def test_certificate_error_at_most_delta_plus_2se_and_power():
    reps, delta = 400, 0.05
    bound = delta + 2 * np.sqrt(delta * (1 - delta) / reps)
    at_margin = certificate_rates(0.05, 300, reps)          # truly not within (|θ| = ε): "within" is wrong
    assert at_margin["within"] <= bound
    assert certificate_rates(0.05, 300, reps, seed=1)["outside"] <= bound   # |θ| = ε is not outside either
    at_target = certificate_rates(0.0, 1000, reps)
    assert at_target["outside"] == 0.0 and at_target["within"] >= 0.95     # power: measured 1.00 at 1000 users
    far = certificate_rates(0.15, 300, reps)
    assert far["within"] == 0.0 and far["outside"] >= 0.95
