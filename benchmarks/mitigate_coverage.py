"""Coverage of the paired intervals of ``ocef mitigate`` and error/power of its certificate, by simulation.

Paired intervals: a planted world of users with 20 candidates (scores uniform, item group "tail" with
probability 0.4, held-out relevance Bernoulli(0.05 + 0.25 score)); the baseline is the top-10 and the
remedy the score boost of the tail (amount 0.2). A population of 200 000 users gives the true values
of every statistic (the loop's own per-user vectors and statistic functions); samples of n users are
drawn from it and the 95% paired interval of each difference is checked against the truth.

Certificate: the planted exposures of tests/ocef/mitigate/test_paired.py (each position's item in
group 1 with probability 1/2 + θ, geometric browsing): rates of "within" / "outside" by θ and users.

Run: ``python benchmarks/mitigate_coverage.py [--reps R]``; prints two tables (the guide quotes them).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ocef.mitigate.loop import _layout, _stat_fns, arm_values
from ocef.mitigate.paired import Moments, delta_interval
from ocef.mitigate.rerank import rerank_batch


def population(n, seed=0, N=20, k=10):
    g = np.random.default_rng(seed)
    scores = np.sort(g.random((n, N)), axis=1)[:, ::-1].copy()
    groups = (g.random((n, N)) < 0.4).astype(np.int64)
    rel = (g.random((n, N)) < 0.05 + 0.25 * scores).astype(float)
    nrel = rel.sum(axis=1) + g.poisson(1.0, n)                  # relevant items outside the candidates too
    base = arm_values(np.broadcast_to(np.arange(k), (n, 1, k)), groups, scores, n_groups=2, target=[0.5, 0.5],
                      relevance=rel, n_relevant=nrel)
    R = rerank_batch("boost", scores, groups, k, protected=1, amount=0.2)[:, None, :]
    mit = arm_values(R, groups, scores, n_groups=2, target=[0.5, 0.5], relevance=rel, n_relevant=nrel)
    M = np.column_stack([(rel * (groups == c)).sum(axis=1) for c in range(2)])
    za = np.hstack([base["exposure"], mit["exposure"]] + [np.column_stack([base[m], mit[m]])
                                                          for m in ("awrf", "ndkl", "expected_score")] + [M])
    ok = nrel > 0
    zu = np.column_stack([base["ndcg"], mit["ndcg"], base["precision"], mit["precision"], base["recall"],
                          mit["recall"]])
    return za, zu, ok


def statistics():
    layout, _ = _layout(2, True)
    fns, _, _ = _stat_fns(2, layout, True, "equal")
    out = {"share (tail)": ("a", fns[("share", 1)]), "exposure/merit (tail)": ("a", fns[("exposure_merit", 1)]),
           "awrf": ("a", fns[("awrf", None)]), "ndkl": ("a", fns[("ndkl", None)]),
           "expected_score": ("a", fns[("expected_score", None)]), "disparity (TV)": ("a", fns[("disparity", None)])}
    for j, m in enumerate(("ndcg", "precision", "recall")):
        out[m] = ("u", {"b": lambda z, j=j: z[2 * j], "m": lambda z, j=j: z[2 * j + 1]})
    return out


def coverage(reps, sizes, seed=0):
    za, zu, ok = population(200_000, seed)
    zu_ok = zu[ok]
    stats = statistics()
    truth = {}
    for name, (block, f) in stats.items():
        z = (za if block == "a" else zu_ok).mean(axis=0)
        truth[name] = f["m"](z) - f["b"](z)
    g = np.random.default_rng([seed, 1])
    print(f"coverage of 95% paired intervals ({reps} samples per size; truth from 200 000 users)")
    print(f"{'statistic':24s}" + "".join(f"{'n=' + str(n):>10s}" for n in sizes))
    rows = {}
    for name, (block, f) in stats.items():
        cells = []
        for n in sizes:
            hit = tot = 0
            for _ in range(reps):
                idx = g.integers(0, za.shape[0], n)
                m = Moments(za.shape[1] if block == "a" else zu.shape[1])
                if block == "a":
                    m.add(za[idx])
                else:
                    m.add(zu[idx][ok[idx]])
                r = delta_interval(m, lambda z: f["m"](z) - f["b"](z), min_users=2)
                if np.isfinite(r["ci_low"]):
                    tot += 1
                    hit += r["ci_low"] <= truth[name] <= r["ci_high"]
            cells.append(hit / tot if tot else float("nan"))
        rows[name] = cells
        print(f"{name:24s}" + "".join(f"{c:10.3f}" for c in cells))
    return rows


def certificate(reps, sizes, thetas, margin=0.05):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "ocef" / "mitigate"))
    from test_paired import certificate_rates

    print(f"\ncertificate (TOST, margin {margin}, delta 0.05; {reps} worlds per cell): rate within / outside")
    print(f"{'theta':>8s}" + "".join(f"{'n=' + str(n):>16s}" for n in sizes))
    for th in thetas:
        cells = []
        for n in sizes:
            r = certificate_rates(th, n, reps, margin=margin, seed=7)
            cells.append(f"{r['within']:.3f}/{r['outside']:.3f}")
        print(f"{th:8.3f}" + "".join(f"{c:>16s}" for c in cells))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=2000)
    a = p.parse_args(argv)
    t = time.time()
    coverage(a.reps, (10, 30, 100, 1000))
    certificate(a.reps, (100, 300, 1000, 3000), (0.0, 0.025, 0.05, 0.075, 0.15))
    print(f"\n{time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
