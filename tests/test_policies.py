"""Tests of policies/: the interface, builders, exposure optima (vs linprog), ranking, utility (eq. 1)."""
import numpy as np
import pytest
from scipy.optimize import linprog

from policies import (ArrayPolicy, CallablePolicy, RankingPolicy, argmax_policy, as_policy,
                      check_policy_probs, dcg_normalizer, dcg_weights, equity_of_exposure_policy,
                      parity_of_exposure_policy, softmax_policy, topk_ranking_policy, uniform_policy,
                      utility)
from policies.exposure import equity_exposure_mass, parity_exposure_mass

# ---------------------------------------------------------------- interface


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


def test_row_sum_tolerance_is_1e8():
    check_policy_probs([[0.5, 0.5 + 5e-9]])
    with pytest.raises(ValueError):
        check_policy_probs([[0.5, 0.5 + 5e-8]])


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
    np.testing.assert_array_equal(p.sample([0, 1, 1], 0, contexts=[0, 1, 0]), [0, 2, 0])
    with pytest.raises(ValueError, match="contexts must be given"):
        p.sample([0], 0)
    with pytest.raises(ValueError, match="contexts"):
        p.sample([0], 0, contexts=[2])


def test_sample_bad_users():
    p = uniform_policy(3, 2)
    with pytest.raises(ValueError, match=r"users must be in \[0, 2\]"):
        p.sample([0, 3], 0)
    with pytest.raises(TypeError):
        p.sample([0.5], 0)


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


# ---------------------------------------------------------------- builders


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


def test_parity_closed_form_hand_case():
    s = np.array([[0.1, 0.7, 0.3, 0.9, 0.2]])
    cats = np.array([0, 0, 1, 1, 1])
    np.testing.assert_allclose(parity_of_exposure_policy(s, cats).probs, [[0, 0.4, 0, 0.6, 0]])


def _lp_optimum(score_row, cats, mass):
    """max p·s s.t. sum_{A_s} p = mass_s, p >= 0 (sum p = 1 implied), with scipy's linprog."""
    n_cat = mass.size
    a_eq = np.zeros((n_cat + 1, score_row.size))
    a_eq[cats, np.arange(score_row.size)] = 1.0
    a_eq[-1] = 1.0
    res = linprog(-score_row, A_eq=a_eq, b_eq=np.append(mass, 1.0), bounds=(0, None), method="highs")
    assert res.status == 0
    return -res.fun


@pytest.mark.parametrize("seed", range(5))
def test_exposure_optima_match_linprog(seed):
    rng = np.random.default_rng(seed)
    n_users, n_items, n_cat = 6, 12, 4
    cats = rng.integers(0, n_cat, n_items)
    cats[:n_cat] = np.arange(n_cat)
    scores = rng.random((n_users, n_items))
    scores[0, cats == 2] = 0.0  # a category of zero relevance for one user
    par = parity_of_exposure_policy(scores, cats).probs
    eq = equity_of_exposure_policy(scores, cats).probs
    for m in range(n_users):
        # feasibility: exact exposure per category
        np.testing.assert_allclose(np.bincount(cats, weights=par[m]), parity_exposure_mass(cats), atol=1e-12)
        mass_eq = equity_exposure_mass(scores[m], cats)
        np.testing.assert_allclose(np.bincount(cats, weights=eq[m], minlength=n_cat), mass_eq, atol=1e-12)
        # optimality: same value as the LP solver
        assert par[m] @ scores[m] == pytest.approx(_lp_optimum(scores[m], cats, parity_exposure_mass(cats)), abs=1e-9)
        assert eq[m] @ scores[m] == pytest.approx(_lp_optimum(scores[m], cats, mass_eq), abs=1e-9)


def test_equity_zero_relevance_row_is_unconstrained_and_negative_scores_refused():
    cats = np.array([0, 1, 1])
    p = equity_of_exposure_policy(np.array([[0.0, 0.0, 0.0], [0.2, 0.2, 0.6]]), cats).probs
    np.testing.assert_allclose(p, [[1, 0, 0], [0.2, 0, 0.8]])
    with pytest.raises(ValueError, match="non-negative"):
        equity_of_exposure_policy([[-0.1, 1.0, 0.0]], cats)
    with pytest.raises(ValueError, match="one label per item"):
        parity_of_exposure_policy([[0.1, 1.0, 0.0]], [0, 1])


def test_exposure_with_contexts_matches_per_context():
    rng = np.random.default_rng(3)
    s = rng.random((3, 2, 6))
    cats = np.array([0, 1, 2, 0, 1, 2])
    p3 = parity_of_exposure_policy(s, cats).probs
    for x in range(2):
        np.testing.assert_allclose(p3[:, x], parity_of_exposure_policy(s[:, x], cats).probs)


# ---------------------------------------------------------------- ranking


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


# ---------------------------------------------------------------- utility (eq. 1)


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
