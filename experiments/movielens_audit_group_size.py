"""Fig. 3 of Do et al.: audit duration vs average group size, groups grown by duplicating users."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ocef.experiments import _audit
from ocef.experiments._io import run_parts

NAME = "movielens-audit-group-size"
DESCRIPTION = ("Fig. 3: full-audit duration vs average group size (users duplicated at random) on MovieLens "
               "(argmax, 50 factors, alpha=delta=epsilon=0.05)")
PARTITIONS = ("gender", "age", "gender-age", "occupation")
SIZES = (50, 100, 200, 400, 800, 1600)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    from ocef.audit import run_audit

    env = _audit.environment(data_dir, quick)
    parts = ("group",) if "group" in env.partitions else (PARTITIONS[:2] if quick else PARTITIONS)
    sizes = (100, 400) if quick else SIZES
    trials, cap = (3, _audit.QUICK_MAX_STEPS) if quick else (20, _audit.MAX_STEPS)
    config = {"env": env.description, "parts": parts, "sizes": sizes, "trials": trials, "seed": seed, "cap": cap}
    base = {p: env.n_users / (env.groups(p)[0].max() + 1) for p in parts}      # original average size
    keys = [(p, s) for p in parts for s in ["original", *[s for s in sizes if s > base[p]]]]

    def compute(key):
        part, size = key
        problem = _audit.audit_problem(env, part, seed=seed)
        if size != "original":
            problem = problem.duplicated(size, rng=seed)
        rep = run_audit(problem, alpha=0.05, delta=0.05, epsilon=0.05, trials=trials, seed=[seed, int(problem.sizes.sum())],
                        max_steps=cap, progress=progress)
        rows = rep.groups
        rows.insert(0, "partition", part)
        rows.insert(1, "n_groups", problem.n_groups)
        rows.insert(2, "avg_group_size", problem.sizes.mean())
        return rows

    runs = run_parts(out_dir, config, keys, compute, progress=progress, desc=NAME)
    summary = _audit.summarize(runs, "avg_group_size")
    slopes = {part: np.polyfit(np.log(df["avg_group_size"]), np.log(df["duration_mean"]), 1)[0]
              for part, df in summary.groupby("partition") if len(df) > 1}
    summary["loglog_slope"] = summary["partition"].map(slopes)
    title = (f"OCEF full audit vs average group size — {_audit.describe(env, quick, trials, cap)}; α=δ=ε=0.05\n"
             "log-log slopes of duration: " + ", ".join(f"{p} {s:.2f}" for p, s in slopes.items())
             + " (−1 = duration ∝ 1/|g|)")
    from ocef.experiments._io import write_csv
    return [write_csv(summary, out_dir / f"{NAME}.csv"), write_csv(runs, out_dir / f"{NAME}_groups.csv"),
            _audit.plot(summary, "avg_group_size", "average group size |g| (users duplicated at random)",
                        title, out_dir / f"{NAME}.png", cost=False)]
