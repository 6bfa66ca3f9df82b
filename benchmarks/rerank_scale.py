"""Throughput and peak memory of the batched re-rankers (issue 29: 10^7 users x 100 candidates).

Streams ``--users`` users in chunks of ``--chunk`` (scores uniform, two item groups, 30% protected),
re-ranks each chunk with ``ocef.mitigate.rerank_batch`` and prints users per second of wall time and
of CPU time (timed without tracing: tracemalloc halves the compiled kernels' speed), the peak memory one
chunk's re-ranking allocates (tracemalloc on one more chunk, numpy included; the compiled kernels' per-user buffers are
not traced but are O(k + N) per thread) and the process's peak RSS, and the time extrapolated to
10^7 users (linear: the work per chunk does not depend on the number of chunks).

    python benchmarks/rerank_scale.py --users 1000000 --candidates 100 --k 10
"""
from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from ocef.mitigate import rerank_batch

METHODS = {"boost": dict(protected=1, amount=0.1), "fair": dict(protected=1, p=0.5, alpha=0.1),
           "detconstsort": dict(target="proportional")}


def kernel_rate(method, users, candidates=100, k=10, chunk=50_000, seed=0):
    """Users per second of ``rerank_batch`` alone on random arrays: (wall, CPU), the CPU of the process
    (the kernels' threads included) over the calls only; the last chunk's arrays are returned too."""
    rng = np.random.default_rng(seed)
    rerank_batch(method, rng.random((10, candidates)), np.zeros((10, candidates), int), k,
                 **METHODS[method])                                       # compile / warm the m-table cache
    busy = cpu = 0.0
    for start in range(0, users, chunk):
        n = min(chunk, users - start)
        scores = rng.random((n, candidates))
        groups = (rng.random((n, candidates)) < 0.3).astype(np.int64)
        t0, c0 = time.perf_counter(), time.process_time()
        out = rerank_batch(method, scores, groups, k, chunk_size=chunk, **METHODS[method])
        busy += time.perf_counter() - t0
        cpu += time.process_time() - c0
        assert out.shape == (n, k)
    return users / busy, users / cpu, (scores, groups)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=1_000_000)
    ap.add_argument("--candidates", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--chunk", type=int, default=50_000)
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(f"users={args.users} candidates={args.candidates} k={args.k} chunk={args.chunk}")
    for method in args.methods:
        rate, cpu_rate, (scores, groups) = kernel_rate(method, args.users, args.candidates, args.k, args.chunk,
                                                       args.seed)
        tracemalloc.start()
        rerank_batch(method, scores, groups, args.k, chunk_size=args.chunk, **METHODS[method])
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{method:13s} {rate:12,.0f} users/s  {cpu_rate:12,.0f} users per CPU second  "
              f"{args.users / rate:8.1f} s for {args.users:,} users  "
              f"peak traced per chunk {peak / 2**20:7.1f} MiB  peak RSS {rss:7.0f} MiB  "
              f"-> 10^7 users: {1e7 / rate / 60:6.1f} min (extrapolated)", flush=True)


if __name__ == "__main__":
    main()
