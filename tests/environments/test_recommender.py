"""The simulated Funk-SVD recommender (Do et al. 2022, Sec. 6.1, App. D.2)."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.environments.recommender import (REGULARIZATIONS, bernoulli_ratings, fit_funk_svd, observe_entries,
                                      rmse, simulate_recommender)


def test_regularization_grid_is_the_papers():
    assert REGULARIZATIONS == (0.01, 0.1, 1.0, 10.0)


def test_observe_entries_counts_and_uniformity():
    seen = observe_entries(400, 50, 0.2, rng=0)
    assert seen.shape == (400, 10)
    assert all(len(set(row)) == 10 for row in seen.tolist())  # distinct items per user
    counts = np.bincount(seen.ravel(), minlength=50)
    # each item is observed by each user w.p. 1/5: 80 expected, sd sqrt(400 * .2 * .8) = 8
    assert np.all(np.abs(counts - 80) < 5 * 8)
    assert observe_entries(3, 10, 0.01, rng=0).shape == (3, 1)  # at least one
    np.testing.assert_array_equal(observe_entries(5, 9, 0.5, rng=3), observe_entries(5, 9, 0.5, rng=3))
    with pytest.raises(ValueError, match="train_fraction"):
        observe_entries(3, 10, 0.0)


def test_bernoulli_ratings_mean():
    rho = np.full((200, 100), 0.3)
    users, items = np.divmod(np.arange(20000), 100)
    y = bernoulli_ratings(rho, users, items, rng=1)
    assert set(np.unique(y)) == {0.0, 1.0}
    assert abs(y.mean() - 0.3) < 5 * np.sqrt(0.21 / 20000)


def test_fit_funk_svd_recovers_rank_one_matrix_and_unknowns_are_zero():
    rng = np.random.default_rng(0)
    p, q = rng.uniform(0.5, 1, 30), rng.uniform(0.5, 1, 40)
    truth = np.outer(p, q)
    users, items = np.divmod(np.arange(30 * 40), 40)
    keep = items < 39  # item 39 never observed; user 30 (of 31) never observed
    m = fit_funk_svd(users[keep], items[keep], truth[users[keep], items[keep]], 31, 40, factors=1,
                     reg=0.0, rating_scale=(0, 1), n_epochs=300, lr=0.05, biased=False, rng=0)
    assert rmse(m.scores()[:30, :39], truth[:, :39]) < 0.01
    assert np.all(m.Q[39] == 0) and np.all(m.P[30] == 0) and m.mu == 0.0
    np.testing.assert_allclose(m.predict(np.array([0, 5]), np.array([3, 7])), m.scores()[[0, 5], [3, 7]])


def test_fit_funk_svd_biased_learns_global_mean():
    users, items = np.divmod(np.arange(20 * 10), 10)
    m = fit_funk_svd(users, items, np.full(200, 4.0), 20, 10, factors=2, reg=0.02, rating_scale=(1, 5), rng=0)
    assert m.mu == 4.0
    np.testing.assert_allclose(m.scores(), 4.0, atol=0.05)


def test_fit_funk_svd_bad_inputs():
    with pytest.raises(ValueError, match="user indices"):
        fit_funk_svd(np.array([5]), np.array([0]), np.array([1.0]), 3, 3, factors=1, reg=0.1, rating_scale=(0, 1))
    with pytest.raises(ValueError, match="same|one length"):
        fit_funk_svd(np.array([0, 1]), np.array([0]), np.array([1.0]), 3, 3, factors=1, reg=0.1, rating_scale=(0, 1))
    with pytest.raises(ValueError, match="factors"):
        fit_funk_svd(np.array([0]), np.array([0]), np.array([1.0]), 3, 3, factors=0, reg=0.1, rating_scale=(0, 1))


def test_simulate_recommender_selects_in_grid_and_is_reproducible():
    rng = np.random.default_rng(0)
    rho = np.outer(rng.uniform(0.2, 1, 200), rng.uniform(0, 1, 50))
    fit = simulate_recommender(rho, 2, 0.5, rng=7, n_epochs=100, lr=0.02)  # run to convergence
    assert fit.reg in REGULARIZATIONS and set(fit.validation_rmse) == set(REGULARIZATIONS)
    assert fit.reg == min(fit.validation_rmse, key=fit.validation_rmse.get)
    assert fit.model.scores().shape == (200, 50)
    again = simulate_recommender(rho, 2, 0.5, rng=7, n_epochs=100, lr=0.02)
    np.testing.assert_array_equal(fit.model.scores(), again.model.scores())
    # binary ratings with means rho: the item popularity is learned (each item mean rests on
    # ~100 Bernoulli draws, standard error <= 0.05, against a spread of item means ~0.17)
    assert np.corrcoef(fit.model.scores().mean(axis=0), rho.mean(axis=0))[0, 1] > 0.9
    with pytest.raises(ValueError, match="rho"):
        simulate_recommender(rho + 1, 2)
    with pytest.raises(ValueError, match="regs"):
        simulate_recommender(rho, 2, regs=())
