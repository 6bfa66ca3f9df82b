"""Fig. 9 of Do et al.: duration and cost of OCEF vs the confidence parameter δ."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments import _bandit
from ocef.experiments.claims import Claim, trend

NAME = "bandit-delta"
DESCRIPTION = "Fig. 9: OCEF duration and cost vs delta on the 4 bandit instances (alpha=epsilon=0.05)"


def describe(quick: bool) -> str:
    """The heading of this run: the quick run uses α = 0.2, 3 values of δ and 10 trials."""
    return (DESCRIPTION if not quick else
            "Fig. 9 (quick: alpha=0.2, epsilon=0.05, delta in {0.01, 0.05, 0.2}, 10 trials): OCEF duration and cost "
            "vs delta on the 4 bandit instances")

CLAIMS = [
    Claim("Fig. 9", "The duration decreases as δ increases (common log-log slope of duration on δ < 0)",
          lambda df: trend(df, "delta", "duration_mean", sign=-1, by="instance", logx=True, logy=True),
          test="95% t interval of the common log-log slope (one intercept per instance)"),
    Claim("Fig. 9", "The duration for Problem 1 is longer than for the other instances",
          lambda df: _problem1_longest(df), test="largest mean duration over δ (point comparison)",
          reason_if_false="another instance has the largest mean duration (no test of the difference)"),
    *_bandit.common_claims("Fig. 9"),
]


def _problem1_longest(df: pd.DataFrame) -> tuple[bool, str]:
    mean = df.groupby("instance")["duration_mean"].mean()
    return bool(mean.idxmax() == 1), "mean duration over δ: " + ", ".join(f"Prob. {i} {v:,.0f}" for i, v in mean.items())


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    deltas = np.array([0.01, 0.05, 0.2]) if quick else np.array([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4])
    trials = 10 if quick else 100
    alpha = 0.2 if quick else 0.05
    configs = pd.DataFrame([(i, d) for i in (1, 2, 3, 4) for d in deltas],
                           columns=["instance", "delta"]).assign(alpha=alpha, epsilon=0.05)
    runs = _bandit.sweep(out_dir, NAME, configs, n_arms=9, trials=trials, seed=seed, progress=progress)
    return _bandit.finish(out_dir, NAME, runs, "delta", "confidence δ",
                          f"OCEF on Bernoulli bandits (App. D.1), α={alpha}, ε=0.05, {trials} trials", logx=True)
