"""Fig. 7-8 of Dong et al. 2024 (REO from random traffic): delta-method vs bootstrap intervals per day, and the bootstrap bias.

Sec. 4.3: for each daily log the 95% interval of ΔREO is derived three ways — the delta
method (Algorithm 1 with the full multinomial covariance, ``estimate_reo``'s default), the
standard (normal) bootstrap and the bias-corrected accelerated (BCa) bootstrap, both with 100
resamples — and the bootstrap estimate of the estimator's bias
(mean of the bootstrap replicates minus the estimate) is reported relative to the estimate
(Fig. 8: below 3% with no systematic sign). The days are simulated with :mod:`ocef.reo.simulate`
(the daily drift of ``reo-monitoring``, a world with ΔREO ≈ 0.2); the bootstraps are
:func:`ocef.reo.bootstrap_reo_ci`. Wall-clock times of each method are recorded.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef.experiments._reo_common import N_DAYS, daily_traffic
from ocef.experiments.reo_monitoring import daily_boosts
from ocef import reo
from ocef.reo.simulate import make_traffic_world, simulate_traffic
from ocef.experiments.claims import Claim, Verdict

NAME = "reo-ci-methods"
DESCRIPTION = "Fig. 7-8 (Dong et al. 2024): delta vs standard-bootstrap vs BCa intervals of ΔREO per day, bootstrap bias"

N_RESAMPLES = 100
# a larger penalty than in reo-monitoring (ΔREO ≈ 0.2): relative bias and the comparison of
# intervals are only meaningful away from 0, where the delta method applies (ocef.reo docs)
WORLD = dict(n_users=1000, n_items=300, n_groups=2, score_bias=[0.0, 0.5], group_shares=[0.6, 0.4])

DATASET = 'simulated traffic (ocef.reo.simulate: 1000 users x 300 items, 2 item groups)'

def _consistent_widths(df: pd.DataFrame) -> tuple[bool, str]:
    w = df.assign(width=df["ci_high"] - df["ci_low"]).pivot(index="day", columns="method", values="width")
    ratios = {m: (w[m] / w["delta"]) for m in w.columns if m != "delta"}
    holds = all(((r > 0.8) & (r < 1.25)).all() for r in ratios.values())
    return bool(holds), "; ".join(f"{m} / delta width: {r.min():.2f}-{r.max():.2f}" for m, r in ratios.items())


def _bias(df: pd.DataFrame) -> tuple[bool, str]:
    b = df[df["method"] == "standard bootstrap"]["relative_bias"]
    pos, neg = int((b > 0).sum()), int((b < 0).sum())
    ok = bool((b.abs() < 0.03).all() and pos > 0 and neg > 0)
    ev = f"largest |bias| / estimate {b.abs().max():.1%}; {pos} positive, {neg} negative days"
    return Verdict("holds", ev, None, float(b.abs().max())) if ok else Verdict(
        "inconclusive", ev, "a narrow miss: the largest |bias| / estimate exceeds the paper's 3% on a simulated day "
        "(the bootstrap bias is itself noisy; no test of the excess)" if b.abs().max() < 0.05 else
        "the largest |bias| / estimate is well above 3%, or the sign does not oscillate", float(b.abs().max()))


CLAIMS = [
    Claim("REO Fig. 7", "Delta-method, standard-bootstrap and BCa intervals are consistent (widths within "
                        "-20%/+25% of the delta method's, every day)", _consistent_widths,
          test="width ratio to the delta method in (0.8, 1.25) every day (point comparison)",
          reason_if_false="a width ratio leaves (0.8, 1.25) on some day"),
    Claim("REO Fig. 8", "The bootstrap estimate of the bias is below 3% of the estimate, with oscillating sign "
                        "(no systematic bias)", _bias,
          test="largest |bootstrap bias| / estimate < 3% and both signs occur (point comparison)",
          paper_value=0.03, paper_source="REO Fig. 8: bias below 3% of the estimate",
          reason_if_false="a narrow miss: the largest |bias| / estimate exceeds the paper's 3% on a simulated "
                          "day (the bootstrap bias is itself noisy; no test of the excess)"),
]


def run(out_dir: Path, *, quick: bool = False, seed: int = 0, data_dir=None, progress: bool = True) -> list[Path]:
    n_days = N_DAYS
    day_cfg = daily_traffic(quick)
    world = make_traffic_world(**WORLD, rng=seed)
    boosts = daily_boosts(n_days, np.random.default_rng([seed, 1]))
    config = {"world": WORLD, "day": day_cfg, "seed": seed, "B": N_RESAMPLES, "boosts": boosts.tolist()}

    def compute(day):
        logs = simulate_traffic(world, n_days=1, boosts={1: float(boosts[day])},
                                rng=np.random.default_rng([seed, 2, day]), **day_cfg)
        groups = world.groups.tolist()
        rows = []
        tic = time.perf_counter()
        delta = reo.estimate_reo(logs.default, logs.random, groups=groups)
        seconds = time.perf_counter() - tic
        rows.append(("delta", delta.penalty_se, *delta.penalty_ci, np.nan, seconds))
        for method in ("standard", "bca"):
            tic = time.perf_counter()
            res, boot = reo.bootstrap_reo_ci(logs.default, logs.random, groups=groups, interval=method,
                                             n_resamples=N_RESAMPLES, rng=np.random.default_rng([seed, 3, day]))
            seconds = time.perf_counter() - tic
            rows.append((f"{method} bootstrap" if method == "standard" else "BCa bootstrap",
                         res.penalty_se, *res.penalty_ci, float(boot.bias[-1]), seconds))
        df = pd.DataFrame(rows, columns=["method", "se", "ci_low", "ci_high", "bias", "seconds"])
        df.insert(0, "day", day)
        df["penalty"] = delta.penalty
        df["relative_bias"] = df["bias"] / delta.penalty
        df["truth"] = logs.truth.penalty
        df["n_default"], df["n_random"] = delta.n_default, delta.n_random
        return df

    df = run_parts(out_dir, config, list(range(n_days)), compute, progress=progress, desc=NAME)
    paths = [write_csv(df, out_dir / f"{NAME}.csv")]
    paths.append(_plot(df, out_dir / f"{NAME}.png"))
    return paths


def _plot(df: pd.DataFrame, path: Path) -> Path:
    from ocef.experiments import plotting

    fig, (a1, a2) = plotting.subplots(1, 2, figsize=(12, 4.3), gridspec_kw={"width_ratios": [1.6, 1]})
    methods = ["delta", "standard bootstrap", "BCa bootstrap"]
    for j, m in enumerate(methods):
        part = df[df["method"] == m]
        x = part["day"] + (j - 1) * 0.22
        a1.errorbar(x, part["penalty"], yerr=[part["penalty"] - part["ci_low"], part["ci_high"] - part["penalty"]],
                    fmt="o", ms=3, capsize=2, label=f"{m} (mean time {part['seconds'].mean() * 1e3:.1f} ms)")
    truth = df[df["method"] == "delta"]
    a1.plot(truth["day"], truth["truth"], "k_", ms=10, label="simulator truth")
    a1.set_xlabel("day")
    a1.set_ylabel("ΔREO with 95% CI")
    a1.set_xticks(truth["day"])
    a1.set_title(f"Fig. 7: CI of ΔREO by method (bootstrap B={N_RESAMPLES})", fontsize=10)
    plotting.legend_below(a1)
    a1.grid(True, alpha=0.3)
    bias = df[df["method"] == "standard bootstrap"]
    a2.bar(bias["day"], 100 * bias["relative_bias"], color=np.where(bias["relative_bias"] > 0, "C0", "C3"))
    a2.axhline(0, color="k", lw=0.8)
    for v in (-3, 3):
        a2.axhline(v, color="gray", ls=":", lw=1)
    a2.set_xlabel("day")
    a2.set_ylabel("bootstrap bias / estimate (%)")
    a2.set_xticks(bias["day"])
    a2.set_title("Fig. 8: bootstrap estimate of the bias of ΔREO", fontsize=10)
    a2.grid(True, alpha=0.3)
    fig.suptitle(f"Simulated days: ~{int(truth['n_default'].mean()):,} default + ~{int(truth['n_random'].mean()):,} "
                 f"random rows/day, 2 item groups", fontsize=10)
    return save_figure(fig, path)
