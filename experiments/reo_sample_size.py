"""Fig. 4-5 of Dong et al. 2024 (REO from random traffic): relative error and variance of ΔREO vs sample size on a simulated day.

Sec. 4.2: the ΔREO of a full day of logs (150,000 rows) is the benchmark; n rows are sampled
uniformly (without replacement) from that day, ΔREO(n) is computed on them, and the relative
error |ΔREO(n) - ΔREO| / ΔREO (Fig. 4) and the variance of ΔREO(n) (Fig. 5) are reported;
the paper repeats 20 times per n, we repeat 200 times (100 in quick mode) because a variance
from 20 draws has a relative SD of 32%, too noisy to read a slope from; a least-squares fit of log variance on log n gives the scaling exponent
(the paper finds it close to -1). The day is simulated with :mod:`ocef.reo.simulate` (two item
groups, the default model over-scores group 1); the simulator's exact ΔREO is reported too.

The n sampled rows keep their source, so they split between D_rec and D_rand as the day does.
Sampling only needs the counts of (source, Y=1, S=s_k) rows: a multivariate hypergeometric
draw gives them for all repetitions at once.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments._reo_common import loglog_slope
from ocef import reo
from ocef.reo.simulate import make_traffic_world, simulate_traffic
from ocef.experiments.claims import Claim, fit_slope, trend, slope_near

NAME = "reo-sample-size"
DESCRIPTION = "Fig. 4-5 (Dong et al. 2024): relative error and variance of ΔREO vs sample size on a simulated day"

WORLD = dict(n_users=1000, n_items=300, n_groups=2, score_bias=[0.0, 0.5], group_shares=[0.6, 0.4])
DAY = dict(requests_per_day=13_000, k=10, p_act=0.15, log_rate=1.0)   # ≈ 130k + 20k rows

DATASET = 'simulated traffic (ocef.reo.simulate: 1000 users x 300 items, 2 item groups)'

CLAIMS = [
    Claim("REO Fig. 5", "The variance of ΔREO(n) scales as 1/n (log-log slope in [-1.15, -0.85])",
          lambda df: slope_near(fit_slope(df["n"], df["variance"], logx=True, logy=True), -1.0, 0.15),
          test="95% t interval of the log-log slope contains -1 and the slope is within ±0.15 of it",
          paper_value=-1.0, paper_source="REO Fig. 5: variance ∝ 1/n"),
    Claim("REO Fig. 4", "The relative error decreases with the sample size (log-log slope < 0)",
          lambda df: trend(df, "n", "rel_error_mean", sign=-1, logx=True, logy=True),
          test="95% t interval of the log-log slope"),
]


def day_category_counts(default: pd.DataFrame, random: pd.DataFrame, groups) -> np.ndarray:
    """Row counts of the day by category: random (Y=1,S=k)..., random other, default
    (Y=1,S=k)..., default other."""
    out = []
    for log in (random, default):
        pos, n = reo.positive_counts(log, groups=groups)
        out.extend([*pos, n - pos.sum()])
    return np.asarray(out, dtype=np.int64)


def subsample_penalty(colors: np.ndarray, n: int, reps: int, rng: np.random.Generator, K: int):
    """ΔREO on ``reps`` uniform n-row subsamples of the day (NaN where a group has no positive)."""
    draws = rng.multivariate_hypergeometric(colors, n, size=reps)
    pos_r, n_r = draws[:, :K], draws[:, :K + 1].sum(axis=1)
    pos_d, n_d = draws[:, K + 1:2 * K + 1], draws[:, K + 1:].sum(axis=1)
    ok = (pos_r > 0).all(axis=1) & (n_d > 0)
    est = np.full(reps, np.nan)
    est[ok] = reo.reo_from_counts(pos_d[ok], n_d[ok], pos_r[ok], n_r[ok]).penalty
    return est


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    reps = 100 if quick else 200
    sizes = (np.array([3000, 6000, 12_000, 24_000]) if quick
             else np.round(np.geomspace(3000, 48_000, 9)).astype(int))
    world = make_traffic_world(**WORLD, rng=seed)
    logs = simulate_traffic(world, **DAY, rng=seed + 1)
    groups = world.groups.tolist()
    K = len(groups)
    full = reo.estimate_reo(logs.default, logs.random, groups=groups)
    colors = day_category_counts(logs.default, logs.random, groups)
    config = {"reps": reps, "sizes": sizes.tolist(), "seed": seed, "world": WORLD, "day": DAY}

    def compute(n):
        est = subsample_penalty(colors, int(n), reps, np.random.default_rng([seed, int(n)]), K)
        return pd.DataFrame({"n": int(n), "rep": np.arange(reps), "penalty": est,
                             "benchmark": full.penalty, "truth": logs.truth.penalty,
                             "day_rows": int(colors.sum())})

    rows = run_parts(out_dir, config, [int(n) for n in sizes], compute, progress=progress, desc=NAME)
    rows["relative_error"] = (rows["penalty"] - rows["benchmark"]).abs() / rows["benchmark"]
    agg = rows.groupby("n").agg(
        rel_error_mean=("relative_error", "mean"), rel_error_sd=("relative_error", "std"),
        variance=("penalty", "var"), defined=("penalty", "count"), benchmark=("benchmark", "first"),
        truth=("truth", "first"), day_rows=("day_rows", "first")).reset_index()
    slope = loglog_slope(agg["n"], agg["variance"])
    err_slope = loglog_slope(agg["n"], agg["rel_error_mean"])
    agg["variance_loglog_slope"] = slope
    agg["rel_error_loglog_slope"] = err_slope
    agg["reps"] = reps
    paths = [write_csv(agg, out_dir / f"{NAME}.csv")]
    paths.append(_plot(agg, slope, err_slope, reps, out_dir / f"{NAME}.png"))
    return paths


def _plot(agg: pd.DataFrame, slope: float, err_slope: float, reps: int, path: Path) -> Path:
    from ocef.experiments import plotting
    from matplotlib.ticker import NullFormatter

    fig, (a1, a2) = plotting.subplots(1, 2, figsize=(11, 4.2))
    a1.errorbar(agg["n"], agg["rel_error_mean"], yerr=agg["rel_error_sd"] / np.sqrt(agg["defined"]),
                marker="o", capsize=3, label=f"mean over {reps} subsamples (slope {err_slope:.2f})")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("sample size n (rows)")
    a1.set_ylabel("relative error |ΔREO(n) − ΔREO| / ΔREO")
    a1.set_title("Fig. 4: relative error vs sample size", fontsize=10)
    plotting.legend_below(a1)
    a1.grid(True, which="both", alpha=0.3)
    a2.plot(agg["n"], agg["variance"], "o-", label=f"variance of ΔREO(n) (fitted slope {slope:.2f})")
    n = agg["n"].to_numpy(float)
    a2.plot(n, agg["variance"].iloc[0] * n[0] / n, "k--", lw=1, label="1/n reference")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("sample size n (rows)")
    a2.set_ylabel("variance of ΔREO(n)")
    a2.set_title("Fig. 5: variance vs sample size", fontsize=10)
    plotting.legend_below(a2)
    a2.grid(True, which="both", alpha=0.3)
    for ax in (a1, a2):
        ax.xaxis.set_minor_formatter(NullFormatter())
    fig.suptitle(f"Simulated day of {int(agg['day_rows'].iloc[0]):,} rows (D_rec + D_rand), 2 item groups; "
                 f"benchmark ΔREO={agg['benchmark'].iloc[0]:.3f} (simulator truth {agg['truth'].iloc[0]:.3f})",
                 fontsize=10)
    return save_figure(fig, path)
