"""Selection-adjusted inference for UF (ocef.fairrec.inference and search's uf_lower, p_value)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ocef.fairrec.inference import (bound_p_value, kl_bernoulli, kl_interval, permutation_p_value,
                                    simultaneous_intervals, uf_lower_bound)
from ocef.fairrec.search import GroupOracle, search

ATTRS = ["gender", "age", "occupation"]
# MovieLens-100K-like attribute marginals over 2 x 7 x 21 = 294 cells, and an MRR-like metric (k = 5).
GENDER = np.array([0.29, 0.71])
AGE = np.array([0.03, 0.2, 0.35, 0.2, 0.09, 0.08, 0.05])
OCC = 1.0 / np.arange(1, 22)
OCC = OCC / OCC.sum()
MRR = np.array([0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1])
MRR_P = np.array([0.45, 0.05, 0.06, 0.08, 0.12, 0.24])


def population(seed: int, n: int = 943, planted: bool = False) -> tuple[pd.DataFrame, np.ndarray]:
    """Users with ML-like attributes; null: MRR-like values independent of the attributes; planted:
    Bernoulli values with p = 0.9 for (M, 25-34), 0.1 for (F, 18-24), 0.5 elsewhere. Returns the table
    and each user's population mean."""
    gen = np.random.default_rng(seed)
    t = pd.DataFrame({"gender": gen.choice(2, n, p=GENDER), "age": gen.choice(7, n, p=AGE),
                      "occupation": gen.choice(21, n, p=OCC)})
    if planted:
        p = np.where((t.gender == 1) & (t.age == 2), 0.9, np.where((t.gender == 0) & (t.age == 1), 0.1, 0.5))
        t["mrr"] = (gen.random(n) < p).astype(float)
        return t, p
    t["mrr"] = gen.choice(MRR, n, p=MRR_P)
    return t, np.full(n, MRR @ MRR_P)


def true_uf(table: pd.DataFrame, mean: np.ndarray, min_users: int) -> float:
    """Population UF over the valid groups: max - min of the groups' population means."""
    g = pd.DataFrame({"m": mean}).groupby([table[a] for a in ATTRS]).m.agg(["mean", "size"])
    g = g[g["size"] >= min_users]["mean"]
    return float(g.max() - g.min())


def binomial_se(p: float, n: int) -> float:
    return float(np.sqrt(p * (1 - p) / n))


# ---------------------------------------------------------------------------- the pure functions
def test_kl_bernoulli_by_hand():
    assert kl_bernoulli(0.3, 0.3) == 0.0
    assert kl_bernoulli(0.0, 0.5) == pytest.approx(np.log(2))
    assert kl_bernoulli(0.25, 0.5) == pytest.approx(0.25 * np.log(0.5) + 0.75 * np.log(1.5))
    assert np.isinf(kl_bernoulli(0.5, 0.0))


def test_kl_interval_by_hand_and_rescaled():
    # one value at the top of the range: kl(1, q) = -log q <= log(1/delta)  <=>  q >= delta
    lo, hi = kl_interval([1.0], [1], 0.01)
    assert lo[0] == pytest.approx(0.01, abs=1e-12) and hi[0] == pytest.approx(1.0)
    # n kl(m, q) = log(1/delta) at both ends, and the rescaled range maps linearly
    lo, hi = kl_interval([0.3], [40], 0.02)
    assert 40 * kl_bernoulli(0.3, lo[0]) == pytest.approx(np.log(50), rel=1e-9)
    assert 40 * kl_bernoulli(0.3, hi[0]) == pytest.approx(np.log(50), rel=1e-9)
    lo2, hi2 = kl_interval([-1 + 4 * 0.3], [40], 0.02, low=-1.0, high=3.0)
    assert lo2[0] == pytest.approx(-1 + 4 * lo[0]) and hi2[0] == pytest.approx(-1 + 4 * hi[0])
    with pytest.raises(ValueError, match="high must exceed low"):
        kl_interval([0.5], [3], 0.1, low=1.0, high=1.0)


@pytest.mark.parametrize("n", [1, 5, 20, 200])
def test_kl_interval_coverage_exact_for_bernoulli(n):
    """Exact (binomial) probability that each one-sided bound misses, for Bernoulli data (the worst case of
    values in [0, 1]): at most delta for every mean on a grid."""
    delta = 0.01
    k = np.arange(n + 1)
    lo, hi = kl_interval(k / n, np.full(n + 1, n), delta)
    for p in np.linspace(0.005, 0.995, 67):
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[lo > p].sum() <= delta + 1e-12
        assert pmf[hi < p].sum() <= delta + 1e-12


def test_simultaneous_intervals_widen_with_the_family():
    lo1, hi1 = simultaneous_intervals([0.5], [30], 1)
    lo2, hi2 = simultaneous_intervals([0.5], [30], 300)
    assert lo2[0] < lo1[0] < 0.5 < hi1[0] < hi2[0]
    ref = kl_interval([0.5], [30], 0.05 / 600)
    assert lo2[0] == pytest.approx(ref[0][0]) and hi2[0] == pytest.approx(ref[1][0])
    with pytest.raises(ValueError, match="confidence"):
        simultaneous_intervals([0.5], [30], 2, confidence=1.0)


def test_uf_lower_and_p_values_by_hand():
    assert uf_lower_bound([0.1, 0.6], [0.3, 0.9]) == pytest.approx(0.3)
    assert uf_lower_bound([0.1, 0.2], [0.5, 0.9]) == 0.0
    assert np.isnan(uf_lower_bound([0.1], [0.5]))
    assert permutation_p_value(0.5, [0.1, 0.2, 0.6]) == 0.5
    assert permutation_p_value(0.5, [0.5, 0.5, 0.1]) == 0.75          # ties count against the observation
    # the bound p-value is the level at which uf_lower turns positive
    mean, n = np.array([0.3, 0.7, 0.5]), np.array([60, 80, 40])
    p = bound_p_value(mean, n, 10)
    assert 0.01 < p < 0.2
    lo, hi = simultaneous_intervals(mean, n, 10, confidence=1 - p * 1.01)
    assert uf_lower_bound(lo, hi) > 0
    lo, hi = simultaneous_intervals(mean, n, 10, confidence=1 - p * 0.99)
    assert uf_lower_bound(lo, hi) == 0


# ---------------------------------------------------------------------------- search's inference
def test_search_reports_intervals_for_every_listed_group():
    t, _ = population(1)
    oracle = GroupOracle.from_user_metrics(t, ATTRS, "mrr", min_users=5)
    r = search(oracle, "exhaustive", n_resamples=19, rng=0)
    g = r.groups
    assert set(g.role) == {"advantaged", "disadvantaged", "top_advantaged", "top_disadvantaged"}
    assert ((g.ci_low <= g.value) & (g.value <= g.ci_high)).all() and g.ci_low.notna().all()
    assert r.params["bound_method"].startswith("studentized max-t")
    b = search(oracle, "exhaustive", test="bound", rng=0)        # the bound test: Chernoff-Hoeffding intervals
    assert b.params["bound_method"].startswith("Chernoff-Hoeffding")
    lo, hi = simultaneous_intervals(b.infobase.value, b.infobase.n_users, b.n_groups)
    assert b.uf_lower == pytest.approx(max(0.0, lo.max() - hi.min()))
    assert b.advantaged.ci_low == pytest.approx(lo[b.infobase.value.idxmax()])
    assert r.overall.loc[0, "p_value"] == r.p_value and list(r.summary().role) == ["advantaged", "disadvantaged"]
    assert r.inference_users_queried == 0          # exhaustive queried every valid group's users already
    # same rng, same result; the test does not change the search
    r2 = search(oracle, "exhaustive", n_resamples=19, rng=0)
    assert (r2.p_value, r2.uf_lower) == (r.p_value, r.uf_lower)
    d1 = search(oracle, "dpso", rng=3)
    d2 = search(oracle, "dpso", test=None, rng=3)
    assert d1.uf == d2.uf and d1.n_evaluations == d2.n_evaluations and np.isnan(d2.p_value)
    assert d2.significant is None and "no test requested" in d2.reason and d2.uf_lower == d2.uf_lower
    # DPSO's extra cost: the valid groups' users it had not queried, in one query
    assert d1.inference_queries == 1
    assert d1.inference_users_queried == len(oracle.valid_rows()) - d1.n_users_queried


@pytest.mark.parametrize("method", ["dpso", "exhaustive", "testsgd", "vanilla"])
def test_every_method_finds_a_planted_gap(method):
    t, mean = population(2, n=3000, planted=True)
    oracle = GroupOracle.from_user_metrics(t, ["gender", "age"], "mrr", min_users=5)
    r = search(oracle, method, n_resamples=49, theta=0.05, rng=0)
    assert r.significant and r.p_value == pytest.approx(1 / 50)
    if method != "testsgd":                   # TestSGD reports gaps against complements, not extremes
        assert 0 < r.uf_lower <= true_uf(t.assign(occupation=0), mean, 5)


def test_min_users_counts_users_with_a_defined_metric():
    t = pd.DataFrame({"g": [0] * 6 + [1] * 6, "mrr": [1.0, 0.5, np.nan, np.nan, np.nan, 0.0] + [0.2] * 6})
    oracle = GroupOracle.from_user_metrics(t, ["g"], "mrr", min_users=1)
    assert oracle.size([0, 1]).tolist() == [3, 6]
    with pytest.raises(ValueError, match="fewer than two valid groups"):
        GroupOracle.from_user_metrics(t, ["g"], "mrr", min_users=4)
    r = search(oracle, "exhaustive", test="bound")
    assert r.advantaged.n_users == 3 and r.advantaged.value == pytest.approx(0.5)


def test_scalar_black_box_and_unknown_range_say_why():
    t, _ = population(3)
    vals = t.mrr.to_numpy()
    oracle = GroupOracle(t, ATTRS, lambda rows: float(vals[rows].mean()), min_users=5, bounds=(0, 1))
    r = search(oracle, "exhaustive", rng=0)
    assert np.isnan(r.uf_lower) and np.isnan(r.p_value) and "group values only" in r.reason
    assert np.isnan(r.advantaged.ci_low)
    r = search(GroupOracle.from_user_metrics(t.rename(columns={"mrr": "score"}), ATTRS, "score", 5), "exhaustive",
               test="bound")
    assert np.isnan(r.uf_lower) and "range is unknown" in r.reason and np.isnan(r.p_value)
    with pytest.raises(ValueError, match="bounds"):
        GroupOracle(t, ATTRS, lambda rows: vals[rows], bounds=(1, 0))
    with pytest.raises(ValueError, match="test must be one of"):
        search(oracle, "exhaustive", test="bootstrap")
    with pytest.raises(ValueError, match="n_resamples"):
        search(oracle, "exhaustive", n_resamples=0)


# ---------------------------------------------------------------------------- simulation
N_POP = 200
SE = binomial_se(0.05, N_POP)              # 0.0154: the tolerance is 2 SE


@pytest.mark.slow
@pytest.mark.parametrize("method, kwargs", [("exhaustive", {}), ("dpso", {"n_iter": 5})])
def test_null_rejection_rate_and_uf_lower(method, kwargs):
    """200 null populations (ML-like 294 cells, min_users 5, ~60 valid groups): the permutation test with
    19 permutations (exact level 1/20) rejects in at most 5% + 2 SE, and uf_lower is 0 in at least
    95% - 2 SE (measured: exhaustive 8/200 = 4.0% and 200/200, DPSO (n_it = 5) 13/200 = 6.5% and 200/200;
    the bound 5% + 2 SE is 8.1%), although UF itself averages 0.66 (exhaustive) and 0.62 (DPSO)."""
    rejected = zero = 0
    ufs = []
    for s in range(N_POP):
        t, _ = population(10_000 + s)
        oracle = GroupOracle.from_user_metrics(t, ATTRS, "mrr", min_users=5)
        assert oracle.n_cells == 294
        r = search(oracle, method, test="permutation", n_resamples=19, rng=s, **kwargs)
        rejected += r.p_value <= 0.05
        zero += r.uf_lower <= 0
        ufs.append(r.uf)
    assert rejected / N_POP <= 0.05 + 2 * SE
    assert zero / N_POP >= 0.95 - 2 * SE
    assert np.mean(ufs) > 0.4                  # the raw UF is large under no unfairness at all


@pytest.mark.slow
def test_planted_effect_coverage_and_power():
    """200 populations with a planted gap (p = 0.9 vs 0.1 in two gender x age combinations, true UF 0.8 over
    the valid groups): uf_lower <= true UF in at least 95% - 2 SE (measured 200/200). Power, measured:
    uf_lower > 0 in 185/200 = 92.5% (the planted cells hold 15-70 users); the permutation test of the search's own
    statistic (exhaustive, 19 permutations) rejects in only 11.5% (23/200): with 0/1 values the null's
    max - min over ~60 groups of 5-20 users is already ~0.9, so the statistic is dominated by the small
    groups. Asserted: power at least 0.8 for uf_lower > 0 and above the 5% level for the test."""
    covered = rejected = positive = 0
    for s in range(N_POP):
        t, mean = population(20_000 + s, planted=True)
        oracle = GroupOracle.from_user_metrics(t, ATTRS, "mrr", min_users=5)
        r = search(oracle, "exhaustive", test="permutation", n_resamples=19, rng=s)
        covered += r.uf_lower <= true_uf(t, mean, 5) + 1e-12
        rejected += r.p_value <= 0.05
        positive += r.uf_lower > 0
    assert covered / N_POP >= 0.95 - 2 * SE
    assert positive / N_POP >= 0.8 and rejected / N_POP > 0.05            # power (measured values in the docstring)


def test_auto_test_keeps_the_extra_cost_within_twice_the_search():
    """test="auto": the permutation test unless its extra query would cost more than 2x the search's own
    cost (a DPSO run with one iteration and 2 particles per swarm queries a few small groups)."""
    t, _ = population(5, n=3000)
    oracle = GroupOracle.from_user_metrics(t, ATTRS, "mrr", min_users=5)
    cheap = search(oracle, "dpso", epsilon=0.005, n_iter=1, n_resamples=19, rng=0)
    assert cheap.test == "bound" and cheap.inference_users_queried == 0 and "2 x the search's" in cheap.reason
    assert 0 <= cheap.p_value <= 1
    full = search(oracle, "dpso", n_resamples=19, rng=0)
    assert full.test == "permutation"
    assert full.inference_users_queried + full.inference_queries <= 2 * full.cost
    forced = search(oracle, "dpso", epsilon=0.005, n_iter=1, test="permutation", n_resamples=19, rng=0)
    assert forced.test == "permutation" and forced.inference_users_queried > 2 * forced.cost
