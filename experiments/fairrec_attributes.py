"""Table 5 of Guo et al. 2023 (FairRec): UF grows with the number of sensitive attributes combined —
judged against noise.

Exhaustive (Themis) UF on MovieLens-100K for gender, gender+age and gender+age+occupation, for
every model and metric, over the groups with at least ``min_users`` = 5 users with a defined
metric. More attributes mean more and smaller groups, so the maximum gap grows even when the
metric does not depend on the attributes at all (the raw UF grew in 500 of 500 null replicates
with MovieLens-like attributes). Each row therefore also carries

- ``uf_lower`` (selection-adjusted lower bound at 95%, :mod:`ocef.fairrec.inference`) and
  ``p_value`` (permutation test of no dependence, the search re-run on 199 permutations);
- ``p_increase``: permutation p-value of the increase ``UF(this set) − UF(previous set)`` under the
  null that the metric does not depend on the attributes (the users' metric values permuted once
  for all three sets, ``N_PERMUTATIONS`` times; exhaustive UFs computed exactly), with
  ``p_increase_holm`` adjusted over all model × metric × step tests.

The claim holds only if every step of every model × metric cell is established beyond noise:
``uf_lower`` increases, or the Holm-adjusted ``p_increase`` is at most 0.05.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments.claims import ML_1M, Claim
from ocef.experiments.fairrec_common import MIN_USERS, fitted, models_for

NAME = "fairrec-attributes"
DESCRIPTION = ("Table 5 of Guo et al. 2023 (FairRec): exhaustive UF for gender, gender+age, gender+age+occupation, with uf_lower "
               "and permutation p-values (MovieLens-100K)")
DATASET = 'MovieLens-100K leave-last-out split (1 test positive + 49 negatives per user)'
ATTRIBUTE_SETS = (("gender",), ("gender", "age"), ("gender", "age", "occupation"))
#: Permutations of the test of each increase (Holm over up to 2 models x 5 metrics x 2 steps needs p < 0.0025).
N_PERMUTATIONS = 1999
#: Permutations of each search's own p-value.
N_RESAMPLES = 199
CONFIDENCE = 0.95


def exhaustive_uf(values: np.ndarray, oracle) -> np.ndarray:
    """Exhaustive UF (eq. 1) over ``oracle``'s valid groups for each row of ``values``
    (``(B, n_users)`` per-user metric values, e.g. permutations): max − min of the group means."""
    rows = [oracle.members(c) for c in oracle.valid_cells.tolist()]
    member = np.zeros((oracle.n_users_all, len(rows)))
    for j, r in enumerate(rows):
        member[r, j] = 1.0 / r.size
    means = np.nan_to_num(values) @ member
    return means.max(axis=1) - means.min(axis=1)


def measure(fit, model: str, seed: int = 0, n_permutations: int = N_PERMUTATIONS,
            n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
    from ocef.fairrec.search import search
    from ocef.fairrec.unfairness import METRICS

    rows = []
    gen = np.random.default_rng([seed, sum(map(ord, model))])
    for metric in METRICS:
        oracles = [fit.oracle(metric, attrs, min_users=MIN_USERS) for attrs in ATTRIBUTE_SETS]
        results = [search(o, "exhaustive", confidence=CONFIDENCE, test="permutation", n_resamples=n_resamples,
                          rng=gen) for o in oracles]
        values, _ = oracles[0].user_values()            # every defined user (the same users for all three sets)
        defined = np.flatnonzero(oracles[0].defined)
        perms = np.tile(values, (n_permutations, 1))
        for b in range(n_permutations):
            perms[b, defined] = values[gen.permutation(defined)]
        null = np.stack([exhaustive_uf(perms, o) for o in oracles], axis=1)       # (B, 3)
        for j, (attrs, r) in enumerate(zip(ATTRIBUTE_SETS, results)):
            if j:
                inc = r.uf - results[j - 1].uf
                p_inc = (1 + np.count_nonzero(null[:, j] - null[:, j - 1] >= inc - 1e-12)) / (1 + n_permutations)
            else:
                inc = p_inc = np.nan
            rows.append({"model": model, "attributes": "+".join(attrs), "n_attributes": len(attrs), "metric": metric,
                         "uf": r.uf, "uf_lower": r.uf_lower, "p_value": r.p_value, "significant": r.significant,
                         "confidence": r.confidence, "n_resamples": r.n_resamples, "null_uf_mean": null[:, j].mean(),
                         "increase": inc, "p_increase": p_inc, "n_permutations": n_permutations,
                         "n_groups": r.n_groups, "min_users": MIN_USERS,
                         "advantaged": r.advantaged.name(), "disadvantaged": r.disadvantaged.name(),
                         "advantaged_n": r.advantaged.n_users, "disadvantaged_n": r.disadvantaged.n_users,
                         "reason": r.reason})
    return pd.DataFrame(rows)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir: Path | None = None,
        progress: bool = True) -> list[Path]:
    from ocef.inference import holm_adjust

    out_dir = Path(out_dir)
    models = models_for(quick)
    fits = fitted(data_dir, models)
    config = {"models": models, "min_users": MIN_USERS, "sets": ATTRIBUTE_SETS, "n_permutations": N_PERMUTATIONS,
              "n_resamples": N_RESAMPLES, "confidence": CONFIDENCE, "seed": seed}
    df = run_parts(out_dir, config, list(fits), lambda m: measure(fits[m], m, seed), progress=progress, desc=NAME)
    df["p_increase_holm"] = holm_adjust(df["p_increase"].to_numpy(dtype=float))
    csv = write_csv(df, out_dir / f"{NAME}.csv")
    return [csv, save_figure(_figure(df), out_dir / f"{NAME}.png")]


def _check(df: pd.DataFrame):
    t = df.pivot_table(index=["model", "metric"], columns="n_attributes", values="uf")
    raw = ((t[2] > t[1]) & (t[3] > t[2]))
    lo = df.pivot_table(index=["model", "metric"], columns="n_attributes", values="uf_lower")
    p = df.pivot_table(index=["model", "metric"], columns="n_attributes", values="p_increase_holm")
    step2 = (lo[2] > lo[1]) | (p[2] <= 0.05)
    step3 = (lo[3] > lo[2]) | (p[3] <= 0.05)
    ok = step2 & step3
    mrr = ", ".join(f"{m}/mrr: UF {t.loc[(m, k), 1]:.3f} < {t.loc[(m, k), 2]:.3f} < {t.loc[(m, k), 3]:.3f}, "
                    f"uf_lower {lo.loc[(m, k), 1]:.3f}, {lo.loc[(m, k), 2]:.3f}, {lo.loc[(m, k), 3]:.3f}, "
                    f"Holm p of the increases {p.loc[(m, k), 2]:.3g}, {p.loc[(m, k), 3]:.3g}"
                    for m, k in t.index if k == "mrr")
    sig = df[df.n_attributes == 3]
    return bool(ok.all()), (f"growth beyond noise in {int(ok.sum())}/{len(ok)} model x metric cells (step gender -> "
                            f"+age: {int(step2.sum())}, +age -> +occupation: {int(step3.sum())}); raw UF grows in "
                            f"{int(raw.sum())}/{len(raw)}; 3-attribute UF significant (permutation, unadjusted) in "
                            f"{int(sig.significant.sum())}/{len(sig)}; {mrr}")


CLAIMS = [Claim("Table 5", "with more sensitive attributes combined, larger unfairness is disclosed: UF grows "
                "from gender to gender+age to gender+age+occupation for every metric and model, beyond what noise "
                "gives (uf_lower grows, or the increase is significant against the permutation null, Holm)",
                _check,
                test="per model x metric and step: uf_lower grows, or the permutation p-value of the increase "
                     "(Holm over the cells) <= 0.05",
                reason_if_false="the growth is not beyond noise in some model x metric cell (no test of a decrease)",
                paper_data=ML_1M, paper_value="UF_auc 0.0021 -> 0.0324 -> 0.2537",
                paper_source="Table 5, MovieLens: gender, +age, +occupation")]


def _figure(df: pd.DataFrame):
    from ocef.experiments.fairrec_common import panel_grid

    models = list(dict.fromkeys(df.model))
    fig, axes = panel_grid(2 * len(models), 5.8, 4.0, ncols=2)
    for i, m in enumerate(models):
        ax, bx = axes[2 * i], axes[2 * i + 1]
        sub = df[df.model == m]
        for metric, part in sub.groupby("metric", sort=False):
            line, = ax.plot(part.n_attributes, part.uf, marker="o", label=f"UF_{metric}")
            ax.plot(part.n_attributes, part.null_uf_mean, ls=":", color=line.get_color())
            bx.plot(part.n_attributes, part.p_value, marker="o", color=line.get_color(), label=f"UF_{metric}")
        bx.axhline(1 - CONFIDENCE, color="k", ls="--", lw=0.8)
        bx.set_yscale("log")
        bx.set_ylim(1e-3, 1.1)
        lower = sub.uf_lower
        note = ("uf_lower = 0 in every cell" if (lower == 0).all() else
                "uf_lower > 0: " + ", ".join(f"{r.metric}/{r.attributes} {r.uf_lower:.3f}"
                                             for r in sub[lower > 0].itertuples()))
        mrr = sub[(sub.metric == "mrr") & (sub.n_attributes == 3)]
        if len(mrr):
            r = mrr.iloc[0]
            note += (f"\nUF_mrr, 3 attributes: best {r.advantaged} ({r.advantaged_n} users)"
                     f"\n  vs worst {r.disadvantaged} ({r.disadvantaged_n} users)")
        bx.text(0.02, 0.02, note, transform=bx.transAxes, fontsize=6.5, va="bottom")
        for a, ylab in ((ax, "UF (exhaustive); dotted: mean under no dependence"),
                        (bx, f"permutation p-value of UF ({N_RESAMPLES} permutations)")):
            a.set_xticks([1, 2, 3], ["gender", "+age", "+occupation"])
            a.set_ylabel(ylab, fontsize=8)
            a.set_title(m, fontsize=9)
            a.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Table 5 (Guo et al. 2023) on MovieLens-100K: UF by attributes combined (min_users={MIN_USERS}); "
                 f"left: raw UF and its noise level, right: p-value (dashed: {1 - CONFIDENCE:.2f})", fontsize=10)
    return fig
