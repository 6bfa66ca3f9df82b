"""What random traffic buys and costs (Dong et al. 2024, Sec. 1, 3.1, App. I.2).

As the activation probability p_act grows from 0 to 0.1, one simulated day is logged and ΔREO
is estimated two ways: the naive estimator that treats missing labels as negative
(:func:`ocef.reo.naive_reo`, the practice Sec. 1 warns about) and the random-traffic
estimator with its delta-method interval (:func:`ocef.reo.estimate_reo`, undefined without
random traffic). Both are compared with the simulator's exact ΔREO. Beside them, the cost of
random traffic: the share of relevant items among the items users were shown (default items
plus non-duplicated random items, App. I.1), which falls as p_act grows (App. I.2 trade-off
between recommendation relevance and measurement accuracy).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef import reo
from ocef.reo.simulate import expected_relevance, make_traffic_world, simulate_traffic
from ocef.experiments.claims import Claim, trend

NAME = "reo-random-traffic-value"
DESCRIPTION = "Naive vs random-traffic ΔREO vs truth as p_act grows 0→0.1, and the relevance lost (App. I.2)"

WORLD = dict(n_users=1000, n_items=300, n_groups=2, score_bias=[0.0, 0.5], group_shares=[0.6, 0.4])
P_ACT = [0.0, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1]

DATASET = 'simulated traffic (ocef.reo.simulate: 1000 users x 300 items, 2 item groups)'

def _naive_biased(df: pd.DataFrame) -> tuple[bool, str]:
    d = df[df["rt_defined"] > 0]
    worse = d["naive_rmse"] > d["rt_rmse"]
    return bool(worse.all()), (f"naive RMSE {d['naive_rmse'].min():.3f}-{d['naive_rmse'].max():.3f} vs random-traffic "
                               f"RMSE {d['rt_rmse'].min():.3f}-{d['rt_rmse'].max():.3f}; naive worse at "
                               f"{int(worse.sum())}/{len(d)} p_act > 0 (truth {d['truth'].iloc[0]:.3f})")


CLAIMS = [
    Claim("REO Sec. 1", "Treating missing labels as negative biases ΔREO: the naive estimator is further from the "
                        "truth than the random-traffic estimator at every p_act > 0", _naive_biased,
          test="naive RMSE > random-traffic RMSE at every p_act > 0 (point comparison of simulated RMSEs)",
          reason_if_false="the naive estimator is not worse at every level (at the smallest p_act the random-traffic "
                          "estimator rests on very few random rows; more replicates would settle it)"),
    Claim("REO App. I.2", "Random traffic costs relevance: the relevance of shown items falls as p_act grows",
          lambda df: trend(df, "p_act", "relevance_mean", sign=-1), test="95% t interval of the slope"),
    Claim("REO App. I.2", "More random traffic, more accuracy: the random-traffic RMSE falls as p_act grows "
                          "(log-log slope < 0)",
          lambda df: trend(df[df["rt_defined"] > 0], "p_act", "rt_rmse", sign=-1, logx=True, logy=True),
          test="95% t interval of the log-log slope"),
]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    reps = 5 if quick else 20
    day_cfg = (dict(requests_per_day=6000, k=10, log_rate=0.2) if quick
               else dict(requests_per_day=30_000, k=10, log_rate=0.2))
    world = make_traffic_world(**WORLD, rng=seed)
    groups = world.groups.tolist()
    config = {"world": WORLD, "day": day_cfg, "seed": seed, "reps": reps, "p_act": P_ACT}

    def compute(p_act):
        rows = []
        for rep in range(reps):
            logs = simulate_traffic(world, p_act=p_act, rng=np.random.default_rng([seed, int(p_act * 1e6), rep]),
                                    **day_cfg)
            rand = logs.random if len(logs.random) else None
            naive = reo.naive_reo(logs.default, rand, groups=groups)
            est, low, high, note = np.nan, np.nan, np.nan, ""
            try:
                res = reo.estimate_reo(logs.default, logs.random, groups=groups)
                est, (low, high) = res.penalty, res.penalty_ci
            except ValueError as exc:      # no random traffic, or a group without random positives
                note = str(exc).split(":")[0]
            served = logs.served.sum(numeric_only=True)
            rows.append({
                "p_act": p_act, "rep": rep, "truth": logs.truth.penalty, "naive": naive.penalty,
                "random_traffic": est, "ci_low": low, "ci_high": high, "undefined_reason": note,
                "n_default": len(logs.default), "n_random": len(logs.random),
                "relevance": served["relevant"] / served["impressions"],
                "relevance_default_truth": logs.truth.relevance_default,
                "relevance_random_truth": logs.truth.relevance_random,
            })
        return pd.DataFrame(rows)

    raw = run_parts(out_dir, config, P_ACT, compute, progress=progress, desc=NAME)
    raw["covered"] = (raw["ci_low"] <= raw["truth"]) & (raw["truth"] <= raw["ci_high"])
    agg = raw.groupby("p_act").agg(
        truth=("truth", "first"), naive_mean=("naive", "mean"), naive_sd=("naive", "std"),
        rt_mean=("random_traffic", "mean"), rt_sd=("random_traffic", "std"),
        rt_defined=("random_traffic", "count"), ci_low_mean=("ci_low", "mean"), ci_high_mean=("ci_high", "mean"),
        coverage=("covered", "mean"), n_random_mean=("n_random", "mean"), n_default_mean=("n_default", "mean"),
        relevance_mean=("relevance", "mean"), relevance_sd=("relevance", "std"),
        relevance_default_truth=("relevance_default_truth", "first"),
        relevance_random_truth=("relevance_random_truth", "first")).reset_index()
    agg["reps"] = reps
    agg["relevance_expected"] = [expected_relevance(world, day_cfg["k"], p) for p in agg["p_act"]]
    agg["naive_rmse"] = raw.assign(e=(raw["naive"] - raw["truth"]) ** 2).groupby("p_act")["e"].mean().to_numpy() ** 0.5
    agg["rt_rmse"] = raw.assign(e=(raw["random_traffic"] - raw["truth"]) ** 2).groupby("p_act")["e"].mean().to_numpy() ** 0.5
    base = agg.loc[agg["p_act"] == 0, "relevance_mean"]
    agg["relevance_lost"] = 1 - agg["relevance_mean"] / (base.iloc[0] if len(base) else np.nan)
    paths = [write_csv(agg, out_dir / f"{NAME}.csv")]
    paths.append(_plot(agg, day_cfg, out_dir / f"{NAME}.png"))
    return paths


def _plot(agg: pd.DataFrame, day_cfg: dict, path: Path) -> Path:
    from ocef.experiments import plotting

    fig, (a1, a2) = plotting.subplots(1, 2, figsize=(12, 4.4))
    x = agg["p_act"]
    a1.axhline(agg["truth"].iloc[0], color="k", ls="--", lw=1, label="truth ΔREO (simulator)")
    a1.errorbar(x, agg["naive_mean"], yerr=agg["naive_sd"], fmt="s-", capsize=3, color="C3",
                label="naive: missing labels = negative")
    ok = agg["rt_defined"] > 0
    a1.errorbar(x[ok], agg.loc[ok, "rt_mean"], yerr=agg.loc[ok, "rt_sd"], fmt="o-", capsize=3, color="C0",
                label="random-traffic estimate (mean ± SD)")
    a1.fill_between(x[ok], agg.loc[ok, "ci_low_mean"], agg.loc[ok, "ci_high_mean"], color="C0", alpha=0.15,
                    label="mean 95% delta-method CI")
    a1.set_xscale("symlog", linthresh=1e-3)
    a1.set_xlim(-2e-4, 0.13)
    a1.set_xlabel("activation probability p_act (0 = no random traffic: estimate undefined)")
    a1.set_ylabel("ΔREO")
    a1.set_title(f"ΔREO estimates, {int(agg['reps'].iloc[0])} simulated days per p_act", fontsize=10)
    plotting.legend_below(a1)
    a1.grid(True, alpha=0.3)
    a2.errorbar(x, 100 * agg["relevance_mean"], yerr=100 * agg["relevance_sd"], fmt="o-", capsize=3,
                label="relevant share of shown items")
    a2.plot(x, 100 * agg["relevance_expected"], "k--", lw=1, label="exact expectation (App. I.1-I.2)")
    a2.axhline(100 * agg["relevance_default_truth"].iloc[0], color="C2", ls=":", label="default items (truth)")
    a2.axhline(100 * agg["relevance_random_truth"].iloc[0], color="C1", ls=":", label="random items (truth)")
    for xi, yi, lost in zip(x, agg["relevance_mean"], agg["relevance_lost"]):
        if xi > 0:
            a2.annotate(f"{-100 * lost:+.1f}%", (xi, 100 * yi), textcoords="offset points",
                        xytext=(0, 8 if xi in (0.001, 0.005, 0.02, 0.1) else -14), fontsize=7, ha="center")
    a2.set_xscale("symlog", linthresh=1e-3)
    a2.set_xlim(-2e-4, 0.13)
    a2.set_xlabel("activation probability p_act")
    a2.set_ylabel("relevance of shown items (%)")
    a2.set_title("cost: relevance lost to random traffic (App. I.2)", fontsize=10)
    plotting.legend_below(a2)
    a2.grid(True, alpha=0.3)
    fig.suptitle(f"Random traffic value: 2 item groups, {day_cfg['requests_per_day']:,} requests/day, "
                 f"k={day_cfg['k']}, default log rate {day_cfg['log_rate']}", fontsize=10)
    return save_figure(fig, path)
