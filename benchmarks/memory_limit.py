"""Peak memory (RSS) of the log commands at 10^7 rows, with and without ``--memory-limit``.

Writes a 10^7-row REO log pair (default, random: Y, S, user) and a 10^7-row top-10 log (10^6
users) as Parquet, then runs ``ocef reo`` and ``ocef exposure`` on them without a limit and with
each ``--memory-limit`` given, and prints each run's peak resident memory (``ru_maxrss`` of the
child) and wall time. DuckDB spills what exceeds the limit to a temporary folder.

    python benchmarks/memory_limit.py [--rows 10000000] [--limits 1GB 256MB] [--dir DIR]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path


def write_logs(d: Path, n: int) -> dict[str, Path]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    gen = np.random.default_rng(0)
    paths = {k: d / f"{k}.parquet" for k in ("default", "random", "rankings")}
    for name, rate in (("default", 0.1), ("random", 0.05)):
        if not paths[name].exists():
            pq.write_table(pa.table({"Y": (gen.random(n) < rate).astype(np.int8), "S": gen.integers(0, 3, n).astype(np.int8),
                                     "user": gen.integers(0, max(1, n // 10), n)}), paths[name])
    if not paths["rankings"].exists():
        users = n // 10
        user = np.repeat(np.arange(users), 10)
        item = gen.integers(0, 50_000, users * 10)
        pq.write_table(pa.table({"user": user, "item": item, "rank": np.tile(np.arange(1, 11), users),
                                 "relevance": (gen.random(users * 10) < 0.2).astype(np.int8),
                                 "genre": np.where(item < 20_000, "pop", "niche"),
                                 "gender": np.where(user % 3 == 0, "f", "m")}), paths["rankings"])
    return paths


def peak(cmd: list[str]) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of one run, in a fresh process (measured by a wrapper)."""
    wrapper = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
               "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], check=True, capture_output=True, text=True).stdout
    rss, wall = out.split()
    return float(rss), float(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--limits", nargs="+", default=["1GB", "256MB"])
    parser.add_argument("--dir", type=Path, default=None, help="where the logs are written (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = args.dir or Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        p = write_logs(d, args.rows)
        ocef = [sys.executable, "-m", "ocef.cli"]
        commands = {
            "ocef reo": ocef + ["reo", "--default", str(p["default"]), "--random", str(p["random"]), "--json"],
            "ocef exposure": ocef + ["exposure", "--rankings", str(p["rankings"]), "--item-group", "genre",
                                     "--user-group", "gender", "--json"],
        }
        print(f"{args.rows:,} rows per log; peak RSS of the process (MiB), wall time")
        for name, cmd in commands.items():
            for limit in [None, *args.limits]:
                extra = [] if limit is None else ["--memory-limit", limit]
                rss, wall = peak(cmd + extra)
                print(f"  {name:14s} {('--memory-limit ' + limit) if limit else 'no limit':24s} "
                      f"peak {rss:8.0f} MiB  {wall:6.1f} s")


if __name__ == "__main__":
    main()
