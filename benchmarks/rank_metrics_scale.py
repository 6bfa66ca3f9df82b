"""Scale of the per-user ranking metrics (AWRF, NDKL, expected exposure) over a top-k log.

Measures one kind per run of the script (so that the peak RSS printed is that kind's own) on a
Parquet log ``user, item, rank, relevance, g, ug`` that ``--generate USERS`` writes first (items
distinct within each list, unlike ``benchmarks/exposure_scale.py``'s log, whose hashed items
repeat within some lists — the expected-exposure metrics refuse such a log):

* ``stats``: :func:`ocef.exposure.statistics.ranking_statistics` (the exposure shares' pass, the
  default of ``ocef exposure``);
* ``awrf+ndkl``: :func:`ocef.exposure.ranking_metrics.ranking_fairness` with ``metrics=["awrf",
  "ndkl"]`` (a cumulative window per ranking, then one aggregation per user);
* ``all``: the same with the three expected-exposure metrics (plus a group-by per (user, item),
  a window over the judgments and a full outer join; target from the log's relevance).

Usage::

    nice python benchmarks/rank_metrics_scale.py --path /tmp/rank_1e7.parquet --generate 1000000 --kind stats
    nice python benchmarks/rank_metrics_scale.py --path /tmp/rank_1e7.parquet --kind awrf+ndkl
    nice python benchmarks/rank_metrics_scale.py --path /tmp/rank_1e7.parquet --kind all
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import time


def generate(path: str, users: int, k: int = 10) -> None:
    """``users`` × ``k`` rows; item = (hash(user) + rank) mod 100000: distinct within a list."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    con.execute(f"""
        COPY (
          SELECT u AS "user", CAST((hash(u) % 100000 + r) % 100000 AS INTEGER) AS item,
                 CAST(r + 1 AS INTEGER) AS "rank", CAST(hash(u * 7919 + r) % 5 = 0 AS INTEGER) AS relevance,
                 CAST((hash(u) % 100000 + r) % 100000 % 4 AS INTEGER) AS g, CAST(u % 2 AS INTEGER) AS ug
          FROM range({users}) t(u), range({k}) s(r)
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1048576)""")
    con.close()


def run(kind, path, memory_limit, threads) -> dict:
    import duckdb  # noqa: F401

    from ocef.backends import duckdb_cursor

    duckdb_cursor().execute(f"SET threads = {threads}")
    t = time.perf_counter()
    if kind == "stats":
        from ocef.exposure.statistics import ranking_statistics

        out = ranking_statistics(path, item_group="g", user_group="ug", memory_limit=memory_limit).n_users.tolist()
    else:
        from ocef.exposure.ranking_metrics import ranking_fairness

        metrics = ["awrf", "ndkl"] if kind == "awrf+ndkl" else None
        res = ranking_fairness(path, item_group="g", user_group="ug", metrics=metrics, memory_limit=memory_limit)
        out = res.overall[["metric", "estimate"]].round(6).values.tolist()
    return ({"kind": kind, "seconds": round(time.perf_counter() - t, 2),
               "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "out": out})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", required=True)
    ap.add_argument("--memory-limit", default="200MB")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--kind", choices=["stats", "awrf+ndkl", "all"], default="stats")
    ap.add_argument("--generate", type=int, default=None, metavar="USERS",
                    help="first write a log of USERS x 10 rows to --path")
    args = ap.parse_args()
    if args.generate:
        t = time.perf_counter()
        generate(args.path, args.generate)
        print(json.dumps({"generated": args.path, "bytes": os.path.getsize(args.path),
                          "seconds": round(time.perf_counter() - t, 1)}), flush=True)
    print(json.dumps(run(args.kind, args.path, args.memory_limit, args.threads)), flush=True)


if __name__ == "__main__":
    main()
