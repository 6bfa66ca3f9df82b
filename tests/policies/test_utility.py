"""Tests of ocef.policies.utility: u^m(pi) of eq. (1), with contexts, and bad input."""
import numpy as np
import pytest

from ocef.policies import ArrayPolicy, utility


def test_utility_hand_values_and_contexts():
    rho = np.array([[1.0, 0.0], [0.5, 1.0]])
    np.testing.assert_allclose(utility(rho, [[0.5, 0.5], [0.0, 1.0]]), [0.5, 1.0])
    rho3 = np.array([[[1.0, 0.0], [0.0, 1.0]]])  # 1 user, 2 contexts
    pi3 = np.array([[[1.0, 0.0], [1.0, 0.0]]])
    assert utility(rho3, pi3)[0] == pytest.approx(0.5)
    assert utility(rho3, pi3, context_probs=[0.8, 0.2])[0] == pytest.approx(0.8)
    assert utility(rho3, ArrayPolicy(pi3))[0] == pytest.approx(0.5)


@pytest.mark.parametrize("rho, probs, match", [
    ([[1.2, 0.0]], [[1.0, 0.0]], r"rho must have every entry in \[0, 1\]"),
    ([[-0.1, 0.0]], [[1.0, 0.0]], r"rho must have every entry in \[0, 1\]"),
    ([[1.0, 0.0, 0.0]], [[1.0, 0.0]], "same items"),
    ([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0]], "same number of users"),
    ([[1.0, 0.0]], [[0.7, 0.7]], "sums to"),
    ([[[1.0, 0.0]]], [[1.0, 0.0]], "both be context-free"),
])
def test_utility_bad_input(rho, probs, match):
    with pytest.raises(ValueError, match=match):
        utility(rho, probs)
