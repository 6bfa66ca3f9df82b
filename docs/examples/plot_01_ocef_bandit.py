"""
OCEF step by step on a Bernoulli bandit
========================================

The envy-freeness auditor of Do et al. (AAAI 2022, Algorithm 1) is an ask/tell object: it
chooses an arm — 0 is the audited group's own recommendations, k >= 1 another group's — and
is told the group's average reward. Here the rewards come from the bandit instance 2 of the
paper's App. D.1 (the baseline is worse than arm 1: the group is envious); with a live system
they would come from real users.
"""
import matplotlib.pyplot as plt
import numpy as np

from ocef import OCEF, Verdict
from ocef.environments.bandits import BernoulliBandit, paper_instance

means = paper_instance(2, n_arms=4)            # [0.3, 0.6, 0.3, 0.3, 0.3]: mu_0 < mu_1
bandit = BernoulliBandit(means, group_size=20)
auditor = OCEF(n_arms=means.size - 1, delta=0.05, alpha=0.05, epsilon=0.05, group_size=20, rng=0)
rng = np.random.default_rng(1)

history = []
while auditor.verdict is Verdict.RUNNING:
    arm = auditor.next_arm()
    auditor.observe(arm, float(bandit.sample(np.array([arm]), rng=rng)[0]))
    history.append((auditor.t, *auditor.lower, *auditor.upper))

print(f"verdict: {auditor.verdict} after {auditor.t} steps; pulls per arm: {auditor.counts.tolist()}")

# %%
# The confidence bounds of the baseline and of arm 1 until the verdict: the audit stops when
# arm 1's lower bound passes the baseline's upper bound (ENVY).
h = np.array(history)
k = means.size
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for arm, color in ((0, "C0"), (1, "C3")):
    ax.fill_between(h[:, 0], h[:, 1 + arm], h[:, 1 + k + arm], color=color, alpha=0.3,
                    label=f"arm {arm} (true mean {means[arm]:.1f})")
ax.set(xlabel="step t", ylabel="confidence interval of the mean reward", ylim=(-0.2, 1.2), xscale="log",
       title=f"OCEF: {auditor.verdict} after {auditor.t} steps")
ax.legend()
plt.show()
