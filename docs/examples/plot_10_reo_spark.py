"""
REO at scale: counting logs with Spark (local mode)
====================================================

Every REO quantity depends on a log only through per-group counts, so the counts are computed
where the data lives (:mod:`ocef.backends`) — DuckDB for files (the default), pandas for
frames, Spark on a cluster — and only those counts reach the estimator. Here a local Spark
session (``local[2]``, needs pyspark — in the ``docs`` and ``spark`` extras — and Java 17) counts
simulated logs written as Parquet; the estimate is the same as DuckDB's. Where pyspark or Java is
missing, the page says so and shows the DuckDB count alone.
"""
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt

from ocef import reo
from ocef.backends import spark_session
from ocef.errors import ParameterError
from ocef.reo import simulate as traffic

world = traffic.make_traffic_world(2000, 300, n_groups=3, score_bias=[0.0, 0.2, 0.4], rng=0)
logs = traffic.simulate_traffic(world, n_days=2, requests_per_day=20_000, k=10, p_act=0.05,
                                log_rate=0.5, rng=1)
folder = Path(tempfile.mkdtemp())
logs.default.to_parquet(folder / "default.parquet")
logs.random.to_parquet(folder / "random.parquet")

try:
    spark = spark_session("local[2]")
    backends = ("duckdb", "spark")           # the counting backends
except ParameterError as exc:                # no pyspark or no Java here: DuckDB alone
    print(f"Spark skipped: {exc}")
    spark, backends = None, ("duckdb",)

timings, results = {}, {}
for backend in backends:
    start = time.perf_counter()
    if backend == "spark":
        default = spark.read.parquet(str(folder / "default.parquet"))
        random = spark.read.parquet(str(folder / "random.parquet"))
        results[backend] = reo.estimate_reo(default, random, backend="spark", spark=spark)
    else:
        results[backend] = reo.estimate_reo(folder / "default.parquet", folder / "random.parquet", backend=backend)
    timings[backend] = time.perf_counter() - start
    res = results[backend]
    print(f"{backend:>6}: penalty {res.penalty:.4f} ({res.penalty_ci[0]:.4f}, {res.penalty_ci[1]:.4f}) "
          f"in {timings[backend]:.2f} s")
if spark is not None:
    spark.stop()
    assert abs(results["spark"].penalty - results["duckdb"].penalty) < 1e-12

# %%
fig, ax = plt.subplots(figsize=(5, 3), layout="constrained")
ax.bar(list(timings), list(timings.values()), color=["C0", "C1"][:len(timings)])
ax.set(ylabel="seconds (including Spark's start)", title=f"{len(logs.default):,} + {len(logs.random):,} rows")
plt.show()
