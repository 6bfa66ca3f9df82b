"""A/B intervals under user assignment: which truth the logs estimate (reo-ab-boost coverage).

With users assigned to arms, an arm's default log only holds its own users' requests, so the
logs estimate ``AbTrafficLogs.truth_served`` (q_k of the arm's users, p_k of everyone through
the shared random log), not the whole-population ``truth``. The full run of ``reo-ab-boost``
compared its intervals with the population truth and found 27/42 = 64% coverage.
"""
import numpy as np
import pytest

from ocef import reo
from ocef.reo.simulate import ground_truth, make_traffic_world, simulate_ab

ARMS = {"control": None, "treatment": {0: 1.25, 1: 1.0}}


@pytest.fixture(scope="module")
def world():
    # few users: the user-split error is large next to the sampling error of the logs
    return make_traffic_world(n_users=60, n_items=80, n_groups=2, score_bias=[0.0, 0.8],
                              group_shares=[0.6, 0.4], rng=3)


def test_truth_served_hand_computed(world):
    ab = simulate_ab(world, ARMS, requests_per_day=2000, p_act=0.05, rng=0)
    users = np.unique(ab.default["treatment"]["user"])
    w = np.zeros(world.n_users)
    w[users] = world.user_weights[users]
    w /= w.sum()
    rec = np.zeros((world.n_users, world.n_items))
    top = reo.simulate.default_recommendations(world, 10, ARMS["treatment"])
    np.put_along_axis(rec, top, 1.0, axis=1)
    onehot = world.item_groups[:, None] == np.array([0, 1])[None, :]
    q = w @ (world.preferences * rec) @ onehot / 10
    served = ab.truth_served["treatment"]
    np.testing.assert_allclose(served.q, q)
    np.testing.assert_allclose(served.p, ab.truth["treatment"].p)          # shared random log: everyone
    U = q / served.p
    assert served.penalty == pytest.approx(np.std(U) / np.mean(U))
    assert served.penalty != pytest.approx(ab.truth["treatment"].penalty, abs=1e-3)


def test_request_assignment_serves_the_population(world):
    ab = simulate_ab(world, ARMS, requests_per_day=500, p_act=0.05, assignment="request", rng=0)
    for name, b in ARMS.items():
        assert ab.truth_served[name].penalty == ground_truth(world, 10, b).penalty


def test_joint_delta_covers_the_served_truth_not_the_population_truth(world):
    """200 A/B tests with fresh user splits: the joint delta interval covers D_REO of the served
    users at 95% (within 3 binomial SEs); against the population truth it under-covers."""
    n_rep, cover_served, cover_pop = 200, 0, 0
    truth_pop = ground_truth(world, 10, ARMS["treatment"]).penalty - ground_truth(world, 10, None).penalty
    for r in range(n_rep):
        ab = simulate_ab(world, ARMS, requests_per_day=3000, p_act=0.2, log_rate=0.5, rng=[7, r])
        res = reo.ab_test(ab.default["control"], ab.default["treatment"], ab.random, interval="delta-shared",
                          groups=[0, 1], backend="pandas")
        lo, hi = res.D_reo_ci
        served = ab.truth_served["treatment"].penalty - ab.truth_served["control"].penalty
        cover_served += lo <= served <= hi
        cover_pop += lo <= truth_pop <= hi
    tol = 3 * np.sqrt(0.95 * 0.05 / n_rep)
    assert abs(cover_served / n_rep - 0.95) <= tol, cover_served
    assert cover_pop / n_rep < 0.95 - tol, cover_pop
