"""Tests of ocef.envy.matching: policy distance, transported and average policies (Sec. 4, Def. 4.2)."""
import numpy as np
import pytest
from scipy.optimize import linprog

from ocef.envy.matching import (MixtureWeights, average_weights, mixture_weights, policy_distance,
                           transport_weights)
from ocef.policies import ArrayPolicy, softmax_policy


def test_policy_distance_hand_values():
    a = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    b = np.array([[0.0, 0.0, 1.0]])
    np.testing.assert_allclose(policy_distance(a, b), [[2.0], [2.0]])
    np.testing.assert_allclose(policy_distance(a), [[0.0, 1.0], [1.0, 0.0]])


def test_policy_distance_is_sup_over_contexts():
    a = np.array([[[1.0, 0.0], [0.5, 0.5]]])
    b = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [0.5, 0.5]]])
    np.testing.assert_allclose(policy_distance(a, b), [[1.0, 2.0]])
    with pytest.raises(ValueError, match="same items"):
        policy_distance(a, b[:, 0])


def _lp_transport_cost(cost):
    n_i, n_k = cost.shape
    a_eq = np.zeros((n_i + n_k, n_i * n_k))
    for m in range(n_i):
        a_eq[m, m * n_k:(m + 1) * n_k] = 1.0
    for n in range(n_k):
        a_eq[n_i + n, n::n_k] = 1.0
    b_eq = np.concatenate([np.full(n_i, 1 / n_i), np.full(n_k, 1 / n_k)])
    res = linprog(cost.ravel(), A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    return res.fun


@pytest.mark.parametrize("seed", range(3))
def test_transport_weights_are_optimal_mixtures(seed):
    rng = np.random.default_rng(seed)
    pi = softmax_policy(rng.normal(size=(5 + 7, 6)), beta=2.0).probs
    gi, gk = pi[:5], pi[5:]
    gamma = transport_weights(gi, gk)
    assert gamma.shape == (5, 7)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, atol=1e-12)       # rows sum to 1 (eq. 4)
    np.testing.assert_allclose(gamma.sum(axis=0), 5 / 7, atol=1e-12)     # columns: |g_i| / |g_k|
    cost = policy_distance(gi, gk)
    assert (gamma / 5 * cost).sum() == pytest.approx(_lp_transport_cost(cost), abs=1e-9)


def test_average_weights():
    np.testing.assert_allclose(average_weights(2, 4), 0.25)


def test_mixture_weights_all_pairs_and_identity_on_diagonal():
    rng = np.random.default_rng(1)
    pi = softmax_policy(rng.normal(size=(9, 4)), beta=3.0)
    labels = np.array([0, 1, 2, 0, 1, 2, 0, 1, 1])
    w = mixture_weights(pi, labels)
    assert isinstance(w, MixtureWeights) and w.n_groups == 3 and w.matching == "transport"
    for i in range(3):
        for k in range(3):
            assert w[i, k].shape == (w.sizes[i], w.sizes[k])
        # distinct policies: the zero-cost plan of a group with itself is the identity
        np.testing.assert_allclose(w[i, i], np.eye(w.sizes[i]), atol=1e-12)
    avg = mixture_weights(pi, labels, matching="average")
    np.testing.assert_allclose(avg[1, 2], 1 / 2)
    with pytest.raises(ValueError, match="matching"):
        mixture_weights(pi, labels, matching="nearest")
    with pytest.raises(ValueError, match="empty"):
        mixture_weights(pi, np.array([0, 2, 2, 0, 2, 2, 0, 2, 2]))


def test_sample_partners_follow_gamma():
    pi = ArrayPolicy(np.eye(4)[[0, 1, 0, 1, 1]])
    labels = np.array([0, 0, 1, 1, 1])   # g_0 = {0, 1}, g_1 = {2, 3, 4}
    w = mixture_weights(pi, labels)
    # any optimal plan sends all of user 2's mass (item 0) to user 0 (item 0): gamma = 2 * 1/3
    assert w[0, 1][0, 0] == pytest.approx(2 / 3) and w[0, 1][1, 0] == 0.0
    np.testing.assert_allclose(w[0, 1].sum(axis=1), 1.0)
    rng = np.random.default_rng(0)
    draws = np.stack([w.sample_partners(0, 1, rng=rng) for _ in range(4000)])
    for row in range(2):
        freq = np.array([(draws[:, row] == n).mean() for n in (2, 3, 4)])
        # binomial sd <= 0.5/sqrt(4000) ~ 0.008; 5 sd
        np.testing.assert_allclose(freq, w[0, 1][row], atol=0.04)


def test_policy_distance_sparse_path_matches_cdist():
    from scipy.spatial.distance import cdist

    from ocef.policies import argmax_policy, topk_ranking_policy
    rng = np.random.default_rng(2)
    scores = np.round(rng.random((60, 400)), 1)              # many shared argmax items
    for pol in (argmax_policy(scores), topk_ranking_policy(scores, k=5)):
        p = pol.probs
        assert np.count_nonzero(p) <= 0.02 * p.size           # the sparse path is taken
        np.testing.assert_allclose(policy_distance(p), cdist(p, p, "cityblock"), atol=1e-12)
        np.testing.assert_allclose(policy_distance(p[:10], p[10:]), cdist(p[:10], p[10:], "cityblock"), atol=1e-12)
