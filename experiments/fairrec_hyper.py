"""Fig. 6 of Guo et al. 2023 (FairRec): testing accuracy against ε (particles / groups) and n_it.

DPSO on MovieLens-100K (gender x age x occupation, groups with >= ``min_users`` = 5 users) for
ε ∈ {0.05, 0.1, 0.2} and n_it ∈ {1, 2, 5, 10}; accuracy = UF / UF of Themis, averaged over
models, metrics and seeds.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ocef.experiments.claims import Claim
from ocef.experiments.fairrec_common import MIN_USERS, MODELS, models_for, run_oracle_experiment, sweep

NAME = "fairrec-hyper"
DESCRIPTION = "Fig. 6 of Guo et al. 2023 (FairRec): FairRec accuracy vs particle ratio epsilon and iterations n_it"
DATASET = 'MovieLens-100K leave-last-out split (1 test positive + 49 negatives per user)'
EPSILONS = (0.05, 0.1, 0.2)
ITERS = (1, 2, 5, 10)
TOLERANCE = 0.02


def measure(oracle, model: str, metric: str, seeds) -> pd.DataFrame:
    settings = [({"epsilon": e, "n_iter": n}, {"epsilon": e, "n_iter": n}) for e in EPSILONS for n in ITERS]
    return sweep(oracle, model, metric, seeds, settings)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    seeds = list(range(seed, seed + (4 if quick else 20)))
    return run_oracle_experiment(out_dir, NAME, models=MODELS[:1] if quick else models_for(quick), seeds=seeds,
                                 measure=measure, figure=_figure, config={"epsilons": EPSILONS, "iters": ITERS},
                                 data_dir=data_dir, progress=progress)


def _table(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["epsilon", "n_iter"])["accuracy"].mean().unstack("n_iter")


def _check_eps(df: pd.DataFrame):
    t = _table(df)
    ok = (t.diff(axis=0).iloc[1:] >= -TOLERANCE).all().all()
    return bool(ok), "mean accuracy by epsilon (rows) and n_it (columns): " + "; ".join(
        f"eps={e:g}: " + " ".join(f"{v:.3f}" for v in t.loc[e]) for e in t.index)


def _check_iter(df: pd.DataFrame):
    t = _table(df)
    ok = (t.diff(axis=1).iloc[:, 1:] >= -TOLERANCE).all().all()
    return bool(ok), "at n_it = " + ", ".join(str(c) for c in t.columns) + ": " + "; ".join(
        f"eps={e:g}: " + " ".join(f"{v:.3f}" for v in t.loc[e]) for e in t.index)


CLAIMS = [
    Claim("Fig. 6(a)", f"accuracy grows with epsilon (non-decreasing within {TOLERANCE}, at every n_it)", _check_eps,
          test=f"mean accuracy non-decreasing within {TOLERANCE} (point comparison)",
          reason_if_false="accuracy falls by more than the tolerance somewhere on the grid"),
    Claim("Fig. 6(b)", f"accuracy grows with n_it (non-decreasing within {TOLERANCE}, at every epsilon)", _check_iter,
          test=f"mean accuracy non-decreasing within {TOLERANCE} (point comparison)",
          reason_if_false="accuracy falls by more than the tolerance somewhere on the grid"),
]


def _figure(df: pd.DataFrame):
    from ocef.experiments import plotting

    t = _table(df)
    ev = df.groupby(["epsilon", "n_iter"])["n_evaluations"].mean().unstack("n_iter")
    fig, axes = plotting.subplots(1, 2, figsize=(11, 4))
    for n_it in t.columns:
        axes[0].plot(t.index, t[n_it], marker="o", label=f"n_it={n_it}")
    axes[0].set_xlabel("epsilon = particles per swarm / groups")
    axes[0].set_title("(a) impact of particle size", fontsize=9)
    for eps in t.index:
        axes[1].plot(t.columns, t.loc[eps], marker="o",
                     label=f"eps={eps:g} ({ev.loc[eps].iloc[-1]:.0f} evals at max n_it)")
    axes[1].set_xlabel("n_it (iterations)")
    axes[1].set_title("(b) impact of iterations", fontsize=9)
    for ax in axes:
        ax.set_ylabel("mean accuracy (UF / UF of Themis)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Fig. 6 (Guo et al. 2023) on MovieLens-100K, models {sorted(set(df.model))}, all metrics, "
                 f"{df.seed.nunique()} seeds, min_users={MIN_USERS}", fontsize=10)
    return fig
