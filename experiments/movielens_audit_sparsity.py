"""Fig. 15-16 of Do et al. (App. E): the α and δ sweeps with a recommender trained on 5% of the
entries, drawn on the same axes as the 20% reference of Fig. 2 and Fig. 11 (dotted)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments import _audit
from ocef.experiments._io import save_figure, write_csv
from ocef.experiments.claims import Claim, fit_slope

NAME = "movielens-audit-sparsity"
DESCRIPTION = ("Fig. 15-16: the alpha and delta audit sweeps with 5% training data (App. E), "
               "with the 20% sweeps of Fig. 2 and 11 on the same axes")


def describe(quick: bool) -> str:
    """The heading of a run: :data:`DESCRIPTION`, or what the quick run actually uses."""
    return DESCRIPTION if not quick else 'Fig. 15-16 (quick: 3 values of alpha and of delta; partitions gender, age, gender-age; 3 trials): the alpha and delta audit sweeps with 5% training data (App. E), with the 20% sweeps on the same axes'

TRAIN_FRACTION = 0.05
REFERENCE_FRACTION = 0.2


def _same_trends(df: pd.DataFrame) -> tuple[bool, str]:
    """Sign of the log-log slope of duration on α and on δ, per partition, at 5% and at 20%."""
    notes, holds = [], True
    for x in ("alpha", "delta"):
        sub = df[df["sweep"] == x]
        for part, d in sub.groupby("partition", sort=False):
            s = {f: fit_slope(g[x], g["duration_mean"], logx=True, logy=True).slope
                 for f, g in d.groupby("train_fraction")}
            if len(s) < 2:
                continue
            same = np.sign(s[TRAIN_FRACTION]) == np.sign(s[REFERENCE_FRACTION])
            holds = holds and bool(same)
            notes.append(f"{x}/{part}: {s[TRAIN_FRACTION]:+.2f} vs {s[REFERENCE_FRACTION]:+.2f}")
    return holds, "log-log slopes of duration, 5% vs 20%: " + "; ".join(notes)


def _sparse(check):
    return lambda df: check(df[df["train_fraction"] == TRAIN_FRACTION])


CLAIMS = [
    Claim("Fig. 15-16", "Results are qualitatively similar with 5% training data: the trend of duration in α and "
                        "in δ has the same sign as with 20% for every partition", _same_trends,
          test="sign of each least-squares log-log slope, 5% vs 20% (point comparison)",
          reason_if_false="a slope changes sign between 5% and 20% training data (no interval tested)"),
    *[dataclasses.replace(c, text=c.text + " (5% training data)", check=_sparse(c.check))
      for c in _audit.common_claims("Fig. 15-16")],
]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    from ocef.experiments import plotting

    env = _audit.environment(data_dir, quick)
    fig, axes = plotting.subplots(2, 2, figsize=(12.4, 10.5))
    summaries, runs_all = [], []
    for row, x in enumerate(_audit.SWEEPS):
        by_fraction = {}
        for fraction, sub in ((TRAIN_FRACTION, x), (REFERENCE_FRACTION, f"{x}-reference")):
            runs, title = _audit.param_sweep(out_dir / sub, env, x, quick=quick, seed=seed, progress=progress,
                                             train_fraction=fraction, name=f"{NAME}-{sub}")
            summary = _audit.summarize(runs, x).assign(sweep=x, train_fraction=fraction)
            by_fraction[fraction] = summary
            summaries.append(summary)
            runs_all.append(runs.assign(sweep=x, train_fraction=fraction))
        _audit.draw(by_fraction[TRAIN_FRACTION], x, _audit.SWEEPS[x][2], list(axes[row]),
                    reference=by_fraction[REFERENCE_FRACTION],
                    reference_label=f"dotted: trained on {REFERENCE_FRACTION:.0%} (Fig. {2 if x == 'alpha' else 11})")
        axes[row, 0].set_title(title.split(" — ")[0] + f", trained on {TRAIN_FRACTION:.0%}", fontsize=9)
    trials, cap = _audit.budget(quick)
    fig.suptitle(f"OCEF full audit with a recommender trained on {TRAIN_FRACTION:.0%} of the entries (solid) and "
                 f"{REFERENCE_FRACTION:.0%} (dotted) — {_audit.describe(env, quick, trials, cap)}"
                 "\n(age-occupation: mean over ε-envious groups, Δ > ε; others: all groups)", fontsize=10)
    return [write_csv(pd.concat(summaries, ignore_index=True), out_dir / f"{NAME}.csv"),
            write_csv(pd.concat(runs_all, ignore_index=True), out_dir / f"{NAME}_groups.csv"),
            save_figure(fig, out_dir / f"{NAME}.png")]
