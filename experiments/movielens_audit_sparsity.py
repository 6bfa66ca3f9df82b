"""Fig. 15-16 of Do et al. (App. E): the α and δ sweeps with a recommender trained on 5% of the entries."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ocef.experiments import _audit
from ocef.experiments._io import save_figure, write_csv

NAME = "movielens-audit-sparsity"
DESCRIPTION = "Fig. 15-16: the alpha and delta audit sweeps with 5% training data (App. E)"
TRAIN_FRACTION = 0.05


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    env = _audit.environment(data_dir, quick)
    fig, axes = plt.subplots(2, 2, figsize=(12.4, 9.2))
    summaries, runs_all = [], []
    for row, x in enumerate(_audit.SWEEPS):
        runs, title = _audit.param_sweep(out_dir / x, env, x, quick=quick, seed=seed, progress=progress,
                                         train_fraction=TRAIN_FRACTION, name=f"{NAME}-{x}")
        summary = _audit.summarize(runs, x)
        _audit.draw(summary, x, _audit.SWEEPS[x][2], list(axes[row]))
        axes[row, 0].set_title(title.split(" — ")[0], fontsize=9)
        summaries.append(summary.assign(sweep=x))
        runs_all.append(runs.assign(sweep=x))
    fig.suptitle(f"OCEF full audit with a recommender trained on {TRAIN_FRACTION:.0%} of the entries — "
                 f"{_audit.describe(env, quick, 3 if quick else 20, _audit.QUICK_MAX_STEPS if quick else _audit.MAX_STEPS)}"
                 "\n(age-occupation: mean over ε-envious groups, Δ > ε; others: all groups)", fontsize=10)
    fig.tight_layout()
    return [write_csv(pd.concat(summaries, ignore_index=True), out_dir / f"{NAME}.csv"),
            write_csv(pd.concat(runs_all, ignore_index=True), out_dir / f"{NAME}_groups.csv"),
            save_figure(fig, out_dir / f"{NAME}.png")]
