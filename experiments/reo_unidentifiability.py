"""Table 1 of Dong et al. 2024 (Sec. 3.1, App. C): REO is not identifiable from the recommended subset.

Datasets A and B hold 200,200 user-item pairs each and agree on the recommended subset
(R = 1: 100 liked pairs per group); they differ only on unrecommended pairs, where B hides 100
liked pairs of group 1. Truth: U = (1, 1), Delta_REO = 0 for A; U = (1/2, 1) for B, whose
penalty is 1/3 by eq. (2) with the population std (the paper prints 2/3, which is
|U_1 - U_2| / mean(U), twice eq. (2) for two groups; both are in the CSV).

Estimators compared on each data set:

* naive (missing labels negative, Sec. 1): only the recommended subset has labels -> U = (1, 1);
* model-based imputation (Sec. 3.1): P(Y=1 | S) learned on the recommended subset with a
  Beta(1, 1) prior, its expectation imputed to every unrecommended pair. The model only sees
  the recommended subset and the pairs' features (S), identical in A and B, so it returns the
  same answer for both -- any model does;
* random traffic (Sec. 3.2, Alg. 1): a uniform sample of n pairs (without replacement) as
  D_rand, the recommended pairs as D_rec; delta-method 95% intervals; repeated draws. Draws
  where a group has no positive in D_rand (U_k undefined) are counted (``undefined_draws``)
  and left out of the means. Sampling without replacement from the 200,200 pairs has less
  variance than Algorithm 1's binomial model (no finite-population correction), so the
  intervals over-cover for large n; for A (truth 0) the delta interval is unreliable and the
  mean estimate is biased upward, as the ``ocef.reo`` docstring explains.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef import reo
from ocef.experiments.claims import Claim

NAME = "reo-unidentifiability"
DESCRIPTION = "Table 1 (Dong et al. 2024): A and B agree on R=1 but ΔREO = 0 vs 1/3; naive, imputation, random traffic"

# Table 1: counts[(R, Y)] = (group 1, group 2)
TABLE1 = {
    "A": {(0, 0): (100_000, 100_000), (0, 1): (0, 0), (1, 0): (0, 0), (1, 1): (100, 100)},
    "B": {(0, 0): (99_900, 100_000), (0, 1): (100, 0), (1, 0): (0, 0), (1, 1): (100, 100)},
}

DATASET = 'REO Table 1: two constructed data sets of 200,200 user-item pairs'

def _pen(df, dataset, method):
    return float(df[(df.dataset == dataset) & (df.method == method)]["penalty"].iloc[0])


def _same_answer(df: pd.DataFrame) -> tuple[bool, str]:
    m = ["naive (missing = negative)", "model imputation"]
    same = all(abs(_pen(df, "A", x) - _pen(df, "B", x)) < 1e-12 for x in m)
    return bool(same and _pen(df, "A", "truth") == 0 and abs(_pen(df, "B", "truth") - 1 / 3) < 1e-12), (
        f"truth A {_pen(df, 'A', 'truth'):.3f}, B {_pen(df, 'B', 'truth'):.3f}; " + "; ".join(
            f"{x}: A {_pen(df, 'A', x):.3f}, B {_pen(df, 'B', x):.3f}" for x in m))


def _separates(df: pd.DataFrame) -> tuple[bool, str]:
    rt = df[df.method == "random traffic"]
    b = rt[rt.dataset == "B"].sort_values("n_random").iloc[-1]
    a = rt[rt.dataset == "A"].sort_values("n_random").iloc[-1]
    return bool(b.ci_low > 0 and a.penalty < b.penalty), (
        f"n={int(b.n_random):,}: B {b.penalty:.3f} [{b.ci_low:.3f}, {b.ci_high:.3f}], A {a.penalty:.3f} "
        f"[{a.ci_low:.3f}, {a.ci_high:.3f}]")


CLAIMS = [
    Claim("REO Table 1", "A and B agree on the recommended subset yet ΔREO = 0 vs 1/3; the naive estimator and any "
                         "model fitted on the recommended subset give A and B the same answer", _same_answer,
          test="exact computation", if_false="contradicted", reason_if_false="the estimators tell A and B apart",
          paper_value="ΔREO 0 vs 1/3", paper_source="REO Table 1"),
    Claim("REO Sec. 3.2", "Random traffic identifies REO: B's penalty is significantly > 0 and above A's",
          _separates, test="95% interval of B's penalty above 0 and above A's",
          reason_if_false="the intervals do not separate B from A (more random traffic would settle it)"),
]


def table1_counts(dataset: str) -> np.ndarray:
    """``c[r, y, k]``: number of pairs with R = r, Y = y in group k (Table 1)."""
    c = np.zeros((2, 2, 2), dtype=np.int64)
    for (r, y), (n1, n2) in TABLE1[dataset].items():
        c[r, y] = (n1, n2)
    return c


def true_utilities(c: np.ndarray) -> np.ndarray:
    """``U_k = P(R=1 | Y=1, S=s_k)`` (eq. 1) on the full pair space."""
    return c[1, 1] / (c[1, 1] + c[0, 1])


def naive_utilities(c: np.ndarray) -> np.ndarray:
    """Missing labels (R = 0) taken as negative: only recommended positives remain (Sec. 1)."""
    return c[1, 1] / c[1, 1]


def imputed_utilities(c: np.ndarray, prior: tuple[float, float] = (1.0, 1.0)) -> tuple[np.ndarray, np.ndarray]:
    """Model-based imputation: ``p_k = P(Y=1 | S=s_k)`` fitted on the recommended subset with a
    Beta prior, expected positives ``p_k x #{R=0, S=s_k}`` imputed to the unrecommended pairs.
    Returns ``(U, p)``."""
    a, b = prior
    p = (c[1, 1] + a) / (c[1].sum(axis=0) + a + b)
    return c[1, 1] / (c[1, 1] + p * c[0].sum(axis=0)), p


def random_traffic_estimates(c: np.ndarray, n_random: int, reps: int, rng: np.random.Generator) -> reo.ReoArrays:
    """Algorithm 1 on ``reps`` uniform samples of ``n_random`` pairs (D_rand) with D_rec = the
    recommended pairs; category counts are multivariate hypergeometric (sampling without
    replacement from the pair space)."""
    # colours: (Y=1, S=1), (Y=1, S=2), rest
    pos = c[:, 1].sum(axis=0)
    colours = np.array([pos[0], pos[1], c.sum() - pos.sum()])
    draws = rng.multivariate_hypergeometric(colours, n_random, size=reps)
    n_default = c[1].sum()
    pos_default = np.broadcast_to(c[1, 1], (reps, 2))
    return reo.reo_from_counts(pos_default, np.full(reps, n_default), draws[:, :2], np.full(reps, n_random))


def _point_rows(dataset: str) -> list[dict]:
    c = table1_counts(dataset)
    rows = []
    U_imp, p_imp = imputed_utilities(c)
    for method, U in (("truth", true_utilities(c)), ("naive (missing = negative)", naive_utilities(c)),
                      ("model imputation", U_imp)):
        rows.append({"dataset": dataset, "method": method, "n_random": 0, "U1": U[0], "U2": U[1],
                     "penalty": float(reo.reo_penalty(U)),
                     "range_over_mean": float(abs(U[0] - U[1]) / U.mean()),
                     "ci_low": np.nan, "ci_high": np.nan, "coverage": np.nan, "reps": 1,
                     "imputed_p1": p_imp[0] if method == "model imputation" else np.nan,
                     "imputed_p2": p_imp[1] if method == "model imputation" else np.nan})
    return rows


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    sizes = [50_000] if quick else [10_000, 20_000, 50_000, 100_000]
    reps = 20 if quick else 500
    config = {"sizes": sizes, "reps": reps, "seed": seed}

    def compute(key):
        dataset, n = key
        c = table1_counts(dataset)
        truth = float(reo.reo_penalty(true_utilities(c)))
        rng = np.random.default_rng([seed, ord(dataset), n])
        est = random_traffic_estimates(c, n, reps, rng)
        ok = np.isfinite(est.U).all(axis=1)               # draws where both groups have a positive
        lo, hi = (v[ok] for v in est.ci_penalty())
        U = est.U[ok] * (c[1].sum() / c.sum())            # P(R = 1) x U_hat estimates U
        pen = est.penalty[ok]
        return pd.DataFrame([{
            "dataset": dataset, "method": "random traffic", "n_random": n,
            "U1": U[:, 0].mean(), "U2": U[:, 1].mean(), "penalty": pen.mean(),
            "range_over_mean": float(np.mean(np.abs(U[:, 0] - U[:, 1]) / U.mean(axis=1))),
            "ci_low": np.nanmean(lo), "ci_high": np.nanmean(hi),
            "coverage": float(np.mean((lo <= truth) & (truth <= hi))) if truth > 0 else np.nan,
            "reps": int(ok.sum()), "undefined_draws": int((~ok).sum()), "penalty_sd": pen.std(),
            "imputed_p1": np.nan, "imputed_p2": np.nan,
        }])

    sims = run_parts(out_dir, config, [(d, n) for d in ("A", "B") for n in sizes], compute,
                     progress=progress, desc=NAME)
    df = pd.concat([pd.DataFrame(_point_rows("A") + _point_rows("B")), sims], ignore_index=True)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, reps, out_dir / f"{NAME}.png"))
    return paths


def _plot(df: pd.DataFrame, reps: int, path: Path) -> Path:
    from ocef.experiments import plotting

    fig, (ax, ax2) = plotting.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})
    n_max = df.n_random.max()
    methods = ["truth", "naive (missing = negative)", "model imputation", "random traffic"]
    colours = {"A": "tab:blue", "B": "tab:orange"}
    x = np.arange(len(methods))
    for j, dataset in enumerate(("A", "B")):
        sub = df[(df.dataset == dataset) & ((df.method != "random traffic") | (df.n_random == n_max))]
        sub = sub.set_index("method").loc[methods]
        xs = x + (j - 0.5) * 0.38
        ax.bar(xs, sub.penalty, width=0.38, color=colours[dataset], label=f"dataset {dataset}")
        rt = sub.loc["random traffic"]
        ax.errorbar(xs[-1], rt.penalty, yerr=[[rt.penalty - rt.ci_low], [rt.ci_high - rt.penalty]],
                    color="black", capsize=4, lw=1)
        for xi, v in zip(xs, sub.penalty):
            ax.text(xi, v + 0.01, f"{v:.3f}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, ["truth\n(full labels)", "naive\n(missing = neg.)", "model\nimputation",
                      f"random traffic\nn = {n_max:,}"], fontsize=9)
    ax.set_ylabel(r"fairness penalty $\Delta_{REO}$ = std(U)/mean(U)")
    ax.set_title("Same recommended subset, different fairness\n(random traffic: mean estimate, mean 95% delta CI)",
                 fontsize=10)
    plotting.legend_below(ax)
    ax.set_ylim(0, 0.6)

    rt = df[df.method == "random traffic"].sort_values("n_random")
    for dataset in ("A", "B"):
        s = rt[rt.dataset == dataset]
        truth = float(df[(df.dataset == dataset) & (df.method == "truth")].penalty.iloc[0])
        ax2.errorbar(s.n_random, s.penalty, yerr=[s.penalty - s.ci_low, s.ci_high - s.penalty], marker="o",
                     capsize=4, color=colours[dataset], label=f"{dataset}: estimate, mean 95% delta CI")
        ax2.axhline(truth, color=colours[dataset], ls="--", lw=1, label=f"{dataset}: truth {truth:.3f}")
    ax2.set_xscale("log")
    ax2.set_xlabel("random traffic size |D_rand| (uniform pairs out of 200,200)")
    ax2.set_ylabel(r"estimated $\Delta_{REO}$ (mean over draws)")
    ax2.set_title(f"Random traffic separates A and B ({reps} draws per size)")
    plotting.legend_below(ax2)
    fig.suptitle("Dong et al. 2024, Table 1: REO is unidentifiable without probing unrecommended pairs "
                 "(B: the paper prints 2/3 = |U1-U2|/mean; eq. 2 gives 1/3)", fontsize=10)
    return save_figure(fig, path)
