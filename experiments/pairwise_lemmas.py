"""Lemmas 1-2 of Beutel et al. 2019 (Sec. 4.2), reproduced exactly.

For a grid of group base rates (Lemma 1: any ȳ_0 > ȳ_1; Lemma 2: ȳ_1 = 1 − ȳ_0) the base-rate
model f = ȳ_{s_j} is calibrated per group (Lemma 1) or has equal MSE in both groups (Lemma 2), yet
its inter-group pairwise accuracies are 1 and 0, its intra-group accuracies ½ (ties split), and the
overall accuracies differ by eq. (7). ``method="exact"``: :func:`ocef.pairwise.lemmas.lemma_case`;
``method="sample"``: labels drawn for 400 queries × 20 items, the model fitted as the empirical
group means of half the queries (its calibration measured on the other half), every (clicked, unclicked) pair of a query measured by :func:`ocef.pairwise.pairwise_accuracy`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import save_figure, write_csv
from ocef.experiments.claims import Claim
from ocef.pairwise import KINDS, pairwise_accuracy
from ocef.pairwise.lemmas import lemma_case

NAME = "pairwise-lemmas"
DESCRIPTION = "Sec. 4.2 Lemmas 1-2: calibrated / equal-MSE models violate pairwise fairness (exact)"
DATASET = 'exact base-rate model of Sec. 4.2 (no data)'


def sample_case(y_bar_0: float, y_bar_1: float, share_1: float, rng, n_queries: int = 400, n_items: int = 20) -> dict:
    """The lemmas' model on sampled labels, measured by the estimators."""
    s = (rng.random((n_queries, n_items)) < share_1).astype(int)
    y = (rng.random((n_queries, n_items)) < np.where(s == 1, y_bar_1, y_bar_0)).astype(int)
    fit = np.arange(n_queries) < n_queries // 2                           # base rates fitted on half the queries
    f = np.array([y[fit][s[fit] == 0].mean(), y[fit][s[fit] == 1].mean()])
    pred = f[s]
    # calibration on the other half: E[y | f = f_s] estimated there, against f_s (error: sampling noise)
    held = [y[~fit][pred[~fit] == v] for v in f]
    n_fit = [(s[fit] == g).sum() for g in (0, 1)]
    calib_se = [np.sqrt(v * (1 - v) * (1 / n_fit[g] + 1 / held[g].size)) for g, v in enumerate(f)]
    q, i = np.nonzero(y == 1)
    qq, ii = np.nonzero(y == 0)
    pos = pd.DataFrame({"query": q, "j": i})
    neg = pd.DataFrame({"query": qq, "jp": ii})
    pairs = pos.merge(neg, on="query")
    pairs = pairs.assign(s_j=s[pairs["query"], pairs.j], s_jp=s[pairs["query"], pairs.jp],
                         score_j=pred[pairs["query"], pairs.j], score_jp=pred[pairs["query"], pairs.jp])
    res = pairwise_accuracy(pairs, n_resamples=0)
    cells = res.cells.set_index(["kind", "group"]).accuracy
    out = {"y_bar_0": y_bar_0, "y_bar_1": y_bar_1, "share_1": share_1,
           "calibration_error_0": abs(held[0].mean() - f[0]), "calibration_error_1": abs(held[1].mean() - f[1]),
           "calibration_se_0": calib_se[0], "calibration_se_1": calib_se[1],
           "mse_0": float(((pred - y)[s == 0] ** 2).mean()), "mse_1": float(((pred - y)[s == 1] ** 2).mean()),
           "p_inter": float((pairs.s_j != pairs.s_jp).mean())}
    for kind in KINDS:
        out[f"{kind}_accuracy_0"], out[f"{kind}_accuracy_1"] = cells[(kind, 0)], cells[(kind, 1)]
        out[f"{kind}_ratio"] = res.summary().set_index("kind").ratio[kind]
    return out


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    rng = np.random.default_rng(seed)
    highs = np.round(np.arange(0.55, 0.96, 0.1 if quick else 0.05), 2)
    rows = []
    for lemma in (1, 2):
        for hi in highs:
            lo = round(1 - hi, 2) if lemma == 2 else round(hi / 3, 2)
            for share in (0.2, 0.5):
                for method, fn in (("exact", lambda: lemma_case(hi, lo, share)),
                                   ("sample", lambda: sample_case(hi, lo, share, rng))):
                    rows.append({"lemma": lemma, "method": method, **fn()})
    df = pd.DataFrame(rows)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, out_dir / f"{NAME}.png"))
    return paths


def _check_lemma1(df: pd.DataFrame):
    d = df[(df.lemma == 1)]
    exact, sample = d[d.method == "exact"], d[d.method == "sample"]
    calib = float(exact[["calibration_error_0", "calibration_error_1"]].abs().max().max())
    # sampled: held-out calibration error within 4 standard errors of 0
    z = float(max((sample[f"calibration_error_{g}"] / sample[f"calibration_se_{g}"]).max() for g in (0, 1)))
    ok = (calib < 1e-12 and z <= 4 and (d.inter_accuracy_0 == 1).all() and (d.inter_accuracy_1 == 0).all()
          and (d.intra_accuracy_0 == 0.5).all() and (d.intra_accuracy_1 == 0.5).all()
          and (d.overall_accuracy_0 > d.overall_accuracy_1).all())
    return ok, (f"{len(d)} cases: max exact calibration error {calib:.1e}, sampled (held out) at most "
                f"{z:.1f} standard errors; inter accuracies exactly 1 vs 0, intra 0.5 vs 0.5; "
                f"overall ratio {d.overall_ratio.min():.2f}-{d.overall_ratio.max():.2f}")


def _check_lemma2(df: pd.DataFrame):
    d = df[(df.lemma == 2) & (df.method == "exact")]
    s = df[(df.lemma == 2) & (df.method == "sample")]
    mse_gap = float((d.mse_0 - d.mse_1).abs().max())
    ok = (mse_gap < 1e-12 and (df[df.lemma == 2].inter_accuracy_0 == 1).all()
          and (df[df.lemma == 2].inter_accuracy_1 == 0).all() and (d.overall_ratio > 1).all())
    return ok, (f"exact: max |MSE_0 - MSE_1| {mse_gap:.1e} (sampled: {float((s.mse_0 - s.mse_1).abs().max()):.3f}); "
                f"inter accuracies 1 vs 0 in all {len(d) + len(s)} cases; overall ratio "
                f"{d.overall_ratio.min():.2f}-{d.overall_ratio.max():.2f}")


CLAIMS = [
    Claim("Lemma 1", "A calibrated model is insufficient for pairwise ranking fairness", _check_lemma1, test="exact construction",
          if_false="contradicted", reason_if_false="the constructed model is fair: the lemma's example fails"),
    Claim("Lemma 2", "Equal MSE across groups is insufficient for pairwise ranking fairness", _check_lemma2, test="exact construction",
          if_false="contradicted", reason_if_false="the constructed model is fair: the lemma's example fails"),
]


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    fig, axes = plotting.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, lemma in zip(axes, (1, 2)):
        d = df[(df.lemma == lemma) & (df.share_1 == 0.5)]
        for method, mk in (("exact", "-"), ("sample", "o")):
            m = d[d.method == method]
            for col, colour, label in (("inter_accuracy_0", "tab:red", "inter, group 0 (higher rate)"),
                                       ("inter_accuracy_1", "tab:orange", "inter, group 1"),
                                       ("intra_accuracy_0", "tab:green", "intra (ties: 1/2)"),
                                       ("overall_accuracy_0", "tab:blue", "overall, group 0"),
                                       ("overall_accuracy_1", "tab:purple", "overall, group 1")):
                ax.plot(m.y_bar_0, m[col], mk, color=colour, label=f"{label}" if method == "exact" else None,
                        ms=5, mfc="none")
        ax.set_xlabel(r"$\bar y_0$" + (r"  ($\bar y_1 = \bar y_0 / 3$)" if lemma == 1 else r"  ($\bar y_1 = 1 - \bar y_0$)"))
        title = ("Lemma 1: calibrated per group (error 0)" if lemma == 1
                 else "Lemma 2: equal MSE per group")
        ax.set_title(title + "\nlines exact, circles sampled (share 0.5)", fontsize=10)
    axes[0].set_ylabel("pairwise accuracy")
    axes[0].legend(fontsize=7)
    return save_figure(fig, path)
