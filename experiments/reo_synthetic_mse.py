"""Fig. 3 of Dong et al. 2024 (REO from random traffic): MSE of the ΔREO estimate on multinomial synthetic data vs traffic size.

Sec. 4.1: two groups; on the random traffic the relevant proportions p_k = P(Y=1, S=s_k) are
(0.01, 0.05), (0.001, 0.005) or (0.0001, 0.0005); on the default traffic q_1 = 10 p_1,
q_2 = 5 p_2; the complements P(Y=0, S=s_1) = 0.25 (1 - p_1 - p_2), P(Y=0, S=s_2) = 0.75 (...)
(same for q). For a traffic size n both logs are drawn as Mult(n, ·) counts, ΔREO(n) is
computed from them and compared with ΔREO of the exact proportions; 50 repetitions per n.
(P̂_k, Q̂_k only use the positive counts; merging the two complement categories of a
multinomial does not change their distribution, so the 0.25 / 0.75 split is implicit.)
The MSE should scale as 1/n (dashed reference) and grow as the relevant proportions shrink.
A replicate where a group has no positive in either log has an undefined Û_k; such
replicates are counted (column ``undefined``) and the MSE is reported only where none occurred.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments._reo_common import loglog_slope, penalty_from_counts, truth_penalty
from ocef.reo.simulate import draw_log_counts
from ocef.experiments.claims import Claim, fit_slope

NAME = "reo-synthetic-mse"
DESCRIPTION = "Fig. 3 (Dong et al. 2024): MSE of ΔREO vs traffic size n on multinomial synthetic data, with a 1/n line"

LEVELS = {"p=(1e-2, 5e-2)": (0.01, 0.05), "p=(1e-3, 5e-3)": (0.001, 0.005),
          "p=(1e-4, 5e-4)": (0.0001, 0.0005)}
Q_FACTORS = (10.0, 5.0)

DATASET = 'multinomial synthetic counts (Sec. 4.1): q = (10 p1, 5 p2)'

def _mse_slopes(df: pd.DataFrame) -> tuple[bool, str]:
    """Per level, log-log slope of the MSE on n where the smallest group expects >= 100 positives."""
    notes, holds = [], True
    for level, part in df.groupby("level", sort=False):
        ok = part["mse"].notna() & (part["n"] * part["p1"] >= 100)
        if ok.sum() < 3:
            notes.append(f"{level}: too few points")
            continue
        s = fit_slope(part.loc[ok, "n"], part.loc[ok, "mse"], logx=True, logy=True)
        holds = holds and -1.15 <= s.slope <= -0.85
        notes.append(f"{level}: {s}")
    return holds, "; ".join(notes)


CLAIMS = [
    Claim("REO Fig. 3", "MSE(n) ~ 1/n: the log-log slope of the MSE on n is in [-1.15, -0.85] at every level",
          _mse_slopes, test="log-log slope of the MSE within [-1.15, -0.85] at every level (point comparison)",
          paper_value=-1.0, paper_source="REO Fig. 3: MSE ∝ 1/n",
          reason_if_false="a level's slope leaves [-1.15, -0.85]"),
    Claim("REO Fig. 3", "The bias of the estimator is almost vanishing (|mean estimate - truth| < 2% of the truth "
                        "at the largest n of each level)",
          lambda df: (lambda last: (bool((abs(last["mean_estimate"] - last["truth"]) / last["truth"] < 0.02).all()),
                                    ", ".join(f"{r.level}: {r.mean_estimate - r.truth:+.2g} at n={r.n:,}"
                                              for r in last.itertuples())))(
              df[df["mean_estimate"].notna()].sort_values("n").groupby("level", sort=False).tail(1)),
          test="|mean estimate - truth| / truth < 2% at the largest n (point comparison)",
          reason_if_false="a relative bias of 2% or more at the largest n (no interval tested)"),
]


def level_probabilities(p1: float, p2: float) -> tuple[np.ndarray, np.ndarray]:
    """(p_1, p_2) and (q_1, q_2) = (10 p_1, 5 p_2) of Sec. 4.1."""
    p = np.array([p1, p2])
    return p, p * np.array(Q_FACTORS)


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    reps = 50
    exponents = np.arange(3.0, 7.01, 0.5) if quick else np.arange(3.0, 9.01, 0.5)
    sizes = np.round(10.0 ** exponents).astype(np.int64)
    config = {"reps": reps, "sizes": sizes.tolist(), "seed": seed, "levels": LEVELS}

    def compute(key):
        level, n = key
        p, q = level_probabilities(*LEVELS[level])
        truth = truth_penalty(p, q)
        rng = np.random.default_rng([seed, list(LEVELS).index(level), int(n)])
        rand, rec = draw_log_counts(p, q, int(n), int(n), size=reps, rng=rng)
        defined = np.all((rand > 0) & (rec > 0), axis=1)
        est = np.full(reps, np.nan)
        if defined.any():
            est[defined] = penalty_from_counts(rand[defined], int(n), rec[defined], int(n))
        err2 = (est - truth) ** 2
        return pd.DataFrame({
            "level": [level], "p1": [p[0]], "p2": [p[1]], "q1": [q[0]], "q2": [q[1]], "n": [int(n)],
            "reps": [reps], "undefined": [int((~defined).sum())], "truth": [truth],
            "mean_estimate": [np.nanmean(est) if defined.any() else np.nan],
            "mse": [err2.mean() if defined.all() else np.nan],
            "mse_se": [err2.std(ddof=1) / np.sqrt(reps) if defined.all() else np.nan],
        })

    keys = [(level, int(n)) for level in LEVELS for n in sizes]
    df = run_parts(out_dir, config, keys, compute, progress=progress, desc=NAME)
    slopes = {}
    for level, part in df.groupby("level", sort=False):
        # fit where the smallest group expects >= 100 positives (the asymptotic regime)
        ok = part["mse"].notna() & (part["n"] * part["p1"] >= 100)
        slopes[level] = loglog_slope(part.loc[ok, "n"], part.loc[ok, "mse"]) if ok.sum() >= 2 else np.nan
    df["loglog_slope"] = df["level"].map(slopes)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, slopes, reps, out_dir / f"{NAME}.png"))
    return paths


def _plot(df: pd.DataFrame, slopes: dict, reps: int, path: Path) -> Path:
    from ocef.experiments import plotting

    fig, ax = plotting.subplots(figsize=(6.4, 4.6))
    for level, part in df.groupby("level", sort=False):
        part = part[part["mse"].notna()]
        ax.errorbar(part["n"], part["mse"], yerr=2 * part["mse_se"], marker="o", ms=4, capsize=2,
                    label=f"{level}  (slope {slopes[level]:.2f})")
    n = np.array([df["n"].min(), df["n"].max()], dtype=float)
    first = df[df["mse"].notna()].iloc[0]
    ax.plot(n, first["mse"] * first["n"] / n, "k--", lw=1, label="1/n reference")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("traffic size n (rows in each of D_rec, D_rand)")
    ax.set_ylabel("MSE of ΔREO estimate")
    ax.set_title(f"Fig. 3: multinomial synthetic data, q=(10p1, 5p2), true ΔREO={df['truth'].iloc[0]:.3f}, "
                 f"{reps} reps", fontsize=9)
    plotting.legend_below(ax)
    ax.grid(True, which="both", alpha=0.3)
    return save_figure(fig, path)
