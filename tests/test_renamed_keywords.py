"""Renamed keywords (issue 18, one vocabulary): the former spelling works for one release, warns,
and gives the same numbers as the new one; the new signatures hold only the new names."""
from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest

from ocef.errors import ParameterError, ParameterTypeError
from ocef.validation import RENAMED, renamed_keywords


def test_the_former_name_is_forwarded_with_a_future_warning():
    @renamed_keywords(n_show="k")
    def shown(x, *, k=10):
        return x * k

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert shown(2, k=3) == 6                   # the new name: no warning
    with pytest.warns(FutureWarning, match=r"shown: the keyword 'n_show' is now 'k'") as caught:
        assert shown(2, n_show=3) == 6
    assert caught[0].filename == __file__           # points at the caller's line
    with pytest.raises(ParameterTypeError, match="got both 'k' and its former name 'n_show'"):
        shown(2, k=3, n_show=3)
    assert list(inspect.signature(shown).parameters) == ["x", "k"]


def test_a_rename_that_does_not_match_the_signature_is_refused():
    with pytest.raises(ParameterError, match="'n_show' -> 'k'"):
        renamed_keywords(n_show="k")(lambda x, *, top=10: x)
    with pytest.raises(ParameterError, match="'k' -> 'top'"):
        renamed_keywords(k="top")(lambda x, *, k=1, top=10: x)   # the former name is still a parameter


def _resolve(qualname: str):
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_every_renamed_function_shows_only_the_new_names():
    expected = {"ocef.backends.count_keys", "ocef.backends.group_counts", "ocef.backends.start_counts",
                "ocef.pairwise.counts.pair_counts", "ocef.pairwise.accuracy.pairwise_accuracy",
                "ocef.reo.estimate.estimate_reo", "ocef.reo.daily.estimate_reo_by", "ocef.reo.ab.ab_test",
                "ocef.reo.bootstrap.bootstrap_reo_ci", "ocef.reo.counts.reo_counts",
                "ocef.reo.simulate.default_recommendations", "ocef.reo.simulate.ground_truth",
                "ocef.reo.simulate.expected_relevance", "ocef.reo.simulate.simulate_traffic",
                "ocef.reo.simulate.simulate_ab", "ocef.reo.simulate.stream_traffic",
                "ocef.reo.planning.expected_random_rows", "ocef.reo.planning.p_act_for"}
    for qualname in expected:                       # ocef.reo exports lazily: import each module
        importlib.import_module(qualname.rpartition(".")[0])
    assert expected <= set(RENAMED)
    for qualname, renames in RENAMED.items():
        if qualname.startswith("tests.") or "<locals>" in qualname:
            continue
        module, _, name = qualname.rpartition(".")
        if not hasattr(importlib.import_module(module), name):
            # defined by a doctest run earlier in this process (its globals are the module's, e.g.
            # ocef.validation's example ``shown``), not a public function of the module
            continue
        params = inspect.signature(_resolve(qualname)).parameters
        for old, new in renames.items():
            assert new in params and old not in params, (qualname, old, new)


# ----------------------------------------------------------------------------- n_show -> k


@pytest.fixture(scope="module")
def world():
    from ocef.reo import make_traffic_world
    return make_traffic_world(n_users=40, n_items=30, n_groups=2, rng=0)


def test_n_show_still_gives_the_same_simulation(world):
    from ocef import reo

    new = reo.simulate_traffic(world, requests_per_day=200, k=4, p_act=0.3, rng=5)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        old = reo.simulate_traffic(world, requests_per_day=200, n_show=4, p_act=0.3, rng=5)
    pd.testing.assert_frame_equal(new.default, old.default)
    pd.testing.assert_frame_equal(new.random, old.random)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        truth = reo.ground_truth(world, n_show=4)
    pd.testing.assert_frame_equal(truth.groups, reo.ground_truth(world, 4).groups)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        top = reo.default_recommendations(world, n_show=4)
    assert np.array_equal(top, reo.default_recommendations(world, 4)) and top.shape == (40, 4)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        rel = reo.expected_relevance(world, n_show=4, p_act=0.1)
    assert rel == reo.expected_relevance(world, 4, 0.1)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        ab = reo.simulate_ab(world, {"a": None, "b": {0: 2.0}}, requests_per_day=100, n_show=3, rng=1)
    pd.testing.assert_frame_equal(
        ab.random, reo.simulate_ab(world, {"a": None, "b": {0: 2.0}}, requests_per_day=100, k=3, rng=1).random)


def test_n_show_still_plans_the_same(tmp_path, world):
    from ocef import reo

    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        assert reo.expected_random_rows(0.01, n_requests=1000, n_show=6) == pytest.approx(60)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        assert reo.p_act_for(60, n_requests=1000, n_show=6) == reo.p_act_for(60, n_requests=1000, k=6)
    with pytest.warns(FutureWarning, match="'n_show' is now 'k'"):
        out = reo.stream_traffic(world, tmp_path / "old", requests_per_day=100, n_show=3, p_act=0.2, rng=2)
    new = reo.stream_traffic(world, tmp_path / "new", requests_per_day=100, k=3, p_act=0.2, rng=2)
    assert out.days.equals(new.days)


# ----------------------------------------------------------------------------- engine -> backend


def _logs():
    gen = np.random.default_rng(3)
    n = 400
    default = pd.DataFrame({"Y": gen.integers(0, 2, n), "S": gen.integers(0, 2, n), "day": gen.integers(0, 2, n)})
    random = pd.DataFrame({"Y": gen.integers(0, 2, n), "S": gen.integers(0, 2, n), "day": gen.integers(0, 2, n)})
    return default, random


@pytest.mark.parametrize("name, call", [
    ("estimate_reo", lambda reo, d, r, **kw: reo.estimate_reo(d, r, **kw)),
    ("estimate_reo_by", lambda reo, d, r, **kw: reo.estimate_reo_by(d, r, **kw)),
    ("reo_counts", lambda reo, d, r, **kw: reo.reo_counts({"default": d, "random": r}, **kw)),
    ("ab_test", lambda reo, d, r, **kw: reo.ab_test(d, d, r, interval="delta-shared", **kw)),
    ("bootstrap_reo_ci", lambda reo, d, r, **kw: reo.bootstrap_reo_ci(d, r, n_resamples=50, rng=0, **kw).result),
])
def test_engine_still_counts_the_same(name, call):
    from ocef import reo

    d, r = _logs()
    new = call(reo, d, r, backend="pandas")
    with pytest.warns(FutureWarning, match=f"{name}: the keyword 'engine' is now 'backend'"):
        old = call(reo, d, r, engine="pandas")
    assert old.to_dict() == new.to_dict()
    with pytest.raises(TypeError, match="got both 'backend' and its former name 'engine'"):
        call(reo, d, r, backend="pandas", engine="duckdb")


def test_engine_still_counts_the_same_in_backends():
    from ocef import backends

    d, _ = _logs()
    new = backends.group_counts(d, by=["S"], backend="duckdb")
    with pytest.warns(FutureWarning, match="group_counts: the keyword 'engine' is now 'backend'"):
        old = backends.group_counts(d, by=["S"], engine="duckdb")
    pd.testing.assert_frame_equal(old, new)
    with pytest.warns(FutureWarning, match="count_keys: the keyword 'engine'"):
        assert backends.count_keys(d, by=["S"], engine="pandas").to_frame().equals(new)
    with pytest.warns(FutureWarning, match="start_counts: the keyword 'engine'"):
        finish = backends.start_counts({"log": d}, by=["S"], engine="pandas")
    assert finish()["log"].table.to_frame().equals(new)


# ----------------------------------------------------------------------------- one `interval` argument


def test_bootstrap_reo_ci_method_is_now_interval():
    from ocef import reo

    d, r = _logs()
    new = reo.bootstrap_reo_ci(d, r, interval="bca", n_resamples=60, rng=4)
    with pytest.warns(FutureWarning, match="bootstrap_reo_ci: the keyword 'method' is now 'interval'"):
        old = reo.bootstrap_reo_ci(d, r, method="bca", n_resamples=60, rng=4)
    assert old.result.to_dict() == new.result.to_dict() and new.result.method == "bootstrap-bca"
    np.testing.assert_array_equal(old.bootstrap.replicates, new.bootstrap.replicates)
    # the one door: estimate_reo(interval=...) gives the same result
    assert reo.estimate_reo(d, r, interval="bca", n_resamples=60, rng=4).to_dict() == new.result.to_dict()
    with pytest.warns(FutureWarning, match="'delta_interval' is retired"):
        retired = reo.bootstrap_reo_ci(d, r, delta_interval="delta", n_resamples=60, rng=4)
    assert retired.result.penalty_ci == reo.bootstrap_reo_ci(d, r, n_resamples=60, rng=4).result.penalty_ci
    with pytest.raises(ValueError, match="interval must be one of"), pytest.warns(FutureWarning):
        reo.bootstrap_reo_ci(d, r, delta_interval="bogus")


@pytest.mark.parametrize("old, new", [
    (dict(method="delta"), dict(interval="delta")),
    (dict(method="delta-shared"), dict(interval="delta-shared")),
    (dict(method="partition", n_folds=3), dict(interval="partition", n_folds=3)),
    (dict(method="bootstrap"), dict(interval="standard")),
    (dict(method="bootstrap", bootstrap_interval="percentile"), dict(interval="percentile")),
    (dict(bootstrap_interval="bca"), dict(interval="delta-shared")),     # was ignored without method="bootstrap"
])
def test_ab_test_method_and_bootstrap_interval_are_now_interval(old, new):
    from ocef import reo

    d, r = _logs()
    with pytest.warns(FutureWarning, match="ab_test: the keyword '(method|bootstrap_interval)' is now 'interval'"):
        before = reo.ab_test(d, d.sample(frac=1.0, random_state=0), r, rng=2, n_resamples=40, **old)
    after = reo.ab_test(d, d.sample(frac=1.0, random_state=0), r, rng=2, n_resamples=40, **new)
    assert before.to_dict() == after.to_dict()


def test_ab_test_refuses_both_spellings():
    from ocef import reo

    d, r = _logs()
    with pytest.raises(TypeError, match="got both 'interval' and its former name"):
        reo.ab_test(d, d, r, interval="delta", method="delta")
    with pytest.raises(ValueError, match="method .*must be one of"), pytest.warns(FutureWarning):
        reo.ab_test(d, d, r, method="bca")          # a bootstrap interval was never a method


def test_metrics_bootstrap_interval_method_is_now_interval():
    from ocef.metrics import bootstrap_interval

    reps = np.arange(1.0, 101.0)[:, None]
    new = bootstrap_interval(reps, np.array([40.0]), 0.9, interval="basic")
    with pytest.warns(FutureWarning, match="bootstrap_interval: the keyword 'method' is now 'interval'"):
        old = bootstrap_interval(reps, np.array([40.0]), 0.9, method="basic")
    for a, b in zip(old, new):
        np.testing.assert_array_equal(a, b)
    assert new[0][0] == pytest.approx(-15.05)


# ----------------------------------------------------------------------------- seed -> rng


def test_registry_run_seed_is_now_rng(tmp_path, monkeypatch):
    from ocef.experiments import registry

    seen = []

    class Fake:
        @staticmethod
        def run(out_dir, *, quick, seed, data_dir, progress):
            seen.append(seed)
            return [out_dir]

    monkeypatch.setattr(registry, "module", lambda name: Fake)
    registry.run("fake", out=tmp_path, rng=7)
    with pytest.warns(FutureWarning, match="run: the keyword 'seed' is now 'rng'"):
        registry.run("fake", out=tmp_path, seed=7)
    registry.run("fake", out=tmp_path, rng=np.random.SeedSequence(7))
    registry.run("fake", out=tmp_path, rng=np.random.SeedSequence(7))
    assert seen[0] == seen[1] == 7 and seen[2] == seen[3]          # a SeedSequence stands for one int seed
    with pytest.raises(ValueError, match="non-negative"):
        registry.run("fake", out=tmp_path, rng=-1)
