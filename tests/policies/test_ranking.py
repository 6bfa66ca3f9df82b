"""Tests of ocef.policies.ranking: top-k rankings whose utility is the normalised DCG (App. B.1)."""
import numpy as np
import pytest

from ocef.policies import RankingPolicy, dcg_normalizer, dcg_weights, topk_ranking_policy, utility


def test_dcg_weights():
    np.testing.assert_allclose(dcg_weights(3), [1.0, 1 / np.log2(3), 0.5])
    assert dcg_normalizer(3) == pytest.approx(1 + 1 / np.log2(3) + 0.5)


def test_ranking_utility_is_normalised_dcg():
    rng = np.random.default_rng(0)
    scores = rng.random((4, 15))
    rho = rng.random((4, 15))
    pol = topk_ranking_policy(scores, k=10)
    assert isinstance(pol, RankingPolicy) and pol.rankings.shape == (4, 10)
    for m in range(4):
        order = np.argsort(-scores[m])[:10]
        dcg = sum(rho[m, order[j]] / np.log2(2 + j) for j in range(10))
        assert utility(rho[m:m + 1], pol.probs[m:m + 1])[0] == pytest.approx(dcg / dcg_normalizer(10))
        np.testing.assert_array_equal(pol.rankings[m], order)


def test_ranking_ties_and_small_catalog():
    pol = topk_ranking_policy([[0.5, 0.5, 0.9]], k=10)
    np.testing.assert_array_equal(pol.rankings, [[2, 0, 1]])
    assert pol.k == 3
    with pytest.raises(ValueError, match="distinct"):
        RankingPolicy([[0, 0]], n_items=3)


def test_ranking_samples_follow_position_weights():
    pol = topk_ranking_policy(np.array([[0.1, 0.9, 0.5, 0.7]]), k=3)     # ranking 1, 3, 2
    n = 60_000
    items = pol.sample(np.zeros(n, dtype=int), rng=3)
    freq = np.bincount(items, minlength=4) / n
    expected = np.zeros(4)
    expected[[1, 3, 2]] = dcg_weights(3) / dcg_normalizer(3)
    # binomial sd <= 0.5/sqrt(n) ~ 0.002; 5 sd
    np.testing.assert_allclose(freq, expected, atol=0.01)
    assert freq[0] == 0.0
