"""Off-policy bandit estimators: equal to Open Bandit Pipeline's formulas (vendored in
_reference_obp.py, st-tech/zr-obp @8cbd5fa) to 1e-12 on random inputs and on the worked example of
specs/offpolicy-estimators.md §4; our documented departures; bad inputs."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ocef.errors import DataError, ParameterError
from ocef.offpolicy import estimators as est


def _load(name):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OBP = _load("_reference_obp")

# the worked example (spec §4)
A = np.array([0, 1, 2, 0, 1, 0])
R = np.array([1, 1, 0, 1, 1, 0], dtype=float)
P = np.array([.6, .2, .5, .5, .4, .5])
PI = np.array([[.3, .5, .2], [.1, .4, .5], [.3, .3, .4], [1, 0, 0], [0, 0, 1], [.45, .25, .3]])
Q = np.array([[.6, .3, .5], [.2, .4, .1], [.5, .5, .7], [.3, .2, .1], [.6, .7, .2], [.8, .1, .4]])


def _example():
    pe, qa, d = est.logged_values(PI, A, q_hat=Q)
    return est.importance_weights(pe, P), qa, d, pe


def test_worked_example_matches_the_spec():
    w, qa, d, pe = _example()
    assert np.allclose(w, [.5, 2, .8, 2, 0, .9])
    got = {
        "rm": est.rm_terms(R, pe).mean(),
        "ipw": est.ips_terms(R, w).mean(), "ipw1.5": est.ips_terms(R, w, clip=1.5).mean(),
        "snipw": est.snips(R, w), "dm": est.dm_terms(d).mean(), "dr": est.dr_terms(R, w, qa, d).mean(),
        "dr1.5": est.dr_terms(R, w, qa, d, clip=1.5).mean(), "sndr": est.sndr(R, w, qa, d),
        "switch1.5": est.switch_dr_terms(R, w, qa, d, tau=1.5).mean(),
        "switchinf": est.switch_dr_terms(R, w, qa, d).mean(),
        "dros1": est.dros_terms(R, w, qa, d, lam=1).mean(), "drosinf": est.dros_terms(R, w, qa, d, lam=np.inf).mean(),
    }
    spec = {"rm": 1.0, "ipw": .75, "ipw1.5": .583333, "snipw": .725806, "dm": .374167, "dr": .6275,
            "dr1.5": .519167, "sndr": .619328, "switch1.5": .194167, "switchinf": .6275, "dros1": .364291,
            "drosinf": .6275}
    for key, value in spec.items():
        assert got[key] == pytest.approx(value, abs=5e-7), key
    assert est.snips(R, w) == pytest.approx(4.5 / 6.2, abs=1e-15)


def test_dros_lambda_zero_departure():
    w, qa, d, _ = _example()
    ours = est.dros_terms(R, w, qa, d, lam=0.0)
    assert np.array_equal(ours, d)                      # λ = 0 is DM exactly
    obp = est.dros_terms(R, w, qa, d, lam=0.0, obp_compatible=True)
    assert np.isnan(obp.mean()) and np.isnan(obp[4]) and np.allclose(np.delete(obp, 4), np.delete(d, 4))


def _random_log(rng, n=500, k=7, len_list=3):
    dist = rng.dirichlet(np.full(k, 0.5), size=(n, len_list)).transpose(0, 2, 1)
    dist[rng.random((n, k, len_list)) < 0.1] = 0.0                 # zero target probabilities
    dist /= dist.sum(axis=1, keepdims=True)
    q = rng.random((n, k, len_list))
    action = rng.integers(0, k, n)
    position = rng.integers(0, len_list, n)
    pscore = rng.uniform(0.01, 1.0, n)
    reward = rng.binomial(1, 0.3, n).astype(float)
    return reward, action, pscore, dist, q, position


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # OBP's own 0/0 at λ = 0
@pytest.mark.parametrize("seed", range(5))
def test_equal_to_obp_on_random_inputs(seed):
    rng = np.random.default_rng(seed)
    r, a, p, dist, q, pos = _random_log(rng)
    pe, qa, d = est.logged_values(dist, a, pos, q_hat=q)
    w = est.importance_weights(pe, p)
    lam = float(np.quantile(w, 0.8))
    pairs = [
        (est.rm_terms(r, pe), OBP.rm(r, a, dist, pos)),
        (est.ips_terms(r, w), OBP.ipw(r, a, p, dist, pos)),
        (est.ips_terms(r, w, clip=lam), OBP.ipw(r, a, p, dist, pos, lam)),
        (est.snips_terms(r, w, obp_compatible=True), OBP.snipw(r, a, p, dist, pos)),
        (est.dm_terms(d), OBP.dm(dist, q, pos)),
        (est.dr_terms(r, w, qa, d), OBP.dr(r, a, p, dist, q, pos)),
        (est.dr_terms(r, w, qa, d, clip=lam), OBP.dr(r, a, p, dist, q, pos, lam)),
        (est.sndr_terms(r, w, qa, d, obp_compatible=True), OBP.sndr(r, a, p, dist, q, pos)),
        (est.switch_dr_terms(r, w, qa, d, tau=lam), OBP.switch_dr(r, a, p, dist, q, pos, lam)),
        (est.switch_dr_terms(r, w, qa, d, tau=float(w[0])), OBP.switch_dr(r, a, p, dist, q, pos, float(w[0]))),
        (est.dros_terms(r, w, qa, d, lam=lam), OBP.dr_os(r, a, p, dist, q, pos, lam)),
        (est.dros_terms(r, w, qa, d, lam=np.inf), OBP.dr_os(r, a, p, dist, q, pos, np.inf)),
        (est.dros_terms(r, w, qa, d, lam=0.0, obp_compatible=True), OBP.dr_os(r, a, p, dist, q, pos, 0.0)),
    ]
    for i, (ours, ref) in enumerate(pairs):
        assert ours.shape == ref.shape
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12, err_msg=str(i))
    # self-normalized: our linearized rows have the same mean, and the sums function equals it
    assert abs(est.snips(r, w) - OBP.snipw(r, a, p, dist, pos).mean()) < 1e-12
    assert abs(est.snips_terms(r, w).mean() - OBP.snipw(r, a, p, dist, pos).mean()) < 1e-12
    assert abs(est.sndr(r, w, qa, d) - OBP.sndr(r, a, p, dist, q, pos).mean()) < 1e-12
    assert abs(est.sndr_terms(r, w, qa, d).mean() - OBP.sndr(r, a, p, dist, q, pos).mean()) < 1e-12


def test_replay_on_a_deterministic_target():
    rng = np.random.default_rng(3)
    r, a, p, dist, q, pos = _random_log(rng, n=300)
    det = np.zeros_like(dist)
    best = dist.argmax(axis=1)
    np.put_along_axis(det, best[:, None, :], 1.0, axis=1)
    pe, _, _ = est.logged_values(det, a, pos)
    np.testing.assert_allclose(est.rm_terms(r, pe), OBP.rm(r, a, det, pos), rtol=0, atol=1e-12)


def test_snips_linearized_rows_are_the_delta_method():
    rng = np.random.default_rng(1)
    w = rng.exponential(size=200)
    r = rng.binomial(1, 0.4, 200).astype(float)
    rows = est.snips_terms(r, w)
    v = (w * r).sum() / w.sum()
    # delta-method variance of a ratio of means: var(wr - v w) / mean(w)^2
    delta = np.var(w * r - v * w, ddof=1) / w.mean() ** 2
    assert np.var(rows, ddof=1) == pytest.approx(delta, rel=1e-12)


def test_registry_and_dispatch():
    w, qa, d, _ = _example()
    assert set(est.ESTIMATORS) == {"ips", "snips", "dm", "dr", "sndr", "switch-dr", "dros"}
    for obp_name, name in est.OBP_NAMES.items():
        spec = est.ESTIMATORS[name]
        kwargs = {"q_hat_logged": qa, "dm": d} if spec.needs_reward_model else {}
        rows = est.estimator_terms(obp_name, reward=R, weight=w, **kwargs)
        assert rows.shape == (6,)
    assert est.estimator_terms("dr", reward=R, weight=w, q_hat_logged=qa, dm=d, clip=1.5).mean() == pytest.approx(.519167, abs=5e-7)
    with pytest.raises(ParameterError, match="reward model"):
        est.estimator_terms("dr", reward=R, weight=w)
    with pytest.raises(ParameterError, match="estimator must be one of"):
        est.estimator_terms("magic", reward=R, weight=w)
    with pytest.raises(ParameterError, match="no parameter 'tau'"):
        est.estimator_terms("ips", reward=R, weight=w, tau=1.0)


def test_bad_inputs():
    with pytest.raises(DataError, match="logging_probability"):
        est.importance_weights([0.5], [0.0])
    with pytest.raises(DataError, match="weight must be >= 0"):
        est.ips_terms([1.0], [-1.0])
    with pytest.raises(DataError, match="one value per row"):
        est.ips_terms([1.0, 0.0], [1.0])
    with pytest.raises(ParameterError, match="clip"):
        est.ips_terms([1.0], [1.0], clip=float("nan"))
    with pytest.raises(ParameterError, match="lam"):
        est.dros_terms([1.0], [1.0], [0.5], [0.5], lam=-1)
    with pytest.raises(DataError, match="sum to 0"):
        est.snips([1.0, 0.0], [0.0, 0.0])
    with pytest.raises(DataError, match="sum to 1"):
        est.logged_values([[0.5, 0.4]], [0])
    with pytest.raises(DataError, match="action must be"):
        est.logged_values([[0.5, 0.5]], [2])
    with pytest.raises(DataError, match="position is required"):
        est.logged_values(np.full((1, 2, 2), 0.5), [0])


@pytest.mark.slow
def test_worked_example_obp_bootstraps():
    """OBP's ``estimate_interval`` numbers of the spec (random_state 12345, 10000 draws; 100 for RM)."""
    from ocef.offpolicy.intervals import obp_bootstrap_interval
    w, qa, d, pe = _example()
    cases = [(est.ips_terms(R, w), 10000, (0.751042, 0.083333, 1.416667)),
             (est.snips_terms(R, w, obp_compatible=True), 10000, (0.726815, 0.080645, 1.370968)),
             (est.dr_terms(R, w, qa, d), 10000, (0.627874, 0.073333, 1.226667)),
             (est.rm_terms(R, pe), 100, (0.97, 0.0, 3.0))]
    for rows, b, expected in cases:
        assert obp_bootstrap_interval(rows, n_resamples=b, rng=12345)[:3] == pytest.approx(expected, abs=5e-7)
