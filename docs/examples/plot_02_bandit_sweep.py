"""
Duration and cost of OCEF against alpha
========================================

:func:`ocef.envy.run_bandits` runs many audits at once (the compiled engine when there are
many runs). This is a small version of Fig. 8 of Do et al.: the conservative-exploration
budget alpha against the audit's duration and its cost (eq. 10), on the four bandit instances
of App. D.1, 40 trials per setting.
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ocef.environments.bandits import paper_instance
from ocef.envy import run_bandits

alphas = [0.01, 0.05, 0.1, 0.2, 0.5]
configs = pd.DataFrame([{"instance": i, "alpha": a, "delta": 0.05, "epsilon": 0.05}
                        for i in (1, 2, 3, 4) for a in alphas])
means = {i: paper_instance(i, n_arms=9) for i in (1, 2, 3, 4)}
runs = run_bandits(configs, means, trials=40, rng=0)
summary = runs.summary()
print(summary[["instance", "alpha", "duration_mean", "cost_mean"]].to_string(index=False, float_format="{:.3g}".format))

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
for instance, df in summary.groupby("instance"):
    axes[0].plot(df["alpha"], df["duration_mean"], "o-", label=f"instance {instance}")
    axes[1].plot(df["alpha"], df["cost_mean"], "o-")
axes[0].set(xscale="log", yscale="log", xlabel="alpha", ylabel="mean duration (steps)")
axes[1].set(xscale="log", xlabel="alpha", ylabel="mean cost (eq. 10)")
axes[0].legend(fontsize=8)
fig.tight_layout()
plt.show()
