"""Fig. 10 of Do et al.: duration of OCEF vs the number of arms K' ≤ K_max = 100."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments import _bandit
from ocef.experiments.claims import Claim, trend

NAME = "bandit-arms"
DESCRIPTION = "Fig. 10: OCEF duration vs number of arms K' <= 100 on the 4 bandit instances (alpha=delta=epsilon=0.05)"



def describe(quick: bool) -> str:
    """The heading of a run: :data:`DESCRIPTION`, or what the quick run actually uses."""
    return DESCRIPTION if not quick else "Fig. 10 (quick: K' in {2, 4, 8} of a K_max=9 instance, alpha=0.5, delta=epsilon=0.05, 5 trials): OCEF duration vs number of arms on the 4 bandit instances"

CLAIMS = [
    Claim("Fig. 10", "The duration increases with the number of arms K' for all problems (slope of duration on K' > 0)",
          lambda df: trend(df, "n_arms", "duration_mean", sign=+1, by="instance"),
          test="95% t interval of the common slope (one intercept per instance)"),
    *_bandit.common_claims("Fig. 10"),
]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    ks = np.array([2, 4, 8]) if quick else np.array([2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    trials = 5 if quick else 100
    alpha = 0.5 if quick else 0.05
    configs = pd.DataFrame([(i, k) for i in (1, 2, 3, 4) for k in ks],
                           columns=["instance", "n_arms"]).assign(alpha=alpha, delta=0.05, epsilon=0.05)
    # Quick: prefixes of the 10-arm instances (K_max = 9); with K_max = 100, instance 4's envy gap
    # μ_1 − μ_0 is only 0.035 and every run takes ~10^5 steps whatever K'.
    k_max = 9 if quick else 100
    runs = _bandit.sweep(out_dir, NAME, configs, n_arms=k_max, trials=trials, seed=seed, progress=progress)
    return _bandit.finish(out_dir, NAME, runs, "n_arms", f"number of arms K' (prefix μ_0:K' of the K_max={k_max} instance)",
                          f"OCEF on Bernoulli bandits (App. D.1, K_max={k_max}), α={alpha}, δ=ε=0.05, {trials} trials",
                          logx=False)
