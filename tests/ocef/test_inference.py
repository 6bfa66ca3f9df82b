"""ocef.inference: Holm's adjustment and the Wilson interval on hand-computed cases and by simulation."""
import numpy as np
import pytest

from ocef.inference import holm_adjust, wilson_interval


def test_holm_hand_computed():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(.03, 2*.03), max(.06, 1*.04)
    assert holm_adjust([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([0.5, 0.9]).tolist() == [1.0, 1.0]
    out = holm_adjust([np.nan, 0.02, 0.5])
    assert np.isnan(out[0]) and out[1:].tolist() == pytest.approx([0.04, 0.5])


def test_holm_refuses_values_outside_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm_adjust([0.2, 1.5])


def test_holm_controls_familywise_error_under_the_global_null():
    rng = np.random.default_rng(0)
    reps, m = 4000, 10
    p = rng.uniform(size=(reps, m))
    any_reject = np.array([(holm_adjust(row) <= 0.05).any() for row in p])
    rate = any_reject.mean()
    se = np.sqrt(0.05 * 0.95 / reps)
    assert rate <= 0.05 + 2 * se                # Holm: FWER <= 0.05 (~0.049 for independent p)


def test_wilson_hand_computed():
    low, high = wilson_interval(5, 10, confidence=0.95)
    # z = 1.959964; centre 0.5; half = z sqrt(.025 + z^2/400) / (1 + z^2/10)
    z = 1.959963984540054
    half = z * np.sqrt(0.025 + z * z / 400) / (1 + z * z / 10)
    assert float(low) == pytest.approx(0.5 - half) and float(high) == pytest.approx(0.5 + half)
    low, high = wilson_interval(10, 10)
    assert 0 < float(low) < 1 and float(high) == pytest.approx(1.0)
    low, high = wilson_interval(0, 0)
    assert np.isnan(low) and np.isnan(high)


def test_wilson_covers_small_samples():
    rng = np.random.default_rng(1)
    p, n, reps = 0.1, 30, 4000
    k = rng.binomial(n, p, size=reps)
    low, high = wilson_interval(k, n)
    cover = ((low <= p) & (p <= high)).mean()
    assert cover >= 0.93


def test_wilson_refuses_bad_counts():
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
