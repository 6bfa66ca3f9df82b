"""
Plugging in your own model
==========================

Any model that scores users x items becomes a policy through the adapters of
:mod:`ocef.policies` — here a scikit-surprise SVD fitted on the MovieLens-100K ratings
(:func:`ocef.policies.policy_from_surprise`; ``policy_from_implicit`` and
``policy_from_callable`` work alike). The audit then compares the groups' recommendations
against the ground-truth preferences of the MovieLens environment.
"""
import matplotlib.pyplot as plt
import surprise

from ocef.datasets import MovieLens100K
from ocef.environments.movielens_env import MovieLensEnvironment
from ocef.envy import AuditProblem, envy_report, run_audit
from ocef.policies import policy_from_surprise

ml = MovieLens100K()
env = MovieLensEnvironment(data=ml.data)          # ground truth: the completed rating matrix
data = surprise.Dataset.load_from_file(str(ml.path / "u.data"), surprise.Reader("ml-100k"))
algo = surprise.SVD(n_factors=20, n_epochs=10, random_state=0).fit(data.build_full_trainset())

# raw ids as surprise reads them (strings), in the order of the environment's users and items
policy = policy_from_surprise(algo, env.users["user_id"].astype(str), env.items["item_id"].astype(str),
                              "softmax", beta=5)
labels, names = env.groups("gender")
exact = envy_report(env.rho, policy.probs, labels, epsilon=0.05, group_names=names)
report = run_audit(AuditProblem(env.rho, policy, labels, group_names=names), trials=3, rng=0)
print(exact.groups[["name", "size", "utility", "envy"]].round(4).to_string(index=False))
print(report.groups[["trial", "name", "verdict", "duration", "cost"]].to_string(index=False))

# %%
# The policy's probability mass on each user's top item, by group.
top = policy.probs.max(axis=1)
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
ax.hist([top[labels == g] for g in range(len(names))], bins=30, label=names, density=True)
ax.set(xlabel="probability of the most likely item", ylabel="density", title="softmax(beta=5) over SVD scores")
ax.legend()
plt.show()
