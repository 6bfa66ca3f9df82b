"""The synthetic bandit environment and the coverage runner: exact truth, sampling frequencies,
and (slow) the measured coverage of every interval on one fixed-seed cell, within the binomial
tolerance."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.errors import ParameterError
from ocef.offpolicy.simulate import COVERAGE_METHODS, bandit_environment, interval_coverage, sample_bandit_log


def test_environment_tables_and_truth():
    env = bandit_environment(n_contexts=4, n_actions=3, logger="epsilon-greedy", target="argmax", epsilon=0.3, rng=5)
    assert np.allclose(env.logging.sum(axis=1), 1) and np.allclose(env.target.sum(axis=1), 1)
    assert env.logging.min() == pytest.approx(0.1)
    assert env.value == pytest.approx(np.mean([env.rho[x, env.target[x].argmax()] for x in range(4)]))
    with pytest.raises(ParameterError, match="logger"):
        bandit_environment(logger="greedy")


def test_log_frequencies_follow_the_logger():
    env = bandit_environment(n_contexts=2, n_actions=3, logger="softmax", rng=1)
    log = sample_bandit_log(env, 60000, rng=2)
    for x in range(2):
        rows = log.context == x
        freq = np.bincount(log.action[rows], minlength=3) / rows.sum()
        se = np.sqrt(env.logging[x] * (1 - env.logging[x]) / rows.sum())
        assert np.all(np.abs(freq - env.logging[x]) < 4 * se + 1e-12)
    assert np.array_equal(log.logging_probability, env.logging[log.context, log.action])


@pytest.mark.slow
def test_coverage_of_every_interval_on_a_fixed_cell():
    """Uniform logger, softmax target, n = 1000, click rate 0.2, 200 logs: every method covers
    95% within 3 binomial standard errors (the CS, CR and CP ones may overcover)."""
    env = bandit_environment(logger="uniform", target="softmax", base_rate=0.2, rng=11)
    frame = interval_coverage(env, 1000, n_reps=200, bootstrap=True, n_resamples=200, rng=12)
    assert set(frame["method"]) == set(COVERAGE_METHODS)
    assert frame["reason"].isna().all()
    cover = frame.groupby("method")["covered"].mean()
    tol = 3 * np.sqrt(0.95 * 0.05 / 200)
    assert (cover >= 0.95 - tol).all(), cover.to_dict()
    for method in ("ips/wald", "ips/bootstrap", "snips/wald", "dr/wald", "ips/gaussian"):
        assert cover[method] <= 0.95 + tol, (method, cover[method])
