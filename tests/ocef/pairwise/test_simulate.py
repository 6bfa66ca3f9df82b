import numpy as np
import pytest

from ocef.pairwise import pairwise_accuracy, pairs_truth, simulate_pairs
from ocef.reo.simulate import make_traffic_world


def world():
    return make_traffic_world(200, 80, 2, group_shares=[0.7, 0.3], positive_rate=0.3, score_bias=[0.3, -0.3], rng=0)


def test_simulated_pairs_table_and_truth_consistency():
    w = world()
    sim = simulate_pairs(w, n_requests=50_000, p_pair=0.5, n_relevant=30, position_bias=(0.9, 0.7), rng=1)
    p = sim.pairs
    assert (p.j != p.jp).all() and set(p.position_j) <= {2, 3}
    assert sim.n_recorded == len(p) and sim.n_experimental > sim.n_recorded
    np.testing.assert_array_equal(p.s_j, w.item_groups[p.j])
    t = sim.truth
    assert t.mass.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(t.exposure.groupby("z")[["click_share", "exposure"]].sum(), 1.0)
    # the estimates approach the exact accuracies (about 11k pairs: SE <= 0.03 per cell)
    est = pairwise_accuracy(p, n_resamples=0).cells.accuracy.to_numpy()
    assert np.max(np.abs(est - t.cells.accuracy.to_numpy())) < 0.1


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_truth_at_their_level():
    w = world()
    truth = pairs_truth(w, n_relevant=30).cells.accuracy.to_numpy()
    hits = []
    for r in range(150):
        sim = simulate_pairs(w, n_requests=20_000, p_pair=0.5, n_relevant=30, rng=1000 + r, truth=False)
        cells = pairwise_accuracy(sim.pairs, interval="percentile", n_resamples=300, rng=r).cells
        hits.append((cells.ci_low <= truth) & (truth <= cells.ci_high))
    coverage = np.mean(hits)
    # 150 x 12 intervals at 95%: binomial SE about 0.006 (cells correlated: allow 0.03)
    assert abs(coverage - 0.95) < 0.03, coverage


def test_bad_inputs():
    w = world()
    with pytest.raises(ValueError, match="p_pair"):
        simulate_pairs(w, p_pair=0.0)
    with pytest.raises(ValueError, match="n_relevant"):
        simulate_pairs(w, n_relevant=1000)
    with pytest.raises(ValueError, match="two item groups"):
        simulate_pairs(make_traffic_world(20, 10, 3, rng=0))


def test_truth_mass_matches_a_pair_by_pair_enumeration():
    from scipy.stats import binom

    w = make_traffic_world(6, 7, 2, group_shares=[0.6, 0.4], positive_rate=0.3, rng=3)
    scores = np.round(w.scores, 1)                                   # ties between items
    t2, t3, n_levels = 0.9, 0.6, 3
    R = np.argsort(-w.scores, axis=1, kind="stable")[:, :5]
    ref = np.zeros((2, 2, n_levels, 3))
    for u in range(w.n_users):
        for j in R[u]:
            for jp in R[u]:
                if j == jp:
                    continue
                r, rp = w.preferences[u, j], w.preferences[u, jp]
                p = w.user_weights[u] * 0.5 * (t2 * r * (1 - t3 * rp) + t3 * r * (1 - t2 * rp))
                o = 1 + int(np.sign(scores[u, j] - scores[u, jp]))
                s, sp = w.item_groups[j], w.item_groups[jp]
                ref[s, int(s != sp), :, o] += p * binom.pmf(np.arange(n_levels), n_levels - 1, r)
    mass = pairs_truth(w, model_scores=scores, n_relevant=5, position_bias=(t2, t3), n_levels=n_levels,
                       chunk=60).mass
    np.testing.assert_allclose(mass, ref / ref.sum(), rtol=1e-12, atol=1e-15)
