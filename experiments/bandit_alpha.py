"""Fig. 8 of Do et al.: duration and cost of OCEF vs the conservative parameter α."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments import _bandit
from ocef.experiments.claims import Claim, trend

NAME = "bandit-alpha"
DESCRIPTION = "Fig. 8: OCEF duration and cost vs alpha on the 4 bandit instances (delta=epsilon=0.05)"


def describe(quick: bool) -> str:
    """The heading of a run: :data:`DESCRIPTION`, or what the quick run actually uses."""
    return DESCRIPTION if not quick else (
        'Fig. 8 (quick: 5 values of alpha in [0.05, 0.5], delta=epsilon=0.05, 10 trials): OCEF duration '
        'and cost vs alpha on the 4 bandit instances')


CLAIMS = [
    Claim("Fig. 8", "Duration falls as α grows from the most conservative values: tendencies similar to the "
                    "MovieLens audits (common log-log slope of duration on α < 0)",
          lambda df: trend(df, "alpha", "duration_mean", sign=-1, by="instance", logx=True, logy=True),
          test="95% t interval of the common log-log slope (one intercept per instance)"),
    *_bandit.common_claims("Fig. 8"),
]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    alphas = np.geomspace(0.05, 0.5, 5) if quick else np.geomspace(0.01, 0.5, 12)
    trials = 10 if quick else 100
    configs = pd.DataFrame([(i, a) for i in (1, 2, 3, 4) for a in np.round(alphas, 4)],
                           columns=["instance", "alpha"]).assign(delta=0.05, epsilon=0.05)
    runs = _bandit.sweep(out_dir, NAME, configs, n_arms=9, trials=trials, seed=seed, progress=progress)
    return _bandit.finish(out_dir, NAME, runs, "alpha", "conservative exploration α",
                          f"OCEF on Bernoulli bandits (App. D.1), δ=ε=0.05, {trials} trials", logx=True)
