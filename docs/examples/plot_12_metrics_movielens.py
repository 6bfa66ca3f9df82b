"""
Recommender bias metrics by gender on MovieLens-100K
=====================================================

The outcome, opportunity and exposure metrics of holisticai's documentation (mean absolute
deviation, exposure total variation and KL divergence, precision / recall / F1 ratios, Gini
index, ...) for any number of groups, with bootstrap intervals over users. The recommender is
an 8-factor Funk SVD of MovieLens-100K recommending the ``k = 10`` highest scores of each
user; the truth is which items each user likes: a completed rating of at least 4 stars
(``rho >= 0.75`` on the [0, 1] scale), between 0 and 916 liked items per user (median 138).
A real-valued truth would be read like the scores, as each user's top 10: every user would have
exactly 10 relevant items, and precision, recall and F1 would be one number.
"""
import matplotlib.pyplot as plt
import numpy as np

from ocef.datasets import MovieLens100K
from ocef.environments.movielens_env import MovieLensEnvironment
from ocef.metrics import recommender_bias

env = MovieLensEnvironment(data=MovieLens100K().data)
scores = env.estimated_scores(8, 0.2, rng=0)
labels, names = env.groups("gender")
groups = np.asarray(names, dtype=object)[labels]
liked = env.rho >= 0.75                      # a completed rating of 4 stars or more
res = recommender_bias(scores, liked, groups, k=10, n_resamples=200, rng=0)
print(res.groups.T.to_string(header=False))
print(res.pairs.T.to_string(header=False))

# %%
# A NaN above is a value without an estimate or interval; the tidy table says why, in ``reason``
# (see the glossary: "undefined", "infinite", "no valid interval").
t = res.table
why = t[t["reason"].notna()].drop_duplicates(["metric", "reason"])[["level", "metric", "interval", "reason"]]
for row in why.itertuples():
    print(f"{row.level:>7} {row.metric:<28} interval {row.interval}: {row.reason}")

# %%
# Accuracy of the top-10 lists by group, with 95% bootstrap intervals: precision (the share of the
# 10 recommended items the user likes), recall (the share of the liked items among the 10) and F1.
g = res.groups
metrics = ["avg_precision", "avg_recall", "avg_f1"]
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for k, row in g.reset_index(drop=True).iterrows():
    x = np.arange(len(metrics)) + (k - 0.5) * 0.25
    est = row[metrics].to_numpy(float)
    low = row[[m + "_ci_low" for m in metrics]].to_numpy(float)
    high = row[[m + "_ci_high" for m in metrics]].to_numpy(float)
    ax.errorbar(x, est, yerr=[est - low, high - est], fmt="o", capsize=3, label=row["group"])
ax.set(xticks=np.arange(len(metrics)), xticklabels=metrics, ylabel="value @ k = 10")
ax.legend(title="gender")
plt.show()
