"""Policy adapters: the policies they build equal the policies built by hand."""
import numpy as np
import pandas as pd
import pytest

from ocef.policies import argmax_policy, softmax_policy, topk_ranking_policy
from ocef.policies.adapters import (IdMap, callable_scores, implicit_scores, policy_from_callable,
                                    policy_from_implicit, policy_from_scores, policy_from_surprise, surprise_scores)
from ocef.policies.exposure import parity_of_exposure_policy


@pytest.fixture(scope="module")
def ratings():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"user": [f"u{v}" for v in rng.integers(0, 30, 800)], "item": rng.integers(100, 125, 800),
                         "rating": rng.integers(1, 6, 800).astype(float)})


@pytest.fixture(scope="module")
def trainset(ratings):
    surprise = pytest.importorskip("surprise")
    data = surprise.Dataset.load_from_df(ratings[["user", "item", "rating"]], surprise.Reader(rating_scale=(1, 5)))
    return data.build_full_trainset()


def _by_hand(algo, users, items):
    return np.array([[algo.predict(u, i).est for i in items] for u in users])


@pytest.mark.parametrize("name, kw", [("SVD", {}), ("SVD", {"biased": False}), ("NMF", {}), ("KNNBasic", {"verbose": False})])
def test_surprise_scores_are_its_predictions(trainset, ratings, name, kw):
    import surprise

    algo = getattr(surprise, name)(**kw, **({"random_state": 0} if name != "KNNBasic" else {})).fit(trainset)
    users = sorted(set(ratings["user"]))[::-1][:12]                 # any order, a subset
    items = sorted(set(ratings["item"]))
    np.testing.assert_allclose(surprise_scores(algo, users, items), _by_hand(algo, users, items), rtol=0, atol=1e-12)


def test_surprise_policies_equal_policies_built_by_hand(trainset, ratings):
    import surprise

    algo = surprise.SVD(random_state=1).fit(trainset)
    users, items = sorted(set(ratings["user"])), sorted(set(ratings["item"]))
    hand = _by_hand(algo, users, items)
    np.testing.assert_allclose(policy_from_surprise(algo, users, items, "softmax", beta=3).probs,
                               softmax_policy(hand, 3).probs, atol=1e-12)
    np.testing.assert_array_equal(policy_from_surprise(algo, users, items, "argmax").probs, argmax_policy(hand).probs)
    np.testing.assert_array_equal(policy_from_surprise(algo, users, items, "ranking", k=5).rankings,
                                  topk_ranking_policy(hand, k=5).rankings)
    cats = np.arange(len(items)) % 3
    np.testing.assert_array_equal(policy_from_surprise(algo, users, items, "parity", categories=cats).probs,
                                  parity_of_exposure_policy(hand, cats).probs)


def test_unknown_raw_ids_are_clear_errors(trainset, ratings):
    import surprise

    algo = surprise.SVD(random_state=0, n_epochs=2).fit(trainset)
    items = sorted(set(ratings["item"]))
    with pytest.raises(ValueError, match=r"unknown user id.*'nobody'"):
        surprise_scores(algo, ["u1", "nobody"], items)
    # 101 (an int) is known, "101" (a str) is not: the error says why
    with pytest.raises(ValueError, match="item ids are int"):
        surprise_scores(algo, ["u1"], ["101"])
    with pytest.raises(ValueError, match="unique"):
        surprise_scores(algo, ["u1", "u1"], items)
    with pytest.raises(TypeError, match="fitted scikit-surprise"):
        surprise_scores(surprise.SVD(), ["u1"], items)


def test_id_map():
    m = IdMap(np.array([10, 20, 30]), "user")
    np.testing.assert_array_equal(m.index([30, np.int64(10)]), [2, 0])
    assert 20 in m and 40 not in m and len(m) == 3
    with pytest.raises(ValueError, match=r"1 unknown user id\(s\), e.g. \[40\]"):
        m.index([10, 40])
    with pytest.raises(ValueError, match="unique"):
        IdMap([1, 1])
    with pytest.raises(TypeError, match="sequence"):
        IdMap("abc")
    assert IdMap.from_dict({"a": 1, "b": 0}).raw_ids == ["b", "a"]
    with pytest.raises(ValueError, match="positions"):
        IdMap.from_dict({"a": 1, "b": 1})


def test_callable_scorer_in_batches():
    table = np.random.default_rng(2).normal(size=(7, 5))
    user_ids, item_ids = [f"u{m}" for m in range(7)], [f"i{a}" for a in range(5)]
    seen = []

    def score(users, items):
        seen.append(len(users))
        return table[[user_ids.index(u) for u in users]][:, [item_ids.index(i) for i in items]]

    got = policy_from_callable(score, user_ids, item_ids, "softmax", beta=2.0, batch_size=3)
    np.testing.assert_allclose(got.probs, softmax_policy(table, 2.0).probs)
    assert seen == [3, 3, 1]
    with pytest.raises(ValueError, match="must return a 7 x 5 matrix"):
        callable_scores(lambda u, i: np.zeros((2, 2)), user_ids, item_ids)
    with pytest.raises(ValueError, match="finite"):
        callable_scores(lambda u, i: np.full((len(u), len(i)), np.nan), user_ids, item_ids)
    with pytest.raises(TypeError, match="callable"):
        callable_scores(table, user_ids, item_ids)


def test_policy_from_scores_names_and_checks():
    s = np.array([[0.1, 0.9, 0.5], [0.3, 0.2, 0.1]])
    np.testing.assert_array_equal(policy_from_scores(s, "argmax").probs, [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_allclose(policy_from_scores(s, "uniform").probs, np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="policy must be one of"):
        policy_from_scores(s, "best")
    with pytest.raises(ValueError, match="categories"):
        policy_from_scores(s, "parity")
    with pytest.raises(ValueError, match="k must"):
        policy_from_scores(s, "ranking", k=0)


def test_implicit_model_scores_equal_its_factors():
    implicit = pytest.importorskip("implicit", reason="the optional extra 'implicit' is not installed")
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    m = sp.csr_matrix((rng.random((20, 15)) < 0.3).astype(np.float32))
    import warnings

    with warnings.catch_warnings():                 # implicit's advice on multi-threaded BLAS
        warnings.simplefilter("ignore", RuntimeWarning)
        model = implicit.cpu.als.AlternatingLeastSquares(factors=4, iterations=3, random_state=0)
        model.fit(m, show_progress=False)
    user_ids, item_ids = [f"u{k}" for k in range(20)], [100 + k for k in range(15)]
    users, items = ["u3", "u0", "u7"], [114, 100, 105]
    hand = model.user_factors[[3, 0, 7]] @ model.item_factors[[14, 0, 5]].T
    np.testing.assert_allclose(implicit_scores(model, users, items, user_ids=user_ids, item_ids=item_ids), hand,
                               rtol=1e-6)
    # the model's own ranking for user 3 is the argmax of the adapter's scores
    ids, _ = model.recommend(3, m[3], N=1, filter_already_liked_items=False)
    pol = policy_from_implicit(model, ["u3"], item_ids, "argmax", user_ids=user_ids, item_ids=item_ids)
    assert int(np.argmax(pol.probs[0])) == int(ids[0])
    with pytest.raises(ValueError, match="unknown item id"):
        implicit_scores(model, users, [999], user_ids=user_ids, item_ids=item_ids)
    with pytest.raises(ValueError, match="user_ids has 3 ids"):
        implicit_scores(model, users, items, user_ids=user_ids[:3], item_ids=item_ids)


def test_implicit_scores_without_the_extra():
    """What implicit_scores reads of a model (its factor matrices) with a stand-in: runs without ``implicit``."""
    from types import SimpleNamespace

    rng = np.random.default_rng(1)
    model = SimpleNamespace(user_factors=rng.normal(size=(6, 3)).astype(np.float32),
                            item_factors=rng.normal(size=(4, 3)).astype(np.float32))
    user_ids, item_ids = [f"u{k}" for k in range(6)], [100, 101, 102, 103]
    got = implicit_scores(model, ["u5", "u1"], [103, 100], user_ids=IdMap(user_ids, "user"), item_ids=item_ids)
    hand = model.user_factors[[5, 1]].astype(float) @ model.item_factors[[3, 0]].astype(float).T
    np.testing.assert_array_equal(got, hand)
    assert got.dtype == float
    with pytest.raises(ValueError, match="unknown user id"):
        implicit_scores(model, ["u9"], [100], user_ids=user_ids, item_ids=item_ids)
    with pytest.raises(ValueError, match="not fitted"):
        implicit_scores(SimpleNamespace(user_factors=np.empty((0, 3)), item_factors=np.empty((0, 3))), ["u1"], [100],
                        user_ids=user_ids, item_ids=item_ids)
    with pytest.raises(TypeError, match="fitted implicit model"):
        implicit_scores(object(), ["u1"], [100], user_ids=user_ids, item_ids=item_ids)
