"""Family-wise error of the exposure report at 60 users, with the table that fired (issue 28).

"Significant anywhere" in :func:`ocef.exposure.exposure_fairness`'s default output (``family="report"``)
under identical user and item groups (``exposure_small_groups.null_log``: every test's null is
true), and which tables carried a rejection; ``reps`` runs (SE = √(p(1 − p)/reps)).

Measured (2,000 runs each): 60 users, seed 1: 0.036 ± 0.004 (groups 0.019, pairs 0.010, users.pairs
0.008, ranking.pairs 0.005); 300 users, seed 2: 0.039 ± 0.004 (groups 0.013, pairs 0.009, users.pairs
0.012, ranking.pairs 0.009).

    nice -n 10 python benchmarks/exposure_family.py [--reps 2000] [--users 60] [--seed 1]
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from exposure_small_groups import null_log  # noqa: E402


def main() -> None:
    from ocef.exposure import exposure_fairness

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--users", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    hits, by_table, start = 0, {"groups": 0, "pairs": 0, "users.pairs": 0, "ranking.pairs": 0}, time.perf_counter()
    for rep in range(1, args.reps + 1):
        log = null_log(args.users, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = exposure_fairness(log, item_group="genre", user_group="ug", target="equal",
                                  ranking_metrics=["awrf", "ndkl"])
        frames = {"groups": r.groups, "pairs": r.pairs, "users.pairs": r.users.pairs, "ranking.pairs": r.ranking.pairs}
        fired = {k: bool((f["significant"] == True).any()) for k, f in frames.items()}  # noqa: E712
        hits += any(fired.values())
        for k, v in fired.items():
            by_table[k] += v
        if rep % 250 == 0 or rep == args.reps:
            p = hits / rep
            print(f"[{time.perf_counter() - start:5.0f} s] {rep} runs: anywhere {p:.4f} ± {np.sqrt(p * (1 - p) / rep):.4f}; "
                  + ", ".join(f"{k} {v / rep:.4f}" for k, v in by_table.items()), flush=True)


if __name__ == "__main__":
    main()
