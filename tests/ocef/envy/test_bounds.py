"""ocef.envy.bounds against values computed by hand (plain math) from Do et al., App. G."""
import math

import numpy as np
import pytest

from ocef.envy import bounds

# Reference values computed with Python's math module straight from the seed's formulas
# (σ = 1/2, ω = 0.01, δ = 0.05 unless stated).
THETA = 1.3528429233171744e-06          # Lemma 3
BETA_1 = 2.696444648953477              # K=9, |g|=1, N=1
BETA_10 = 1.0295686472842873            # K=9, |g|=1, N=10
BETA_100_G4 = 0.16599960509308598       # K=9, |g|=4, N=100
BETA_7_K1 = 1.1658417783047812          # K=1, |g|=1, N=7
PHI_5 = 9.811493768684592               # |A|=5, |g|=1
PHI_50_G3 = 18.659333067629337          # |A|=50, |g|=3


def test_theta_lemma3():
    assert bounds.theta(0.05, 0.01) == pytest.approx(THETA, rel=1e-12)


def test_beta_lemma3_values():
    assert bounds.beta(1, 0.05, 9) == pytest.approx(BETA_1, rel=1e-12)
    assert bounds.beta(10, 0.05, 9) == pytest.approx(BETA_10, rel=1e-12)
    assert bounds.beta(100, 0.05, 9, group_size=4) == pytest.approx(BETA_100_G4, rel=1e-12)
    assert bounds.beta(7, 0.05, 1) == pytest.approx(BETA_7_K1, rel=1e-12)
    np.testing.assert_allclose(bounds.beta([1, 10], 0.05, 9), [BETA_1, BETA_10], rtol=1e-12)


def test_beta_scales_as_one_over_sqrt_group_size():
    b1, b9 = bounds.beta(50, 0.1, 5, group_size=1), bounds.beta(50, 0.1, 5, group_size=9)
    assert b1 / b9 == pytest.approx(3.0, rel=1e-12)


def test_beta_unpulled_convention_strictly_wider_and_decreasing():
    n = np.arange(0, 2000)
    b = bounds.beta(n, 0.05, 9)
    assert b[0] > b[1]
    assert b[0] == pytest.approx(BETA_1 + 1.0)
    # large groups: β(1) < 1, yet the unpulled interval [−β(0), β(0)] still contains [0, 1]
    assert bounds.beta(0, 0.05, 1, group_size=1000) >= 1.0
    assert np.all(np.diff(b) < 0), "β_k must be strictly decreasing in N_k"


def test_beta_rejects_negative_counts():
    with pytest.raises(ValueError, match="n"):
        bounds.beta(-1, 0.05, 9)


def test_phi_values_and_zero_convention():
    assert bounds.phi(0, 0.05) == 0.0
    assert bounds.phi(5, 0.05) == pytest.approx(PHI_5, rel=1e-12)
    assert bounds.phi(50, 0.05, group_size=3) == pytest.approx(PHI_50_G3, rel=1e-12)


def test_big_phi_is_min_of_both_bounds_lemma4():
    assert bounds.big_phi(3.0, 5, 0.05) == 3.0
    assert bounds.big_phi(100.0, 5, 0.05) == pytest.approx(PHI_5)
    assert bounds.big_phi(0.0, 0, 0.05) == 0.0


def test_xi_eq8_by_hand():
    # ξ = Σr − Φ + μ̲_ℓ + (N_0 − (1−α)t) μ̄_0 = 4 − 1 + 0.2 + (10 − 0.9·15)·0.7 = 0.75
    assert bounds.xi(4.0, 1.0, 0.2, 10, 15, 0.1, 0.7) == pytest.approx(0.75)


def test_theorem6_and_7_by_hand():
    means = np.array([0.5, 0.2])
    h = bounds.duration_terms(means, delta=0.1, alpha=0.1, epsilon=0.05, group_size=2, form="theorem6")
    np.testing.assert_allclose(h, [43215.75702644426, 1578.0115418123987], rtol=1e-12)
    assert bounds.duration_bound(means, 0.1, 0.1, 0.05, 2, form="theorem6") == pytest.approx(44793.76856825666, rel=1e-12)
    assert bounds.cost_bound(means, 0.1, 0.1, 0.05, 2, form="theorem6") == pytest.approx(473.40346254371957, rel=1e-12)


def test_lemmas_9_10_by_hand_with_the_runs_sigma_and_omega():
    # Lemma 9/10 of App. G.3 evaluated with plain math for σ = 0.3, ω = 0.2, |g| = 3, K = 2.
    means, delta, alpha, eps, g, sigma, omega = [0.5, 0.2, 0.7], 0.1, 0.2, 0.05, 3, 0.3, 0.2
    th = math.log(1 + omega) * (omega * delta / (2 * (2 + omega))) ** (1 / (1 + omega))
    etas = [max(m - 0.5, 0.5 + eps - m) for m in means[1:]]
    c = sigma ** 2 * (1 + math.sqrt(omega)) ** 2 * (1 + omega)
    hk = [1 + 32 * c / (g * e ** 2) * math.log(2 * 3 * max(1.0, math.log(64 * 3 * c * (1 + omega) / (th * g * e ** 2))) / th)
          for e in etas]
    h0 = max(max(hk), (6 * 2 + 2) / (alpha * 0.5)) + sum(
        64 * c * math.log(2 * 3 * math.log((1 + omega) * h) / th) / (alpha * 0.5 * g * e) for h, e in zip(hk, etas))
    got = bounds.duration_terms(np.array(means), delta, alpha, eps, g, sigma, omega)
    np.testing.assert_allclose(got, [h0, *hk], rtol=1e-12)
    assert bounds.duration_bound(np.array(means), delta, alpha, eps, g, sigma, omega) == pytest.approx(h0 + sum(hk), rel=1e-12)
    # σ and ω matter: the default run (σ = 1/2, ω = 0.01) gives another bound.
    assert bounds.duration_bound(np.array(means), delta, alpha, eps, g) != pytest.approx(h0 + sum(hk), rel=1e-3)


def test_gaps_and_cost_bound_only_counts_worse_arms():
    means = np.array([0.3, 0.6, 0.3])
    np.testing.assert_allclose(bounds.gaps(means, 0.05), [0.3, 0.05])
    assert bounds.cost_bound(np.array([0.3, 0.6, 0.4]), 0.05, 0.05, 0.05) == 0.0
    assert bounds.cost_bound(np.array([0.3, 0.6, 0.2]), 0.05, 0.05, 0.05) > 0.0


def test_duration_bound_vectorizes_over_runs():
    means = np.array([[0.6, 0.3, 0.3], [0.3, 0.6, 0.3]])
    both = bounds.duration_bound(means, 0.05, 0.05, 0.05)
    single = [bounds.duration_bound(m, 0.05, 0.05, 0.05) for m in means]
    np.testing.assert_allclose(both, single)
