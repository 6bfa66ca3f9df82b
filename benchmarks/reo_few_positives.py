"""Coverage of REO's penalty interval with few positives of a small item group (issue 28 step 3).

Count-level simulation (:func:`ocef.reo.simulate.draw_log_counts`, the sufficient statistics of eq. 5):
K = 3 item groups; the random log has n_random rows with positive rates p = (0.05, 0.04, p_small) and
the default log n_default = 2 n_random rows with q = (0.08, 0.05, 2.5 p_small) — a genuine penalty.
``p_small`` is set so that the small group has m expected positives in the random log
(m = 2 .. 60). Each replicate is binned by the smallest positive count of any group in either log
(what an analyst sees); per bin: coverage of the true penalty by the delta-method interval
("delta-full") and by the count bootstrap (percentile and standard, 999 resamples), with the
binomial SE.

Run: ``python benchmarks/reo_few_positives.py [reps]`` (default 400 per m).
"""
from __future__ import annotations

import sys

import numpy as np

from ocef.reo.bootstrap import _bootstrap_counts, _reo_stat_from_counts
from ocef.reo.estimators import delta_method_reo, reo_point_estimates
from ocef.reo.simulate import draw_log_counts

N_RANDOM = 2000
BINS = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 15), (16, 20), (21, 30), (31, 60), (61, 10**9)]


DESIGNS = {"K=3": (np.array([0.05, 0.04, 0.0]), np.array([0.08, 0.05, 0.0]), 2.5),
           "K=2": (np.array([0.05, 0.0]), np.array([0.06, 0.0]), 2.0)}


def run(reps: int, ms=(2, 4, 6, 8, 10, 12, 15, 20, 30, 60), design: str = "K=3") -> None:
    gen = np.random.default_rng(0 if design == "K=3" else 1)
    base_p, base_q, ratio = DESIGNS[design]
    print(f"design {design}: p = {base_p[:-1].tolist()} + small, q = {base_q[:-1].tolist()} + {ratio} x small; "
          f"n_random = {N_RANDOM}, n_default = {2 * N_RANDOM}")
    rows = {b: {"delta-full": [0, 0], "percentile": [0, 0], "standard": [0, 0]} for b in BINS}
    for m in ms:
        ps = m / N_RANDOM
        p = base_p.copy()
        q = base_q.copy()
        p[-1], q[-1] = ps, ratio * ps
        _, _, truth = reo_point_estimates(p, q)
        pos_r, pos_d = draw_log_counts(p, q, N_RANDOM, 2 * N_RANDOM, size=reps, rng=gen)
        for r_, d_ in zip(pos_r, pos_d):
            if r_.min() == 0 or d_.sum() == 0:
                continue
            low = int(min(r_.min(), d_.min()))
            b = next(b for b in BINS if b[0] <= low <= b[1]) if low >= 1 else None
            if b is None:
                continue
            arr = delta_method_reo(r_ / N_RANDOM, d_ / (2 * N_RANDOM), 2 * N_RANDOM, N_RANDOM, covariance="full")
            lo, hi = arr.ci_penalty()
            rows[b]["delta-full"][0] += 1
            rows[b]["delta-full"][1] += lo <= truth <= hi
            cd = np.append(d_, 2 * N_RANDOM - d_.sum())
            cr = np.append(r_, N_RANDOM - r_.sum())
            for method in ("percentile", "standard"):
                s = _bootstrap_counts(_reo_stat_from_counts, [cd, cr], method=method, n_resamples=999,
                                      confidence=0.95, rng=gen)
                rows[b][method][0] += 1
                rows[b][method][1] += s.ci_low[-1] <= truth <= s.ci_high[-1]
    print(f"{'min positives':>14s} {'n':>5s} " + " ".join(f"{k:>16s}" for k in ("delta-full", "percentile", "standard")))
    for b in BINS:
        n = rows[b]["delta-full"][0]
        if not n:
            continue
        cells = []
        for k in ("delta-full", "percentile", "standard"):
            c = rows[b][k][1] / rows[b][k][0]
            cells.append(f"{c:.3f} ± {np.sqrt(c * (1 - c) / n):.3f}")
        print(f"{f'{b[0]}-{b[1]}' if b[1] < 10**9 else f'{b[0]}+':>14s} {n:5d} " + " ".join(f"{x:>16s}" for x in cells),
              flush=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 400, design=sys.argv[2] if len(sys.argv) > 2 else "K=3")
