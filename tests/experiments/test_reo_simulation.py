"""Exact checks of the helpers behind the REO simulation experiments (Dong et al. 2024, Sec. 4)."""
import numpy as np
import pytest

from ocef.experiments import registry
from ocef.experiments._reo_common import loglog_slope, penalty_from_counts, truth_penalty
from ocef.experiments.reo_monitoring import TEST_BOOST, TEST_DAY, daily_boosts
from ocef.experiments.reo_sample_size import day_category_counts, subsample_penalty
from ocef.experiments.reo_synthetic_mse import LEVELS, level_probabilities
from ocef import reo
from ocef.reo.simulate import make_traffic_world, simulate_traffic

NAMES = ["reo-synthetic-mse", "reo-sample-size", "reo-monitoring", "reo-ci-methods", "reo-ab-boost",
         "reo-random-traffic-value"]


def test_registered_with_name_and_description():
    for name in NAMES:
        mod = registry.module(name)
        assert mod.NAME == name and mod.DESCRIPTION and callable(mod.run)


def test_loglog_slope_exact():
    n = np.array([10.0, 100.0, 1000.0])
    assert loglog_slope(n, 3.0 / n) == pytest.approx(-1.0)
    assert loglog_slope(n, 2.0 * n ** -0.5) == pytest.approx(-0.5)


def test_sec41_levels():
    assert set(LEVELS.values()) == {(0.01, 0.05), (0.001, 0.005), (0.0001, 0.0005)}
    p, q = level_probabilities(0.001, 0.005)
    np.testing.assert_allclose(q, [0.01, 0.025])
    # U = (10, 5): ΔREO = std/mean = 2.5 / 7.5 at every level
    assert truth_penalty(p, q) == pytest.approx(1 / 3)
    # counts at the exact proportions give the exact penalty
    assert float(penalty_from_counts(p * 1e6, 1e6, q * 1e6, 1e6)) == pytest.approx(1 / 3)


def test_subsample_of_whole_day_is_the_day():
    world = make_traffic_world(100, 40, 2, score_bias=[0.0, 0.5], rng=0)
    logs = simulate_traffic(world, requests_per_day=3000, k=5, p_act=0.3, rng=1)
    colors = day_category_counts(logs.default, logs.random, [0, 1])
    assert colors.sum() == len(logs.default) + len(logs.random)
    full = reo.estimate_reo(logs.default, logs.random, groups=[0, 1]).penalty
    est = subsample_penalty(colors, int(colors.sum()), 3, np.random.default_rng(0), 2)
    np.testing.assert_allclose(est, full)


def test_monitoring_days():
    b = daily_boosts(14, np.random.default_rng(0))
    assert b.shape == (14,) and b[TEST_DAY] == TEST_BOOST
    assert np.all(np.abs(np.delete(b, TEST_DAY) - 1) < 0.05)
