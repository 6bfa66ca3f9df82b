"""The cross-fitted shrunk-mean reward model: hand-computed means, folds that never see their own
rows, the method-of-moments prior strength, and DR unbiasedness with the cross-fitted model."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.errors import DataError
from ocef.offpolicy import estimators as est
from ocef.offpolicy import reward_model as rm


def test_shrunk_means_by_hand():
    got = rm.shrunk_means([1, 0, 1, 1], [0, 0, 1, 1], 3, prior_strength=2.0)
    mu = 0.75
    assert got.tolist() == pytest.approx([(1 + 2 * mu) / 4, (2 + 2 * mu) / 4, mu])
    assert rm.shrunk_means([1, 0], [0, 1], 2, prior_strength=0.0).tolist() == [1.0, 0.0]


def test_moments_strength_shrinks_noise_and_keeps_signal():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 50, 20000)
    flat = rng.binomial(1, 0.3, 20000).astype(float)            # no between-key signal: strong shrinkage
    assert np.ptp(rm.shrunk_means(flat, keys, 50)) < 0.05
    means = np.linspace(0.05, 0.9, 50)
    signal = rng.binomial(1, means[keys]).astype(float)
    assert np.abs(rm.shrunk_means(signal, keys, 50) - means).max() < 0.1


def test_cross_fitting_never_uses_the_rows_own_fold():
    rng = np.random.default_rng(1)
    r = rng.binomial(1, 0.4, 300).astype(float)
    keys = rng.integers(0, 4, 300)
    model = rm.cross_fit_reward_model(r, keys, 4, n_folds=3, prior_strength=1.0, rng=2)
    for f in range(3):
        np.testing.assert_array_equal(model.tables[f], rm.shrunk_means(r[model.fold != f], keys[model.fold != f], 4,
                                                                        prior_strength=1.0))
    assert np.bincount(model.fold).tolist() == [100, 100, 100]
    with pytest.raises(DataError, match="at least n_folds"):
        rm.cross_fit_reward_model([1.0], [0], 1, n_folds=2)


@pytest.mark.slow
def test_dr_with_the_cross_fitted_model_is_unbiased():
    """Mean of DR over 400 logs within 3 standard errors of the truth (uniform logger, 2 contexts)."""
    from ocef.offpolicy.simulate import bandit_environment, sample_bandit_log
    env = bandit_environment(n_contexts=5, n_actions=4, logger="softmax", rng=3)
    gen = np.random.default_rng(4)
    values = []
    for _ in range(400):
        log = sample_bandit_log(env, 300, rng=gen)
        w = est.importance_weights(log.target_probability, log.logging_probability)
        key = log.context * 4 + log.action
        model = rm.cross_fit_reward_model(log.reward, key, 20, rng=gen)
        tables = model.tables.reshape(-1, 5, 4)[model.fold, log.context]
        dm = np.average(tables, weights=env.target[log.context], axis=1)
        values.append(est.dr_terms(log.reward, w, model.q_hat_logged(key), dm).mean())
    values = np.array(values)
    assert abs(values.mean() - env.value) < 3 * values.std(ddof=1) / np.sqrt(values.size)
