"""Slate estimators: the worked example of specs/offpolicy-estimators.md §4 (OBP and VWE numbers),
equality with OBP's estimators_slate.py and VWE's slates/pseudo_inverse.py (vendored) to 1e-12 on
random logs, and bad inputs."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ocef.errors import DataError
from ocef.offpolicy import intervals as iv
from ocef.offpolicy import slate as sl


def _load(name):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OBP = _load("_reference_obp")
VWE = _load("_reference_vwe")


def _plackett_luce_log(slates, rewards, p):
    """Rows of the log for slates of length 2 drawn uniformly without replacement; the target is
    Plackett-Luce with scores p. Returns every per-row array the estimators take."""
    p = np.asarray(p, dtype=float)
    k = p.shape[0]
    second = np.array([sum(p[a] * p[b] / (1 - p[a]) for a in range(k) if a != b) for b in range(k)])
    ids, pos, act, rew, joint_e, marg_e, casc_e, dist = [], [], [], [], [], [], [], []
    for s, (items, rs) in enumerate(zip(slates, rewards)):
        a, b = items
        for l, (item, r) in enumerate(zip(items, rs)):
            ids.append(s), pos.append(l), act.append(item), rew.append(r)
            joint_e.append(p[a] * p[b] / (1 - p[a]))
            marg_e.append(p[item] if l == 0 else second[item])
            casc_e.append(p[a] if l == 0 else p[a] * p[b] / (1 - p[a]))
            if l == 0:
                dist.append(p.copy())
            else:
                row = p / (1 - p[a])
                row[a] = 0.0
                dist.append(row)
    n = len(ids)
    logging = {"joint": np.full(n, 1 / (k * (k - 1))), "marginal": np.full(n, 1 / k),
               "cascade": np.array([1 / k if l == 0 else 1 / (k * (k - 1)) for l in pos])}
    return (np.array(ids), np.array(pos), np.array(act), np.array(rew, dtype=float), logging,
            np.array(joint_e), np.array(marg_e), np.array(casc_e), np.array(dist), second)


SLATES = [(0, 1), (2, 0), (1, 2), (0, 2)]
REWARDS = [(1, 0), (0, 1), (0, 0), (1, 1)]
P = (.5, .3, .2)


def test_worked_example_matches_the_spec():
    ids, pos, act, r, logging, joint, marg, casc, dist, second = _plackett_luce_log(SLATES, REWARDS, P)
    assert second == pytest.approx([0.339286, 0.375, 0.285714], abs=5e-7)
    q = np.array([[.4, .3, .2] if l == 0 else [.3, .2, .1] for l in pos])
    got = {
        "sips": sl.sips_terms(ids, pos, r, logging["joint"], joint).mean(),
        "iips": sl.iips_terms(ids, pos, r, logging["marginal"], marg).mean(),
        "rips": sl.rips_terms(ids, pos, r, logging["cascade"], casc).mean(),
        "snsips": sl.self_normalized_slate_terms(ids, pos, r, logging["joint"], joint, per_position=False).mean(),
        "sniips": sl.self_normalized_slate_terms(ids, pos, r, logging["marginal"], marg).mean(),
        "snrips": sl.self_normalized_slate_terms(ids, pos, r, logging["cascade"], casc).mean(),
        "cascade-dr": sl.cascade_dr_terms(ids, pos, act, r, logging["cascade"], casc, q, dist).mean(),
    }
    spec = {"sips": 1.2375, "iips": 1.21875, "rips": 1.2375, "snsips": 1.160804, "sniips": 1.152778,
            "snrips": 1.123953, "cascade-dr": 1.194911}
    for key, value in spec.items():
        assert got[key] == pytest.approx(value, abs=5e-7), key
    # VWE pseudo-inverse: slot marginals, slate-level reward = sum of slot rewards
    p_logs = np.full((4, 2), 1 / 3)
    p_preds = marg.reshape(4, 2)
    slate_r = r.reshape(4, 2).sum(axis=1)
    rows = sl.pseudo_inverse_terms(slate_r, p_logs, p_preds)
    assert rows.mean() == pytest.approx(1.239286, abs=5e-7)
    g = iv.wald_interval(rows, quantile="normal")
    assert (g.ci_low, g.ci_high) == pytest.approx((0.073368, 2.405204), abs=5e-7)


@pytest.mark.slow
def test_worked_example_obp_bootstrap():
    """OBP's bootstrap over slates, draw for draw (2 x 10000 legacy RandomState draws, ~3 s)."""
    ids, pos, act, r, logging, joint, marg, casc, dist, second = _plackett_luce_log(SLATES, REWARDS, P)
    boot = iv.obp_bootstrap_interval(sl.sips_terms(ids, pos, r, logging["joint"], joint), rng=12345)
    assert boot[:3] == pytest.approx((1.239064, 0.375, 2.1), abs=5e-7)
    boot = iv.obp_bootstrap_interval(sl.rips_terms(ids, pos, r, logging["cascade"], casc), rng=12345)
    assert boot[1:3] == pytest.approx((0.375, 2.2125), abs=5e-7)


def _random_slates(rng, n_slates=60, k=6, length=3):
    """Rows sorted by (slate, position), every slate complete: OBP's assumptions."""
    ids = np.repeat(np.arange(n_slates), length)
    pos = np.tile(np.arange(length), n_slates)
    act = np.concatenate([rng.permutation(k)[:length] for _ in range(n_slates)])
    r = rng.binomial(1, 0.3, ids.shape[0]).astype(float)
    pb = np.cumprod(rng.uniform(0.1, 1.0, (n_slates, length)), axis=1).ravel()
    pe = np.cumprod(rng.uniform(0.0, 1.0, (n_slates, length)), axis=1).ravel()
    q = rng.random((ids.shape[0], k))
    dist = rng.dirichlet(np.ones(k), size=ids.shape[0])
    return ids, pos, act, r, pb, pe, q, dist


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_obp_and_vwe_on_random_logs(seed):
    rng = np.random.default_rng(seed)
    ids, pos, act, r, pb, pe, q, dist = _random_slates(rng)
    n_slates, length, k = 60, 3, q.shape[1]
    ref = OBP.slate_bootstrap_rows(ids, OBP.slate_ipw(r, pb, pe))
    for fn in (sl.iips_terms, sl.rips_terms):
        np.testing.assert_allclose(fn(ids, pos, r, pb, pe), ref, rtol=0, atol=1e-12)
    ref = OBP.slate_bootstrap_rows(ids, OBP.slate_snipw_per_position(r, pos, pb, pe, length))
    np.testing.assert_allclose(sl.self_normalized_slate_terms(ids, pos, r, pb, pe), ref, rtol=0, atol=1e-12)
    ref = OBP.slate_bootstrap_rows(ids, OBP.slate_snsips(r, pb, pe))
    np.testing.assert_allclose(sl.self_normalized_slate_terms(ids, pos, r, pb, pe, per_position=False), ref,
                               rtol=0, atol=1e-12)
    ref = OBP.slate_bootstrap_rows(ids, OBP.cascade_dr(act, r, pb, pe, q.ravel(), dist.ravel(), length, k, n_slates))
    ours = sl.cascade_dr_terms(ids, pos, act, r, pb, pe, q, dist)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    shuffle = rng.permutation(ids.shape[0])            # our lookup does not need sorted rows
    again = sl.cascade_dr_terms(ids[shuffle], pos[shuffle], act[shuffle], r[shuffle], pb[shuffle], pe[shuffle],
                                q[shuffle], dist[shuffle])
    np.testing.assert_allclose(again, ours, rtol=0, atol=1e-12)
    # VWE pseudo-inverse, slate by slate
    p_logs = rng.uniform(0.05, 1.0, (n_slates, length))
    p_preds = rng.uniform(0.0, 1.0, (n_slates, length))
    slate_r = rng.uniform(0, 3, n_slates)
    est = VWE.slates_pseudo_inverse.Estimator()
    gau = VWE.slates_gaussian.Interval()
    for a, b, c in zip(p_logs, slate_r, p_preds):
        est.add_example(a.tolist(), float(b), c.tolist())
        gau.add_example(a.tolist(), float(b), c.tolist())
    rows = sl.pseudo_inverse_terms(slate_r, p_logs, p_preds)
    assert abs(rows.mean() - est.get()) < 1e-12
    g = iv.wald_interval(rows, quantile="normal")
    lo, hi = gau.get()
    assert abs(g.ci_low - lo) < 1e-12 and abs(g.ci_high - hi) < 1e-12


def test_bad_inputs():
    with pytest.raises(DataError, match="unique"):
        sl.iips_terms([0, 0], [0, 0], [1, 1], [.5, .5], [.5, .5])
    with pytest.raises(DataError, match="constant within a slate"):
        sl.sips_terms([0, 0], [0, 1], [1, 1], [.5, .4], [.5, .5])
    with pytest.raises(DataError, match="must not increase"):
        sl.rips_terms([0, 0], [0, 1], [1, 1], [.2, .4], [.5, .5])
    with pytest.raises(DataError, match="slots 0, 1"):
        sl.cascade_dr_terms([0, 0], [0, 2], [0, 1], [1, 1], [.5, .2], [.5, .2], np.ones((2, 2)), np.full((2, 2), .5))
    with pytest.raises(DataError, match=r"\(0, 1\]"):
        sl.iips_terms([0], [0], [1], [0.0], [.5])
    with pytest.raises(DataError, match="sum to 0"):
        sl.self_normalized_slate_terms([0], [0], [1], [.5], [0.0])
    with pytest.raises(DataError, match="alike"):
        sl.pseudo_inverse_weights([[.5, .5]], [[.5]])
