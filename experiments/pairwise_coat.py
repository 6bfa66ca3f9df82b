"""Fig. 1-4 analogues of Beutel et al. 2019 (pairwise fairness) on Coat (item gender), with intervals.

Pairs: Coat's ratings of 16 uniformly random items per user (``test.ascii``): every (liked,
not liked) pair of a user, z = the liked item's rating (4 or 5), s = item gender (group 0 = men,
group 1 = women). The users are split at random into two halves: the *training* half's pairs feed
the regularizer, the *held-out* half's pairs are measured. Models: the "production" MF trained on
the self-selected ratings (``train.ascii``), and the same MF fine-tuned with the pairwise
regularizer over inter-group pairs (λ = 0.1, eq. 10-12). For each: overall (Fig. 2), intra
(Fig. 3) and inter-group (Fig. 1) accuracies per (group, z) with 95% cluster-robust Wilson intervals clustered
by user, per-kind summaries, and the exposure view (Fig. 4: click share vs. exposure of inter
pairs). On Coat the gaps are small: where intervals overlap no claim is made (the figure says so).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.errors import DatasetNotFoundError
from ocef.datasets.coat import coat_pairs, load_coat
from ocef.environments.paths import dataset_dir
from ocef.experiments._io import save_figure, write_csv
from ocef.experiments.claims import Claim, Verdict
from ocef.pairwise import exposure_table, fit_mf_pairwise, pairwise_accuracy
from ocef.pairwise.datasets import coat_mf, coat_ratings, coat_sizes, score_pairs

NAME = "pairwise-coat"
DESCRIPTION = "Beutel et al. 2019 Fig. 1-4 analogues on Coat (item gender): pairwise accuracies with intervals"
DATASET = 'Coat (random ratings of 16 items per user; item gender; liked = rating >= 4)'
LAM = 0.1


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    if not dataset_dir("coat", data_dir).exists():
        raise DatasetNotFoundError(f"Coat not found under {dataset_dir('coat', data_dir)} (use --data-dir)")
    n_boot = 200 if quick else 1000
    default, random = load_coat(data_dir)
    n_users, n_items = coat_sizes(default, random)
    pairs = coat_pairs(data_dir)
    rng = np.random.default_rng(seed)
    users = pairs["query"].unique()
    train_users = rng.choice(users, users.size // 2, replace=False)
    is_train = pairs["query"].isin(train_users).to_numpy()
    train_pairs, test_pairs = pairs[is_train], pairs[~is_train]
    base = coat_mf(default, n_users, n_items, rng=seed)
    reg = fit_mf_pairwise(coat_ratings(default), train_pairs, lam=LAM, n_users=n_users, n_items=n_items, l2=0.01,
                          epochs=100 if quick else 200, lr=0.01, subgroup="women", init=base, rng=seed)
    frames = []
    for model_name, model in (("production", base), (f"regularized (lambda={LAM:g})", reg)):
        te = score_pairs(test_pairs, model.scores())
        res = pairwise_accuracy(te, subgroup="women", n_resamples=n_boot, rng=np.random.default_rng([seed, 1]))
        cells = res.cells.rename(columns={"accuracy": "value"}).assign(table="accuracy")
        summ = res.summary()
        srows = []
        for r in summ.itertuples():
            for q in ("accuracy_0", "accuracy_1", "ratio", "gap"):
                srows.append({"table": "summary", "kind": r.kind, "group": q, "z": "mean", "value": getattr(r, q),
                              "ci_low": getattr(r, f"{q}_ci_low"), "ci_high": getattr(r, f"{q}_ci_high"),
                              "n_pairs": res.n_pairs, "p_value": r.p_value if q == "gap" else np.nan,
                              "p_adjusted": r.p_adjusted if q == "gap" else np.nan,
                              "z_levels": r.z_levels, "reason": r.reason})
        ex = exposure_table(te, subgroup="women", n_resamples=n_boot, rng=np.random.default_rng([seed, 2]))
        erows = []
        for q in ("click_share", "exposure"):
            erows.append(pd.DataFrame({"table": q, "kind": "inter", "group": ex.group, "z": ex.z, "value": ex[q],
                                       "ci_low": ex[f"{q}_ci_low"], "ci_high": ex[f"{q}_ci_high"],
                                       "n_pairs": ex.n_pairs}))
        frames.append(pd.concat([cells, pd.DataFrame(srows), *erows], ignore_index=True).assign(model=model_name))
    df = pd.concat(frames, ignore_index=True)
    df["z"] = df["z"].astype(str)
    df["n_resamples"] = n_boot
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, out_dir / f"{NAME}.png"))
    return paths


def _summary_row(df: pd.DataFrame, model: str, kind: str, quantity: str):
    d = df[(df.table == "summary") & (df.model == model) & (df.kind == kind) & (df.group == quantity)]
    return d.iloc[0]


def _check_fig1(df: pd.DataFrame):
    r = _summary_row(df, "production", "inter", "ratio")
    excludes = not (r.ci_low <= 1 <= r.ci_high)
    verdict = ("the interval excludes 1: the groups differ" if excludes
               else "the interval contains 1: no claim (intervals overlap)")
    ev = f"production inter-group ratio men/women {r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]: {verdict}"
    return _verdict(excludes, ev, float(r.value))


def _check_overall(df: pd.DataFrame):
    r = _summary_row(df, "production", "overall", "ratio")
    excludes = not (r.ci_low <= 1 <= r.ci_high)
    ev = (f"production overall ratio men/women {r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
          + ("" if excludes else ": contains 1, no claim"))
    return _verdict(excludes, ev, float(r.value))


def _verdict(excludes: bool, evidence: str, ratio: float) -> Verdict:
    """The 95% interval of the ratio excludes 1: holds; contains it: inconclusive (never a refutation)."""
    if excludes:
        return Verdict("holds", evidence, None, ratio)
    return Verdict("inconclusive", evidence, "the 95% interval of the ratio contains 1: Coat's held-out users are "
                   "too few to tell the groups apart (a larger log would settle it)", ratio)


CLAIMS = [
    Claim("Fig. 1a", "The production model's inter-group pairwise accuracy differs between item groups "
                     "(Coat: men vs women items)", _check_fig1, paper_value=1.356,
          paper_source="Sec. 6.2: not-subgroup / subgroup inter-group ratio of the paper's production system "
                       "(not Coat)",
          test="95% interval of the men/women accuracy ratio excludes 1",
          reason_if_false="the 95% interval of the ratio contains 1: Coat's held-out users are too few to tell "
                          "the groups apart (a larger log would settle it)"),
    Claim("Fig. 2a", "The production model's overall pairwise accuracy differs between item groups", _check_overall, paper_value=1.083,
          paper_source="Sec. 6.2: overall ratio of the paper's production system (not Coat)",
          test="95% interval of the men/women accuracy ratio excludes 1",
          reason_if_false="the 95% interval of the ratio contains 1: Coat's held-out users are too few to tell "
                          "the groups apart (a larger log would settle it)"),
]


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    models = list(dict.fromkeys(df.model))
    fig, axes = plotting.subplots(len(models), 4, figsize=(17, 4.2 * len(models)), squeeze=False)
    colours = {"men": "tab:blue", "women": "tab:red"}
    for i, model in enumerate(models):
        d = df[df.model == model]
        for k, kind in enumerate(("inter", "overall", "intra")):
            ax = axes[i, k]
            a = d[(d.table == "accuracy") & (d.kind == kind)]
            zs = list(dict.fromkeys(a.z))
            x = np.arange(len(zs))
            for off, g in ((-0.1, "men"), (0.1, "women")):
                s = a[a.group == g].set_index("z").loc[zs]
                ax.errorbar(x + off, s.value, yerr=[s.value - s.ci_low, s.ci_high - s.value], fmt="o", capsize=4,
                            color=colours[g], label=f"clicked item: {g}")
            r = _summary_row(df, model, kind, "ratio")
            overlap = r.ci_low <= 1 <= r.ci_high
            ax.set_xticks(x, [f"z = {z}" for z in zs])
            ax.set_ylim(0.4, 0.95)
            fig_no = {"inter": "Fig. 1", "overall": "Fig. 2", "intra": "Fig. 3"}[kind]
            ax.set_title(f"{model}: {kind}-group accuracy ({fig_no})\nratio {r.value:.3f} [{r.ci_low:.3f}, "
                         f"{r.ci_high:.3f}]" + (" — overlaps 1: no claim" if overlap else ""), fontsize=9)
            ax.set_ylabel("pairwise accuracy (95% CI, clustered by user)")
            ax.legend(fontsize=7, loc="lower right")
        ax = axes[i, 3]
        for q, mk, off in (("click_share", "s", -0.15), ("exposure", "o", 0.05)):
            e = d[d.table == q]
            for g, goff in (("men", 0.0), ("women", 0.1)):
                s = e[e.group == g]
                x = np.arange(len(s))
                ax.errorbar(x + off + goff, s.value, yerr=[s.value - s.ci_low, s.ci_high - s.value], fmt=mk,
                            capsize=3, color=colours[g], mfc="none" if q == "click_share" else None,
                            label=f"{q.replace('_', ' ')}: {g}")
                ax.set_xticks(x, [f"z = {z}" for z in s.z])
        ax.axhline(0.5, color="gray", lw=0.7)
        ax.set_title(f"{model}: inter pairs, user preference vs exposure (Fig. 4)", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle("Coat (held-out half of users; MF on train.ascii). No claim where intervals overlap.", fontsize=10)
    return save_figure(fig, path)
