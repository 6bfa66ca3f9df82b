"""
REO from random traffic, against the truth
===========================================

The REO audit (Dong et al., 2024) needs a small share ``p_act`` of requests answered with
uniformly random items. :mod:`ocef.reo.simulate` simulates a recommender whose scores favour
one item group over the others, logs its default and random traffic, and knows the true REO
of the simulated world — so we can see the estimates and their 95% delta-method intervals
(``interval="delta-full"``) cover it, and how naive REO from the default log alone is wrong.
"""
import matplotlib.pyplot as plt
import numpy as np

from ocef import reo
from ocef.reo import simulate as traffic

world = traffic.make_traffic_world(1000, 300, n_groups=3, score_bias=[0.0, 0.3, 0.6], rng=0)
logs = traffic.simulate_traffic(world, n_days=1, requests_per_day=10_000, k=10, p_act=0.05,
                                log_rate=0.5, rng=1)
res = reo.estimate_reo(logs.default, logs.random, interval="delta-full", confidence=0.95)
print(f"penalty {res.penalty:.3f}, 95% interval ({res.penalty_ci[0]:.3f}, {res.penalty_ci[1]:.3f}); "
      f"truth {logs.truth.penalty:.3f}; reliable: {res.delta_method_reliable}")
print(res.groups.round(3).to_string(index=False))

# %%
# The relative utilities Delta U_k with their intervals, against the truth.
g = res.groups
truth = logs.truth.groups.set_index("group").loc[g["group"], "delta_U"].to_numpy()
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
x = np.arange(len(g))
ax.errorbar(x, g["delta_U"], yerr=[g["delta_U"] - g["ci_low"], g["ci_high"] - g["delta_U"]], fmt="o",
            capsize=4, label="estimate, 95% interval")
ax.scatter(x, truth, marker="x", color="k", zorder=3, label="truth")
ax.axhline(0, color="grey", lw=0.8)
ax.set(xticks=x, xticklabels=[f"group {k}" for k in g["group"]], ylabel="relative utility ΔU_k",
       title=f"REO penalty {res.penalty:.3f} (truth {logs.truth.penalty:.3f})")
ax.legend()
plt.show()

# %%
# How much random traffic for a given precision? The delta-method sample size for a penalty
# interval of half-width 0.05, at the current estimates.
plan = reo.delta_method_sample_size(res.groups["P"], res.groups["Q"], epsilon=0.05, n_default=res.n_default)
print(plan)
