"""GroupOracle and the searches of Guo et al. 2023 (Alg. 1-3, Themis, TestSGD, vanilla PSO)."""
import json

import numpy as np
import pandas as pd
import pytest

from ocef.environments.fairrec_split import fairrec_split
from ocef.fairrec.unfairness import group_values, unfairness, user_metrics
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
    assert "infobase" not in d and list(d) == list(r.to_dict())         # the InfoBase is the frame, not the JSON
    assert set(d["advantaged"]) == {"group", "n_users", "value", "ci_low", "ci_high", "labels"}
    assert set(d["advantaged"]["group"]) == set(ATTRS)
    assert len(d["top_advantaged"]) == 3
    frame = r.to_frame()
    assert (frame.role == "advantaged").sum() == 1 and frame.group.str.contains("gender=").all()


def _small_split(rng, n_users=40, n_items=80):
    """A split of ``n_users`` users with 6 ratings each, attributes gender x age, 5 genres; ``(split, users, genres)``."""
    rows = [(u, i, t) for u in range(n_users) for t, i in enumerate(rng.choice(n_items, 6, replace=False))]
    ratings = pd.DataFrame(rows, columns=["user", "item", "timestamp"])
    users = pd.DataFrame({"gender": rng.integers(0, 2, n_users), "age": rng.integers(0, 3, n_users)})
    genres = rng.integers(0, 2, (n_items, 5))
    return fairrec_split(ratings, users, genres, n_neg_test=9, rng=0), users, genres


def test_model_oracle_matches_precomputed_scores():
    rng = np.random.default_rng(1)
    split, users, genres = _small_split(rng)
    weights = rng.normal(size=(split.n_users, split.n_items))

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
        with pytest.raises(ValueError, match="ndcg must be one of"):     # when built, not at the first query
            make(split, model, ["gender", "age"], "mrr", k=3, ndcg="dcg")


def test_oracles_refuse_a_user_without_candidates():
    """A group's rows are user indices: a user without candidates must be refused, not shift the users after it
    (before: from_scores' user-mean metrics took user r + 1's values for user r; from_model blamed k)."""
    import dataclasses

    split, _, _ = _small_split(np.random.default_rng(1))
    short = dataclasses.replace(split, candidates=split.candidates[split.candidates.user != 0])
    scores = np.random.default_rng(2).normal(size=len(short.candidates))
    for metric in ("mrr", "auc", "urd"):
        for make, model in ((GroupOracle.from_scores, scores), (GroupOracle.from_model, lambda c: -c.item.to_numpy())):
            with pytest.raises(ValueError, match="every user of the split needs candidates: 39 users .* has 40"):
                make(short, model, ["gender", "age"], metric, k=3)


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


def test_auto_schedule_at_its_anchors():
    from ocef.fairrec.search import AUTO_COMPLEX, AUTO_SIMPLE, auto_epsilon, auto_n_iter

    assert AUTO_SIMPLE == (1_000, 0.1, 10) and AUTO_COMPLEX == (53_058, 0.005, 20)
    for n in (1, 294, 1_000):                            # simple cases: eps in [0.1, 0.2], n_it in [5, 10]
        assert auto_epsilon(n) == 0.1 and auto_n_iter(n) == 10
    for n in (53_058, 10**6):                            # complex cases: eps in [0.002, 0.005], n_it in [15, 20]
        assert auto_epsilon(n) == 0.005 and auto_n_iter(n) == 20
    mid = int(round(np.sqrt(1_000 * 53_058)))            # geometric midpoint: geometric mean of the epsilons
    assert auto_epsilon(mid) == pytest.approx(np.sqrt(0.1 * 0.005), rel=1e-4) and auto_n_iter(mid) == 15
    n = np.array([1_000, 3_000, 10_000, 30_000, 53_058])
    particles = np.array([auto_epsilon(int(v)) * v for v in n])
    assert np.all(np.diff(particles) > 0)                # more particles for more groups ...
    slope = np.polyfit(np.log(n), np.log(particles), 1)[0]
    assert slope == pytest.approx(1 + np.log(0.05) / np.log(53.058), abs=1e-9)    # ... as N^0.246
    for bad in (0, 1.5, "1000"):
        with pytest.raises((ValueError, TypeError), match="n_groups"):
            auto_epsilon(bad)


def test_search_auto_and_epsilon_base(table):
    from ocef.fairrec.search import auto_epsilon, auto_n_iter

    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=20)
    assert oracle.n_cells == 140 and oracle.n_groups < 140
    r = search(oracle, "dpso", epsilon="auto", n_iter="auto", rng=0)
    assert r.params["epsilon"] == auto_epsilon(140) == 0.1
    assert r.params["n_iter"] == auto_n_iter(140) == 10 and r.params["n_particles"] == 14
    assert r.params["epsilon_rule"] == "auto" and r.params["epsilon_base"] == "cells"
    same = search(oracle, "dpso", epsilon=0.1, n_iter=10, rng=0)     # auto = (0.1, 10) up to 1,000 groups
    pd.testing.assert_frame_equal(r.infobase, same.infobase)
    g = search(oracle, "dpso", epsilon=0.5, epsilon_base="groups", rng=0)
    assert g.params["n_particles"] == max(2, int(0.5 * oracle.n_groups)) < int(0.5 * 140)
    assert search(oracle, "dpso", epsilon="auto", epsilon_base="groups", rng=0).params["n_particles"] == max(
        2, int(0.1 * oracle.n_groups))


def _three_groups():
    """Groups g=0 (3 users), g=1 (2 users), g=2 (1 user): query costs 4, 3, 2 with group_cost = 1."""
    return pd.DataFrame({"g": [0, 0, 0, 1, 1, 2], "mrr": [0.1, 0.2, 0.3, 0.6, 0.8, 0.0]})


@pytest.mark.parametrize("seed", range(6))
def test_cost_budget_stops_exactly_at_the_budget(seed):
    oracle = GroupOracle.from_user_metrics(_three_groups(), ["g"], "mrr")
    order = np.random.default_rng(seed).permutation(oracle.valid_cells)     # Themis' random order
    costs = oracle.size(order) + 1.0
    exact = [costs[0], costs[:2].sum()]                  # budgets met exactly by the first one or two queries
    for budget in (*exact, 4.0, 5.0, 8.5):
        r = search(oracle, "exhaustive", max_cost=budget, rng=seed)
        fits = np.cumsum(costs) <= budget
        stop = np.argmin(fits) if not fits.all() else len(costs)    # the first query that would overflow
        assert r.n_evaluations == stop and r.n_queries == stop
        assert r.cost == costs[:stop].sum() and r.cost <= budget
        if budget in exact:
            assert r.cost == budget
        assert r.n_users_queried == oracle.size(order[:stop]).sum()
        assert set(r.infobase.g) == set(order[:stop].tolist())
    # the whole table costs 3 + 2 + 1 users + 3 queries = 9: a budget of 9 runs Themis to the end
    full = search(oracle, "exhaustive", max_cost=9.0, rng=seed)
    assert full.cost == 9.0 and full.uf == pytest.approx(0.7 - 0.0)


def test_cost_counts_users_and_queries(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr", min_users=5)
    ex = search(oracle, "exhaustive", group_cost=2.5)
    assert ex.cost == pytest.approx(ex.n_users_queried + 2.5 * ex.n_evaluations)
    assert search(oracle, "exhaustive", group_cost=0).cost == ex.n_users_queried
    largest = oracle.size(oracle.valid_cells).max()
    for seed in range(3):
        r = search(oracle, "dpso", epsilon=0.2, n_iter=50, max_cost=0.3 * ex.cost, group_cost=2.5, rng=seed)
        again = search(oracle, "dpso", epsilon=0.2, n_iter=50, max_cost=0.3 * ex.cost, group_cost=2.5, rng=seed)
        assert r.cost <= 0.3 * ex.cost and r.cost == again.cost and r.uf == again.uf
        assert r.cost > 0.3 * ex.cost - 2.5 - r.infobase.n_users.max() * 3     # stopped near the budget
        # exactly: it stopped at a query that would have overflowed, and no query costs more than the largest group
        assert r.cost > 0.3 * ex.cost - 2.5 - largest
        pd.testing.assert_frame_equal(r.infobase, again.infobase)


def test_bad_auto_and_budget_values(table):
    oracle = GroupOracle.from_user_metrics(table, ATTRS, "mrr")
    for kwargs, name in (({"epsilon": "automatic"}, "epsilon"), ({"n_iter": "auto2"}, "n_iter"),
                         ({"max_cost": 0}, "max_cost"), ({"max_cost": -3.0}, "max_cost"),
                         ({"group_cost": -1}, "group_cost"), ({"epsilon_base": "users"}, "epsilon_base")):
        with pytest.raises((ValueError, TypeError), match=name):
            search(oracle, "dpso", **kwargs)
