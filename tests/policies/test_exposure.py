"""Tests of ocef.policies.exposure: parity (eq. 2) and equity (App. A) optima vs scipy linprog."""
import numpy as np
import pytest
from scipy.optimize import linprog

from ocef.policies import equity_of_exposure_policy, parity_of_exposure_policy
from ocef.policies.exposure import equity_exposure_mass, parity_exposure_mass


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
