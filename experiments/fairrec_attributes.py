"""Table 5 of seed 002 (FairRec): UF grows with the number of sensitive attributes combined.

Exhaustive (Themis) UF on MovieLens-100K for gender, gender+age and gender+age+occupation, for
every model and metric, over the groups with at least ``min_users`` = 5 users.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments.claims import ML_1M, Claim
from ocef.experiments.fairrec_common import MIN_USERS, fitted, models_for

NAME = "fairrec-attributes"
DESCRIPTION = "Table 5 of seed 002: exhaustive UF for gender, gender+age, gender+age+occupation (MovieLens-100K)"
DATASET = 'MovieLens-100K leave-last-out split (1 test positive + 49 negatives per user)'
ATTRIBUTE_SETS = (("gender",), ("gender", "age"), ("gender", "age", "occupation"))


def measure(fit, model: str) -> pd.DataFrame:
    from ocef.fairrec.unfairness import METRICS
    from ocef.fairrec.search import search

    rows = []
    for attrs in ATTRIBUTE_SETS:
        for metric in METRICS:
            r = search(fit.oracle(metric, attrs, min_users=MIN_USERS), "exhaustive")
            rows.append({"model": model, "attributes": "+".join(attrs), "n_attributes": len(attrs), "metric": metric,
                         "uf": r.uf, "n_groups": r.n_groups, "min_users": MIN_USERS,
                         "advantaged": str(r.advantaged.group), "disadvantaged": str(r.disadvantaged.group)})
    return pd.DataFrame(rows)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    out_dir = Path(out_dir)
    models = models_for(quick)
    fits = fitted(data_dir, models)
    config = {"models": models, "min_users": MIN_USERS, "sets": ATTRIBUTE_SETS}
    df = run_parts(out_dir, config, list(fits), lambda m: measure(fits[m], m), progress=progress, desc=NAME)
    csv = write_csv(df, out_dir / f"{NAME}.csv")
    return [csv, save_figure(_figure(df), out_dir / f"{NAME}.png")]


def _check(df: pd.DataFrame):
    t = df.pivot_table(index=["model", "metric"], columns="n_attributes", values="uf")
    inc = (t[2] > t[1]) & (t[3] > t[2])
    worst = ", ".join(f"{m}/{k}: {t.loc[(m, k), 1]:.4f} < {t.loc[(m, k), 2]:.4f} < {t.loc[(m, k), 3]:.4f}"
                      for m, k in t.index if k == "mrr")
    return bool(inc.all()), f"increasing in {int(inc.sum())}/{len(inc)} model x metric cells; {worst}"


CLAIMS = [Claim("Table 5", "with more sensitive attributes combined, larger unfairness is disclosed: UF grows "
                "from gender to gender+age to gender+age+occupation for every metric and model", _check,
                test="UF non-decreasing in the attributes combined, every metric and model (point comparison)",
                reason_if_false="UF does not grow for some metric and model", paper_data=ML_1M,
                paper_value="UF_auc 0.0021 -> 0.0324 -> 0.2537",
                paper_source="Table 5, MovieLens: gender, +age, +occupation")]


def _figure(df: pd.DataFrame):
    from ocef.experiments.fairrec_common import panel_grid

    models = list(dict.fromkeys(df.model))
    fig, axes = panel_grid(len(models), 5.5, 3.8)
    for ax, m in zip(axes, models):
        for metric, part in df[df.model == m].groupby("metric", sort=False):
            ax.plot(part.n_attributes, part.uf, marker="o", label=f"UF_{metric}")
        ax.set_xticks([1, 2, 3], ["gender", "+age", "+occupation"])
        ax.set_ylabel("UF (exhaustive)")
        ax.set_title(m, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Table 5 (seed 002) on MovieLens-100K: UF by attributes combined (min_users={MIN_USERS})",
                 fontsize=10)
    return fig
