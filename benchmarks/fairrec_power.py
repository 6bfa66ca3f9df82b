"""Power and null rejection of FairRec's selection-adjusted inference (issue 28 step 4).

Populations of 943 users with MovieLens-100K-like attributes (gender x age, 14 cells, or gender x age x
occupation, 294 cells); one intersectional cell (F, 25-34 [, occupation 0]) has exactly 90 users. Per-user
metrics: AUC-like (Beta, mean 0.75, sd 0.15) and MRR-like (the discrete k=5 MRR of tests/ocef/fairrec,
mean 0.35, sd 0.40). Planted: the 90-user cell's mean drops by 0.10 (AUC-like) or 0.20 (MRR-like, a
share of its users set to 0); null: no drop. Each population is searched (DPSO defaults, and exhaustive)
and judged by the default test (studentized max-t, 199 resamples); printed: the rate of
``p_value <= 0.05`` (= rate of ``uf_lower > 0``, asserted on every run) with its binomial SE, the
coverage of the population UF by ``uf_lower``, and how many valid groups DPSO looked at.

Run: ``python benchmarks/fairrec_power.py [reps] [grid substring]`` (default 100, every grid;
e.g. ``100 occupation`` for the 294-cell grid only; ``100 "gender x age" mrr null`` for the MRR-like null rows
of the 14-cell grid only).
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from ocef.fairrec.search import GroupOracle, search

GENDER = np.array([0.29, 0.71])
AGE = np.array([0.03, 0.2, 0.35, 0.2, 0.09, 0.08, 0.05])
OCC = 1.0 / np.arange(1, 22)
OCC = OCC / OCC.sum()
MRR = np.array([0, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1])
MRR_P = np.array([0.45, 0.05, 0.06, 0.08, 0.12, 0.24])
MRR_MEAN = float(MRR @ MRR_P)
N, CELL = 943, 90


def population(seed: int, attrs: list[str], metric: str, drop: float) -> tuple[pd.DataFrame, np.ndarray]:
    gen = np.random.default_rng(seed)
    t = pd.DataFrame({"gender": gen.choice(2, N, p=GENDER), "age": gen.choice(7, N, p=AGE),
                      "occupation": gen.choice(21, N, p=OCC)})
    planted = np.zeros(N, dtype=bool)
    target = {"gender": 0, "age": 2, "occupation": 0}
    inside = np.all([t[a].to_numpy() == target[a] for a in attrs], axis=0)
    # exactly CELL users in the planted cell: move users in or out at random
    idx = np.flatnonzero(inside)
    if idx.size > CELL:
        out = gen.choice(idx, idx.size - CELL, replace=False)
        t.loc[out, "gender"] = 1
    elif idx.size < CELL:
        cand = np.flatnonzero(~inside)
        move = gen.choice(cand, CELL - idx.size, replace=False)
        for a in attrs:
            t.loc[move, a] = target[a]
    planted = np.all([t[a].to_numpy() == target[a] for a in attrs], axis=0)
    if metric == "auc":
        m = np.where(planted, 0.75 - drop, 0.75)
        k = 0.75 * 0.25 / 0.15 ** 2 - 1
        t[metric] = gen.beta(m * k, (1 - m) * k)
        mean = m
    else:
        v = gen.choice(MRR, N, p=MRR_P)
        q = drop / MRR_MEAN                      # share of the cell's users set to 0
        v = np.where(planted & (gen.random(N) < q), 0.0, v)
        t[metric] = v
        mean = np.where(planted, MRR_MEAN - drop, MRR_MEAN)
    return t, mean


def true_uf(t, mean, attrs, min_users) -> float:
    g = pd.DataFrame({"m": mean}).groupby([t[a] for a in attrs]).m.agg(["mean", "size"])
    g = g[g["size"] >= min_users]["mean"]
    return float(g.max() - g.min())


def run(reps: int, only: str = "", metrics: str = "auc,mrr", null_only: bool = False) -> None:
    grids = {"gender x age": ["gender", "age"], "gender x age x occupation": ["gender", "age", "occupation"]}
    grids = {k: v for k, v in grids.items() if only in k}
    print(f"{'grid':27s} {'metric':6s} {'drop':>5s} {'min_u':>5s} {'method':10s} {'reject':>7s} {'SE':>6s} "
          f"{'cover':>6s} {'looked':>7s} {'s/run':>6s}")
    for gname, attrs in grids.items():
        for metric, drop in (m for m in (("auc", 0.10), ("mrr", 0.20)) if m[0] in metrics.split(",")):
            for d in ((0.0,) if null_only else (drop, 0.0)):
                for min_users in (5, 20):
                    for method in ("dpso", "exhaustive"):
                        rej = cov = 0
                        looked = []
                        t0 = time.perf_counter()
                        for s in range(reps):
                            t, mean = population(10_000 * (1 + (d > 0)) + s, attrs, metric, d)
                            oracle = GroupOracle.from_user_metrics(t, attrs, metric, min_users=min_users)
                            r = search(oracle, method, rng=s)
                            assert (r.uf_lower > 0) == bool(r.significant), (r.uf_lower, r.p_value)
                            rej += bool(r.significant)
                            cov += r.uf_lower <= true_uf(t, mean, attrs, min_users) + 1e-12
                            looked.append(r.n_evaluations / r.n_groups)
                        rate = rej / reps
                        print(f"{gname:27s} {metric:6s} {d:5.2f} {min_users:5d} {method:10s} {rate:7.3f} "
                              f"{np.sqrt(rate * (1 - rate) / reps):6.3f} {cov / reps:6.3f} "
                              f"{np.mean(looked):7.2f} {(time.perf_counter() - t0) / reps:6.3f}", flush=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 100, sys.argv[2] if len(sys.argv) > 2 else "",
        sys.argv[3] if len(sys.argv) > 3 else "auc,mrr", len(sys.argv) > 4 and sys.argv[4] == "null")
