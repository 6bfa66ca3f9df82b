"""Benchmark: time and peak memory of ``ocef.reo.estimate_reo`` (Algorithm 1, estimates + delta
intervals) on logs the size of the seed's release, and the speed-up over the bootstrap.

Logs: the published schema (Dong et al. 2024, Sec. 1, 4.2): 2,100,000 default rows (14 days x 150,000)
and 300,000 random rows, six boolean engagement signals (Y = any of them) and the group column
``young_adult``. The bootstrap baseline is Algorithm 4 as written: B = 100 times, resample the
rows of both logs with replacement and recompute the estimates (a full pass per resample).
``bootstrap_reo_ci``'s count-level bootstrap (exact in distribution, see ocef.reo) is timed too.

    PYTHONPATH=. python benchmarks/reo_estimate.py [--quick] [--resamples 100] [--seed 0]

``--quick`` uses 10% of the rows and B = 10 (a smoke run; the targets refer to the full size).
Targets: estimate_reo under 1 s and 1 GB, at least 50x faster than the B = 100 bootstrap.
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
import pandas as pd

from ocef import reo

SIGNALS = ["like_video", "share", "follow", "finish", "download", "long_view"]


def published_like_log(rng: np.random.Generator, n: int, rates: np.ndarray, young_share: float) -> pd.DataFrame:
    """Boolean signals with group-dependent rates (rates[g, signal]) and a young_adult flag."""
    young = rng.random(n) < young_share
    cols = {name: rng.random(n) < rates[young.astype(int), j] for j, name in enumerate(SIGNALS)}
    cols["young_adult"] = young
    return pd.DataFrame(cols)


def timed(fn, repeat: int = 1):
    """(best wall time over ``repeat`` untraced runs, peak traced memory of one more run in
    bytes, result). Memory is measured apart because tracemalloc slows allocation down."""
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, out


def literal_bootstrap(default: pd.DataFrame, random: pd.DataFrame, n_resamples: int, rng) -> np.ndarray:
    """Algorithm 4 (one arm): resample rows, recompute estimate_reo, std of the penalties."""
    values = np.empty(n_resamples)
    for b in range(n_resamples):
        d = default.take(rng.integers(0, len(default), len(default)))
        r = random.take(rng.integers(0, len(random), len(random)))
        values[b] = reo.estimate_reo(d, r, label=SIGNALS, group="young_adult").penalty
    return values


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="10%% of the rows and B = 10")
    ap.add_argument("--resamples", type=int, default=None, help="bootstrap size B (default 100, quick 10)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    B = args.resamples or (10 if args.quick else 100)
    rng = np.random.default_rng(args.seed)
    n_default, n_random = int(2_100_000 * scale), int(300_000 * scale)
    rates_default = np.array([[0.02, 0.002, 0.001, 0.25, 0.001, 0.12], [0.025, 0.003, 0.002, 0.30, 0.001, 0.15]])
    rates_random = np.array([[0.01, 0.001, 0.001, 0.12, 0.0005, 0.05], [0.01, 0.001, 0.001, 0.13, 0.0005, 0.05]])
    default = published_like_log(rng, n_default, rates_default, 0.3)
    random = published_like_log(rng, n_random, rates_random, 0.25)
    mb = (default.memory_usage(deep=True).sum() + random.memory_usage(deep=True).sum()) / 2 ** 20
    print(f"logs: {n_default:,} default rows + {n_random:,} random rows, 7 boolean columns ({mb:.0f} MiB)")

    t_delta, mem_delta, res = timed(lambda: reo.estimate_reo(default, random, label=SIGNALS, group="young_adult"),
                                    repeat=3)
    print(f"estimate_reo (estimates + delta-method SE/CI): {t_delta * 1e3:.1f} ms, "
          f"peak extra memory {mem_delta / 2 ** 20:.1f} MiB")
    print(f"  penalty {res.penalty:.4f} +- {res.penalty_se:.4f} (delta SE)")

    t0 = time.perf_counter()
    values = literal_bootstrap(default, random, B, np.random.default_rng(1))
    t_boot = time.perf_counter() - t0
    print(f"bootstrap, Algorithm 4 literal (B = {B}, resample rows + recompute): {t_boot:.2f} s; "
          f"SE {np.std(values, ddof=1):.4f}")
    t_fast, _, (_, boot) = timed(lambda: reo.bootstrap_reo_ci(default, random, label=SIGNALS, group="young_adult",
                                                              n_resamples=B, rng=2), repeat=3)
    print(f"bootstrap_reo_ci (count-level, exact in distribution, B = {B}): {t_fast * 1e3:.1f} ms; "
          f"SE {boot.se[-1]:.4f}")
    speedup = t_boot / t_delta
    print(f"speed-up of the delta method over the B = {B} bootstrap: {speedup:.0f}x")
    ok = t_delta < 1.0 and mem_delta < 2 ** 30 and speedup >= 50
    print(f"targets (< 1 s, < 1 GB, >= 50x): {'met' if ok else 'NOT met'}"
          + (" (quick run: targets refer to the full size)" if args.quick else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
