"""Coverage of pairwise_accuracy's default (cluster-robust Wilson) intervals by simulation with the
exact accuracies of the randomized-pairs experiment (issue 20).

Regimes (make_traffic_world, 80 items, R_u = top 30, score bias +-0.3 logits):
- many queries: 200 users, 30/70 item groups, 20,000 requests at p_pair 0.5 (one pair per query);
- rare subgroup: a 6% item group, 400 requests: cells of median 3 pairs (the percentile bootstrap
  covered 0.685 here);
- few clusters: 20 users, clustered by user (~100-200 pairs per cluster and cell).
Cells are correlated within a replicate, so the tolerance uses the number of replicates as the
binomial n (conservative): coverage >= 0.95 - 2 sqrt(0.95 * 0.05 / R).
"""
import math

import numpy as np
import pytest

from ocef.pairwise import pairs_truth, pairwise_accuracy, simulate_pairs
from ocef.reo.simulate import make_traffic_world

REGIMES = {"many-queries": (200, [0.7, 0.3], 20_000, "query", 80),
           "rare-subgroup": (200, [0.94, 0.06], 400, "query", 150),
           "few-clusters": (20, [0.7, 0.3], 8_000, "user", 60)}


@pytest.mark.slow
@pytest.mark.parametrize("regime", list(REGIMES))
def test_cell_and_summary_intervals_cover(regime):
    n_users, shares, n_requests, cluster, n_sets = REGIMES[regime]
    world = make_traffic_world(n_users, 80, 2, group_shares=shares, positive_rate=0.3, score_bias=[0.3, -0.3],
                               rng=0)
    truth = pairs_truth(world, n_relevant=30)
    cell_truth = truth.cells.accuracy.to_numpy()
    summary_truth = truth.summary().set_index("kind")
    cell_hits, cell_n, flagged, summary_hits = 0, 0, [], []
    for r in range(n_sets):
        sim = simulate_pairs(world, n_requests=n_requests, p_pair=0.5, n_relevant=30, rng=1000 + r, truth=False)
        pairs = sim.pairs if cluster == "query" else sim.pairs.assign(query=sim.pairs.user)
        res = pairwise_accuracy(pairs)
        cells = res.cells
        ok = cells.ci_low.notna().to_numpy()
        assert cells.reason[~ok & (cells.n_pairs > 0).to_numpy()].str.startswith("no valid interval").all()
        inside = ((cells.ci_low <= cell_truth) & (cell_truth <= cells.ci_high)).to_numpy()
        cell_hits += int(inside[ok].sum())
        cell_n += int(ok.sum())
        flagged.append(float((~ok & (cells.n_pairs > 0).to_numpy()).sum() / (cells.n_pairs > 0).sum()))
        s = res.summary().set_index("kind")
        for kind in s.index:
            if s.z_levels_dropped[kind]:                 # another estimand: said in `reason`
                assert "dropped" in s.reason[kind]
                continue
            for q in ("accuracy_0", "accuracy_1", "gap", "ratio"):
                summary_hits.append(s[f"{q}_ci_low"][kind] <= summary_truth[q][kind] <= s[f"{q}_ci_high"][kind])
    bound = 0.95 - 2 * math.sqrt(0.95 * 0.05 / n_sets)
    assert cell_hits / cell_n >= bound, (cell_hits / cell_n, bound)
    assert np.mean(summary_hits) >= bound, (np.mean(summary_hits), bound)
    if regime == "many-queries":
        assert np.mean(flagged) <= 0.05
