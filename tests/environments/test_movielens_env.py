"""MovieLens-derived environment: ground truth by completion, simulated recommender."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from ocef.environments.base import Environment
from ocef.datasets.movielens import GENRES, load_movielens
from ocef.environments.movielens_env import MovieLensEnvironment, most_rated, stars_to_unit
from tests.conftest import require_data


@pytest.fixture(autouse=True)
def _cache(monkeypatch, tmp_path):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path / "cache"))


def test_stars_to_unit():
    np.testing.assert_allclose(stars_to_unit([1, 2, 3, 4, 5, 0.5, 5.7]), [0, .25, .5, .75, 1, 0, 1])


def test_most_rated_breaks_ties_by_index():
    r = pd.DataFrame({"user": [0, 1, 1, 2, 2, 3, 3, 3]})
    assert most_rated(r, "user", 1).tolist() == [3]
    assert most_rated(r, "user", 2).tolist() == [1, 3]  # 1 and 2 tie with 2 ratings: 1 wins
    assert most_rated(r, "user", None).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="at most 4"):
        most_rated(r, "user", 5)


def write_small_100k(folder, n_users=30, n_items=25, seed=0):
    """A 100K-format data set with a rank-1 star structure and every user/item rated."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    lines = []
    a, b = rng.uniform(0, 1, n_users), rng.uniform(0, 1, n_items)
    for u in range(n_users):
        for i in rng.choice(n_items, size=12, replace=False):
            lines.append(f"{u + 1}\t{i + 1}\t{int(np.clip(round(1 + 4 * a[u] * b[i]), 1, 5))}\t0")
    (folder / "u.data").write_text("\n".join(lines) + "\n")
    occ = ["student", "writer", "none"]
    (folder / "u.user").write_text("".join(f"{u + 1}|{15 + 3 * u}|{'MF'[u % 2]}|{occ[u % 3]}|0\n"
                                           for u in range(n_users)))
    flags = lambda g: "|".join("1" if j == g + 1 else "0" for j in range(19))
    (folder / "u.item").write_text("".join(f"{i + 1}|m{i}|d||u|{flags(i % 18)}\n" for i in range(n_items)))
    return folder


def test_environment_on_small_files(tmp_path):
    env = MovieLensEnvironment(write_small_100k(tmp_path / "ml-100k"), n_items=20, completion_factors=5)
    assert isinstance(env, Environment)
    assert env.source == "ml-100k" and env.rho.shape == (30, 20)
    assert env.rho.min() >= 0 and env.rho.max() <= 1
    assert env.item_categories.max() < len(GENRES)
    assert env.category_names == list(GENRES)
    assert "MovieLens-100K" in env.description
    labels, names = env.groups("gender")
    assert names == ["F", "M"] and labels.tolist() == [1, 0] * 15
    labels, names = env.groups("age-occupation")
    assert labels.max() + 1 == len(names)
    # the completion is cached: a second environment reads the same matrix from disk
    assert len(list((tmp_path / "cache").glob("movielens-truth-*.npz"))) == 1
    again = MovieLensEnvironment(tmp_path / "ml-100k", n_items=20, completion_factors=5)
    np.testing.assert_array_equal(env.rho, again.rho)
    scores = env.estimated_scores(2, train_fraction=0.5, rng=0)
    assert scores.shape == (30, 20) and np.all(np.isfinite(scores))


def test_ground_truth_follows_observed_stars(tmp_path):
    folder = write_small_100k(tmp_path / "ml-100k")
    env = MovieLensEnvironment(folder, completion_factors=3, completion_epochs=200, completion_lr=0.02)
    data = load_movielens(folder)
    r = data.ratings
    fitted = env.rho[r["user"].to_numpy(), r["item"].to_numpy()]
    assert np.corrcoef(fitted, stars_to_unit(r["rating"].to_numpy()))[0, 1] > 0.8


def test_missing_data_raises_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"u\.data.*searched: .*empty"):
        MovieLensEnvironment(tmp_path / "empty")


@pytest.mark.slow
@pytest.mark.data
def test_full_ml100k_pipeline():
    """ML-100K -> completion -> simulated recommender -> policies -> exact envy."""
    from ocef.envy.exact import envy_report
    from ocef.policies.builders import build_policy

    env = MovieLensEnvironment(require_data("ml-100k"), n_items=200)
    assert env.rho.shape == (943, 200) and env.n_observed > 40000
    scores = env.estimated_scores(4, train_fraction=0.2, rng=0)
    labels, names = env.groups("age-occupation")
    assert len(names) == labels.max() + 1 > 50
    for name in ("softmax", "argmax", "parity"):
        probs = build_policy(name, scores, beta=30.0, categories=env.item_categories).probabilities()
        rep = envy_report(env.rho, probs, labels, epsilon=0.05)
        assert 0 <= rep.individual_average_envy < 0.5 and 0 <= rep.group_average_envy < 0.5


def test_environment_on_small_ml1m_files(tmp_path):
    """ML-1M format: 2000 x 2000 by default, capped at the data's size."""
    folder = tmp_path / "ml-1m"
    folder.mkdir()
    rng = np.random.default_rng(1)
    lines = [f"{u}::{i}::{rng.integers(1, 6)}::0" for u in range(1, 13) for i in rng.choice(np.arange(1, 9), 5, replace=False)]
    (folder / "ratings.dat").write_text("\n".join(lines) + "\n")
    (folder / "users.dat").write_text("".join(f"{u}::{'FM'[u % 2]}::{[1, 25, 56][u % 3]}::{u % 21}::0\n"
                                              for u in range(1, 13)))
    (folder / "movies.dat").write_text("".join(f"{i}::m{i}::{GENRES[i]}|Drama\n" for i in range(1, 9)))
    env = MovieLensEnvironment(folder, completion_factors=2)
    assert env.source == "ml-1m" and env.rho.shape == (12, 8)
    assert "MovieLens-1M" in env.description
    assert env.item_categories.tolist() == list(range(1, 9))
    assert len(env.groups("gender-age")[1]) == 6
