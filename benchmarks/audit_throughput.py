"""Group-steps per second of the full OCEF audit, and the Fig. 2 sweep on MovieLens-100K.

Target (2-core machine): the Fig. 2 sweep — 6 partitions x 8 alpha x 20 trials, argmax policy
on a 50-factor recommender, delta = epsilon = 0.05 — in under 10 minutes.

    python benchmarks/audit_throughput.py [--quick] [--data-dir DIR] [--max-steps N]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ocef.experiments import _audit
from ocef.envy.audit import run_audit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 trials instead of 20")
    parser.add_argument("--data-dir", default=None, help="folder with ml-100k/ (default ../shared/data)")
    parser.add_argument("--max-steps", type=int, default=_audit.MAX_STEPS, help="step cap of each audit")
    args = parser.parse_args()
    start = time.perf_counter()
    env = _audit.environment(args.data_dir, quick=False)
    env.estimated_scores(_audit.FACTORS)               # fit (or load) the recommender outside the timing
    print(f"environment: {env.description} ({time.perf_counter() - start:.1f} s to load/fit)")
    alphas = np.geomspace(0.01, 0.5, 8)
    trials = 2 if args.quick else 20
    total_time = total_group_steps = 0.0
    for part in _audit.PARTITIONS:
        t0 = time.perf_counter()
        problem = _audit.audit_problem(env, part)
        t_build = time.perf_counter() - t0
        rep = run_audit(problem, alpha=alphas, trials=trials, rng=0, max_steps=args.max_steps)
        seconds = time.perf_counter() - t0
        steps = int(rep.groups["duration"].sum())
        total_time += seconds
        total_group_steps += steps
        timeouts = (rep.groups["verdict"] == "timeout").mean()
        print(f"{part:18s} G={problem.n_groups:3d}  audits={len(rep.groups):6d}  group-steps={steps:13,d}  "
              f"{seconds:6.1f} s (build {t_build:.1f} s)  {steps / seconds:12,.0f} group-steps/s  "
              f"timeouts {timeouts:.1%}")
    print(f"Fig. 2 sweep (6 partitions x 8 alpha x {trials} trials, cap {args.max_steps:,}): {total_time:.1f} s, "
          f"{total_group_steps / total_time:,.0f} group-steps/s   (target < 600 s for 20 trials)")


if __name__ == "__main__":
    main()
