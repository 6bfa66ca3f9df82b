"""Tests of ocef.policies.builders: policies by name."""
import numpy as np
import pytest

from ocef.policies import POLICY_NAMES, RankingPolicy, build_policy


def test_every_name_builds_a_valid_policy():
    rng = np.random.default_rng(0)
    scores = rng.random((5, 12))
    cats = np.arange(12) % 3
    for name in POLICY_NAMES:
        pol = build_policy(name, scores, beta=5.0, k=4, categories=cats)
        np.testing.assert_allclose(pol.probs.sum(axis=1), 1.0)
    assert isinstance(build_policy("ranking", scores, k=4), RankingPolicy)
    np.testing.assert_array_equal(build_policy("argmax", scores).probs.argmax(axis=1), scores.argmax(axis=1))


def test_bad_names_and_missing_categories():
    with pytest.raises(ValueError, match="policy must be one of"):
        build_policy("greedy", np.ones((2, 2)))
    with pytest.raises(ValueError, match="categories"):
        build_policy("parity", np.ones((2, 2)))
