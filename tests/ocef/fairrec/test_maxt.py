"""FairRec's studentized max-t inference (issue 28 step 4): exact small cases, the one-verdict
property (``uf_lower > 0`` iff ``p_value <= 1 - confidence``) and, slow-marked, null rejection and power."""
import numpy as np
import pandas as pd
import pytest

from ocef.fairrec.inference import (MODERATION_DF, deviations, excess, group_moments, maxt_inference,
                                    maxt_lower_bound)
from ocef.fairrec.search import GroupOracle, search


def test_group_moments_by_hand():
    # group 0: 0, 1, 0, 1 (ss 1, df 3); group 1: 0.5, 0.5 (ss 0, df 1); pooled s0^2 = 1 / 4
    n, m, se = group_moments([0.0, 1.0, 0.0, 1.0, 0.5, 0.5], [0, 0, 0, 0, 1, 1], 2)
    d0 = MODERATION_DF
    assert n.tolist() == [4, 2] and m.tolist() == [0.5, 0.5]
    assert se[0] == pytest.approx(np.sqrt((1 + d0 * 0.25) / (3 + d0) / 4))
    assert se[1] == pytest.approx(np.sqrt((0 + d0 * 0.25) / (1 + d0) / 2))
    # rows of a 2-d input are independent resamples
    _, m2, se2 = group_moments(np.array([[0.0, 1.0, 0.0, 1.0, 0.5, 0.5], [1, 1, 1, 1, 0, 0]]), [0, 0, 0, 0, 1, 1], 2)
    assert m2.tolist() == [[0.5, 0.5], [1.0, 0.0]] and se2[0].tolist() == pytest.approx(se.tolist())


def test_deviations_and_bound_by_hand():
    d, s = deviations([1, 3], [0.0, 1.0], [0.2, 0.1])
    assert d.tolist() == pytest.approx([-0.75, 0.25])          # grand mean 0.75
    assert s[0] == pytest.approx(np.sqrt(0.75 ** 2 * 0.04 + 0.75 ** 2 * 0.01))
    # intervals d +- 2 s: top = max(d - 2s), bottom = min(d + 2s)
    lo = maxt_lower_bound([-0.5, 0.3], [0.1, 0.1], 2.0)
    assert lo == pytest.approx(0.1 + 0.3)                      # max(0, 0.1) - min(0, -0.3)
    assert maxt_lower_bound([-0.1, 0.1], [0.1, 0.1], 2.0) == 0.0
    assert maxt_lower_bound([-0.1, 0.1], [0.1, 0.1], np.inf) == 0.0
    assert excess([-0.5, 0.3], [0.1, 0.1], [2.0, 5.0]).round(12).tolist() == [0.3, 0.0]


@pytest.mark.parametrize("confidence,n_resamples", [(0.95, 19), (0.95, 99), (0.9, 49), (0.8, 29)])
def test_bound_and_test_cannot_contradict(confidence, n_resamples):
    """The one verdict: over effects from none to large, ``uf_lower > 0`` exactly when p <= alpha."""
    agree = {True: 0, False: 0}
    for seed in range(40):
        gen = np.random.default_rng(seed)
        codes = gen.integers(0, 5, 150)
        effect = (seed % 8) * 0.04
        values = gen.random(150) - effect * (codes == 3)
        out = maxt_inference(values, codes, 5, gen.choice(5, 3 + seed % 3, replace=False), confidence=confidence,
                             n_resamples=n_resamples, rng=seed)
        significant = out["significant"]
        assert significant == (out["p_value"] <= 1 - confidence + 1e-12)
        assert (out["uf_lower"] > 0) == significant, (seed, out["uf_lower"], out["p_value"])
        agree[significant] += 1
        assert out["p_value"] == max(out["p_permutation"], out["p_bootstrap"])
        assert out["p_value"] >= 1 / (1 + n_resamples)
    assert agree[True] > 0 and agree[False] > 0                 # both verdicts were exercised


def test_search_verdict_is_one():
    gen = np.random.default_rng(3)
    users = pd.DataFrame({"g": gen.integers(0, 2, 300), "a": gen.integers(0, 3, 300)})
    for shift in (0.0, 0.05, 0.3):
        users["mrr"] = np.clip(gen.random(300) * 0.6 + shift * ((users.g == 1) & (users.a == 2)), 0, 1)
        for method in ("exhaustive", "dpso"):
            r = search(GroupOracle.from_user_metrics(users, ["g", "a"], "mrr", min_users=5), method, rng=1)
            assert r.test == "permutation" and (r.uf_lower > 0) == r.significant
            assert r.params["bound_method"].startswith("studentized max-t")
            assert ("distinguishable from noise" in r.verdict()) and (
                ("at least" in r.verdict()) == bool(r.significant))


def test_too_few_resamples_say_so():
    gen = np.random.default_rng(0)
    codes = np.repeat(np.arange(3), 40)
    out = maxt_inference(gen.random(120) + (codes == 1), codes, 3, [0, 1, 2], n_resamples=10, rng=0)
    assert out["uf_lower"] == 0 and out["p_value"] > 0.05 and "too few" in out["reason"]
    assert np.isnan(out["ci_low"]).all()


def test_default_dpso_looks_at_every_group_of_a_small_grid():
    """MovieLens gender x age (14 cells): the default DPSO used 2 particles and looked at 2 of 12 groups."""
    gen = np.random.default_rng(0)
    users = pd.DataFrame({"gender": gen.choice(2, 943, p=[0.29, 0.71]),
                          "age": gen.choice(7, 943, p=[0.03, 0.2, 0.35, 0.2, 0.09, 0.08, 0.05])})
    users["auc"] = gen.random(943)
    oracle = GroupOracle.from_user_metrics(users, ["gender", "age"], "auc", min_users=5)
    r = search(oracle, rng=0)
    assert r.n_evaluations == r.n_groups == r.params["groups_valid"] and r.params["n_particles"] == r.n_groups
    assert "searched through" in r.params["n_particles_rule"]
    literal = search(oracle, epsilon=0.1, rng=0)                   # an explicit epsilon is taken literally
    assert literal.params["n_particles"] == 2 and literal.params["n_particles_rule"] == "max(2, int(epsilon*N))"


def test_fallback_is_stated():
    gen = np.random.default_rng(5)
    users = pd.DataFrame({"g": gen.integers(0, 30, 3000), "a": gen.integers(0, 30, 3000)})
    users["mrr"] = gen.random(3000)
    oracle = GroupOracle.from_user_metrics(users, ["g", "a"], "mrr", min_users=2)
    r = search(oracle, "dpso", epsilon=0.002, n_iter=1, rng=0)
    assert r.test == "bound" and r.reason.startswith("fallback to the bound test")
    assert r.params["bound_method"].startswith("Chernoff-Hoeffding") and r.params["test_requested"] == "auto"


def _population(seed, drop, metric):
    gen = np.random.default_rng(seed)
    n = 943
    t = pd.DataFrame({"gender": gen.choice(2, n, p=[0.29, 0.71]),
                      "age": gen.choice(7, n, p=[0.03, 0.2, 0.35, 0.2, 0.09, 0.08, 0.05])})
    cell = np.flatnonzero((t.gender == 0) & (t.age == 2))
    t.loc[cell[90:], "gender"] = 1                                  # the intersectional cell: <= 90 users
    inside = ((t.gender == 0) & (t.age == 2)).to_numpy()
    if metric == "auc":
        m = np.where(inside, 0.75 - drop, 0.75)
        k = 0.75 * 0.25 / 0.15 ** 2 - 1
        t["auc"] = gen.beta(m * k, (1 - m) * k)
    else:
        v = gen.choice([0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1], n, p=[0.45, 0.05, 0.06, 0.08, 0.12, 0.24])
        t["mrr"] = np.where(inside & (gen.random(n) < drop / 0.3517), 0.0, v)
    return t


@pytest.mark.slow
def test_null_rejection_and_power():
    """Fixed seeds, 40 populations each (SE <= 0.079); the full study is benchmarks/fairrec_power.py
    (docs/guide/fairrec.md). Null: at most 0.05 + 3 SE; planted 90-user cell: power >= 0.8 - 2 SE."""
    reps = 40
    rates = {}
    for metric, drop in (("auc", 0.10), ("mrr", 0.20)):
        for d in (0.0, drop):
            hits = 0
            for s in range(reps):
                t = _population(1000 * (d > 0) + s, d, metric)
                r = search(GroupOracle.from_user_metrics(t, ["gender", "age"], metric, min_users=5), rng=s,
                           n_resamples=99)
                assert (r.uf_lower > 0) == r.significant
                hits += bool(r.significant)
            rates[(metric, d)] = hits / reps
    se = np.sqrt(0.05 * 0.95 / reps)
    assert rates[("auc", 0.0)] <= 0.05 + 3 * se and rates[("mrr", 0.0)] <= 0.05 + 3 * se, rates
    assert rates[("auc", 0.10)] >= 0.8 - 2 * np.sqrt(0.16 / reps), rates
    assert rates[("mrr", 0.20)] >= 0.8 - 2 * np.sqrt(0.16 / reps), rates


def _population3(seed, drop):
    """Gender x age x occupation (294 cells, about 55 valid at min_users=5); the planted cell
    (F, 25-34, occupation 0) holds exactly 90 users; MRR-like metric."""
    gen = np.random.default_rng(seed)
    n = 943
    occ = 1.0 / np.arange(1, 22)
    t = pd.DataFrame({"gender": gen.choice(2, n, p=[0.29, 0.71]),
                      "age": gen.choice(7, n, p=[0.03, 0.2, 0.35, 0.2, 0.09, 0.08, 0.05]),
                      "occupation": gen.choice(21, n, p=occ / occ.sum())})
    inside = ((t.gender == 0) & (t.age == 2) & (t.occupation == 0)).to_numpy()
    idx = np.flatnonzero(inside)
    if idx.size > 90:
        t.loc[gen.choice(idx, idx.size - 90, replace=False), "gender"] = 1
    else:
        move = gen.choice(np.flatnonzero(~inside), 90 - idx.size, replace=False)
        t.loc[move, ["gender", "age", "occupation"]] = [0, 2, 0]
    inside = ((t.gender == 0) & (t.age == 2) & (t.occupation == 0)).to_numpy()
    v = gen.choice([0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1], n, p=[0.45, 0.05, 0.06, 0.08, 0.12, 0.24])
    t["mrr"] = np.where(inside & (gen.random(n) < drop / 0.3517), 0.0, v)
    return t


@pytest.mark.slow
def test_power_on_the_294_cell_grid_at_min_users_5():
    """The MRR-like 0.20 drop in a 90-user cell among ~55 valid groups of 5+ users: 0.69 with the
    moderation d0 = 4, 0.88-0.89 with d0 = 16 (benchmarks/fairrec_power.py, 100 populations). Here 40
    populations each (99 resamples): power >= 0.8 - 2 SE, null <= 0.05 + 3 SE."""
    reps, rates = 40, {}
    for d in (0.0, 0.20):
        hits = 0
        for s in range(reps):
            t = _population3(5000 + 1000 * (d > 0) + s, d)
            r = search(GroupOracle.from_user_metrics(t, ["gender", "age", "occupation"], "mrr", min_users=5),
                       "exhaustive", rng=s, n_resamples=99)
            assert (r.uf_lower > 0) == r.significant
            hits += bool(r.significant)
        rates[d] = hits / reps
    assert rates[0.0] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), rates
    assert rates[0.20] >= 0.8 - 2 * np.sqrt(0.16 / reps), rates
