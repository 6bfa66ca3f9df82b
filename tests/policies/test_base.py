"""Tests of ocef.policies.base: the Policy interface, ArrayPolicy, CallablePolicy, sampling."""
import numpy as np
import pytest

from ocef.policies import ArrayPolicy, CallablePolicy, as_policy, check_policy_probs, uniform_policy


def test_array_policy_shapes_and_readonly():
    p = ArrayPolicy([[0.2, 0.8], [1.0, 0.0], [0.5, 0.5]])
    assert (p.n_users, p.n_items, p.n_contexts, p.contextual) == (3, 2, 1, False)
    np.testing.assert_allclose(p.probabilities([2, 0]), [[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError):
        p.probabilities()[0, 0] = 1.0
    ctx = ArrayPolicy(np.full((2, 3, 4), 0.25))
    assert ctx.shape == (2, 3, 4) and ctx.n_contexts == 3 and ctx.contextual


@pytest.mark.parametrize("probs, match", [
    ([[0.5, 0.6]], r"row \(0,\) sums to"),
    ([[1.0, 0.0], [0.3, 0.3]], r"row \(1,\) sums to"),
    ([[1.2, -0.2]], "non-negative.*row \\(0,\\)"),
    ([[np.nan, 1.0]], "finite"),
    ([0.5, 0.5], "2-d"),
    (np.full((1, 2, 2), [0.5, 0.4]), r"row \(0, 0\) sums"),
])
def test_bad_policy_probs(probs, match):
    with pytest.raises(ValueError, match=match):
        ArrayPolicy(probs)


def test_row_sum_tolerance_is_1e6():
    # 1e-6: rows written with 6-7 significant digits (CSV, float32) are accepted (foundation issue)
    check_policy_probs([[0.5, 0.5 + 5e-7]])
    with pytest.raises(ValueError):
        check_policy_probs([[0.5, 0.5 + 5e-6]])


def test_sample_matches_probabilities():
    probs = np.array([[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 0.0, 1.0]])
    p = ArrayPolicy(probs)
    n = 40_000
    users = np.repeat([0, 1], n)
    items = p.sample(users, rng=1)
    freq0 = np.bincount(items[:n], minlength=4) / n
    # binomial sd <= 0.5/sqrt(n) = 0.0025; 5 sd tolerance
    np.testing.assert_allclose(freq0, probs[0], atol=0.0125)
    assert freq0[1] == 0.0  # zero-probability items are never drawn
    assert np.all(items[n:] == 3)
    np.testing.assert_array_equal(p.sample(users, rng=7), p.sample(users, rng=np.random.default_rng(7)))


def test_sample_contexts():
    probs = np.zeros((2, 2, 3))
    probs[:, 0, 0] = 1.0
    probs[:, 1, 2] = 1.0
    p = ArrayPolicy(probs)
    np.testing.assert_array_equal(p.sample([0, 1, 1], rng=0, contexts=[0, 1, 0]), [0, 2, 0])
    with pytest.raises(ValueError, match="contexts must be given"):
        p.sample([0], rng=0)
    with pytest.raises(ValueError, match="contexts"):
        p.sample([0], rng=0, contexts=[2])


def test_sample_bad_users():
    p = uniform_policy(3, 2)
    with pytest.raises(ValueError, match=r"users must be in \[0, 2\]"):
        p.sample([0, 3], rng=0)
    with pytest.raises(TypeError):
        p.sample([0.5], rng=0)


def test_callable_policy_is_queried_and_validated():
    calls = []

    def fn(users):
        calls.append(users.copy())
        out = np.zeros((users.size, 3))
        out[np.arange(users.size), users % 3] = 1.0
        return out

    p = CallablePolicy(fn, n_users=5, n_items=3)
    np.testing.assert_array_equal(p.sample([4, 1], rng=0), [1, 1])
    np.testing.assert_array_equal(calls[-1], [4, 1])
    assert p.probabilities().shape == (5, 3)
    bad = CallablePolicy(lambda u: np.full((u.size, 3), 0.5), 5, 3)
    with pytest.raises(ValueError, match="sums to"):
        bad.probabilities([0])
    wrong_shape = CallablePolicy(lambda u: np.full((u.size, 2), 0.5), 5, 3)
    with pytest.raises(ValueError, match="shape"):
        wrong_shape.probabilities([0])
    with pytest.raises(TypeError):
        as_policy(fn)
