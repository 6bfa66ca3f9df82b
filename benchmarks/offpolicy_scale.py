"""Benchmark: per-group off-policy values from a large propensity log through DuckDB (issue 30, step 7).

Writes a log of ``--rows`` rows (``user, item, reward, propensity, g``; 1,000 items, a softmax-like
logger, 8 user groups) as Parquet with DuckDB itself, and a target table (``item, probability``), then,
in ONE process, alternately ``--repeat`` times:

1. the library: ``ocef.offpolicy.group_values(ocef.offpolicy.group_sums(LOG, TARGET, by=["g"]))`` —
   the checks of the log (propensities in (0, 1], no missing value), the join with the target, the
   per-group sums and the IPS/SNIPS values with intervals;
2. DuckDB's own ``GROUP BY`` of the same sums over the same join (nothing else),

and prints the median wall times, their ratio (target: <= 1.5), the peak resident memory of each
(VmHWM, reset between the two through ``/proc/self/clear_refs``) and checks that the sums agree.

    python benchmarks/offpolicy_scale.py [--rows 10000000] [--repeat 3] [--out DIR]

``--out DIR`` keeps the log (reused when it exists).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def _peak_reset() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_log(path: Path, rows: int, n_items: int = 1000) -> None:
    import duckdb

    # item = floor(n_items * u^3) (a skewed logger), propensity = its probability under that law
    duckdb.sql(f"""
        COPY (
          SELECT i % 1000003 AS "user",
                 it AS item,
                 (random() < 0.02 + 0.05 * (it % 7) / 7.0)::INTEGER AS reward,
                 (pow((it + 1.0) / {n_items}, 1.0 / 3) - pow(it * 1.0 / {n_items}, 1.0 / 3)) AS propensity,
                 'g' || (i % 8)::VARCHAR AS g
          FROM (SELECT range AS i, least({n_items - 1}, floor({n_items} * pow(random(), 3)))::INTEGER AS it
                FROM range({rows}))
        ) TO '{path}' (FORMAT PARQUET, ROW_GROUP_SIZE 1000000)""")


def baseline(path: Path, target: pd.DataFrame) -> pd.DataFrame:
    import duckdb

    con = duckdb.connect()
    con.register("t", target)
    w = "(coalesce(t.probability, 0.0) / l.propensity)"
    return con.execute(f"""
        SELECT l.g, count(*) AS n, sum({w}) AS sum_w, sum({w} * {w}) AS sum_w2, sum({w} * l.reward) AS sum_wr,
               sum(({w} * l.reward) * ({w} * l.reward)) AS sum_wr2, sum({w} * {w} * l.reward) AS sum_w2r,
               max({w}) AS max_w, count_if(l.reward > 0) AS clicks
        FROM read_parquet('{path}') l LEFT JOIN t ON l.item = t.item GROUP BY l.g ORDER BY l.g""").df()


def library(path: Path, target: pd.DataFrame):
    from ocef.offpolicy import group_sums, group_values

    sums = group_sums(str(path), target, by=["g"])
    return sums, group_values(sums)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    folder = args.out or Path(tempfile.mkdtemp(prefix="ocef-offpolicy-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"log_{args.rows}.parquet"
    if not path.exists():
        t = time.perf_counter()
        write_log(path, args.rows)
        print(f"wrote {args.rows:,} rows to {path} in {time.perf_counter() - t:.1f} s "
              f"({path.stat().st_size / 1e6:.0f} MB)")
    items = np.arange(1000)
    p = np.exp(-items / 300.0)
    target = pd.DataFrame({"item": items, "probability": p / p.sum()})
    library(path, target)                                   # warm-up: imports, file cache
    times = {"library": [], "duckdb": []}
    peaks = {"library": 0.0, "duckdb": 0.0}
    for _ in range(args.repeat):
        for name, fn in (("duckdb", baseline), ("library", library)):
            _peak_reset()
            t = time.perf_counter()
            out = fn(path, target)
            times[name].append(time.perf_counter() - t)
            peaks[name] = max(peaks[name], _peak_mb())
            if name == "library":
                sums, values = out
            else:
                base = out
    cols = ["n", "sum_w", "sum_w2", "sum_wr", "sum_wr2", "sum_w2r", "max_w", "clicks"]
    np.testing.assert_allclose(sums[cols].to_numpy(float), base[cols].to_numpy(float), rtol=1e-9)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"rows: {args.rows:,}; groups: {len(sums)}; repeats: {args.repeat}")
    print(f"library (group_sums + group_values): median {med['library']:.2f} s  (all: "
          f"{', '.join(f'{x:.2f}' for x in times['library'])}); peak RSS {peaks['library']:.0f} MB")
    print(f"DuckDB GROUP BY of the same sums:    median {med['duckdb']:.2f} s  (all: "
          f"{', '.join(f'{x:.2f}' for x in times['duckdb'])}); peak RSS {peaks['duckdb']:.0f} MB")
    print(f"ratio library / DuckDB: {med['library'] / med['duckdb']:.3f} of the medians, "
          f"{min(times['library']) / min(times['duckdb']):.3f} of the fastest runs (target <= 1.5)")
    print(values[values.g == values.g.iloc[0]].to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
