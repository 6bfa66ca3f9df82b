"""Scale of ``ocef mitigate``: users x 100 candidates streamed from Parquet, the batched re-rankers.

Writes a candidates file of ``--users`` users x ``--candidates`` candidates (two item groups) in
parts, then runs :func:`ocef.mitigate.mitigate` with each batched method (boost, detconstsort, fair
when registered) on one grid point, writing the re-ranked logs, and prints wall time, users per
second (wall and CPU: the machine is shared) and the peak resident memory of the process (``ru_maxrss``).

Run: ``python benchmarks/mitigate_scale.py --users 100000 [--data FOLDER] [--methods boost fair]``; one
method per process (``/usr/bin/time -v``) for a per-method peak RSS. ``--data`` keeps the candidates
(written there when absent), so a rerun measures the loop alone.

Run: ``... --kernels`` also times each method's kernel alone (``rerank_scale.kernel_rate``: random
arrays, no I/O) in the same process and prints the ratio of the two CPU rates.

Measured with the one counting pass and the default 1 GB DuckDB limit (no ``--memory-limit``;
``nice -n 10``, load average 8.4-10.3): 10^6 users: DetConstSort 33.9 CPU s (29 500 users per CPU
second), 1.07 GB; FA*IR 33.8 s (29 600), 1.04 GB; boost 40.3 s (24 800), 1.08 GB; before it, in the same
session, DetConstSort 55.2 s (18 100), 2.94 GB. ``--kernels`` (10^6, load 9.9-14.8):
DetConstSort kernel alone 227 400 users per CPU second, loop 26 700 (8.5x); FA*IR 336 700 and 26 700
(12.6x): the goal of a loop within 2x of its kernels is missed (docs/guide/mitigate.md, Scale).
10^7 users, no ``--memory-limit`` (load 1.8-4.0): DetConstSort 356.6 CPU s (28 000 users per CPU second),
1.08 GB; FA*IR 419.3 s (23 900), 1.06 GB.

Measured before it (``nice -n 10``, shared 2-core machine, load average 8-24; CPU of ``mitigate()``, peak RSS of
the process; grouped input, no sort): 10^6 users: boost 47.1 CPU s (21 200 users per CPU second), 1.06 GB;
DetConstSort 44.5 s (22 500), 1.04 GB; FA*IR 43.6 s (22 900), 1.01 GB. The 10^7 and 3 x 10^6 figures
and 10^7 (boost: 394.9 CPU s, 25 300 per second, 1.01 GB; with ``--memory-limit 1GB``: DetConstSort 578.4 s,
17 300 per second, 1.46 GB; FA*IR 549.2 s, 18 200 per second, 1.43 GB; 20.1 GB before the catalogue target's
count was made spillable) are in docs/guide/mitigate.md (Scale). Before the one-read loop: boost 229.8 CPU s at 10^6 (4 400 per second).
"""
from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path


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
    p.add_argument("--data", default=None,
                   help="candidates folder or glob (written there when the folder holds no Parquet yet)")
    p.add_argument("--out", type=Path, default=None, help="folder for the logs (default: a temporary folder)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--kernels", action="store_true",
                   help="also time each method's kernel alone (benchmarks/rerank_scale.py, random arrays, no I/O) "
                        "on as many users in this process, and print the loop's CPU rate over the kernel's")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.time()
        src = a.data if a.data is not None else str(Path(tmp) / "cand")
        if not any(c in src for c in "*?[") and not Path(src).is_file() and not any(Path(src).glob("*.parquet")):  # else: read as it is
            write_candidates(Path(src), a.users, a.candidates)
            print(f"wrote {a.users} users x {a.candidates} candidates in {time.time() - t:.1f} s", flush=True)
        out = a.out if a.out is not None else Path(tmp) / "out"
        for method in [m for m in a.methods if m in RERANKERS]:
            if a.kernels:
                from rerank_scale import kernel_rate

                load0 = os.getloadavg()
                k_wall, k_cpu, _ = kernel_rate(method, a.users, a.candidates, 10)
                print(f"{method:13s} kernel alone: {k_wall:7.0f} users/s, {k_cpu:7.0f} users per CPU second; "
                      f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
            load0 = os.getloadavg()
            t = time.time()
            c0 = time.process_time()
            res = mitigate(src, item_group="group", method=method, grid=[RERANKERS[method].grid[0]], k=10,
                           protected="tail", out=out, chunk_users=a.chunk, memory_limit=a.memory_limit,
                           progress=not a.no_progress, rng=0)
            dt = time.time() - t
            cpu = time.process_time() - c0
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            n = res.settings["n_users"]
            print(f"{method:13s} {n} users: wall {dt:7.1f} s ({n / dt:7.0f} users/s), CPU {cpu:7.1f} s "
                  f"({n / cpu:7.0f} users per CPU second), peak RSS {rss:6.0f} MB (process so far); "
                  f"load average {load0[0]:.1f} -> {os.getloadavg()[0]:.1f}; "
                  f"disparity {res.points['disparity'].iloc[0]:.3f} -> {res.points['disparity'].iloc[1]:.3f} (TV)",
                  flush=True)
            if a.kernels:
                print(f"{method:13s} kernel / loop, users per CPU second: {k_cpu / (n / cpu):.1f}x", flush=True)


if __name__ == "__main__":
    main()
