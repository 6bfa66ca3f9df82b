"""Off-policy intervals: equal to VowpalWabbit/estimators @8ce3871 (vendored in _reference_vwe.py)
and to Open Bandit Pipeline's bootstrap (vendored in _reference_obp.py) to 1e-12, the worked
examples of specs/offpolicy-estimators.md §4, hand-computed Wald values, null intervals, bad inputs."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ocef.errors import DataError, ParameterError
from ocef.offpolicy import intervals as iv


def _load(name):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VWE = _load("_reference_vwe")
OBP = _load("_reference_obp")

W = np.array([.5, 2, .8, 2, 0, .9])
R = np.array([1, 1, 0, 1, 1, 0], dtype=float)
P_LOG = np.array([.6, .2, .5, .5, .4, .5])
P_PRED = W * P_LOG


def _vwe(cls_factory, p_log, r, p_pred, alpha=0.05):
    obj = cls_factory()
    for a, b, c in zip(p_log, r, p_pred):
        obj.add_example(float(a), float(b), float(c))
    return obj.get(alpha) if alpha is not None else obj.get()


def test_worked_example_vwe_numbers():
    assert iv.cressie_read_estimate(W, R) == pytest.approx(0.758656, abs=5e-7)
    cases = {iv.cressie_read_interval: (0.046622, 1), iv.gaussian_interval: (-0.040087, 1.540087),
             iv.clopper_pearson_interval: (0.131932, 0.997908), iv.betting_interval: (0, 1)}
    for fn, (lo, hi) in cases.items():
        e = fn(W, R)
        assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=5e-7), fn.__name__
    w50, r50 = np.tile(W, 50), np.tile(R, 50)
    assert iv.cressie_read_estimate(w50, r50) == pytest.approx(0.714894, abs=5e-7)
    cases = {iv.cressie_read_interval: (0.654951, 0.759778), iv.gaussian_interval: (0.647830, 0.852170),
             iv.clopper_pearson_interval: (0.672820, 0.817034), iv.betting_interval: (0.552808, 0.805636)}
    for fn, (lo, hi) in cases.items():
        e = fn(w50, r50)
        assert (e.ci_low, e.ci_high) == pytest.approx((lo, hi), abs=5e-7), fn.__name__


def _random_bandit(rng, n):
    p_log = rng.uniform(0.02, 1.0, n)
    p_pred = np.where(rng.random(n) < 0.2, 0.0, rng.uniform(0.0, 1.0, n))
    r = rng.binomial(1, rng.uniform(0.05, 0.6), n).astype(float)
    return p_log, r, p_pred


@pytest.mark.parametrize("seed", range(6))
def test_equal_to_vwe_on_random_inputs(seed):
    rng = np.random.default_rng(seed)
    n = [3, 20, 200, 1000, 50, 400][seed]
    p_log, r, p_pred = _random_bandit(rng, n)
    if seed == 5:
        r = rng.uniform(-0.5, 2.0, n)                               # continuous rewards
    w = p_pred / p_log
    empirical = seed == 5
    assert abs(iv.cressie_read_estimate(w, r) - _vwe(VWE.cressieread.Estimator, p_log, r, p_pred, None)) < 1e-12
    pairs = [
        (iv.cressie_read_interval(w, r, empirical_r_bounds=empirical, confidence=0.9),
         _vwe(lambda: VWE.cressieread.Interval(empirical_r_bounds=empirical), p_log, r, p_pred, 0.1)),
        (iv.gaussian_interval(w, r), _vwe(VWE.gaussian.Interval, p_log, r, p_pred)),
        (iv.betting_interval(w, r, empirical_r_bounds=empirical),
         _vwe(lambda: VWE.cs.Interval(empirical_r_bounds=empirical), p_log, r, p_pred)),
    ]
    if not empirical:       # VWE scales each reward with the range seen so far; we use the final range
        pairs.append((iv.clopper_pearson_interval(w, r), _vwe(VWE.clopper_pearson.Interval, p_log, r, p_pred)))
    for ours, ref in pairs:
        assert abs(ours.ci_low - ref[0]) < 1e-12 and abs(ours.ci_high - ref[1]) < 1e-12, (ours, ref)


def test_betting_clips_rewards_like_vwe():
    rng = np.random.default_rng(9)
    p_log, _, p_pred = _random_bandit(rng, 100)
    r = rng.uniform(-0.3, 1.3, 100)
    ours = iv.betting_interval(p_pred / p_log, r)
    ref = _vwe(VWE.cs.Interval, p_log, r, p_pred)
    assert ours[1:3] == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_obp_bootstrap_draw_for_draw(seed):
    rows = np.random.default_rng(seed).exponential(size=40)
    ref = OBP.estimate_confidence_interval_by_bootstrap(rows, alpha=0.05, n_bootstrap_samples=500, random_state=seed)
    ours = iv.obp_bootstrap_interval(rows, n_resamples=500, rng=seed)
    assert abs(ours.estimate - ref["mean"]) < 1e-12
    assert abs(ours.ci_low - ref["95.0% CI (lower)"]) < 1e-12 and abs(ours.ci_high - ref["95.0% CI (upper)"]) < 1e-12


def test_obp_bootstrap_worked_example():
    e = iv.obp_bootstrap_interval(W * R, rng=12345)
    assert e[:3] == pytest.approx((0.751042, 0.083333, 1.416667), abs=5e-7)
    rm = np.array([0, 0, 0, 6.0, 0, 0])        # replay rows of the example: only row 3 matches
    e = iv.obp_bootstrap_interval(rm, n_resamples=100, rng=12345)
    assert e[:3] == pytest.approx((0.97, 0.0, 3.0), abs=5e-7)


def test_wald_by_hand():
    y = np.array([1.0, 2.0, 4.0])
    e = iv.wald_interval(y, confidence=0.9)
    half = stats.t.ppf(0.95, 2) * math.sqrt(7 / 3) / math.sqrt(3)
    assert e.estimate == pytest.approx(7 / 3) and e.ci_high - e.estimate == pytest.approx(half, rel=1e-14)
    assert e.reason is None


def test_bootstrap_close_to_wald_on_a_large_sample():
    y = np.random.default_rng(0).exponential(size=2000)
    b = iv.bootstrap_interval(y, n_resamples=4000, rng=1)
    w = iv.wald_interval(y)
    assert b.estimate == w.estimate
    assert abs(b.ci_low - w.ci_low) < 0.01 and abs(b.ci_high - w.ci_high) < 0.01
    assert iv.bootstrap_interval(y, n_resamples=300, rng=5) == iv.bootstrap_interval(y, n_resamples=300, rng=5)


def test_null_intervals_say_why():
    for fn in (iv.wald_interval, iv.bootstrap_interval):
        e = fn([0.0, 0.0, 0.0])
        assert math.isnan(e.ci_low) and "zero-width" in e.reason
        assert "one row" in fn([1.0]).reason
        assert fn([]).reason == "no rows"
    for fn in (iv.cressie_read_interval, iv.clopper_pearson_interval, iv.betting_interval):
        assert fn([], []).reason == "no rows"


def test_bad_inputs():
    with pytest.raises(DataError, match="outside|must lie"):
        iv.cressie_read_interval([1.0], [2.0])
    with pytest.raises(DataError, match="one value per row"):
        iv.gaussian_interval([1.0, 2.0], [1.0])
    with pytest.raises(ParameterError, match="confidence"):
        iv.wald_interval([1.0, 2.0], confidence=1.0)
    with pytest.raises(ParameterError, match="wmin"):
        iv.cressie_read_estimate([1.0], [1.0], wmax=0.5)
    with pytest.raises(ParameterError, match="rng"):
        iv.obp_bootstrap_interval([1.0, 2.0], rng=np.random.default_rng(0))
    with pytest.raises(DataError, match="finite"):
        iv.wald_interval([1.0, float("nan")])
