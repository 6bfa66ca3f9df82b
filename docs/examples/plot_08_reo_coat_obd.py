"""
REO on real data: Coat and the Open Bandit Dataset
===================================================

Two public data sets have random traffic (:mod:`ocef.datasets`): Coat's ratings of 16
uniformly random coats per user (item groups: coats for men and for women; liked = rating
>= 4) and the Open Bandit Dataset's uniformly random policy (item groups: price tiers;
Y = click), whose default traffic is the Bernoulli-Thompson-sampling policy. Both are small:
read the intervals before the point estimates.
"""
import matplotlib.pyplot as plt
import numpy as np

from ocef import reo
from ocef.datasets import Coat, OpenBanditDataset

results = {}
for data in (Coat(), OpenBanditDataset()):
    default, random = data.logs()
    res = reo.estimate_reo(default, random)
    results[data.name] = res
    print(f"{data.name}: {len(default)} default rows, {len(random)} random rows; penalty {res.penalty:.3f} "
          f"({res.penalty_ci[0]:.3f}, {res.penalty_ci[1]:.3f}), delta method reliable: {res.delta_method_reliable}")
    print(res.groups[["group", "P", "Q", "delta_U", "ci_low", "ci_high"]].round(4).to_string(index=False))

# %%
# On the Open Bandit sample the random log has 38 clicks: the penalty's delta interval reaches 0,
# where the delta method is not valid (the result says so). A bootstrap interval respects the
# boundary:
default, random = OpenBanditDataset().logs()
boot = reo.bootstrap_reo_ci(default, random, interval="percentile", n_resamples=300, rng=0)
print("bootstrap percentile interval of the penalty:", np.round(boot.result.penalty_ci, 3))

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
for ax, (name, res) in zip(axes, results.items()):
    g = res.groups
    x = np.arange(len(g))
    ax.errorbar(x, g["delta_U"], yerr=[g["delta_U"] - g["ci_low"], g["ci_high"] - g["delta_U"]], fmt="o", capsize=4)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(xticks=x, xticklabels=g["group"].astype(str), title=f"{name}: ΔU_k, 95% intervals", ylabel="ΔU_k")
fig.tight_layout()
plt.show()
