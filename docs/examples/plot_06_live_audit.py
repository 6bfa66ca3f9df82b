"""
A live audit over HTTP
======================

``ocef audit-live`` audits a running recommender service through four endpoints
(:doc:`/formats/live-protocol`). Here the service is OCEF's own simulator —
MovieLens-100K users, an argmax recommender — served on 127.0.0.1 in a background thread,
and the audit drives it through :class:`ocef.envy.ServiceClient`, checkpointing itself so
that a crash loses nothing. A real service implements the same endpoints.
"""
import tempfile
import threading
from pathlib import Path

import matplotlib.pyplot as plt

from ocef.datasets import MovieLens100K
from ocef.environments.movielens_env import MovieLensEnvironment
from ocef.envy import AuditProblem, ServiceClient, SimulatedService, audit_live, make_server
from ocef.policies import argmax_policy

env = MovieLensEnvironment(data=MovieLens100K().data)
policy = argmax_policy(env.estimated_scores(8, 0.2, rng=0))


def problem_for(partition):
    labels, names = env.groups(partition)
    return AuditProblem(env.rho, policy, labels, group_names=names)


service = SimulatedService(problem_for, ["gender", "age"], rng=0, rho=env.rho, probs=policy.probs,
                           description="MovieLens-100K, argmax of an 8-factor SVD")
server = make_server(service, port=0)                     # port 0: any free port
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}"

# %%
# The client side: what ``ocef audit-live --url URL --partition gender`` does.
client = ServiceClient(url)
info, groups = client.info(), client.groups("gender")
truth = client.truth("gender")["arm_means"]                  # a real service has no /truth
checkpoint = Path(tempfile.mkdtemp()) / "audit.json"
result = audit_live(client.puller("gender"), groups["n_groups"], groups["sizes"], alpha=0.05, delta=0.05,
                    epsilon=0.05, rng=info["seed"], checkpoint=checkpoint, every=20,
                    group_names=groups["names"], true_means=truth)
client.close()
server.shutdown()
print(f"{result.steps} steps over HTTP, {result.wall_time:.2f} s; checkpoints at {result.checkpoint_steps[:5]} ...")
print(result.groups.to_string(index=False))

# %%
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
g = result.groups
ax.bar(g["name"].astype(str), g["duration"], color=["C3" if v == "envy" else "C0" for v in g["verdict"]])
ax.set(xlabel="group", ylabel="steps to the verdict", title="live audit of the gender groups (blue: no envy)")
plt.show()
