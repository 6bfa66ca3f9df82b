"""Benchmark: cost of FairRec's DPSO against Themis (exhaustive) and the black-box oracle paths.

1. Synthetic populations of 10^5 users over ~10^4 and 2 x 27 x 27 x 27 = 39,366 cells (points of
   ``fairrec-efficiency``): distinct group evaluations, users queried, cost (users + 1 per query)
   and seconds of DPSO (Sec. 4.2's rule, ``epsilon="auto"``, and the fixed ε = 0.005, n_it = 20)
   and of Themis, and the accuracy UF / UF_Themis, all in this process.
2. MovieLens-100K (if present): one DPSO search with the lazy black-box oracle (queries the model
   per group) against the oracle over precomputed scores (one model call), same values.

    PYTHONPATH=. python benchmarks/fairrec_search.py [--quick] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def synthetic(n_users: int, n_cells: int, seed: int) -> None:
    from ocef.experiments.fairrec_efficiency import LABELS, SETTINGS, synthetic_oracle
    from ocef.fairrec.search import search

    oracle = synthetic_oracle(n_users, n_cells)
    ex = search(oracle, "exhaustive", test=None)
    print(f"synthetic: {n_users:,} users, {oracle.n_cells:,} cells, {oracle.n_groups:,} valid groups")
    print(f"  {'Themis':<22}: {ex.n_evaluations:>7,} evaluations, {ex.n_users_queried:>8,} users queried, "
          f"cost {ex.cost:>9,.0f}, {ex.seconds:.3f} s")
    for method, kwargs in SETTINGS.items():
        runs = [search(oracle, "dpso", test=None, rng=seed + s, **kwargs) for s in range(5)]
        ev = np.mean([r.n_evaluations for r in runs])
        q = np.mean([r.n_users_queried for r in runs])
        cost = np.mean([r.cost for r in runs])
        sec = np.mean([r.seconds for r in runs])
        acc = np.mean([r.uf / ex.uf for r in runs])
        p = runs[0].params
        print(f"  {LABELS[method]:<22}: {ev:>7,.0f} evaluations, {q:>8,.0f} users queried, cost {cost:>9,.0f}, "
              f"{sec:.3f} s, accuracy {acc:.3f} (mean of 5 seeds; eps {p['epsilon']:.4g}, "
              f"{p['n_particles']} particles, {p['n_iter']} iterations)")
        print(f"  {'':<22}  ratios to Themis: evaluations {ev / ex.n_evaluations:.1%}, cost {cost / ex.cost:.1%}, "
              f"seconds {sec / ex.seconds:.1%}")


def movielens(seed: int) -> None:
    from ocef.fairrec.pipeline import fit_movielens
    from ocef.fairrec.search import search

    try:
        t = time.perf_counter()
        fit = fit_movielens("logmf")
        print(f"MovieLens-100K logmf fit (or cache load): {time.perf_counter() - t:.1f} s")
    except FileNotFoundError as exc:
        print(f"MovieLens skipped: {exc}")
        return
    search(fit.oracle("mrr", lazy=True), "dpso", test=None, n_iter=1, rng=seed)     # warm-up: first scipy import
    for metric in ("mrr", "auc"):
        lazy = search(fit.oracle(metric, lazy=True), "dpso", test=None, rng=seed)
        pre = search(fit.oracle(metric), "dpso", test=None, rng=seed)
        assert lazy.uf == pre.uf and lazy.n_evaluations == pre.n_evaluations
        print(f"  UF_{metric} {pre.uf:.4f}, {pre.n_evaluations} evaluations: black-box oracle {lazy.seconds:.3f} s, "
              f"precomputed scores {pre.seconds:.3f} s ({lazy.seconds / pre.seconds:.0f}x)")
    query_overhead(fit)


def query_overhead(fit, repeats: int = 5) -> None:
    """Seconds of one black-box query against the group's size: ``t = a + b · n``; ``a / b`` is the
    fixed overhead of a query in users (``group_cost`` of the cost model) on this machine."""
    oracle = fit.oracle("mrr", lazy=True)
    sizes, secs = [], []
    for cell in oracle.valid_cells.tolist():
        rows = oracle.members(cell)
        t = time.perf_counter()
        for _ in range(repeats):
            oracle.evaluate_users(rows)
        sizes.append(rows.size)
        secs.append((time.perf_counter() - t) / repeats)
    everyone = np.arange(oracle.n_users_total)
    t = time.perf_counter()
    oracle.evaluate_users(everyone)
    sizes.append(everyone.size)
    secs.append(time.perf_counter() - t)
    b, a = np.polyfit(sizes, secs, 1)
    print(f"  black-box query of n users (logmf, mrr): {a * 1e3:.2f} ms + {b * 1e6:.1f} us per user, i.e. a fixed "
          f"overhead of {a / b:.0f} users per query (groups of {min(sizes)}-{max(sizes[:-1])} users and all "
          f"{everyone.size})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10^4 users and ~10^4 cells")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.quick:
        synthetic(10_000, 10_000, args.seed)
    else:
        synthetic(100_000, 10_000, args.seed)
        synthetic(100_000, 40_000, args.seed)
    movielens(args.seed)


if __name__ == "__main__":
    main()
