"""Synthetic low-rank environment."""
from __future__ import annotations

import numpy as np
import pytest

from ocef.environments.base import Environment
from ocef.environments.synthetic import SyntheticEnvironment, balanced_labels, unit_vectors


@pytest.fixture(autouse=True)
def _cache(monkeypatch, tmp_path):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path))


def test_unit_vectors_and_labels():
    v = unit_vectors(500, 4, rng=0, positive=True)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0)
    assert v.min() >= 0
    # uniform on the sphere: mean of each coordinate is 0 (sd of the mean = 1/sqrt(4 * 500))
    w = unit_vectors(2000, 4, rng=1)
    assert np.all(np.abs(w.mean(axis=0)) < 5 / np.sqrt(4 * 2000))
    lab = balanced_labels(10, 3, rng=0)
    assert sorted(np.bincount(lab).tolist()) == [3, 3, 4]


def test_ground_truth_low_rank_in_unit_interval():
    env = SyntheticEnvironment(60, 40, rank=3, n_groups=4, n_categories=5, rng=1)
    assert isinstance(env, Environment)
    assert env.rho.shape == (60, 40) and env.rho.min() >= 0 and env.rho.max() <= 1
    assert np.linalg.matrix_rank(env.rho, tol=1e-8) <= 4  # rank + 1
    labels, names = env.groups("group")
    assert np.bincount(labels).tolist() == [15, 15, 15, 15] and names[0] == "group 0"
    assert sorted(np.bincount(env.item_categories).tolist()) == [8, 8, 8, 8, 8]
    np.testing.assert_array_equal(env.rho, SyntheticEnvironment(60, 40, rank=3, n_groups=4, n_categories=5,
                                                                rng=1).rho)


def test_groups_have_distinct_tastes_when_spread_is_small():
    env = SyntheticEnvironment(200, 50, rank=4, n_groups=2, group_spread=0.05, rng=0)
    lab, _ = env.groups()
    within = np.corrcoef(env.rho[lab == 0]).mean()
    between = np.corrcoef(env.rho[lab == 0], env.rho[lab == 1])[:100, 100:].mean()
    assert within > 0.9 and between < within - 0.2


def test_estimated_scores_cached_and_reproducible(tmp_path):
    env = SyntheticEnvironment(40, 30, rank=2, n_groups=2, rng=0)
    s1 = env.estimated_scores(2, train_fraction=0.3, rng=1)
    assert s1.shape == (40, 30)
    assert len(list(tmp_path.glob("recommender-*.npz"))) == 1
    np.testing.assert_array_equal(s1, env.estimated_scores(2, train_fraction=0.3, rng=1))
    assert len(list(tmp_path.glob("recommender-*.npz"))) == 1
    assert not np.array_equal(s1, env.estimated_scores(2, train_fraction=0.3, rng=2))
    with pytest.raises(ValueError, match="train_fraction"):
        env.estimated_scores(2, train_fraction=1.5)
    with pytest.raises((ValueError, TypeError), match="factors"):
        env.estimated_scores(0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_groups"):
        SyntheticEnvironment(5, 10, n_groups=6)
    with pytest.raises(ValueError, match="n_categories"):
        SyntheticEnvironment(5, 3, n_groups=1, n_categories=4)
    with pytest.raises(ValueError, match="partition"):
        SyntheticEnvironment(10, 10, n_groups=2).groups("age")
