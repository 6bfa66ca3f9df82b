"""Experiment envy-misspecification on a tiny synthetic environment (no data needed)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ocef.experiments.envy_misspecification as exp
from ocef.environments.synthetic import SyntheticEnvironment
from ocef.experiments.registry import EXPERIMENTS


@pytest.fixture(autouse=True)
def _cache(monkeypatch, tmp_path):
    monkeypatch.setenv("OCEF_CACHE_DIR", str(tmp_path / "cache"))


def test_registered():
    assert EXPERIMENTS["envy-misspecification"] == "ocef.experiments.envy_misspecification"
    assert exp.NAME == "envy-misspecification"
    assert exp.FACTORS[0] == 1 and exp.FACTORS[-1] >= 128
    assert exp.TRAIN_FRACTIONS == (0.2, 0.1, 0.05)


def test_envy_rows_exact_on_identical_scores():
    """Identical scores for every user: identical policies, hence no envy at all (Sec. 6.1)."""
    env = SyntheticEnvironment(30, 20, rank=2, n_groups=3, rng=0)
    scores = np.tile(np.linspace(0, 1, 20), (30, 1))
    rows = pd.DataFrame(exp.envy_rows(env, scores, env.groups()[0]))
    assert set(rows.policy) == set(exp.POLICIES) and set(rows.level) == {"individuals", "groups"}
    np.testing.assert_allclose(rows.average_envy, 0.0, atol=1e-12)
    assert (rows.prop_envious == 0).all()


def test_envy_rows_detect_envy():
    """Scores anti-aligned with a user's preferences make that user envious under argmax."""
    env = SyntheticEnvironment(30, 20, rank=2, n_groups=3, rng=0)
    scores = env.rho.copy()
    scores[0] = -env.rho[0]
    rows = pd.DataFrame(exp.envy_rows(env, scores, env.groups()[0]))
    r = rows[(rows.policy == "argmax") & (rows.level == "individuals")].iloc[0]
    # everyone else gets their best item and envies no one; user 0 gets their worst item
    own = env.rho[0, env.rho[0].argmin()]
    best_other = env.rho[0, env.rho[1:].argmax(axis=1)].max()
    assert best_other - own > exp.EPSILON
    assert r.average_envy == pytest.approx((best_other - own) / 30)
    assert r.prop_envious == pytest.approx(1 / 30)


def test_envy_rows_mean_utility_is_each_users_own_utility():
    """mean_utility = mean_m u^m(π^m) = mean of diag(ρ π^T), computed row-wise (no M x M product)."""
    from ocef.policies.builders import build_policy

    env = SyntheticEnvironment(40, 25, rank=3, n_groups=4, rng=2)
    scores = np.random.default_rng(5).random((40, 25))
    rows = pd.DataFrame(exp.envy_rows(env, scores, env.groups()[0]))
    for name in exp.POLICIES:
        probs = build_policy(name, scores, beta=exp.BETA, k=10, categories=env.item_categories).probabilities()
        want = np.mean(np.diag(env.rho @ probs.T))
        got = rows[rows.policy == name]["mean_utility"].to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)         # individuals and groups rows


def test_quick_run_writes_csv_and_png(tmp_path, monkeypatch):
    small = SyntheticEnvironment(40, 30, rank=2, n_groups=4, rng=0)
    monkeypatch.setattr(exp, "make_environment", lambda data_dir, quick: (small, "group"))
    monkeypatch.setattr(exp, "FACTORS_QUICK", (1, 2))
    paths = exp.run(tmp_path, quick=True, seed=0, data_dir=None, progress=False)
    assert [p.name for p in paths] == ["envy-misspecification.csv", "envy-misspecification_runs.csv",
                                       "envy-misspecification.png"]
    df = pd.read_csv(paths[0])
    runs = pd.read_csv(paths[1])
    assert len(df) == 2 * len(exp.POLICIES) * 2 and (df.seeds == exp.N_SEEDS).all()
    assert len(runs) == len(df) * exp.N_SEEDS and set(runs.seed) == {0, 1, 2}
    assert set(df.factors) == {1, 2} and set(df.train_fraction) == {0.2}
    assert df.average_envy.between(0, 1).all() and df.prop_envious.between(0, 1).all()
    # the summary is the mean over seeds, with a Student-t interval
    r = runs[(runs.factors == 2) & (runs.policy == "argmax") & (runs.level == "individuals")].average_envy
    row = df[(df.factors == 2) & (df.policy == "argmax") & (df.level == "individuals")].iloc[0]
    assert row.average_envy == pytest.approx(r.mean())
    assert row.average_envy_ci95 == pytest.approx(4.302653 * r.std(ddof=1) / np.sqrt(3), rel=1e-5)
    assert paths[2].stat().st_size > 10_000


def test_quick_run_without_movielens_falls_back_to_the_audits_synthetic_environment(tmp_path):
    from ocef.experiments import _audit, _io

    with _io.session() as s:
        env, partition = exp.make_environment(tmp_path / "no-data", quick=True)
    assert partition == "group" and env.description == _audit.synthetic_fallback().description
    assert len(s.fallbacks) == 1 and s.fallbacks[0].startswith("MovieLens (ml-1m/ or ml-100k/) not found")
    with pytest.raises(FileNotFoundError):
        exp.make_environment(tmp_path / "no-data", quick=False)
