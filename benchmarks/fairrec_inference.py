"""Benchmark: the extra cost of FairRec's inference (uf_lower, p-value) against the search's own cost.

For each search (dpso, vanilla, exhaustive, testsgd) and each ``test`` option:

- ``None``/``"bound"``: ``uf_lower``, group intervals and the bound p-value use the evaluated groups'
  means and sizes only: **no extra black-box query**;
- ``"permutation"``: one extra query of the valid groups' users the search had not queried (every
  defined user for TestSGD, already all queried by its complements), then ``n_resamples`` re-runs of
  the search on permuted values (computation only, no black-box query).

Printed per method: the search's distinct group evaluations, users queried and cost (users + 1 per
query), and the permutation test's extra users queried, extra cost, and the same extra in group
evaluations (the valid groups the search had not evaluated: what querying them group by group would
cost), each as a ratio to the search's own; and the seconds of the inference. Runs on MovieLens-100K
(logmf, lazy black-box oracle, 5 metrics) when the data are present, and on a synthetic population.

    PYTHONPATH=. python benchmarks/fairrec_inference.py [--seeds 5] [--n-resamples 199]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def report(name: str, oracles: dict, seeds: int, n_resamples: int, methods=("dpso", "vanilla", "exhaustive",
           "testsgd"), **kwargs) -> None:
    from ocef.fairrec.search import search

    print(f"== {name}")
    for method in methods:
        rows = []
        for metric, oracle in oracles.items():
            for s in range(seeds if method in ("dpso", "vanilla") else 1):
                t = time.perf_counter()
                bound = search(oracle, method, test="bound", rng=s, **kwargs)
                t_bound = time.perf_counter() - t
                r = search(oracle, method, n_resamples=n_resamples, rng=s, **kwargs)
                extra_cost = r.inference_users_queried + r.inference_queries * r.params["group_cost"]
                rows.append((r.n_evaluations, r.n_users_queried, r.cost, r.inference_users_queried, extra_cost,
                             r.n_groups - r.n_evaluations, r.seconds, bound.inference_seconds, r.inference_seconds,
                             t_bound))
        a = np.array(rows, dtype=float)
        ev, uq, cost, xu, xc, xev, sec, sb, sp, _ = a.T
        print(f"  {method:<10}: search {ev.mean():6.1f} evaluations, {uq.mean():7.1f} users, cost {cost.mean():7.1f}, "
              f"{sec.mean():.3f} s | bound: 0 extra queries, {sb.mean():.3f} s | permutation: +{xu.mean():.1f} users "
              f"(x{(xu / uq).mean():.2f} of the search's users, max x{(xu / uq).max():.2f}), +cost {xc.mean():.1f} "
              f"(x{(xc / cost).mean():.2f}, max x{(xc / cost).max():.2f}), group-by-group +{xev.mean():.1f} "
              f"evaluations (x{(xev / ev).mean():.2f}, max x{(xev / ev).max():.2f}), {sp.mean():.2f} s for "
              f"{n_resamples} re-runs  [{len(rows)} runs]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--n-resamples", type=int, default=199)
    args = ap.parse_args()
    from ocef.fairrec.unfairness import METRICS

    try:
        from ocef.fairrec.pipeline import fit_movielens

        fit = fit_movielens("logmf")
        report("MovieLens-100K, logmf, gender x age x occupation (294 cells), min_users 5, lazy black box",
               {m: fit.oracle(m, lazy=True) for m in METRICS}, args.seeds, args.n_resamples)
    except FileNotFoundError as exc:
        print(f"MovieLens-100K skipped: {exc}")
    import pandas as pd

    from ocef.fairrec.search import GroupOracle

    gen = np.random.default_rng(0)
    n = 20_000
    users = pd.DataFrame({f"a{j}": gen.integers(0, 10, n) for j in range(3)})
    users["mrr"] = gen.random(n)
    report(f"synthetic: {n:,} users, 10 x 10 x 10 = 1,000 cells, min_users 5",
           {"mrr": GroupOracle.from_user_metrics(users, ["a0", "a1", "a2"], "mrr", min_users=5)},
           args.seeds, args.n_resamples, theta=0.0005)
    # A large grid of fairrec-efficiency, DPSO with Sec. 4.2's rule: the permutation test's extra query
    # (one re-run only: its time scales with n_resamples).
    from ocef.experiments.fairrec_efficiency import synthetic_oracle

    oracle = synthetic_oracle(100_000, 39_366)
    report(f"fairrec-efficiency grid: 100,000 users, {oracle.n_cells:,} cells, DPSO epsilon/n_iter auto, 1 permutation",
           {"value": oracle}, 2, 1, methods=("dpso",), epsilon="auto", n_iter="auto")


if __name__ == "__main__":
    main()
