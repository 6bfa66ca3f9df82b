import numpy as np
import pytest

from ocef.pairwise import pairwise_accuracy, pairs_truth, simulate_pairs
from ocef.traffic import make_traffic_world


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
        cells = pairwise_accuracy(sim.pairs, n_resamples=300, rng=r).cells
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
