"""ocef.offpolicy.audit: hand-computed cells, REO equality with ocef reo, trust rule, Holm family, errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ocef.errors import DataError, ParameterError
from ocef.offpolicy import FAMILY, offpolicy_audit, ratio_covariance
from ocef.reo import estimate_reo, utility_covariance


def small_log():
    return pd.DataFrame({"user": [0, 1, 2, 3, 4, 5], "item": [0, 1, 2, 0, 1, 2], "reward": [1, 0, 0, 1, 1, 0],
                         "propensity": [0.5, 0.25, 0.25, 0.5, 0.25, 0.25], "tier": ["x", "y", "y"] * 2,
                         "g": ["a", "a", "a", "b", "b", "b"]})


def test_hand_computed_exposure_and_ips():
    target = pd.DataFrame({"item": [0, 1, 2], "probability": [0.2, 0.6, 0.2]})
    res = offpolicy_audit(small_log(), target, item_group="tier", user_group="g", estimators=["ips", "snips"],
                          interval="betting")      # betting: no measured floor
    g = res.groups
    exp = g[(g.estimand == "exposure") & (g.user_group == "(all)")].set_index("item_group")["estimate"]
    assert exp.to_dict() == pytest.approx({"x": 0.2, "y": 0.8})
    assert (g[g.estimand == "exposure"]["note"].str.contains("no importance weighting")).all()
    ips = g[(g.estimand == "utility") & (g.estimator == "ips") & (g.side == "user")].set_index("user_group")
    w = np.array([0.4, 2.4, 0.8, 0.4, 2.4, 0.8])
    r = np.array([1, 0, 0, 1, 1, 0])
    assert ips.loc["(all)", "estimate"] == pytest.approx((w * r).mean())
    assert ips.loc["b", "estimate"] == pytest.approx((w * r)[3:].mean())
    assert ips.loc["(all)", "ess"] == pytest.approx(w.sum() ** 2 / (w @ w))
    assert ips.loc["(all)", "max_weight"] == pytest.approx(2.4)
    sn = g[(g.estimator == "snips") & (g.user_group == "(all)") & (g.side == "user")]["estimate"].iloc[0]
    assert sn == pytest.approx((w * r).sum() / w.sum())
    # the item-group utility: the reward the group's items bring
    item = g[(g.estimator == "ips") & (g.side == "item")].set_index("item_group")["estimate"]
    assert item["x"] + item["y"] == pytest.approx(ips.loc["(all)", "estimate"])


def test_trust_rule_nulls_and_inconclusive():
    target = pd.DataFrame({"item": [0, 1, 2], "probability": [0.2, 0.6, 0.2]})
    res = offpolicy_audit(small_log(), target, user_group="g", estimators=["ips"])
    u = res.groups[res.groups.estimand == "utility"]
    assert u["estimate"].isna().all() and u["reason"].str.startswith("untrusted").all()
    p = res.pairs[res.pairs.estimand == "utility"]
    assert (p["verdict"] == "inconclusive").all() and p["reason"].str.startswith("inconclusive").all()
    assert res.overall["family"].iloc[0] == FAMILY


def test_support_violation():
    log = small_log()
    target = pd.DataFrame({"item": [0, 7], "probability": [0.5, 0.5]})    # item 7 never logged
    res = offpolicy_audit(log, target, estimators=["ips"])
    row = res.groups[res.groups.estimand == "utility"].iloc[0]
    assert row["support"] == pytest.approx(0.5) and np.isnan(row["estimate"]) and "support" in row["reason"]


def reo_world(seed=1, n_items=40, n_users=300, k=5, nr=6000):
    rng = np.random.default_rng(seed)
    S = np.where(np.arange(n_items) < 15, "a", np.where(np.arange(n_items) < 30, "b", "c"))
    rel = rng.random((n_users, n_items)) < 0.1 + 0.2 * (np.arange(n_items) % 3 == 0)
    u, i = rng.integers(0, n_users, nr), rng.integers(0, n_items, nr)
    random = pd.DataFrame({"user": u, "item": i, "reward": rel[u, i].astype(int), "propensity": 1 / n_items,
                           "S": S[i]})
    top = np.argsort(-(rel + rng.random(rel.shape)), axis=1)[:, :k]
    du, di = np.repeat(np.arange(n_users), k), top.ravel()
    default = pd.DataFrame({"user": du, "item": di, "rank": np.tile(np.arange(1, k + 1), n_users),
                            "reward": rel[du, di].astype(int)})
    return random, default, pd.DataFrame({"item": np.arange(n_items), "S": S}), S


def test_reo_from_random_traffic_is_the_uniform_logging_case():
    random, default, items, S = reo_world()
    res = offpolicy_audit(random, default, item_group="S", item_groups=items, estimators=["ips"])
    reo = estimate_reo(default.assign(Y=default.reward, S=S[default.item]), random.assign(Y=random.reward),
                       label="Y", group="S")
    g = res.groups.set_index(["estimand", "item_group"])
    ref = reo.groups.set_index("group")
    for k in ("a", "b", "c"):
        assert g.loc[("relative_utility", k), "estimate"] == pytest.approx(ref.loc[k, "delta_U"], rel=1e-12)
        assert g.loc[("relative_utility", k), "ci_low"] == pytest.approx(ref.loc[k, "ci_low"], rel=1e-12)
        assert g.loc[("relative_utility", k), "ci_high"] == pytest.approx(ref.loc[k, "ci_high"], rel=1e-12)
        # U up to the common factor k / n_items = 5 / 40
        assert g.loc[("recommended_given_relevant", k), "estimate"] == pytest.approx(ref.loc[k, "U"] * 5 / 40,
                                                                                     rel=1e-12)
    assert g.loc[("reo_penalty", "(all)"), "estimate"] == pytest.approx(reo.penalty, rel=1e-12)
    assert g.loc[("reo_penalty", "(all)"), "ci_low"] == pytest.approx(reo.penalty_ci[0], rel=1e-10)
    assert g.loc[("reo_penalty", "(all)"), "ci_high"] == pytest.approx(reo.penalty_ci[1], rel=1e-10)


def test_ratio_covariance_is_the_multinomial_gamma():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 500)
    b = rng.integers(0, 4, 700)
    A = (a[:, None] == np.arange(3)).astype(float)
    B = (b[:, None] == np.arange(3)).astype(float) * 10      # constant propensity 1/10
    U, gamma = ratio_covariance(A, B, same_rows=False)
    Q, P = A.mean(0), B.mean(0) / 10
    np.testing.assert_allclose(U * 10, Q / P, rtol=1e-12)
    np.testing.assert_allclose(gamma * 100, utility_covariance(P, Q, 500, 700), rtol=1e-10)


def test_bad_inputs():
    log = small_log()
    with pytest.raises(DataError, match="propensity"):
        offpolicy_audit(log.assign(propensity=1.5), pd.DataFrame({"item": [0], "probability": [1.0]}))
    with pytest.raises(DataError, match="sum to"):
        offpolicy_audit(log, pd.DataFrame({"item": [0, 1], "probability": [0.8, 0.8]}))
    with pytest.raises(DataError, match="no column reward"):
        offpolicy_audit(log.drop(columns="reward"), pd.DataFrame({"item": [0], "probability": [1.0]}))
    with pytest.raises(ParameterError, match="estimators"):
        offpolicy_audit(log, pd.DataFrame({"item": [0], "probability": [1.0]}), estimators=["magic"])
    with pytest.raises(DataError, match="probability column"):
        offpolicy_audit(log, pd.DataFrame({"item": [0]}))


def test_to_dict_is_strict_json():
    import json

    res = offpolicy_audit(small_log(), pd.DataFrame({"item": [0, 1, 2], "probability": [0.2, 0.6, 0.2]}),
                          item_group="tier", estimators=["ips"])
    text = json.dumps(res.to_dict(), allow_nan=False)
    assert '"family"' in text and set(res.to_dict()) >= {"overall", "groups", "pairs"}


def test_slate_audit_per_group_equals_the_slate_estimators():
    from ocef.offpolicy import slate_audit
    from ocef.offpolicy.slate import iips_terms, rips_terms

    rng = np.random.default_rng(4)
    n_slates, L = 600, 3
    ids, pos = np.repeat(np.arange(n_slates), L), np.tile(np.arange(L), n_slates)
    pb = rng.uniform(0.2, 0.6, ids.size)
    pe = rng.uniform(0.1, 0.9, ids.size)
    log = pd.DataFrame({"slate_id": ids, "position": pos, "reward": (rng.random(ids.size) < 0.3).astype(float),
                        "propensity": pb, "target_probability": pe,
                        "propensity_prefix": np.concatenate([np.cumprod(pb[i * L:(i + 1) * L]) for i in range(n_slates)]),
                        "target_probability_prefix": np.concatenate([np.cumprod(pe[i * L:(i + 1) * L])
                                                                     for i in range(n_slates)]),
                        "seg": np.repeat(np.where(np.arange(n_slates) % 3 == 0, "a", "b"), L)})
    res = slate_audit(log, user_group="seg", estimators=["iips", "rips"])
    g = res.groups.set_index(["estimator", "user_group"])
    args = [log[c].to_numpy() for c in ("slate_id", "position", "reward")]
    t = iips_terms(*args, pb, pe)
    assert g.loc[("iips", "(all)"), "estimate"] == pytest.approx(t.mean(), rel=1e-12)
    assert g.loc[("iips", "a"), "estimate"] == pytest.approx(t[np.arange(n_slates) % 3 == 0].mean(), rel=1e-12)
    r = rips_terms(*args, log["propensity_prefix"].to_numpy(), log["target_probability_prefix"].to_numpy())
    assert g.loc[("rips", "b"), "estimate"] == pytest.approx(r[np.arange(n_slates) % 3 != 0].mean(), rel=1e-12)
    assert len(res.pairs) == 2 and res.pairs["p_adjusted"].notna().all()


def test_one_holm_family_and_dm_without_interval():
    from ocef.inference import holm_adjust

    rng = np.random.default_rng(7)
    n = 3000
    log = pd.DataFrame({"user": rng.integers(0, 300, n), "item": rng.integers(0, 6, n), "propensity": 1 / 6})
    log["reward"] = (rng.random(n) < 0.1 + 0.08 * log["item"]).astype(float)
    log["seg"] = np.where(log["user"] % 2 == 0, "a", "b")
    log["genre"] = np.where(log["item"] < 3, "x", "y")
    target = pd.DataFrame({"item": range(6), "probability": [0.05, 0.05, 0.1, 0.2, 0.3, 0.3]})
    res = offpolicy_audit(log, target, user_group="seg", item_group="genre", estimators=["ips", "dm", "dr"], rng=0)
    p = res.pairs["p_value"].to_numpy(dtype=float)
    np.testing.assert_allclose(res.pairs["p_adjusted"].to_numpy(dtype=float), holm_adjust(p), equal_nan=True)
    assert set(res.pairs["estimand"]) == {"exposure", "utility", "recommended_given_relevant"}
    dm = res.groups[(res.groups.estimator == "dm")]
    assert dm["estimate"].notna().all() and dm["ci_low"].isna().all() and dm["reason"].str.contains("DM").all()
    ver = res.pairs.set_index(["estimand", "estimator", "group"])["verdict"]
    assert ver[("utility", "dr", "x")] == "reference higher"      # genre y's items bring more reward
    assert (res.pairs.loc[res.pairs.estimator == "dm", "verdict"] == "inconclusive").all()


def test_slate_audit_pseudo_inverse_equals_the_estimator():
    from ocef.errors import DataError
    from ocef.offpolicy import slate_audit
    from ocef.offpolicy.slate import pseudo_inverse_terms

    rng = np.random.default_rng(5)
    n_slates, L = 800, 2
    ids, pos = np.repeat(np.arange(n_slates), L), np.tile(np.arange(L), n_slates)
    pb = rng.uniform(0.3, 0.6, ids.size)
    pe = rng.uniform(0.2, 0.8, ids.size)
    reward = (rng.random(ids.size) < 0.4).astype(float)
    log = pd.DataFrame({"slate_id": ids, "position": pos, "reward": reward, "propensity": pb,
                        "target_probability": pe}).sample(frac=1.0, random_state=0)      # row order is free
    res = slate_audit(log, estimators=["pseudo-inverse"])
    t = pseudo_inverse_terms(reward.reshape(n_slates, L).sum(axis=1), pb.reshape(n_slates, L), pe.reshape(n_slates, L))
    assert res.groups["estimate"].iloc[0] == pytest.approx(t.mean(), rel=1e-12)
    with pytest.raises(DataError, match="one length"):
        slate_audit(log.iloc[1:], estimators=["pseudo-inverse"])


def test_slate_audit_cascade_dr_equals_the_estimator():
    from ocef.errors import DataError
    from ocef.offpolicy import slate_audit
    from tests.ocef.offpolicy.test_slate import P, REWARDS, SLATES, _plackett_luce_log

    ids, pos, act, r, logging, joint, marg, casc, dist, second = _plackett_luce_log(SLATES * 100, REWARDS * 100, P)
    q = np.array([[.4, .3, .2] if l == 0 else [.3, .2, .1] for l in pos])
    log = pd.DataFrame({"slate_id": ids, "position": pos, "item": act, "reward": r,
                        "propensity_prefix": logging["cascade"], "target_probability_prefix": casc,
                        "seg": np.where(ids % 2 == 0, "a", "b")})
    res = slate_audit(log, user_group="seg", estimators=["cascade-dr"], q_hat=q, target_action_dist=dist)
    g = res.groups.set_index("user_group")["estimate"]
    t = sl_cascade(ids, pos, act, r, logging["cascade"], casc, q, dist)
    assert g["(all)"] == pytest.approx(t.mean(), rel=1e-12)
    assert g["a"] == pytest.approx(t[np.unique(ids) % 2 == 0].mean(), rel=1e-12)
    with pytest.raises(DataError, match="cascade-dr needs q_hat"):
        slate_audit(log, estimators=["cascade-dr"])


def sl_cascade(*args):
    from ocef.offpolicy.slate import cascade_dr_terms

    return cascade_dr_terms(*args)


def test_slate_floors_are_per_estimator():
    """benchmarks/offpolicy_slate_coverage.py: Wald floors on ess_clicks IIPS/pseudo-inverse 30, RIPS 50,
    standard slate IPS 200. 25 slates of 2 slots, weights 1, slate rewards 1 or 2: ess_clicks 37.5."""
    import pandas as pd

    from ocef.offpolicy.audit import slate_audit
    from ocef.offpolicy.diagnostics import TRUST_FLOORS

    n = 25
    log = pd.DataFrame({"slate_id": np.repeat(np.arange(n), 2), "position": np.tile([0, 1], n),
                        "reward": np.ravel([[1.0, s % 2] for s in range(n)]),
                        "propensity": 0.5, "target_probability": 0.5,
                        "propensity_prefix": np.tile([0.5, 0.25], n), "target_probability_prefix": np.tile([0.5, 0.25], n),
                        "propensity_slate": 0.25, "target_probability_slate": 0.25})
    g = slate_audit(log, estimators=["iips", "pseudo-inverse", "rips", "sips"]).groups.set_index("estimator")
    assert g.loc["iips", "reason"] is None or g.loc["iips", "reason"] != g.loc["iips", "reason"]   # None or NaN
    assert g.loc["iips", "estimate"] == pytest.approx(1.48) and g.loc["iips", "ci_low"] < 1.48
    assert np.isfinite(g.loc["pseudo-inverse", "ci_low"])
    for name in ("rips", "sips"):
        assert np.isnan(g.loc[name, "ci_low"]) and f"< {TRUST_FLOORS[name + '/wald']:g}" in g.loc[name, "reason"]
        assert f"{name}/wald" in g.loc[name, "reason"]
    assert TRUST_FLOORS["cascade-dr/wald"] < TRUST_FLOORS["iips/wald"] < TRUST_FLOORS["rips/wald"] < TRUST_FLOORS["sips/wald"]
