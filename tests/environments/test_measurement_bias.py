"""Measurement-bias environment of Do et al. 2022, App. B.2."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from ocef.environments.measurement_bias import (BETA_GRID, SPLIT, TAU2_GRID, MeasurementBiasEnvironment,
                                           normalized_history, restricted_softmax, ridge_item_embeddings,
                                           split_items)
from ocef.policies import softmax_policy


def test_paper_parameters():
    assert TAU2_GRID == (0.1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 25, 50)
    assert BETA_GRID == (0.01, 0.025, 0.05, 0.1, 1)
    assert SPLIT == (0.2, 0.2, 0.6)
    env = MeasurementBiasEnvironment(n_users_per_group=20, rng=0)
    assert (env.dim, env.alpha, env.threshold, env.tau1) == (10, 300.0, 0.1, 50.0)
    assert env.rho.shape == (40, 200) and env.n_items == 200
    assert env.document_embeddings.shape == (200, 10)
    for emb in (env.user_embeddings, env.item_embeddings, env.document_embeddings):
        np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0)
        assert emb.min() >= 0
    np.testing.assert_allclose(env.rho, expit(300 * env.user_embeddings @ env.item_embeddings.T - 0.1))
    labels, names = env.groups()
    assert np.bincount(labels).tolist() == [20, 20] and "disadvantaged" in names[1]
    assert env.documents_of[0].tolist() == list(range(100))
    assert env.documents_of[1].tolist() == list(range(100, 200))


def test_history_is_groupwise_orthogonal_poisson():
    env = MeasurementBiasEnvironment(n_users_per_group=50, n_items=10, n_documents=20, dim=4, rng=1)
    X = np.stack([env.history(5.0, rng=s) for s in range(40)])  # 40 draws
    lab, _ = env.groups()
    assert np.all(X[:, lab == 0][:, :, 10:] == 0) and np.all(X[:, lab == 1][:, :, :10] == 0)
    lam = np.where(lab == 0, 50.0, 5.0)[:, None] * (env.user_embeddings @ env.document_embeddings.T)
    mask = np.zeros_like(lam, dtype=bool)
    mask[lab == 0, :10] = True
    mask[lab == 1, 10:] = True
    # total counts: Poisson with mean sum(lam); 5 sd tolerance
    tot, mean = X.sum(axis=0)[mask].sum(), 40 * lam[mask].sum()
    assert abs(tot - mean) < 5 * np.sqrt(mean)
    assert np.all(env.history(0.0, rng=0)[lab == 1] == 0)


def test_split_items_counts():
    part = split_items(7, 200, rng=0)
    assert part.shape == (7, 200)
    assert all(np.bincount(row, minlength=3).tolist() == [40, 40, 120] for row in part)
    assert not np.array_equal(part[0], part[1])
    with pytest.raises(ValueError, match="fractions"):
        split_items(2, 10, (0.5, 0.6, 0.1))


def test_normalized_history_handles_empty_rows():
    x = normalized_history(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(x, [[0.6, 0.8], [0.0, 0.0]])


def test_ridge_recovers_noiseless_linear_model():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(300, 5))
    E = rng.normal(size=(4, 5))
    y = F @ E.T
    part = split_items(300, 4, (0.5, 0.25, 0.25), rng=1)
    E_hat, lam = ridge_item_embeddings(F, y, part == 0, part == 1, grid=(1e-8, 10.0))
    assert lam == 1e-8
    np.testing.assert_allclose(E_hat, E, atol=1e-5)


def test_restricted_softmax():
    s = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.0]])
    allowed = np.array([[True, False, True], [True, True, True]])
    p = restricted_softmax(s, allowed, 2.0)
    np.testing.assert_allclose(p[0], [np.exp(2) / (np.exp(2) + np.exp(6)), 0, np.exp(6) / (np.exp(2) + np.exp(6))])
    np.testing.assert_allclose(p[1], softmax_policy(s[1:], 2.0).probabilities()[0])
    with pytest.raises(ValueError, match="at least one allowed"):
        restricted_softmax(s, np.zeros_like(allowed), 1.0)
    with pytest.raises(ValueError, match="beta"):
        restricted_softmax(s, allowed, -1.0)


def test_policy_is_on_test_items_and_reproducible():
    env = MeasurementBiasEnvironment(n_users_per_group=30, n_items=20, n_documents=10, dim=3, rng=2)
    scores, test, lam = env.estimated_ratings(5.0, rng=0)
    p = env.policy(5.0, 0.5, rng=0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.all(p[~test] == 0) and np.all(p[test] > 0)
    np.testing.assert_array_equal(p, env.policy(5.0, 0.5, rng=0))
    # no history for g2 (tau2 = 0): its estimates are all 0, its policy uniform on its test items
    s0, test0, _ = env.estimated_ratings(0.0, rng=0)
    lab, _ = env.groups()
    assert np.all(s0[lab == 1] == 0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="tau2"):
        MeasurementBiasEnvironment(n_users_per_group=5).history(-1.0)
    with pytest.raises(ValueError, match="partition"):
        MeasurementBiasEnvironment(n_users_per_group=5).groups("age")
    with pytest.raises((ValueError, TypeError), match="n_users_per_group"):
        MeasurementBiasEnvironment(n_users_per_group=0)


def test_literal_reading_saturates_and_logit_reading_does_not():
    lit = MeasurementBiasEnvironment(n_users_per_group=50, rng=0)
    assert lit.rho.min() == 1.0  # sigma(300 <v, e> - 0.1) with <v, e> >= ~0.1
    alt = MeasurementBiasEnvironment(n_users_per_group=50, reading="logit", rng=0)
    np.testing.assert_allclose(alt.rho, alt.user_embeddings @ alt.item_embeddings.T)
    np.testing.assert_allclose(alt.logits, 300 * alt.rho - 0.1)
    with pytest.raises(ValueError, match="reading"):
        MeasurementBiasEnvironment(n_users_per_group=5, reading="other")


def test_sphere_reading():
    """Embeddings on the whole sphere, rho = sigma(alpha <v, e> - t), non-negative listening rates,
    softmax over all items (App. B.2 investigation, see the module docstring)."""
    env = MeasurementBiasEnvironment(n_users_per_group=40, reading="sphere", rng=0)
    assert (env.user_embeddings < 0).any() and (env.item_embeddings < 0).any()
    np.testing.assert_allclose(np.linalg.norm(env.user_embeddings, axis=1), 1.0)
    np.testing.assert_allclose(env.rho, 1 / (1 + np.exp(-env.logits)))
    assert env.rho.min() < 0.01 and env.rho.max() > 0.99          # likes and dislikes, unlike the literal reading
    X = env.history(50.0, rng=0)
    assert (X >= 0).all() and X[:, env.documents_of[1]][:40].sum() == 0   # g1 only listens to H_1
    # rate tau max(<v, e_h>, 0): never negative (Poisson would raise), zero where the affinity is not positive
    affinity = env.user_embeddings @ env.document_embeddings.T
    assert (affinity < 0).any() and np.all(X[affinity <= 0] == 0) and X.sum() > 0
    test = np.zeros((80, env.n_items), dtype=bool)
    test[:, :3] = True
    assert env.policy_support(test).all() and not env.policy_on_test_items
    lit = MeasurementBiasEnvironment(n_users_per_group=5, rng=0)
    assert lit.policy_support(test) is test
