"""Benchmark: summarise a 10^7-pair log (Beutel et al. 2019) — counts, accuracies, summary and a 200-resample
bootstrap clustered by query — from an in-memory DataFrame (pandas engine) and from a Parquet file
(DuckDB engine). Target: under 10 s. Prints the seconds of each path.

    python benchmarks/pairwise_summary.py [--pairs 10000000] [--pairs-per-query 1]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.pairwise import pairwise_accuracy


def make_pairs(n: int, per_query: int, rng) -> pd.DataFrame:
    s_j = rng.integers(0, 2, n)
    s_jp = rng.integers(0, 2, n)
    z = rng.integers(1, 5, n)
    a = rng.normal(size=n) + 0.3 * (1 - s_j)
    return pd.DataFrame({"query": np.arange(n) // per_query, "j": 2 * np.arange(n), "jp": 2 * np.arange(n) + 1,
                         "s_j": s_j, "s_jp": s_jp, "z": z, "score_j": a, "score_jp": rng.normal(size=n)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10_000_000)
    ap.add_argument("--pairs-per-query", type=int, default=1)
    ap.add_argument("--resamples", type=int, default=200)
    args = ap.parse_args()
    pairs = make_pairs(args.pairs, args.pairs_per_query, np.random.default_rng(0))
    t, c = time.perf_counter(), time.process_time()
    res = pairwise_accuracy(pairs, interval="percentile", n_resamples=args.resamples, rng=0, backend="pandas")
    t_mem, c_mem = time.perf_counter() - t, time.process_time() - c
    print(f"in memory (pandas engine): {args.pairs:,} pairs, {res.n_queries:,} queries, "
          f"{res.counts.profiles.shape[0]} distinct query profiles, B = {args.resamples}: {t_mem:.2f} s "
          f"(CPU {c_mem:.2f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.parquet"
        pairs.to_parquet(path, index=False)
        t, c = time.perf_counter(), time.process_time()
        res2 = pairwise_accuracy(path, interval="percentile", n_resamples=args.resamples, rng=0, backend="duckdb")
        t_file, c_file = time.perf_counter() - t, time.process_time() - c
    same = np.allclose(res.cells.accuracy, res2.cells.accuracy, equal_nan=True)
    print(f"Parquet file (DuckDB engine): {t_file:.2f} s (CPU, all threads: {c_file:.2f} s); same accuracies as in memory: {same}")
    print(f"target < 10 s wall: {'met' if max(t_mem, t_file) < 10 else 'NOT met'} "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
