"""Coverage of the expected-exposure intervals (EE-D, EE-R, EE-L) vs group size: the floors of
``ocef.exposure.ranking_metrics.MIN_USERS`` (issue 28).

Per-user values of a 20,000-user population are computed once per design with
:func:`ocef.exposure.per_user_fairness` (the log model of tests/ocef/exposure/test_ranking_metrics.py,
``simulate_log``: lists of 2-8 items drawn with popularity ∝ rank^-skew from 60 items in three
popularity groups, relevance Bernoulli(q_u) over the catalogue); a replicate draws ``n`` users from
the population (users are i.i.d.) and the interval is the one ``ranking_fairness`` prints
(:func:`ocef.exposure.frame.hall_interval` on the power sums); the truth is the population mean.
Designs:

- ``small-2``: no popularity skew, 2 sampled rankings per user, q ~ Beta(2, 6) (Beta(0.4, 3) with skew);
- ``small-1``: the same with 1 ranking;
- ``skewed``: skew 1.2, 1 ranking, q ~ Beta(0.4, 3) (two thirds of the users with EE-R = 0);
- ``group-5%``: a mixed population in which a 5% user group sees 3 sampled rankings with skew 2 and
  sparse relevance, the other 95% the ``small-1`` lists; the interval is that group's mean, and the
  pair row is Welch's difference with the 95% group (19 n users), whose truth is the difference of
  the two subpopulations' means.

Printed: coverage (``reps`` replicates per cell; SE ≈ √(0.95·0.05/reps)) per design, metric and size,
and per metric the smallest size from which every design covers >= 0.94.

    nice -n 10 python benchmarks/ee_floor.py [--reps 2000] [--sizes 5,10,15,20,30,40,60,80]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.exposure import per_user_fairness

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "ocef" / "exposure"))
from test_ranking_metrics import simulate_log  # noqa: E402  (the log model of the coverage test)
from ocef.exposure.frame import compare_means, hall_interval, moments

METRICS = ("ee_disparity", "ee_relevance", "ee_difference")
N_POP = 20_000


def values(n_users, seed, **kw) -> np.ndarray:
    log, judg = simulate_log(n_users, rng=seed, **kw)
    pu = per_user_fairness(log, item_group="g", judgments=judg, backend="pandas")
    return pu[list(METRICS)].to_numpy()


def designs() -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    out = {"small-2": (values(N_POP, 7, skew=0.0, samples=2), None),
           "small-1": (values(N_POP, 8, skew=0.0, samples=1), None),
           "skewed": (values(N_POP, 9, skew=1.2, samples=1), None)}
    small = values(N_POP // 20, 10, skew=2.0, samples=3)       # the 5% group
    out["group-5%"] = (small, values(N_POP, 11, skew=0.0, samples=1))        # and the 95% group
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--sizes", default="5,10,15,20,30,40,60,80")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    pops = designs()
    print(f"populations ready ({time.perf_counter() - start:.0f} s)", flush=True)
    gen = np.random.default_rng(args.seed)
    rows = []
    for name, (vals, ref) in pops.items():
        truth = vals.mean(axis=0)
        for n in sizes:
            hit = np.zeros(len(METRICS))
            pair = np.zeros(len(METRICS))
            for _ in range(args.reps):
                x = vals[gen.integers(0, len(vals), size=n)]
                for j in range(len(METRICS)):
                    h = hall_interval(n, x[:, j].sum(), x[:, j] @ x[:, j], (x[:, j] ** 2) @ x[:, j])
                    hit[j] += h["ci_low"] <= truth[j] <= h["ci_high"]
                if ref is not None:
                    y = ref[gen.integers(0, len(ref), size=19 * n)]
                    for j in range(len(METRICS)):
                        c = compare_means(moments(x[:, j]), moments(y[:, j]))
                        pair[j] += c["difference_low"] <= truth[j] - ref[:, j].mean() <= c["difference_high"]
            for j, m in enumerate(METRICS):
                rows.append({"design": name, "metric": m, "users": n, "coverage": hit[j] / args.reps,
                             "pair": pair[j] / args.reps if ref is not None else np.nan})
            print(f"[{time.perf_counter() - start:5.0f} s] {name} n={n}: " +
                  ", ".join(f"{m} {hit[j] / args.reps:.3f}" for j, m in enumerate(METRICS)) +
                  ("" if ref is None else " | pairs " + ", ".join(f"{pair[j] / args.reps:.3f}"
                                                                   for j in range(len(METRICS)))), flush=True)
    frame = pd.DataFrame(rows)
    se = np.sqrt(0.95 * 0.05 / args.reps)
    print(f"\nCoverage of the mean's interval (Hall), {args.reps} replicates per cell (SE {se:.4f}):")
    print(frame.pivot_table(index=["metric", "users"], columns="design", values="coverage").round(3).to_string())
    print("\nWelch pair, 5% group vs the 95% group:")
    print(frame[frame.design == "group-5%"].pivot_table(index="users", columns="metric", values="pair").round(3).to_string())
    print("\nSmallest size from which every design covers >= 0.94 (means; pairs):")
    for m in METRICS:
        sub = frame[frame.metric == m]
        worst = sub.groupby("users")["coverage"].min()
        ok = [n for n in sizes if (worst[worst.index >= n] >= 0.94).all()]
        pw = sub[sub.design == "group-5%"].set_index("users")["pair"]
        okp = [n for n in sizes if (pw[pw.index >= n] >= 0.94).all()]
        print(f"  {m}: {ok[0] if ok else 'none'}; pairs {okp[0] if okp else 'none'}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
