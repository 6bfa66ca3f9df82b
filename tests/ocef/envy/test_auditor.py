"""The ask/tell OCEF auditor (Do et al., Algorithm 1)."""
import math

import numpy as np
import pytest

from ocef import OCEF, AuditStateError, Verdict
from ocef.envy import bounds


def test_first_step_pulls_baseline_since_xi_is_negative():
    # t=1: nothing pulled, μ̂=0, β=β(0): ξ_1 = −β(0) − (1−α)β(0) < 0 (eq. 8) ⇒ k_1 = 0.
    a = OCEF(3, 0.05, 0.5, 0.05, rng=0)
    assert a.next_arm() == 0
    b0 = bounds.beta(0, 0.05, 3)
    assert a.last_xi == pytest.approx(-b0 - 0.5 * b0)


def test_state_after_observations_matches_lemma3():
    a = OCEF(2, 0.1, 0.3, 0.05, group_size=4, rng=1)
    arm = a.next_arm()
    a.observe(arm, 0.75)
    assert a.t == 1
    np.testing.assert_array_equal(a.counts, [1, 0, 0])
    np.testing.assert_allclose(a.means, [0.75, 0.0, 0.0])
    expected_w = bounds.beta(np.array([1, 0, 0]), 0.1, 2, group_size=4)
    np.testing.assert_allclose(a.widths, expected_w)
    np.testing.assert_allclose(a.lower, a.means - expected_w)
    np.testing.assert_allclose(a.upper, a.means + expected_w)


def test_xi_matches_eq8_recomputed_from_public_state():
    rng = np.random.default_rng(3)
    a = OCEF(4, 0.05, 0.2, 0.05, rng=7)
    means = np.array([0.7, 0.4, 0.5, 0.3, 0.2])
    checked = 0
    explore_sum = 0.0
    for _ in range(3000):
        counts, mu_hat, w = a.counts, a.means, a.widths
        n0, t = counts[0], a.t + 1
        arm = a.next_arm()
        if not math.isnan(a.last_xi):
            big_phi = min(float(np.sum(w[1:] * counts[1:])), float(bounds.phi(a.t - n0, 0.05)))
            # ξ_t with ℓ_t = arm when exploring; only checkable for the chosen arm.
            if arm != 0:
                xi = explore_sum - big_phi + (mu_hat[arm] - w[arm]) + (n0 - 0.8 * t) * (mu_hat[0] + w[0])
                assert a.last_xi == pytest.approx(xi, rel=1e-9, abs=1e-9)
                assert a.last_xi >= 0
                checked += 1
        r = float(rng.random() < means[arm])
        if arm:
            explore_sum += r
        if a.observe(arm, r) is not Verdict.RUNNING:
            break
    assert checked > 20


def test_elimination_and_no_envy_on_deterministic_rewards():
    # Baseline always 1, the other arm always 0: the arm must be eliminated (line 7) once
    # μ̄_1 ≤ μ̲_0 + ε, and not before; then S = ∅ ⇒ ε-NO-ENVY (line 9).
    a = OCEF(1, 0.05, 1.0, 0.05, rng=0)
    while a.verdict is Verdict.RUNNING:
        before = a.active
        arm = a.next_arm()
        a.observe(arm, 1.0 if arm == 0 else 0.0)
        lo, up = a.lower, a.upper
        if before and not a.active:
            assert up[1] <= lo[0] + 0.05
        elif a.active:
            assert up[1] > lo[0] + 0.05
    assert a.verdict is Verdict.NO_ENVY
    assert a.active == []


def test_envy_on_deterministic_rewards():
    a = OCEF(2, 0.05, 1.0, 0.05, rng=0)
    while a.verdict is Verdict.RUNNING:
        arm = a.next_arm()
        a.observe(arm, {0: 0.0, 1: 1.0, 2: 0.0}[arm])
    assert a.verdict is Verdict.ENVY
    assert a.lower[1] > a.upper[0]          # line 8


def test_same_seed_same_run():
    def run(seed):
        a, env = OCEF(5, 0.05, 0.1, 0.05, rng=seed), np.random.default_rng(seed + 100)
        arms = []
        while a.verdict is Verdict.RUNNING and a.t < 2000:
            k = a.next_arm()
            arms.append(k)
            a.observe(k, float(env.random() < 0.5))
        return arms
    assert run(1) == run(1)
    assert run(1) != run(2)


@pytest.mark.parametrize("kwargs, match", [
    (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"), (dict(delta=-0.1), "delta"),
    (dict(alpha=0.0), "alpha"), (dict(alpha=1.5), "alpha"),
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=1.01), "epsilon"),
    (dict(n_arms=0), "n_arms"), (dict(group_size=0), "group_size"),
    (dict(omega=1.0), "omega"),
])
def test_bad_parameters_raise_clear_errors(kwargs, match):
    params = dict(n_arms=3, delta=0.05, alpha=0.05, epsilon=0.05) | kwargs
    with pytest.raises(ValueError, match=match):
        OCEF(**params)


def test_non_numeric_parameter_is_type_error():
    with pytest.raises(TypeError, match="delta"):
        OCEF(3, "0.05", 0.05, 0.05)


@pytest.mark.parametrize("reward", [1.5, -0.1, float("nan"), True])
def test_reward_outside_unit_interval_raises(reward):
    a = OCEF(3, 0.05, 0.05, 0.05, rng=0)
    arm = a.next_arm()
    with pytest.raises(ValueError, match="reward"):
        a.observe(arm, reward)
    a.observe(arm, 0.5)                     # nothing was lost: the pending arm is still there
    assert a.t == 1


def test_protocol_errors():
    a = OCEF(3, 0.05, 0.05, 0.05, rng=0)
    with pytest.raises(AuditStateError, match="next_arm"):
        a.observe(0, 0.5)
    arm = a.next_arm()
    with pytest.raises(AuditStateError, match="observe"):
        a.next_arm()
    with pytest.raises(ValueError, match="arm must be the arm returned"):
        a.observe(arm + 1, 0.5)


def test_next_arm_after_verdict_raises():
    a = OCEF(1, 0.05, 1.0, 0.05, rng=0)
    while a.verdict is Verdict.RUNNING:
        arm = a.next_arm()
        a.observe(arm, 1.0 if arm == 0 else 0.0)
    with pytest.raises(AuditStateError, match="no_envy"):
        a.next_arm()
