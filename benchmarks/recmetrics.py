"""Time of every holisticai bias metric with bootstrap intervals at MovieLens-1M size.

6,040 users x 3,706 items, 10 groups, a truth matrix, top-10 recommendations and 200 bootstrap
resamples (target: under 10 s on 2 cores). With holisticai installed, the time of its two-group
``recommender_bias_metrics`` (point estimates only) and of ours on the same input, in this process.

    python benchmarks/recmetrics.py [--users 6040] [--items 3706] [--groups 10] [--resamples 200]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=6040)
    p.add_argument("--items", type=int, default=3706)
    p.add_argument("--groups", type=int, default=10)
    p.add_argument("--resamples", type=int, default=200)
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    from ocef.metrics import recommender_bias, recommender_bias_metrics

    rng = np.random.default_rng(args.seed)
    scores = rng.random((args.users, args.items))
    truth = rng.random((args.users, args.items))
    labels = rng.integers(0, args.groups, size=args.users)
    print(f"{args.users} users x {args.items} items, {args.groups} groups, top {args.top}, truth given")

    t0 = time.perf_counter()
    recommender_bias(scores, truth, groups=labels, k=args.top, n_resamples=0)
    t_point = time.perf_counter() - t0
    print(f"  point estimates, all metrics:               {t_point:6.2f} s")

    t0 = time.perf_counter()
    res = recommender_bias(scores, truth, groups=labels, k=args.top, n_resamples=args.resamples, rng=args.seed)
    t_boot = time.perf_counter() - t0
    verdict = "under" if t_boot < 10 else "OVER"
    print(f"  all metrics with {args.resamples} bootstrap resamples:   {t_boot:6.2f} s  ({verdict} the 10 s target)")
    print(f"  values: {len(res.table)} ({len(res.pairs)} pairs vs reference {res.reference!r})")

    try:
        import warnings

        from holisticai.bias.metrics import recommender_bias_metrics as holistic
    except ImportError:
        print("  holisticai not installed: no comparison")
        return
    a = (labels == 0).astype(int)
    b = (labels == 1).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        theirs = holistic(a, b, scores, truth, args.top, None, False, metric_type="all")
        t_h = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = recommender_bias_metrics(a, b, scores, truth, k=args.top, thresh=None, normalize=False,
                                    metric_type="all")
    t_o = time.perf_counter() - t0
    with np.errstate(invalid="ignore"):            # inf - inf (EKL) is nan, left out of the maximum
        diff = np.nanmax(np.abs(theirs.Value.astype(float).to_numpy() - ours.Value.astype(float).to_numpy()))
    print(f"  two groups, point estimates: holisticai 1.0.14 {t_h:6.2f} s, ocef {t_o:6.2f} s "
          f"(x{t_h / t_o:.1f}); largest difference {diff:.1e}")


if __name__ == "__main__":
    main()
