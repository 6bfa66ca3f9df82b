"""Tests of ocef.policies.standard: argmax, softmax, uniform."""
import numpy as np
import pytest

from ocef.policies import argmax_policy, softmax_policy, uniform_policy


def test_argmax_ties():
    s = np.array([[0.1, 0.9, 0.9, 0.2], [0.5, 0.5, 0.5, 0.5]])
    np.testing.assert_array_equal(argmax_policy(s).probs, [[0, 1, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_allclose(argmax_policy(s, ties="uniform").probs,
                               [[0, 0.5, 0.5, 0], [0.25] * 4])
    with pytest.raises(ValueError, match="ties"):
        argmax_policy(s, ties="random")


def test_softmax_values_and_stability():
    s = np.array([[0.0, np.log(3.0)]])
    np.testing.assert_allclose(softmax_policy(s, beta=1.0).probs, [[0.25, 0.75]])
    big = softmax_policy(np.array([[1000.0, 0.0, 1000.0]]), beta=10.0).probs
    np.testing.assert_allclose(big, [[0.5, 0.0, 0.5]])
    with pytest.raises(ValueError, match="beta"):
        softmax_policy(s, beta=0.0)
    with pytest.raises(ValueError, match="finite"):
        softmax_policy([[np.inf, 0.0]])


def test_uniform():
    np.testing.assert_allclose(uniform_policy(2, 4).probs, 0.25)
    assert uniform_policy(2, 4, n_contexts=3).shape == (2, 3, 4)
