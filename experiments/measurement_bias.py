"""Group envy from measurement bias (seed 001, App. B.2, Fig. 7).

For each history level ``τ_2`` of the disadvantaged group (x-axis: the proportion of
observed history ``τ_2 / τ_1``) and each softmax parameter ``β`` of App. B.2's grids:
individual envy of the disadvantaged users (average and proportion ε-envious) and group
envy ``Δ^2`` of the disadvantaged group under transported policies (Def. 4.2).
This environment is synthetic: ``--data-dir`` is not used.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments._io import run_parts, save_figure, write_csv

NAME = "measurement-bias"
DESCRIPTION = "Fig. 7 of seed 001: envy of the disadvantaged group vs proportion of observed history (App. B.2)"
EPSILON = 0.05
TAU2_QUICK = (0.1, 1.0, 5.0, 20.0, 50.0)
BETA_QUICK = (0.01, 0.1, 1.0)
USERS_QUICK = 200


def measure(env, tau2: float, betas, seed: int, epsilon: float = EPSILON) -> pd.DataFrame:
    """Envy measures of App. B.2's softmax policies at history level ``tau2``, for each β."""
    from environments.measurement_bias import restricted_softmax
    from ocef.envy import envy_report

    labels, _ = env.groups()
    scores, test, lam = env.estimated_ratings(tau2, seed)
    rows = []
    for beta in betas:
        probs = restricted_softmax(scores, test, beta)
        rep = envy_report(env.rho, probs, labels, matching="transport", epsilon=epsilon)
        ind = rep.individual_envy[labels == 1]
        rows.append({"tau2": tau2, "observed_proportion": tau2 / env.tau1, "beta": beta, "ridge": lam,
                     "individual_average_envy_g2": float(ind.mean()),
                     "individual_prop_envious_g2": float(np.mean(ind > epsilon)),
                     "group_envy_g2": float(rep.group_envy[1]), "group_envy_g1": float(rep.group_envy[0]),
                     "mu_22": float(rep.mu[1, 1]), "mu_12": float(rep.mu[1, 0])})
    return pd.DataFrame(rows)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    from environments.measurement_bias import BETA_GRID, TAU2_GRID, MeasurementBiasEnvironment

    out_dir = Path(out_dir)
    env = MeasurementBiasEnvironment(n_users_per_group=USERS_QUICK if quick else 1000, seed=seed)
    tau2s = TAU2_QUICK if quick else TAU2_GRID
    betas = BETA_QUICK if quick else BETA_GRID
    config = {"env": env.description, "tau2": tau2s, "betas": betas, "seed": seed, "epsilon": EPSILON}
    df = run_parts(out_dir, config, list(tau2s), lambda t: measure(env, t, betas, seed),
                   progress=progress, desc=NAME)
    df = df.assign(dataset=env.description, epsilon=EPSILON, seed=seed,
                   rho_min=float(env.rho.min()), rho_max=float(env.rho.max()))
    csv = write_csv(df, out_dir / f"{NAME}.csv")
    png = save_figure(_figure(df, env), out_dir / f"{NAME}.png")
    return [csv, png]


def _figure(df: pd.DataFrame, env):
    import matplotlib.pyplot as plt

    panels = (("individual_average_envy_g2", "average envy of g2 users"),
              ("individual_prop_envious_g2", f"proportion of {EPSILON:g}-envious g2 users"),
              ("group_envy_g2", "group envy of g2 (transported)"))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, (col, label) in zip(axes, panels):
        for beta, part in df.groupby("beta"):
            part = part.sort_values("observed_proportion")
            ax.plot(part.observed_proportion, part[col], marker="o", ms=3, label=f"beta={beta:g}")
        ax.set_xscale("log")
        ax.set_xlabel("proportion of observed history of g2 (tau2 / tau1)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Envy from measurement bias — {env.description}; "
                 f"rho in [{env.rho.min():.3g}, {env.rho.max():.3g}]", fontsize=9)
    fig.tight_layout()
    return fig
