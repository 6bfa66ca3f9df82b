"""Group envy from measurement bias (Do et al. 2022, App. B.2, Fig. 7).

For each history level ``τ_2`` of the disadvantaged group (x-axis: the proportion of
observed history ``τ_2 / τ_1``) and each softmax parameter ``β`` of App. B.2's grids:
individual envy of the disadvantaged users (average and proportion ε-envious) and group
envy ``Δ^2`` of the disadvantaged group under transported policies (Def. 4.2).
This environment is synthetic: ``--data-dir`` is not used.

Three readings of App. B.2 are run (see :mod:`ocef.environments.measurement_bias`): the
``literal`` one (the text as formalized, degenerate: ρ = 1 everywhere, hence no envy), the
``logit`` investigation (ρ = <v, e>, regression on α<v, e> - t; positive embeddings make every
user like the same items, which reverses the β effect) and the ``sphere`` investigation
(embeddings on the whole unit sphere, ρ = σ(α<v, e> - t), softmax over all items), the reading
that reproduces the findings stated for Fig. 7. The claims are checked on each reading and the
evidence lists all three. τ2 = 0 (no history at all) is added to the paper's grid, whose smallest
value 0.1 already reveals some history.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import note_dataset, run_parts, save_figure, write_csv
from ocef.experiments.claims import Claim, NotCheckable, fit_slope

NAME = "measurement-bias"
DESCRIPTION = "Fig. 7 of Do et al. 2022 (OCEF): envy of the disadvantaged group vs proportion of observed history (App. B.2)"
EPSILON = 0.05
READING_NOTES = {"literal": "the text as formalized (ρ saturates at 1)",
                 "logit": "ρ = <v, e>, positive embeddings",
                 "sphere": "embeddings on the whole sphere, softmax over all items"}
TAU2_QUICK = (0.0, 0.1, 1.0, 10.0, 50.0)
BETA_QUICK = (0.01, 0.1, 1.0)
USERS_QUICK = 200


#: The reading the verdicts are given for (the others are listed in the evidence).
JUDGED_READING = "sphere"


def _per_reading(check):
    """Apply ``check(rows of one reading) -> (holds, evidence)`` to every reading in the results;
    the verdict is that of :data:`JUDGED_READING` (else of the first reading), the evidence lists
    every reading."""
    def run(df: pd.DataFrame) -> tuple[bool, str]:
        out = {r: check(d) for r, d in df.groupby("reading", sort=False)}
        judged = JUDGED_READING if JUDGED_READING in out else next(iter(out))
        return out[judged][0], f"verdict for the {judged} reading. " + "; ".join(
            f"{r} reading: {'yes' if h else 'no'} ({e})" for r, (h, e) in out.items())
    return run


def _individuals_decrease(d: pd.DataFrame) -> tuple[bool, str]:
    first = d[d.tau2 == d.tau2.min()].set_index("beta")["individual_prop_envious_g2"]
    last = d[d.tau2 == d.tau2.max()].set_index("beta")["individual_prop_envious_g2"]
    holds = bool((last < first).all())
    return holds, "share ε-envious g2 users, least→most history: " + ", ".join(
        f"β={b:g} {first[b]:.2f}→{last[b]:.2f}" for b in first.index)


def _no_envy_without_history(d: pd.DataFrame) -> tuple[bool, str]:
    g = d[d.tau2 == d.tau2.min()]["group_envy_g2"]
    return bool((g <= EPSILON).all()), f"group envy at τ2={d.tau2.min():g}: max {g.max():.3g} (ε={EPSILON:g})"


def _peak_at_small_history(d: pd.DataFrame) -> tuple[bool, str]:
    b = d[d.beta == d.beta.min()].sort_values("tau2")
    i = int(np.argmax(b["group_envy_g2"].to_numpy()))
    top = b.iloc[i]
    holds = 0 < i < len(b) - 1 and top["group_envy_g2"] > EPSILON and top["observed_proportion"] <= 0.5
    return bool(holds), (f"β={top['beta']:g}: peak group envy {top['group_envy_g2']:.3g} at τ2/τ1="
                         f"{top['observed_proportion']:g}")


def _beta_effect(d: pd.DataFrame) -> tuple[bool, str]:
    """Largest group envy over the history levels, per β: it falls as β grows (least-squares slope
    on log β < 0), exceeds ε for some β < 1 and stays below ε at the largest β (argmax-like)."""
    peak = d.groupby("beta")["group_envy_g2"].max().sort_index()
    if len(peak) < 2:
        raise NotCheckable("a single β")
    slope = fit_slope(peak.index, peak.to_numpy(), logx=True)
    holds = bool(slope.slope < 0 and peak.iloc[-1] <= EPSILON < peak.iloc[:-1].max())
    return holds, ("max group envy over τ2 by β: " + ", ".join(f"{b:g} {v:.3g}" for b, v in peak.items())
                   + f"; slope on log β {slope.slope:.3g}")


CLAIMS = [
    Claim("Fig. 7", "The proportion of ε-envious users of the disadvantaged group decreases when a larger "
                    "proportion of the listening history is available", _per_reading(_individuals_decrease),
          test="exact envy of the simulated population: share at the most history < at the least, every β "
               "(point comparison)"),
    Claim("Fig. 7", "When no history is observed for the disadvantaged group, there is no group envy",
          _per_reading(_no_envy_without_history), test="exact group envy <= ε at τ2 = 0, every β"),
    Claim("Fig. 7", "Group envy is highest when some history is observed but in small proportion, and decreases "
                    "as more is revealed", _per_reading(_peak_at_small_history),
          test="argmax over τ2 of the exact group envy is interior, above ε, at τ2/τ1 <= 0.5 (point comparison)"),
    Claim("Fig. 7", "β effect: group envy decreases as β increases (closer to argmax, uninformative transport "
                    "cost); no envy at β = 1 (largest group envy over τ2: slope on log β < 0, above ε for some "
                    "β < 1, below ε at β = 1)", _per_reading(_beta_effect),
          test="least-squares slope on log β < 0 and the ε comparisons (point comparison)"),
]


def measure(env, tau2: float, betas, seed: int, epsilon: float = EPSILON) -> pd.DataFrame:
    """Envy measures of App. B.2's softmax policies at history level ``tau2``, for each β."""
    from ocef.environments.measurement_bias import restricted_softmax
    from ocef.envy.exact import envy_report

    labels, _ = env.groups()
    scores, test, lam = env.estimated_ratings(tau2, rng=seed)
    rows = []
    for beta in betas:
        probs = restricted_softmax(scores, env.policy_support(test), beta)
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
    from ocef.environments.measurement_bias import BETA_GRID, READINGS, TAU2_GRID, MeasurementBiasEnvironment

    out_dir = Path(out_dir)
    n = USERS_QUICK if quick else 1000
    envs = {r: MeasurementBiasEnvironment(n_users_per_group=n, reading=r, rng=seed) for r in READINGS}
    for env in envs.values():
        note_dataset(env.description)
    tau2s = TAU2_QUICK if quick else (0.0, *TAU2_GRID)
    betas = BETA_QUICK if quick else BETA_GRID
    config = {"env": [e.description for e in envs.values()], "tau2": tau2s, "betas": betas,
              "seed": seed, "epsilon": EPSILON}

    def compute(key) -> pd.DataFrame:
        reading, tau2 = key
        env = envs[reading]
        return measure(env, tau2, betas, seed).assign(
            reading=reading, dataset=env.description, rho_min=float(env.rho.min()),
            rho_max=float(env.rho.max()))

    keys = [(r, t) for r in READINGS for t in tau2s]
    df = run_parts(out_dir, config, keys, compute, progress=progress, desc=NAME)
    df = df.assign(epsilon=EPSILON, seed=seed)
    csv = write_csv(df, out_dir / f"{NAME}.csv")
    png = save_figure(_figure(df, n), out_dir / f"{NAME}.png")
    return [csv, png]


def _figure(df: pd.DataFrame, n_per_group: int):
    from ocef.experiments import plotting

    panels = (("individual_average_envy_g2", "average envy of g2 users"),
              ("individual_prop_envious_g2", f"proportion of {EPSILON:g}-envious g2 users"),
              ("group_envy_g2", "group envy of g2 (transported)"))
    readings = list(dict.fromkeys(df.reading))
    fig, axes = plotting.subplots(len(readings), 3, figsize=(14, 3.8 * len(readings)), squeeze=False)
    for row, reading in enumerate(readings):
        sub = df[df.reading == reading]
        for ax, (col, label) in zip(axes[row], panels):
            for beta, part in sub.groupby("beta"):
                part = part.sort_values("observed_proportion")
                ax.plot(part.observed_proportion, part[col], marker="o", ms=3, label=f"β={beta:g}")
            if col != "individual_prop_envious_g2":
                ax.axhline(EPSILON, color="gray", ls=":", lw=1)
            if sub[col].abs().max() < 1e-9:  # exact zeros up to float rounding
                ax.set_ylim(-0.005, 0.05)
                ax.text(0.5, 0.5, "no envy (all values < 1e-9)", transform=ax.transAxes, ha="center")
            ax.set_xscale("symlog", linthresh=2e-3, linscale=0.5)
            ax.set_xticks([0, 0.002, 0.02, 0.2, 1.0], ["0", "0.002", "0.02", "0.2", "1"])
            ax.set_xlim(-2e-4, 1.15)
            ax.set_xlabel("proportion of observed history of g2 (τ2 / τ1)")
            ax.set_ylabel(label)
        axes[row, 0].set_title(f"{reading} reading — {READING_NOTES.get(reading, '')}; ρ in "
                               f"[{sub.rho_min.iloc[0]:.3g}, {sub.rho_max.iloc[0]:.3g}]", fontsize=9, loc="left")
    plotting.fig_legend_below(fig, axes[0, 0], ncol=len(df.beta.unique()))
    fig.suptitle(f"Envy from measurement bias (App. B.2): 2 x {n_per_group} users, 200 items, "
                 f"200 documents, d=10, α=30d, t=1/d, τ1=50; dotted: ε={EPSILON:g}", fontsize=10)
    return fig
