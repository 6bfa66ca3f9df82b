"""FairRec experiments (Guo et al. 2023): registration, claims on their own results, quick runs."""
import numpy as np
import pandas as pd
import pytest

from ocef.experiments import registry
from ocef.experiments.claims import check_claims
from tests.conftest import require_data

NAMES = ["fairrec-accuracy", "fairrec-attributes", "fairrec-budget", "fairrec-hyper", "fairrec-vanilla",
         "fairrec-efficiency"]


def test_registered_with_claims():
    for name in NAMES:
        mod = registry.module(name)
        assert mod.NAME == name and mod.DESCRIPTION and mod.CLAIMS


def test_synthetic_population():
    from ocef.experiments.fairrec_efficiency import synthetic_population

    a = synthetic_population(5000, 1000, rng=1)
    b = synthetic_population(5000, 1000, rng=1)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["a0", "a1", "a2", "a3", "value"]
    assert a.a0.max() == 1 and a[["a1", "a2", "a3"]].max().max() == 7      # 2 x 8 x 8 x 8 = 1024 cells
    # mild skew: the first code is about twice as frequent as the last
    share = a.a1.value_counts(normalize=True).sort_index()
    assert 1.3 < share.iloc[0] / share.iloc[-1] < 3.5
    from ocef.experiments.fairrec_efficiency import MIN_USERS, synthetic_oracle

    oracle = synthetic_oracle(5000, 1000)               # the same population, seeded by its size
    assert oracle.n_cells == 1024 and oracle.min_users == MIN_USERS and oracle.attributes == ["a0", "a1", "a2", "a3"]
    assert oracle.n_users_total == 5000


def test_efficiency_small_run(tmp_path, monkeypatch):
    from ocef.experiments import fairrec_efficiency as fe

    monkeypatch.setattr(fe, "USERS", (2000, 4000))
    monkeypatch.setattr(fe, "CELLS", (100, 300, 1000))
    paths = fe.run(tmp_path, quick=False, seed=0, progress=False)
    df = pd.read_csv(paths[0])
    assert set(df.method) == {"themis", "fairrec-auto", "fairrec-eps0.005"} and (df.accuracy <= 1 + 1e-12).all()
    themis = df[df.method == "themis"]
    assert (themis.n_evaluations == themis.n_groups).all()
    assert (themis.cost == themis.n_users_queried + themis.n_evaluations).all()
    from ocef.fairrec.search import auto_epsilon

    auto = df[df.method == "fairrec-auto"]
    assert np.allclose(auto.epsilon, [auto_epsilon(int(n)) for n in auto.n_cells])
    assert (df[df.method == "fairrec-eps0.005"].epsilon == 0.005).all()
    claims = check_claims(fe.CLAIMS, df)
    assert all(c["holds"] in (True, False) for c in claims), claims
    assert paths[1].stat().st_size > 10_000


def test_claim_checks_on_constructed_results():
    from ocef.experiments import fairrec_accuracy as fa
    from ocef.experiments import fairrec_hyper as fh

    rows = []
    for metric, acc in (("mrr", 0.96), ("ndcg", 0.86)):
        rows += [{"model": "m", "metric": metric, "method": "themis", "seed": -1, "uf": 1.0, "accuracy": 1.0,
                  "n_evaluations": 50},
                 {"model": "m", "metric": metric, "method": "testsgd-0.01", "seed": -1, "uf": 0.6, "accuracy": 0.6,
                  "n_evaluations": 30},
                 {"model": "m", "metric": metric, "method": "fairrec", "seed": 0, "uf": acc, "accuracy": acc,
                  "n_evaluations": 40}]
    df = pd.DataFrame(rows)
    avg, per_metric, testsgd = (c.check(df) for c in fa.CLAIMS[:3])
    assert avg[0] is True and "mean accuracy 0.910" in avg[1]
    assert per_metric[0] is False
    assert testsgd[0] is True and "2/2" in testsgd[1]
    grid = pd.DataFrame([{"epsilon": e, "n_iter": n, "accuracy": 0.5 + e + 0.01 * n}
                         for e in (0.05, 0.1) for n in (1, 5)])
    assert all(c.check(grid)[0] for c in fh.CLAIMS)
    grid.loc[(grid.epsilon == 0.1) & (grid.n_iter == 5), "accuracy"] = 0.3
    assert not any(c.check(grid)[0] for c in fh.CLAIMS)
    noise = fa.CLAIMS[3]
    assert check_claims([noise], df)[0]["holds"] is None            # no p-values: not checkable
    df["p_value"] = np.where(df.metric == "mrr", 0.005, 0.3)
    df["uf_lower"] = 0.0
    holds, text = noise.check(df)
    assert holds is False and "in 1/2 cells" in text                # ndcg's UF is noise
    df["p_value"] = 0.005
    assert noise.check(df)[0] is True                                # Holm: 2 x 0.005 <= 0.05


def test_attributes_claim_judges_growth_against_noise():
    from ocef.experiments import fairrec_attributes as fat

    def frame(uf, lower, p_holm):
        return pd.DataFrame([{"model": "m", "metric": metric, "n_attributes": j + 1, "uf": uf[j],
                              "uf_lower": lower[j], "p_increase_holm": p_holm[j], "significant": False}
                             for metric in ("mrr", "ndcg") for j in range(3)])

    (claim,) = fat.CLAIMS
    # the raw UF grows (as it does under pure noise) but nothing beyond noise: not held
    holds, text = claim.check(frame([0.01, 0.3, 0.6], [0, 0, 0], [np.nan, 0.4, 0.9]))
    assert holds is False and "growth beyond noise in 0/2" in text and "raw UF grows in 2/2" in text
    assert claim.check(frame([0.01, 0.3, 0.6], [0, 0.1, 0.2], [np.nan, 0.4, 0.9]))[0] is True   # uf_lower grows
    assert claim.check(frame([0.01, 0.3, 0.6], [0, 0, 0], [np.nan, 0.01, 0.02]))[0] is True     # increases significant
    assert claim.check(frame([0.01, 0.3, 0.6], [0, 0.1, 0.1], [np.nan, 0.4, 0.9]))[0] is False  # second step flat
    # exhaustive_uf: max - min of the valid groups' means, for each row of values
    from ocef.fairrec.search import GroupOracle

    t = pd.DataFrame({"g": [0, 0, 1, 1, 2], "mrr": [1.0, 0.0, 0.2, 0.4, 0.9]})
    oracle = GroupOracle.from_user_metrics(t, ["g"], "mrr", min_users=2)
    out = fat.exhaustive_uf(np.array([t.mrr.to_numpy(), [0, 0, 1, 1, 5.0]]), oracle)
    assert out == pytest.approx([0.5 - 0.3, 1.0])


@pytest.mark.slow
@pytest.mark.data
def test_attributes_on_movielens(tmp_path):
    data = require_data("ml-100k")
    paths = registry.run("fairrec-attributes", out=tmp_path, quick=True, data_dir=data, progress=False)
    df = pd.read_csv(paths[0])
    assert len(df) == 2 * 3 * 5
    assert set(df[df.n_attributes == 1].n_groups) == {2}
    mod = registry.module("fairrec-attributes")
    (claim,) = check_claims(mod.CLAIMS, df)
    assert claim["holds"] in (True, False) and "growth beyond noise" in claim["evidence"], claim
    assert np.isfinite(df.uf).all() and (df.uf_lower >= 0).all() and df.p_value.between(0, 1).all()
    assert df.p_increase_holm.notna().sum() == 2 * 2 * 5 and (df.uf >= 0).all()
    assert df.advantaged.str.contains("gender=[FM]").all()          # decoded labels


def test_budget_measure_and_claim_on_synthetic():
    from ocef.experiments import fairrec_budget as fb
    from ocef.experiments.fairrec_efficiency import synthetic_oracle

    oracle = synthetic_oracle(3000, 1000)
    df = fb.measure(oracle, "synthetic", "3000 users", "value", seeds=[0, 1])
    assert set(df.method) == set(fb.METHODS) and set(df.budget_kind) == {*fb.KINDS, "matched"}
    matched = df[df.budget_kind == "matched"]
    assert matched.budget_share.isna().all() and set(matched.method) == {"fairrec", "themis-random"}
    pivot = matched.pivot(index="seed", columns="method", values="n_evaluations")
    assert (pivot["themis-random"] == pivot["fairrec"]).all()          # as many groups as FairRec evaluated
    df = df[df.budget_kind != "matched"]
    assert set(df.budget_share) == set(fb.SHARES) and fb.PAPER_SHARE == 0.23
    ev = df[df.budget_kind == "evaluations"]
    assert (ev.n_evaluations <= ev.budget).all()
    cost = df[df.budget_kind == "cost"]
    assert (cost.cost <= cost.budget + 1e-9).all()
    assert np.allclose(cost.budget, cost.budget_share * cost.cost_themis)
    themis = df[df.method == "themis-random"]
    assert (themis.groupby(["budget_kind", "budget_share"]).n_evaluations.min() > 0).all()
    holds, evidence = fb.CLAIMS[0].check(pd.concat([df, matched]))
    assert holds in (True, False) and "synthetic:" in evidence and "movielens: not run" in evidence
    assert "without a budget FairRec (eps auto)" in evidence
    # a constructed table: FairRec wins 3 of 4 synthetic cells
    rows = [{"setting": "synthetic", "model": "p", "metric": "value", "budget_kind": k, "budget_share": 0.23,
             "method": m, "seed": 0, "uf": uf, "accuracy": uf}
            for k, f, t in (("evaluations", 0.9, 0.8), ("cost", 0.7, 0.8), ("a", 1, 1), ("b", 0.5, 0.4))
            for m, uf in (("fairrec", f), ("fairrec-groups", f), ("themis-random", t))]
    holds, evidence = fb.CLAIMS[0].check(pd.DataFrame(rows))
    assert holds is True and "fairrec >= random Themis in 3/4 cells" in evidence
    from ocef.experiments.claims import check_claims

    (claim,) = check_claims(fb.CLAIMS, pd.DataFrame(rows).assign(setting="movielens"))
    assert claim["holds"] is None and "no synthetic populations" in claim["evidence"]


def test_neighbour_correlation_hand_cases():
    from ocef.experiments.fairrec_budget import neighbour_correlation
    from ocef.fairrec.search import GroupOracle, search

    def corr(codes, values, min_users=1):
        table = pd.DataFrame({"a": codes, "mrr": values})
        oracle = GroupOracle.from_user_metrics(table, ["a"], "mrr", min_users=min_users)
        return neighbour_correlation(oracle, search(oracle, "exhaustive").infobase)

    # pairs (0,1), (1,2), (2,3): x = 0, 1, 4 and y = 1, 4, 9 -> corr of (0,1,4) and (1,4,9)
    assert corr([0, 1, 2, 3], [0.0, 1.0, 4.0, 9.0]) == pytest.approx(np.corrcoef([0, 1, 4], [1, 4, 9])[0, 1])
    assert corr([0, 1, 2, 3, 4], [0.0, 1.0, 0.0, 1.0, 0.0]) == pytest.approx(-1.0)     # alternating
    # an invalid group (code 2 has one user, min_users=2) breaks its pairs: only (0,1) and (3,4) remain -> no
    # correlation from two pairs
    assert np.isnan(corr([0, 0, 1, 1, 2, 3, 3, 4, 4], [0, 0, 1, 1, 5, 3, 3, 4, 4], min_users=2))


@pytest.mark.slow
@pytest.mark.data
def test_budget_quick_on_movielens(tmp_path, monkeypatch):
    from ocef.experiments import fairrec_budget as fb

    data = require_data("ml-100k")
    monkeypatch.setattr(fb, "QUICK_POPULATIONS", ((5000, 1000),))
    paths = fb.run(tmp_path, quick=True, seed=0, data_dir=data, progress=False)
    df = pd.read_csv(paths[0])
    assert set(df.setting) == {"movielens", "synthetic"}
    ml = df[df.setting == "movielens"]
    assert set(ml.n_groups) == {55} and set(ml.n_cells) == {294} and set(ml.min_users) == {5}
    budgeted = ml[ml.budget_kind == "evaluations"]
    assert set(budgeted.budget) == {13, 28}                  # 23% and 50% of the 55 valid groups
    assert (budgeted.n_evaluations <= budgeted.budget).all()
    auto = ml[(ml.method == "fairrec") & (ml.budget_kind != "matched")]
    assert set(auto.n_particles) == {29}                     # eps auto = 0.1 of 294 cells
    assert set(ml[ml.method == "fairrec-groups"].n_particles) == {5}      # 0.1 of 55 valid groups
    (claim,) = check_claims(fb.CLAIMS, df)
    assert claim["holds"] in (True, False) and "movielens: fairrec >= random Themis in" in claim["evidence"]
    assert paths[1].stat().st_size > 10_000
