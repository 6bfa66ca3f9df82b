"""Scale of ``ocef exposure``: the default backend vs DuckDB's own aggregation of the same statistics.

One run of this script generates (once, with DuckDB itself) a top-k log in Parquet —
``--users`` users × ``--k`` ranks, columns ``user, item, rank, relevance, g`` (item group, 4
values), ``ug`` (user group, 2 values) — then measures, each in a fresh child process (so that
each peak RSS is its own):

* ``ocef``: :func:`ocef.exposure.statistics.ranking_statistics` with the default backend (DuckDB):
  the per-(user group, item group) sums and cross-products of exposure and merit, and the moments
  of precision, nDCG and hit rate per user group, with every input check;
* ``duckdb``: a hand-written DuckDB query computing the same sufficient statistics (per-user
  pivot, then sums, cross-products and moments), no checks.

Both run with the same DuckDB ``memory_limit`` (spilling to ``--temp``) and threads. The script
prints rows, seconds, the time ratio, each peak RSS (MB) and whether the numbers agree.

Usage::

    nice python benchmarks/exposure_scale.py --users 10000000 --k 10 --path /tmp/ocef_topk_1e8.parquet
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import time


def generate(path: str, users: int, k: int) -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    con.execute(f"""
        COPY (
          SELECT u AS "user", CAST(hash(u * 1000 + r) % 100000 AS INTEGER) AS item, CAST(r + 1 AS INTEGER) AS "rank",
                 CAST(hash(u * 7919 + r) % 5 = 0 AS INTEGER) AS relevance,
                 CAST(hash(u * 1000 + r) % 100000 % 4 AS INTEGER) AS g,
                 CAST(u % 2 AS INTEGER) AS ug
          FROM range({users}) t(u), range({k}) s(r)
        ) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1048576)""")
    con.close()


def hand_sql(path: str, k: int) -> str:
    """DuckDB's own aggregation of the same sufficient statistics (geometric p = 0.5)."""
    G = 4
    V = [f"x{j}" for j in range(G)] + [f"m{j}" for j in range(G)]
    pivot = [f"sum(CASE WHEN g = {j} THEN pow(0.5, \"rank\" - 1) ELSE 0 END) AS x{j}" for j in range(G)]
    pivot += [f"sum(CASE WHEN g = {j} THEN relevance ELSE 0 END) AS m{j}" for j in range(G)]
    ideal = ", ".join(f"({n}, {sum(1 / __import__('math').log2(i + 1) for i in range(1, n + 1))!r})"
                      for n in range(k + 1))
    cross = [f"sum({a} * {b})" for i, a in enumerate(V) for b in V[i:]]
    mets = {"precision": f"hits / {float(k)}", "ndcg": "CASE WHEN idcg > 0 THEN dcg / idcg END",
            "hit_rate": "CASE WHEN hits > 0 THEN 1.0 ELSE 0.0 END"}
    mom = [f"count({e}), sum({e}), sum(({e}) * ({e})), min({e}), max({e})" for e in mets.values()]
    return f"""
      WITH pu AS (
        SELECT "user", min(ug) AS ug, {', '.join(pivot)},
               sum(CASE WHEN relevance > 0 THEN 1.0 ELSE 0 END) AS hits,
               sum(CASE WHEN relevance > 0 THEN 1.0 / log2("rank" + 1) ELSE 0 END) AS dcg
        FROM read_parquet('{path}') GROUP BY "user"),
      ideal AS (SELECT * FROM (VALUES {ideal}) t(n, idcg)),
      j AS (SELECT pu.*, ideal.idcg FROM pu LEFT JOIN ideal ON ideal.n = LEAST(CAST(hits AS INT), {k}))
      SELECT ug, count(*), {', '.join(f'sum({v})' for v in V)}, {', '.join(cross)}, {', '.join(mom)}
      FROM j GROUP BY ug ORDER BY ug"""


def _child(which: str, path: str, k: int, memory_limit: str, threads: int, temp: str, queue) -> None:
    try:
        _measure(which, path, k, memory_limit, threads, temp, queue)
    except Exception as exc:                    # e.g. DuckDB out of memory: reported, never a hang
        queue.put({"which": which, "error": f"{type(exc).__name__}: {str(exc).splitlines()[0]}"})


def _measure(which: str, path: str, k: int, memory_limit: str, threads: int, temp: str, queue) -> None:
    from ocef.backends import duckdb_cursor

    con = duckdb_cursor()
    con.execute(f"SET threads = {threads}")
    con.execute(f"SET temp_directory = '{temp}'")
    con.execute("SET preserve_insertion_order = false")
    t0 = time.perf_counter()
    if which == "ocef":
        from ocef.exposure.statistics import ranking_statistics

        st = ranking_statistics(path, item_group="g", user_group="ug", memory_limit=memory_limit)
        numbers = [st.n_users.tolist(), st.sums.round(6).tolist(),
                   st.metrics["sum"].round(4).tolist()]
    else:
        con.execute(f"SET memory_limit = '{memory_limit}'")
        rows = con.sql(hand_sql(path, k)).fetchall()
        G = 4
        nv = 2 * G
        ncross = nv * (nv + 1) // 2
        numbers = [[r[1] for r in rows], [[round(float(x), 6) for x in r[2:2 + nv]] for r in rows],
                   [round(float(r[2 + nv + ncross + 5 * m + 1]), 4) for r in rows for m in range(3)]]
    seconds = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put({"which": which, "seconds": seconds, "peak_mb": peak_mb, "numbers": numbers})


def measure(which, path, k, memory_limit, threads, temp):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(which, path, k, memory_limit, threads, temp, q))
    p.start()
    out = q.get()
    p.join()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=10_000_000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--path", default=None, help="Parquet log (generated if absent; default /tmp/ocef_topk_<rows>.parquet)")
    ap.add_argument("--memory-limit", default="150MB", help="DuckDB memory_limit of both runs (default 150MB)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--temp", default="/tmp/ocef_duckdb_spill")
    ap.add_argument("--repeats", type=int, default=1, help="alternating repeats of each measurement")
    args = ap.parse_args(argv)
    rows = args.users * args.k
    path = args.path or f"/tmp/ocef_topk_{rows:.0e}.parquet".replace("+", "")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        generate(path, args.users, args.k)
        print(f"generated {rows:,} rows into {path} ({os.path.getsize(path) / 2**20:.0f} MB) in "
              f"{time.perf_counter() - t0:.1f} s")
    os.makedirs(args.temp, exist_ok=True)
    results = {"ocef": [], "duckdb": []}
    for _ in range(args.repeats):
        for which in ("duckdb", "ocef"):
            out = measure(which, path, args.k, args.memory_limit, args.threads, args.temp)
            if "error" in out:
                print(json.dumps(out))
                return 1
            results[which].append(out)
    best = {w: min(r, key=lambda x: x["seconds"]) for w, r in results.items()}
    same = best["ocef"]["numbers"] == best["duckdb"]["numbers"]
    report = {"rows": rows, "users": args.users, "k": args.k, "memory_limit": args.memory_limit,
              "threads": args.threads, "ocef_seconds": round(best["ocef"]["seconds"], 2),
              "duckdb_seconds": round(best["duckdb"]["seconds"], 2),
              "time_ratio": round(best["ocef"]["seconds"] / best["duckdb"]["seconds"], 3),
              "ocef_peak_mb": round(best["ocef"]["peak_mb"], 1), "duckdb_peak_mb": round(best["duckdb"]["peak_mb"], 1),
              "all_seconds": {w: [round(x["seconds"], 2) for x in r] for w, r in results.items()},
              "same_numbers": same}
    print(json.dumps(report, indent=1))
    if not same:
        print("MISMATCH:", best["ocef"]["numbers"], best["duckdb"]["numbers"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
