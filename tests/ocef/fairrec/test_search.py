"""GroupOracle and the searches of seed 002 (Alg. 1-3, Themis, TestSGD, vanilla PSO)."""
import json

import numpy as np
import pandas as pd
import pytest

from ocef.environments.fairrec_split import fairrec_split
from ocef.fairrec.metrics import group_values, unfairness, user_metrics
from ocef.fairrec.search import GroupOracle, search


def _population(n=3000, seed=0):
    """Users over 3 attributes (2 x 7 x 10 = 140 cells) with skewed marginals and a metric that
    depends smoothly on the codes plus noise."""
    rng = np.random.default_rng(seed)
    g = rng.choice(2, n, p=[0.3, 0.7])
    a = rng.choice(7, n, p=[0.05, 0.2, 0.3, 0.2, 0.1, 0.1, 0.05])
    o = rng.choice(10, n, p=np.arange(10, 0, -1) / 55)
    m = 0.3 + 0.05 * g + 0.04 * a - 0.02 * o + rng.normal(0, 0.1, n)
    return pd.DataFrame({"gender": g, "age": a, "occupation": o, "mrr": m})


ATTRS = ["gender", "age", "occupation"]


@pytest.fixture(scope="module")
def table():
    return _population()


def test_exhaustive_equals_eq1(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=5)
    ex = search(oracle, "exhaustive")
    ref = unfairness(group_values(table, ATTRS, "mrr"), min_users=5)
    assert ex.uf == pytest.approx(ref.uf)
    for a, b in ((ex.advantaged, ref.advantaged), (ex.disadvantaged, ref.disadvantaged)):
        assert a.group == b.group and a.n_users == b.n_users and a.value == pytest.approx(b.value)
    assert ex.n_evaluations == oracle.n_groups == ref.n_groups
    assert ex.n_cells == 140


def test_dpso_never_above_exhaustive_and_cache_equals_table(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=5)
    ex = search(oracle, "exhaustive").infobase.set_index(ATTRS)
    for seed in range(5):
        for method in ("dpso", "vanilla"):
            r = search(oracle, method, epsilon=0.1, n_iter=5, rng=seed)
            assert r.uf <= ex.value.max() - ex.value.min() + 1e-12
            info = r.infobase.set_index(ATTRS)
            assert np.allclose(info.value, ex.value.loc[info.index])         # cached = exhaustive table
            assert (info.n_users >= 5).all() and r.advantaged.n_users >= 5   # invalid never best
            assert r.n_evaluations == len(info) <= oracle.n_groups


def test_dpso_reproducible_by_rng(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=3)
    a = search(oracle, "dpso", epsilon=0.05, n_iter=4, rng=7)
    b = search(oracle, "dpso", epsilon=0.05, n_iter=4, rng=np.random.default_rng(7))
    pd.testing.assert_frame_equal(a.infobase, b.infobase)
    assert a.uf == b.uf
    c = search(oracle, "dpso", epsilon=0.05, n_iter=4, rng=8)
    assert not a.infobase.equals(c.infobase)


def test_dpso_finds_near_optimum_and_counts_queries(table):
    calls = []
    values = table.mrr.to_numpy()

    def evaluate(rows):
        calls.append(len(rows))
        return values[rows].mean()

    oracle = GroupOracle(table, ATTRS, evaluate, min_users=5)
    ex = search(oracle, "exhaustive")
    accs = []
    for seed in range(5):
        calls.clear()
        r = search(oracle, "dpso", epsilon=0.2, n_iter=10, rng=seed)
        accs.append(r.uf / ex.uf)
        # every evaluation queried the black box once, for that group's users only
        assert len(calls) == r.n_evaluations
        assert sum(calls) == r.n_users_queried == r.infobase.n_users.sum()
    assert np.mean(accs) >= 0.9


def test_budget_and_particles(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=1)
    r = search(oracle, "dpso", epsilon=0.2, n_iter=50, max_evaluations=10, rng=0)
    assert r.n_evaluations == 10 and r.params["n_particles"] == 28
    rand = search(oracle, "exhaustive", max_evaluations=10, rng=0)
    assert rand.n_evaluations == 10
    assert search(oracle, "dpso", epsilon=1e-9, n_iter=1, rng=0).params["n_particles"] == 2


def test_testsgd_hand_case():
    six = pd.DataFrame({"g": [0, 0, 0, 1, 1, 2], "mrr": [1.0, 0.5, 0.0, 0.25, 0.2, 0.9]})
    oracle = GroupOracle.from_user_metrics(six, ["g"], "mrr")
    # theta = 0.3: groups of >= 1.8 users: g0 (mean .5, complement .45), g1 (.225, complement .6)
    r = search(oracle, "testsgd", theta=0.3)
    assert r.advantaged.group == {"g": 0} and r.disadvantaged.group == {"g": 1}
    assert r.uf == pytest.approx(0.5 - 0.225)
    assert r.n_users_queried == 3 + 3 + 2 + 4
    ex = search(oracle, "exhaustive")
    assert ex.uf == pytest.approx(0.9 - 0.225)


def test_result_protocol(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=5)
    r = search(oracle, "dpso", epsilon=0.1, n_iter=3, top_n=3, rng=0)
    d = json.loads(r.to_json())
    assert set(d) >= {"uf", "advantaged", "disadvantaged", "n_evaluations", "n_groups", "seconds"}
    assert set(d["advantaged"]) == {"group", "n_users", "value"}
    assert set(d["advantaged"]["group"]) == set(ATTRS)
    assert len(d["top_advantaged"]) == 3
    frame = r.to_frame()
    assert (frame.role == "advantaged").sum() == 1 and frame.group.str.contains("gender=").all()


def test_model_oracle_matches_precomputed_scores():
    rng = np.random.default_rng(1)
    n_users, n_items = 40, 80
    rows = [(u, i, t) for u in range(n_users) for t, i in enumerate(rng.choice(n_items, 6, replace=False))]
    ratings = pd.DataFrame(rows, columns=["user", "item", "timestamp"])
    users = pd.DataFrame({"gender": rng.integers(0, 2, n_users), "age": rng.integers(0, 3, n_users)})
    genres = rng.integers(0, 2, (n_items, 5))
    split = fairrec_split(ratings, users, genres, n_neg_test=9, rng=0)
    weights = rng.normal(size=(n_users, n_items))

    def black_box(cand):
        return weights[cand.user.to_numpy(), cand.item.to_numpy()]

    scores = black_box(split.candidates)
    um = pd.concat([users, user_metrics(split.candidates, scores, k=3, genres=genres, rp=split.rp,
                                        user_pop=split.user_pop)], axis=1)
    for metric in ("auc", "mrr", "ndcg", "urd", "urp"):
        lazy = GroupOracle.from_model(split, black_box, ["gender", "age"], metric, k=3, min_users=2)
        pre = GroupOracle.from_scores(split, scores, ["gender", "age"], metric, k=3, min_users=2)
        a, b = search(lazy, "exhaustive"), search(pre, "exhaustive")
        pd.testing.assert_frame_equal(a.infobase, b.infobase)
        if metric != "auc":        # pooled AUC is not a user mean
            ref = group_values(um, ["gender", "age"], metric)
            ref = ref[ref.n_users >= 2].reset_index(drop=True)
            assert np.allclose(a.infobase.sort_values(["gender", "age"]).value, ref.value)
    for make, model in ((GroupOracle.from_model, black_box), (GroupOracle.from_scores, scores)):
        with pytest.raises(ValueError, match="auc must be one of"):
            make(split, model, ["gender", "age"], "mrr", k=3, auc="roc")


def test_bad_inputs(table):
    with pytest.raises(ValueError, match="unknown attribute"):
        GroupOracle.from_user_metrics(table, ["zip"], "mrr")
    with pytest.raises(ValueError, match="listed more than once"):       # not a numpy broadcast error
        GroupOracle.from_user_metrics(table, [ATTRS[0], ATTRS[0]], "mrr")
    with pytest.raises(ValueError, match="unknown metric"):
        GroupOracle.from_user_metrics(table, ATTRS, "ctr")
    with pytest.raises(ValueError, match="integer codes"):
        GroupOracle.from_user_metrics(table.assign(age=table.age + 0.5), ATTRS, "mrr")
    with pytest.raises(ValueError, match="min_users"):
        GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=0)
    with pytest.raises(ValueError, match="fewer than two valid groups"):
        GroupOracle.from_user_metrics(table, ["gender"], "mrr", min_users=5000)
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr")
    with pytest.raises(ValueError, match="epsilon"):
        search(oracle, "dpso", epsilon=0)
    with pytest.raises(ValueError, match="n_iter"):
        search(oracle, "dpso", n_iter=0)
    with pytest.raises(ValueError, match="method must be one of"):
        search(oracle, "random")
    with pytest.raises(ValueError, match="theta"):
        search(oracle, "testsgd", theta=0.9)
