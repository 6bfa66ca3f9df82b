"""Scale of ``ocef mitigate``: users x 100 candidates streamed from Parquet, the batched re-rankers.

Writes a candidates file of ``--users`` users x ``--candidates`` candidates (two item groups) in
parts, then runs :func:`ocef.mitigate.mitigate` with each batched method (boost, detconstsort, fair
when registered) on one grid point, writing the re-ranked logs, and prints wall time, users per
second (wall and CPU: the machine is shared) and the peak resident memory of the process (``ru_maxrss``).

Run: ``python benchmarks/mitigate_scale.py --users 100000 [--candidates 100] [--chunk 20000]``.

Measured (boost, logs written, shared 2-core machine; candidates in user-hash partitions):
10^5 users: 19.4 CPU s, 5 100 users per CPU second, peak RSS 0.79 GB; 3 x 10^5: 52.5 CPU s, 5 700,
0.92 GB; 10^6: 229.8 CPU s, 4 400, 0.97 GB; 10^7 not run (about 40 CPU minutes extrapolated) (before the partitions: 1.29 GB at 10^5, 3.09 GB at 3 x 10^5).
Pass ``--data FOLDER`` to keep the candidates, so that a rerun measures the loop's memory alone.
"""
from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def write_candidates(folder: Path, users: int, n: int, part_users: int = 1_000_000) -> Path:
    """``users`` x ``n`` candidates straight from DuckDB to Parquet, one file per ``part_users`` users.

    Rows grouped by user (as a recommender writes its top-N), candidates in random score order; the
    item of candidate j of a user is ``r * n + j`` (r pseudo-random in [0, 10^6)), in the tail when
    ``item % 5 == 0`` (20% of the candidates); scores pseudo-random in [0, 1). Deterministic (hashes
    of the row number, no random state), so every run reads the same file.
    """
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    for p, start in enumerate(range(0, users, part_users)):
        stop = min(users, start + part_users)
        con.execute(f"""COPY (SELECT i // {n} AS "user", (hash(i, 1) % 1000000)::BIGINT * {n} + i % {n} AS item,
                              (hash(i, 2) >> 11)::DOUBLE / 9007199254740992.0 AS score,
                              CASE WHEN i % {n} % 5 = 0 THEN 'tail' ELSE 'head' END AS "group"
                       FROM range({start * n}, {stop * n}) t(i))
                       TO '{folder / f"part-{p:04d}.parquet"}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)""")
    return folder


def main(argv=None):
    from ocef.mitigate import mitigate
    from ocef.mitigate.rerank import RERANKERS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=100_000)
    p.add_argument("--candidates", type=int, default=100)
    p.add_argument("--chunk", type=int, default=20_000)
    p.add_argument("--memory-limit", default=None, help="DuckDB memory limit, e.g. 1GB")
    p.add_argument("--methods", nargs="+", default=["boost", "detconstsort", "fair"])
    p.add_argument("--data", type=Path, default=None,
                   help="keep the candidates in this folder (reused when it already holds them)")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.time()
        src = a.data if a.data is not None else Path(tmp) / "cand"
        if not (src.exists() and any(src.glob("*.parquet"))):
            write_candidates(src, a.users, a.candidates)
            print(f"wrote {a.users} users x {a.candidates} candidates in {time.time() - t:.1f} s")
        for method in [m for m in a.methods if m in RERANKERS]:
            t = time.time()
            c0 = time.process_time()
            res = mitigate(str(src), item_group="group", method=method, grid=[RERANKERS[method].grid[0]], k=10,
                           protected="tail", out=Path(tmp) / "out", chunk_users=a.chunk, memory_limit=a.memory_limit, progress=False, rng=0)
            dt = time.time() - t
            cpu = time.process_time() - c0
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{method:13s} {a.users} users: wall {dt:7.1f} s, CPU {cpu:7.1f} s ({a.users / cpu:7.0f} users per "
                  f"CPU second), peak RSS {rss:6.0f} MB; "
                  f"tail share {res.points['disparity'].iloc[0]:.3f} -> {res.points['disparity'].iloc[1]:.3f} (TV)")


if __name__ == "__main__":
    main()
