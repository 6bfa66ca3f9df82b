"""
Pairwise fairness on Coat's randomized pairs
=============================================

Beutel et al. (KDD 2019) measure whether a model orders a liked item above an unliked one as
often for every item group, from pairs whose order was randomized. On Coat, the random
ratings of each user give 8,770 (liked, not liked) pairs (:meth:`ocef.datasets.Coat.pairs`);
the model is a rank-8 matrix factorisation trained on the users' self-selected ratings.
Intervals are bootstrap intervals clustered by user.
"""
import matplotlib.pyplot as plt
import numpy as np

from ocef.pairwise import pairwise_accuracy
from ocef.pairwise.datasets import dataset_pairs

pairs = dataset_pairs("coat", "mf", rng=0)       # Coat().pairs() scored by the MF model
res = pairwise_accuracy(pairs, subgroup="women", n_resamples=200, rng=0)
print(f"{res.n_pairs} pairs from {res.n_queries} users")
print(res.summary()[["kind", "accuracy_0", "accuracy_1", "gap", "gap_ci_low", "gap_ci_high", "p_adjusted"]]
      .round(3).to_string(index=False))

# %%
# Overall, intra-group and inter-group pairwise accuracy of each clicked group, per rating z of
# the liked item (Defs. 1-3): a gap between the groups is a fairness gap of the ranking.
cells = res.cells
fig, axes = plt.subplots(1, 3, figsize=(10, 3.3), sharey=True)
for ax, (kind, df) in zip(axes, cells.groupby("kind", sort=False)):
    for k, (group, g) in enumerate(df.groupby("group")):
        x = np.arange(len(g)) + (k - 0.5) * 0.2
        ax.errorbar(x, g["accuracy"], yerr=[g["accuracy"] - g["ci_low"], g["ci_high"] - g["accuracy"]],
                    fmt="o", capsize=3, label=group)
    ax.set(title=kind, xticks=np.arange(len(g)), xticklabels=[f"z={z}" for z in g["z"]])
axes[0].set_ylabel("pairwise accuracy")
axes[0].legend(title="liked item")
fig.tight_layout()
plt.show()
