"""Tests of the random-traffic simulator (ocef/reo/simulate.py, Dong et al. 2024 Sec. 3.2, App. I)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ocef.reo.simulate import (
    LOG_COLUMNS,
    as_world,
    default_recommendations,
    draw_log_counts,
    expected_relevance,
    ground_truth,
    make_traffic_world,
    simulate_ab,
    simulate_traffic,
    stream_traffic,
)


@pytest.fixture(scope="module")
def world():
    return make_traffic_world(120, 60, 3, rank=4, score_bias=[0.0, 0.3, 0.8], rng=7)


def tiny_world():
    # 2 users x 4 items, groups [0, 0, 1, 1]; user 0 twice as active as user 1
    pref = np.array([[0.5, 0.1, 0.4, 0.2],
                     [0.2, 0.3, 0.6, 0.1]])
    scores = np.array([[0.9, 0.1, 0.5, 0.2],
                       [0.1, 0.3, 0.2, 0.8]])
    return as_world(pref, np.array([0, 0, 1, 1]), scores, np.array([2.0, 1.0]))


# ----------------------------------------------------------------------------- truth


def test_truth_hand_computed():
    w = tiny_world()
    truth = ground_truth(w, k=1)
    # top-1: user 0 -> item 0 (group 0), user 1 -> item 3 (group 1)
    np.testing.assert_array_equal(default_recommendations(w, 1).ravel(), [0, 3])
    wu = np.array([2 / 3, 1 / 3])
    p = np.array([wu[0] * 0.6 + wu[1] * 0.5, wu[0] * 0.6 + wu[1] * 0.7]) / 4
    q = np.array([wu[0] * 0.5, wu[1] * 0.1])
    np.testing.assert_allclose(truth.p, p)
    np.testing.assert_allclose(truth.q, q)
    # eq. (1) directly: U_k = P(R=1 | Y=1, S=k) = sum w_u rho_ui R_ui / sum w_u rho_ui over group k
    u_direct = np.array([wu[0] * 0.5 / (wu[0] * 0.6 + wu[1] * 0.5),
                         wu[1] * 0.1 / (wu[0] * 0.6 + wu[1] * 0.7)])
    np.testing.assert_allclose(truth.groups["U"], u_direct)
    # eq. (2)-(3) with the population std over the K groups
    np.testing.assert_allclose(truth.delta_u, u_direct / u_direct.mean() - 1)
    assert truth.penalty == pytest.approx(np.std(u_direct) / np.mean(u_direct))
    assert truth.p_recommended == pytest.approx(1 / 4)
    assert truth.relevance_default == pytest.approx(q.sum())
    assert truth.relevance_random == pytest.approx(p.sum())


def test_boost_raises_ranking():
    w = tiny_world()
    # boosting group 1 by 10x puts a group-1 item on top for user 0 (0.5*10 > 0.9)
    top = default_recommendations(w, 1, boosts={1: 10.0})
    assert w.item_groups[top[0, 0]] == 1
    # "1.25x deboost" of group 1 = {0: 1.25, 1: 1}: user 1's best stays 0.8 > 0.3 * 1.25
    np.testing.assert_array_equal(default_recommendations(w, 1, {0: 1.25, 1: 1}).ravel(), [0, 3])
    # a strong boost of group 0 lowers U of group 1 in the truth
    assert ground_truth(w, 1, {0: 10.0}).groups["U"][1] == 0.0


# ----------------------------------------------------------------------------- logs


def test_schema_and_counts(world):
    logs = simulate_traffic(world, n_days=3, requests_per_day=400, k=5, p_act=0.2,
                            log_rate=1.0, rng=1)
    for log, source in ((logs.default, "default"), (logs.random, "random")):
        assert list(log.columns) == LOG_COLUMNS
        assert (log["source"] == source).all()
        assert set(log["day"].unique()) == {0, 1, 2}
        np.testing.assert_array_equal(log["S"], world.item_groups[log["item"]])
        assert set(np.unique(log["Y"])) <= {0, 1} and set(np.unique(log["R"])) <= {0, 1}
        assert log["request"].between(0, 3 * 400 - 1).all()
    assert (logs.default["R"] == 1).all()
    # log_rate = 1: every request has its k default items, each once
    assert len(logs.default) == 3 * 400 * 5
    assert (logs.default.groupby("request")["item"].nunique() == 5).all()
    # random items of a request are distinct (uniform without replacement)
    assert (logs.random.groupby("request")["item"].nunique() == 5).all()
    # R of a random row = the default strategy shows that item to that user
    top = default_recommendations(world, 5)
    shown = (top[logs.random["user"].to_numpy()] == logs.random["item"].to_numpy()[:, None]).any(axis=1)
    np.testing.assert_array_equal(logs.random["R"].to_numpy(), shown.astype(int))
    # served: impressions = default items + non-duplicated random items
    s = logs.served
    n_act = logs.random.groupby("day")["request"].nunique().reindex(range(3), fill_value=0).to_numpy()
    overlap = logs.random.groupby("day")["R"].sum().reindex(range(3), fill_value=0).to_numpy()
    np.testing.assert_array_equal(s["activated"], n_act)
    np.testing.assert_array_equal(s["overlap"], overlap)
    np.testing.assert_array_equal(s["impressions"], 400 * 5 + 5 * n_act - overlap)


def test_overlap_shown_once_logged_to_both(world):
    """App. I.1: a pair shown by both strategies is one impression, logged to both with one Y."""
    logs = simulate_traffic(world, n_days=2, requests_per_day=600, k=8, p_act=0.5,
                            log_rate=1.0, rng=3)
    both = logs.random[logs.random["R"] == 1].merge(
        logs.default, on=["request", "item"], suffixes=("_rand", "_rec"), how="left", indicator=True)
    assert len(both) > 50
    assert (both["_merge"] == "both").all()
    np.testing.assert_array_equal(both["Y_rand"], both["Y_rec"])
    only_rand = logs.random[logs.random["R"] == 0].merge(logs.default, on=["request", "item"])
    assert only_rand.empty
    # the served relevance counts each overlapping pair once
    relevant = logs.default["Y"].sum() + logs.random.loc[logs.random["R"] == 0, "Y"].sum()
    assert logs.served["relevant"].sum() == relevant


def test_logging_rate_and_activation_are_binomial(world):
    n_req, k, rate, p_act = 3000, 6, 0.3, 0.05
    logs = simulate_traffic(world, requests_per_day=n_req, k=k, p_act=p_act,
                            log_rate=rate, rng=11)
    n_pairs = n_req * k
    assert abs(len(logs.default) - rate * n_pairs) < 4 * np.sqrt(n_pairs * rate * (1 - rate))
    n_act = logs.random["request"].nunique()
    assert abs(n_act - p_act * n_req) < 4 * np.sqrt(n_req * p_act * (1 - p_act))
    assert len(logs.random) == n_act * k


def test_random_items_uniform(world):
    logs = simulate_traffic(world, requests_per_day=4000, k=5, p_act=1.0, log_rate=0.01, rng=5)
    counts = np.bincount(logs.random["item"], minlength=world.n_items)
    # each item appears in a request's uniform 5-subset with probability 5/60
    assert stats.chisquare(counts).pvalue > 1e-3


def test_p_act_zero_gives_empty_random_log(world):
    logs = simulate_traffic(world, requests_per_day=200, p_act=0.0, rng=0)
    assert logs.random.empty and list(logs.random.columns) == LOG_COLUMNS
    assert (logs.served["activated"] == 0).all()
    full = simulate_traffic(world, requests_per_day=50, k=3, p_act=1.0, rng=0)
    assert full.random["request"].nunique() == 50


def test_same_seed_same_logs(world):
    a = simulate_traffic(world, requests_per_day=300, p_act=0.1, log_rate=0.5, rng=42)
    b = simulate_traffic(world, requests_per_day=300, p_act=0.1, log_rate=0.5, rng=42)
    pd.testing.assert_frame_equal(a.default, b.default)
    pd.testing.assert_frame_equal(a.random, b.random)
    c = simulate_traffic(world, requests_per_day=300, p_act=0.1, log_rate=0.5, rng=43)
    assert not a.default.equals(c.default)


def test_ab_arms_share_one_random_traffic(world):
    arms = {"control": None, "treatment": {0: 2.0, 1: 1.0}}
    ab = simulate_ab(world, arms, n_days=2, requests_per_day=3000, k=5, p_act=0.2,
                     log_rate=1.0, rng=9)
    assert set(ab.default) == {"control", "treatment"}
    assert set(ab.random["arm"]) == {"control", "treatment"}
    # user assignment: a user belongs to one arm, in the default and in the random logs
    all_rows = pd.concat([ab.default["control"], ab.default["treatment"], ab.random])
    assert (all_rows.groupby("user")["arm"].nunique() == 1).all()
    # R of a random row follows the policy of the request's arm
    for name, boosts in arms.items():
        rows = ab.random[ab.random["arm"] == name]
        top = default_recommendations(world, 5, boosts)
        shown = (top[rows["user"].to_numpy()] == rows["item"].to_numpy()[:, None]).any(axis=1)
        np.testing.assert_array_equal(rows["R"].to_numpy(), shown.astype(int))
        np.testing.assert_allclose(ab.truth[name].p, ground_truth(world, 5, boosts).p)
    # the two arms share p_k (same population), differ in q_k
    np.testing.assert_allclose(ab.truth["control"].p, ab.truth["treatment"].p)
    assert not np.allclose(ab.truth["control"].q, ab.truth["treatment"].q)
    # orthogonal layers: activation rate is p_act in each arm (binomial tolerance)
    for _, row in ab.served.groupby("arm")[["requests", "activated"]].sum().iterrows():
        n = row["requests"]
        assert abs(row["activated"] - 0.2 * n) < 4 * np.sqrt(n * 0.2 * 0.8)


def test_ab_request_assignment(world):
    ab = simulate_ab(world, {"a": None, "b": {1: 3.0}}, requests_per_day=2000, p_act=0.1,
                     assignment="request", arm_shares=[0.25, 0.75], rng=2)
    n_a = ab.served.set_index("arm").loc["a", "requests"]
    assert abs(n_a - 500) < 4 * np.sqrt(2000 * 0.25 * 0.75)
    assert (pd.concat(ab.default.values()).groupby("user")["arm"].nunique() > 1).any()


def test_estimates_converge_to_truth(world):
    """P̂_k, Q̂_k (eq. 5) from the simulated logs estimate the simulator's p_k, q_k."""
    logs = simulate_traffic(world, n_days=2, requests_per_day=20_000, k=5, p_act=0.2,
                            log_rate=0.5, rng=21)
    truth = logs.truth
    for log, expected in ((logs.random, truth.p), (logs.default, truth.q)):
        n = len(log)
        est = log.groupby("S")["Y"].sum().reindex(world.groups, fill_value=0).to_numpy() / n
        # rows are clustered by request/user, so allow 5 binomial SDs
        assert np.all(np.abs(est - expected) < 5 * np.sqrt(expected * (1 - expected) / n))


# ----------------------------------------------------------------------------- world


def test_make_traffic_world():
    w = make_traffic_world(200, 80, 4, positive_rate=0.2, rng=1)
    assert w.preferences.shape == w.scores.shape == (200, 80)
    assert w.item_groups.shape == (80,) and set(w.item_groups) == {0, 1, 2, 3}
    assert w.preferences.mean() == pytest.approx(0.2, abs=1e-8)
    assert w.user_weights.sum() == pytest.approx(1.0)
    w2 = make_traffic_world(200, 80, 4, positive_rate=0.2, rng=1)
    np.testing.assert_array_equal(w.scores, w2.scores)
    # a score bias for a group gives it more recommended relevant pairs
    biased = make_traffic_world(300, 100, 2, score_bias=[0.0, 2.0], rng=3)
    t = ground_truth(biased, 10)
    assert t.groups["U"][1] > t.groups["U"][0]


def test_draw_log_counts():
    p, q = np.array([0.01, 0.05]), np.array([0.1, 0.25])
    rand, rec = draw_log_counts(p, q, 10_000, 20_000, size=(400,), rng=0)
    assert rand.shape == rec.shape == (400, 2)
    np.testing.assert_allclose(rand.mean(axis=0), 10_000 * p, rtol=0.03)
    np.testing.assert_allclose(rec.mean(axis=0), 20_000 * q, rtol=0.01)
    # multinomial covariance: Cov = -n p1 p2
    assert np.cov(rec.T)[0, 1] < 0


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, match", [
    ({"p_act": -0.1}, "p_act"),
    ({"p_act": 1.5}, "p_act"),
    ({"log_rate": 0.0}, "log_rate"),
    ({"k": 0}, "k"),
    ({"k": 61}, "k"),
    ({"requests_per_day": 0}, "requests_per_day"),
    ({"boosts": {5: 2.0}}, "boosts"),
    ({"boosts": {0: -1.0}}, "boosts"),
])
def test_bad_simulation_arguments(world, kwargs, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        simulate_traffic(world, **{"requests_per_day": 10, **kwargs})
    if "boosts" not in kwargs:                  # stream_traffic checks its serving arguments alike
        with pytest.raises(ValueError, match=match):
            stream_traffic(world, tmp_path / "logs", **{"requests_per_day": 10, **kwargs})
        assert not list(tmp_path.rglob("*.parquet"))


def test_bad_world_arguments():
    pref = np.full((3, 4), 0.5)
    groups = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="preferences"):
        as_world(pref + 1, groups, pref)
    with pytest.raises(ValueError, match="item_groups"):
        as_world(pref, np.array([0, 1]), pref)
    with pytest.raises(ValueError, match="at least 2 groups"):
        as_world(pref, np.zeros(4, dtype=int), pref)
    with pytest.raises(TypeError, match="item_groups"):
        as_world(pref, groups.astype(float), pref)
    with pytest.raises(ValueError, match="scores"):
        as_world(pref, groups, -pref)
    with pytest.raises(ValueError, match="scores"):
        as_world(pref, groups, pref[:, :3])
    with pytest.raises(ValueError, match="user_weights"):
        as_world(pref, groups, pref, user_weights=[1, -1, 1])
    with pytest.raises(ValueError, match="no relevant pair"):
        ground_truth(as_world(np.array([[0.5, 0.5, 0.0, 0.0]]), groups, np.ones((1, 4))), 1)
    w = as_world(pref, groups, pref)
    with pytest.raises(ValueError, match="arms"):
        simulate_ab(w, {}, requests_per_day=5)
    with pytest.raises(ValueError, match="assignment"):
        simulate_ab(w, {"a": None}, requests_per_day=5, k=2, assignment="cookie")
    with pytest.raises(ValueError, match="arm_shares"):
        simulate_ab(w, {"a": None, "b": None}, requests_per_day=5, k=2, arm_shares=[1.0, 0.0])
    with pytest.raises(ValueError, match="p must sum"):
        draw_log_counts([0.7, 0.6], [0.1, 0.1], 10, 10)
    with pytest.raises(ValueError, match="n_random"):
        draw_log_counts([0.1, 0.1], [0.1, 0.1], 0, 10)


def test_served_relevance_matches_expectation(world):
    """App. I.1-I.2: measured relevance of shown items = the exact expectation, which falls with p_act."""
    rates = [expected_relevance(world, 5, p) for p in (0.0, 0.1, 0.5, 1.0)]
    assert rates[0] == pytest.approx(ground_truth(world, 5).relevance_default)
    assert all(a > b for a, b in zip(rates, rates[1:]))
    logs = simulate_traffic(world, n_days=20, requests_per_day=2000, k=5, p_act=0.5, log_rate=0.05, rng=4)
    s = logs.served.sum(numeric_only=True)
    measured = s["relevant"] / s["impressions"]
    # days are i.i.d.: 4 standard errors of the mean of 20 daily relevances
    daily = logs.served["relevance"]
    assert abs(measured - rates[2]) < 4 * daily.std(ddof=1) / np.sqrt(len(daily))
    assert abs(measured - rates[0]) > 8 * daily.std(ddof=1) / np.sqrt(len(daily))
    with pytest.raises(ValueError, match="p_act"):
        expected_relevance(world, 5, 1.5)
