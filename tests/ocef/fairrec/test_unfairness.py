"""Per-user metrics (Guo et al. 2023, Sec. 3.2), group values and UF (eq. 1) on hand-computed cases."""
import math

import numpy as np
import pandas as pd
import pytest

from ocef.fairrec.unfairness import group_values, pooled_auc, unfairness, user_metrics

L3 = 1 / math.log2(3)   # discount of position 2


def _candidates():
    # user 0: target item 1 ranked 2nd of 4; user 1: target item 4 ranked last, a tie at the top.
    cand = pd.DataFrame({"user": [0] * 4 + [1] * 4, "item": [0, 1, 2, 3, 4, 5, 6, 7],
                         "label": [0, 1, 0, 0, 1, 0, 0, 0]})
    scores = np.array([0.9, 0.8, 0.1, 0.2, 0.1, 0.5, 0.5, 0.3])
    genres = np.zeros((8, 3), dtype=int)
    genres[0] = [1, 1, 0]   # {A, B}
    genres[1] = [0, 1, 0]   # {B}
    genres[5] = [1, 0, 0]   # {A}
    genres[6] = [0, 0, 1]   # {C}
    genres[3] = [1, 1, 1]
    rp = np.arange(8) * 10.0
    user_pop = np.array([4.0, 30.0])
    return cand, scores, genres, rp, user_pop


def test_user_metrics_hand_computed():
    cand, scores, genres, rp, user_pop = _candidates()
    um = user_metrics(cand, scores, k=2, genres=genres, rp=rp, user_pop=user_pop)
    u0, u1 = um.iloc[0], um.iloc[1]
    # user 0: top-2 = items 0, 1; target at position 2.
    assert u0.auc == pytest.approx(2 / 3)            # 0.8 beats 0.1 and 0.2, loses to 0.9
    assert u0.mrr == pytest.approx(0.5)              # eq. (2)
    assert u0.ndcg == pytest.approx(L3)              # eq. (3)-(4): (1/log2 3) / 1
    assert u0.urd == pytest.approx(0.5)              # eq. (5): 1 - J({A,B},{B}) = 1 - 1/2
    assert u0.urp == pytest.approx((0 + 10) / 2 - 4)  # eq. (7)
    assert u0.hit == 1
    # user 1: the tie 0.5/0.5 keeps the earlier row first: top-2 = items 5, 6; no hit.
    assert u1.auc == pytest.approx(0.0)
    assert u1.mrr == 0 and u1.ndcg == 0 and u1.hit == 0
    assert u1.urd == pytest.approx(1.0)              # J({A},{C}) = 0
    assert u1.urp == pytest.approx((50 + 60) / 2 - 30)


def test_urd_mean_over_unordered_pairs_and_ndcg_repo():
    cand, scores, genres, rp, user_pop = _candidates()
    um = user_metrics(cand, scores, k=3, genres=genres, rp=rp, user_pop=user_pop)
    # user 0 top-3: items 0 {A,B}, 1 {B}, 3 {A,B,C}: J = 1/2, 2/3, 1/3 -> mean 1/2.
    assert um.urd[0] == pytest.approx(1 - (1 / 2 + 2 / 3 + 1 / 3) / 3)
    repo = user_metrics(cand, scores, k=2, ndcg="repo")
    assert repo.ndcg[0] == pytest.approx(L3 / (1 + L3))   # IDCG over the k positions
    assert np.isnan(repo.urd).all() and np.isnan(repo.urp).all()


def test_ndcg_two_positives_and_auc_ties():
    cand = pd.DataFrame({"user": [0] * 4, "item": [0, 1, 2, 3], "label": [1, 0, 1, 0]})
    um = user_metrics(cand, np.array([0.9, 0.8, 0.8, 0.1]), k=2)
    # top-2: items 0 (hit), 1 (tie with 2, earlier row first): DCG = 1, IDCG = 1 + 1/log2 3.
    assert um.ndcg[0] == pytest.approx(1 / (1 + L3))
    # pairs: (0.9 > 0.8, 0.9 > 0.1, 0.8 = 0.8 -> 1/2, 0.8 > 0.1) -> 3.5 / 4
    assert um.auc[0] == pytest.approx(3.5 / 4)
    assert pooled_auc([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1]) == pytest.approx(3.5 / 4)
    assert np.isnan(pooled_auc([1, 1], [0.2, 0.3]))


def test_unequal_candidate_counts_and_row_order():
    cand = pd.DataFrame({"user": [1, 0, 1, 0, 0], "item": [5, 0, 6, 1, 2], "label": [0, 0, 1, 1, 0]})
    um = user_metrics(cand, np.array([0.3, 0.2, 0.1, 0.9, 0.5]), k=1)
    assert um.user.tolist() == [0, 1]
    assert um.mrr.tolist() == [1.0, 0.0]
    assert um.auc.tolist() == [1.0, 0.0]


SIX = pd.DataFrame({"user": range(6), "gender": [0, 0, 0, 1, 1, 1], "age": [0, 0, 1, 0, 1, 1],
                    "mrr": [1.0, 0.5, 0.0, 0.25, 0.2, 0.6]})


def test_uf_on_six_users():
    gv = group_values(SIX, ["gender", "age"], "mrr")
    assert gv[["gender", "age", "n_users"]].values.tolist() == [[0, 0, 2], [0, 1, 1], [1, 0, 1], [1, 1, 2]]
    assert gv.value.tolist() == pytest.approx([0.75, 0.0, 0.25, 0.4])
    u1 = unfairness(gv, min_users=1)
    assert u1.uf == pytest.approx(0.75)
    assert u1.advantaged.group == {"gender": 0, "age": 0} and u1.advantaged.n_users == 2
    assert u1.disadvantaged.group == {"gender": 0, "age": 1}
    u2 = unfairness(gv, min_users=2)
    assert u2.uf == pytest.approx(0.35) and u2.disadvantaged.group == {"gender": 1, "age": 1}
    assert unfairness(group_values(SIX, "gender", "mrr")).uf == pytest.approx(0.5 - 0.35)
    assert u2.to_frame().role.tolist() == ["advantaged", "disadvantaged"]
    assert u2.to_dict()["advantaged"]["group"] == {"gender": 0, "age": 0}
    with pytest.raises(ValueError, match="fewer than two valid groups"):
        unfairness(gv, min_users=3)


def test_pooled_group_auc():
    cand = pd.DataFrame({"user": [0, 0, 1, 1, 2, 2], "item": [0, 1, 0, 1, 0, 1], "label": [1, 0, 1, 0, 1, 0]})
    scores = np.array([0.9, 0.1, 0.2, 0.3, 0.5, 0.4])
    table = pd.DataFrame({"user": [0, 1, 2], "g": [0, 0, 1]})
    gv = group_values(table, ["g"], "auc", candidates=cand, scores=scores, auc="pooled")
    # group 0 pooled: positives 0.9, 0.2; negatives 0.1, 0.3 -> wins 0.9>0.1, 0.9>0.3, 0.2>0.1 = 3/4
    assert gv.value.tolist() == pytest.approx([0.75, 1.0])
    um = user_metrics(cand, scores, k=1)
    mean = group_values(pd.concat([table, um[["auc"]]], axis=1), ["g"], "auc")
    assert mean.value.tolist() == pytest.approx([0.5, 1.0])


@pytest.mark.parametrize("seed", range(5))
def test_pooled_group_auc_equals_pooled_auc_of_each_group(seed):
    """group_values' within-group ranks (pandas) = pooled_auc (scipy) of each group's candidate rows,
    with tied scores and groups of one class (nan)."""
    rng = np.random.default_rng(seed)
    n_users, per = 30, 4
    cand = pd.DataFrame({"user": np.repeat(np.arange(n_users), per), "item": np.tile(np.arange(per), n_users),
                         "label": rng.integers(0, 2, n_users * per)})
    scores = rng.integers(0, 4, n_users * per) / 4.0
    table = pd.DataFrame({"user": np.arange(n_users), "g": rng.integers(0, 3, n_users),
                          "h": rng.integers(0, 5, n_users)})
    table.loc[:1, "g"] = 3                                   # users 0 and 1: a group with positives only
    cand.loc[cand.user <= 1, "label"] = 1
    gv = group_values(table, ["g", "h"], "auc", candidates=cand, scores=scores, auc="pooled")
    for _, grp in gv.iterrows():
        rows = cand.user.isin(table.user[(table.g == grp.g) & (table.h == grp.h)]).to_numpy()
        want = pooled_auc(cand.label[rows], scores[rows])
        assert grp.value == pytest.approx(want, rel=1e-12, nan_ok=True)
    assert gv.value.isna().any() and gv.value.notna().any()


def test_bad_inputs():
    cand, scores, *_ = _candidates()
    with pytest.raises(ValueError, match="k must be smaller"):
        user_metrics(cand, scores, k=4)
    with pytest.raises(ValueError, match="one value per candidate"):
        user_metrics(cand, scores[:3], k=2)
    with pytest.raises(ValueError, match="ndcg must be"):
        user_metrics(cand, scores, k=2, ndcg="x")
    with pytest.raises(ValueError, match="URD needs k >= 2"):
        user_metrics(cand, scores, k=1, genres=np.ones((8, 2)))
    with pytest.raises(ValueError, match="unknown attribute"):
        group_values(SIX, ["zip"], "mrr")
    with pytest.raises(ValueError, match=r"listed more than once: \['gender'\]"):
        group_values(SIX, ["gender", "gender"], "mrr")
    with pytest.raises(ValueError, match="metric must be one of"):
        group_values(SIX, ["gender"], "ctr")
    with pytest.raises(ValueError, match="auc must be one of"):
        group_values(SIX.assign(auc=0.5), ["gender"], "auc", auc="roc")
    with pytest.raises(ValueError, match="integer codes"):
        group_values(SIX.assign(gender=[0.5, 0, 0, 1, 1, 1]), ["gender"], "mrr")
    with pytest.raises(ValueError, match="min_users"):
        unfairness(group_values(SIX, "gender", "mrr"), min_users=0)
