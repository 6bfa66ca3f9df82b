"""Fig. 11 of Do et al.: duration and cost of the full OCEF audit vs δ on MovieLens."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from experiments import _audit

NAME = "movielens-audit-delta"
DESCRIPTION = ("Fig. 11: full-audit duration and cost vs delta for 6 user partitions on MovieLens "
               "(argmax, 50 factors, alpha=epsilon=0.05)")


def sweep(out_dir: Path, env, *, quick: bool, seed: int, progress: bool, train_fraction: float = 0.2,
          name: str = NAME):
    """The runs of this figure (one row per value, trial and group) and a title."""
    values = np.array([0.01, 0.1, 0.5]) if quick else np.array([0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5])
    trials, cap = (3, _audit.QUICK_MAX_STEPS) if quick else (20, _audit.MAX_STEPS)
    runs = _audit.sweep(out_dir, name, env, _audit.partitions(env, quick), param="delta", values=values,
                        trials=trials, seed=seed, max_steps=cap, progress=progress, train_fraction=train_fraction)
    title = (f"OCEF full audit vs δ — {_audit.describe(env, quick, trials, cap)}; α=ε=0.05, "
             f"training fraction {train_fraction:g}\n(age-occupation: mean over ε-envious groups, Δ > ε; others: all groups)")
    return runs, title


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    env = _audit.environment(data_dir, quick)
    runs, title = sweep(out_dir, env, quick=quick, seed=seed, progress=progress)
    return _audit.finish(out_dir, NAME, runs, "delta", "confidence δ", title)
