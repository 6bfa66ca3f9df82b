"""Table 3 of seed 002 (FairRec): UF found within a fixed testing budget.

The paper fixes time (0.005 · (N_users + N_groups) s); here the budget is a number of distinct group
evaluations, 25% and 50% of the valid groups, so that the comparison does not depend on the machine.
Themis under a budget degrades to a uniformly random subset of the groups (Sec. 4.2); FairRec runs
DPSO (ε = 0.1, as many iterations as the budget allows). Groups with >= ``min_users`` = 5 users.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ocef.experiments.claims import Claim
from ocef.experiments.fairrec_common import MIN_USERS, models_for, run_oracle_experiment, sweep

NAME = "fairrec-budget"
DESCRIPTION = "Table 3 of seed 002: FairRec vs a random Themis subset at equal numbers of group evaluations"
DATASET = 'MovieLens-100K leave-last-out split (1 test positive + 49 negatives per user)'
FRACTIONS = (0.25, 0.5)
EPSILON = 0.1


def measure(oracle, model: str, metric: str, seeds) -> pd.DataFrame:
    budgets = [(f, max(2, int(round(f * oracle.n_groups)))) for f in FRACTIONS]
    settings = [({"epsilon": EPSILON, "n_iter": 1000, "max_evaluations": b}, {"budget_fraction": f, "budget": b})
                for f, b in budgets]
    return sweep(oracle, model, metric, seeds, settings, (("dpso", "fairrec"), ("exhaustive", "themis-random")))


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    seeds = list(range(seed, seed + (3 if quick else 10)))
    return run_oracle_experiment(out_dir, NAME, models=models_for(quick), seeds=seeds, measure=measure, figure=_figure,
                                 config={"fractions": FRACTIONS, "epsilon": EPSILON},
                                 data_dir=data_dir, progress=progress)


def _check(df: pd.DataFrame):
    t = df.groupby(["model", "metric", "budget_fraction", "method"])["uf"].mean().unstack("method")
    wins = t["fairrec"] >= t["themis-random"]
    acc = df.groupby("method")["accuracy"].mean()
    return bool(wins.mean() > 0.5), (f"FairRec >= random Themis in {int(wins.sum())}/{len(wins)} cells "
                                     f"({wins.mean():.0%}); mean accuracy FairRec {acc['fairrec']:.3f}, "
                                     f"random Themis {acc['themis-random']:.3f}")


CLAIMS = [Claim("Table 3", "at equal numbers of distinct group evaluations, FairRec finds a UF at least as large "
                "as Themis (degraded to a random subset) in most cells", _check)]


def _figure(df: pd.DataFrame):
    from ocef.experiments import plotting

    from ocef.experiments.fairrec_common import accuracy_bars

    fracs = list(FRACTIONS)
    fig, axes = plotting.subplots(1, len(fracs), figsize=(6 * len(fracs), 4), squeeze=False)
    for ax, frac in zip(axes[0], fracs):
        sub = df[df.budget_fraction == frac]
        accuracy_bars(ax, sub, ["themis-random", "fairrec"],
                      f"budget {frac:.0%} of the groups ({int(sub.budget.iloc[0])} evaluations); "
                      f"mean over models and {sub.seed.nunique()} seeds")
        ax.set_ylim(0, 1.1)
    axes[0, 0].legend(fontsize=8, loc="lower left")
    fig.suptitle(f"Table 3 (seed 002) on MovieLens-100K: fixed budget of group evaluations "
                 f"(min_users={MIN_USERS}, eps={EPSILON})", fontsize=10)
    return fig
