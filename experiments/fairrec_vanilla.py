"""Fig. 4 of Guo et al. 2023 (FairRec): DPSO against a vanilla PSO.

Vanilla PSO (ours: the paper does not define it): uniform initialisation, inertia α·V instead of
the thermal term, each swarm guided by its own best only. Both with the same ε, n_it, α, c1, c2, v*
on MovieLens-100K (groups with >= ``min_users`` = 5 users); the figure shows FairRec's relative
improvement of the found UF, per metric.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ocef.experiments.claims import Claim, Verdict
from ocef.experiments.fairrec_common import MIN_USERS, N_ITER, models_for, run_oracle_experiment, sweep

NAME = "fairrec-vanilla"
DESCRIPTION = "Fig. 4 of Guo et al. 2023 (FairRec): FairRec's DPSO vs a vanilla PSO (accuracy and time)"
DATASET = 'MovieLens-100K leave-last-out split (1 test positive + 49 negatives per user)'
EPSILONS = (0.05, 0.1, 0.2)


def measure(oracle, model: str, metric: str, seeds) -> pd.DataFrame:
    settings = [({"epsilon": e, "n_iter": N_ITER}, {"epsilon": e, "n_iter": N_ITER}) for e in EPSILONS]
    return sweep(oracle, model, metric, seeds, settings, (("dpso", "fairrec"), ("vanilla", "vanilla")))


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    seeds = list(range(seed, seed + (4 if quick else 20)))
    return run_oracle_experiment(out_dir, NAME, models=models_for(quick), seeds=seeds, measure=measure, figure=_figure,
                                 config={"epsilons": EPSILONS, "n_iter": N_ITER}, data_dir=data_dir,
                                 progress=progress)


def _check(df: pd.DataFrame):
    acc = df.groupby("method")["accuracy"].mean()
    by_eps = df.groupby(["epsilon", "method"])["accuracy"].mean().unstack("method")
    ev = (f"mean accuracy FairRec {acc['fairrec']:.3f} vs vanilla {acc['vanilla']:.3f} "
          f"(improvement {acc['fairrec'] / acc['vanilla'] - 1:+.1%}); by epsilon "
          + ", ".join(f"{e:g}: {r.fairrec:.3f}/{r.vanilla:.3f}" for e, r in by_eps.iterrows()))
    gain = float(acc["fairrec"] / acc["vanilla"] - 1)
    if acc["fairrec"] >= acc["vanilla"]:
        return Verdict("holds", ev, None, gain)
    return Verdict("inconclusive", ev, "vanilla PSO's mean accuracy is higher (no interval tested)", gain)


CLAIMS = [Claim("Fig. 4", "the optimized DPSO finds larger UFs than a vanilla PSO (mean accuracy at least "
                "as high)", _check, paper_value=0.049,
                paper_source="Sec. 5.2 / Fig. 4: DPSO's improvement over vanilla PSO on MovieLens (4.90%)",
                test="mean accuracy of DPSO >= vanilla PSO's (point comparison)",
                reason_if_false="vanilla PSO's mean accuracy is higher (no interval tested)")]


def _figure(df: pd.DataFrame):
    from ocef.experiments import plotting

    uf = df.groupby(["epsilon", "metric", "method"])["uf"].mean().unstack("method")
    gain = (uf["fairrec"] / uf["vanilla"] - 1) * 100
    fig, ax = plotting.subplots(figsize=(7, 4))
    metrics = list(dict.fromkeys(df.metric))
    width = 0.8 / len(EPSILONS)
    for j, eps in enumerate(EPSILONS):
        ax.bar([i + j * width - 0.4 + width / 2 for i in range(len(metrics))],
               [gain.loc[(eps, m)] for m in metrics], width, label=f"eps={eps:g}")
    ax.set_xticks(range(len(metrics)), [f"UF_{m}" for m in metrics])
    ax.axhline(0, color="k", lw=0.6)
    ax.set_ylabel("improvement of FairRec over vanilla PSO (%)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    ax.set_title(f"Fig. 4 (Guo et al. 2023) on MovieLens-100K: models {sorted(set(df.model))}, n_it={N_ITER}, "
                 f"{df.seed.nunique()} seeds, min_users={MIN_USERS}", fontsize=9)
    return fig
