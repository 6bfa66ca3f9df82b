"""Shared sweep and figure code for the bandit experiments (Do et al. App. D.1, Fig. 8-10)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.environments.bandits import EXPECTED_VERDICT, paper_instance
from ocef.experiments._io import run_parts, save_figure, write_csv
from ocef import bounds
from ocef.runner import run_bandits

COLORS = {1: "tab:blue", 2: "tab:orange", 3: "tab:green", 4: "tab:red"}


def sweep(out_dir: Path, name: str, configs: pd.DataFrame, *, n_arms: int, trials: int, seed: int,
          progress: bool, max_steps: int = 10**6) -> pd.DataFrame:
    """Run every configuration ``trials`` times (one vectorized batch per instance,
    cached per instance so that an interrupted sweep resumes)."""
    means = {i: paper_instance(i, n_arms) for i in (1, 2, 3, 4)}
    config = {"name": name, "configs": configs.to_dict("list"), "n_arms": n_arms, "trials": trials,
              "seed": seed, "max_steps": max_steps}

    def compute(instance):
        sub = configs[configs["instance"] == instance]
        runs = run_bandits(sub, means, trials=trials, rng=[seed, instance], max_steps=max_steps,
                           progress=progress).to_frame()
        runs["correct"] = runs["verdict"] == EXPECTED_VERDICT[instance]
        k = runs["n_arms"].to_numpy()
        mu = [means[instance][: kk + 1] for kk in k]
        runs["duration_bound"] = [float(bounds.duration_bound(m, d, a, e)) for m, d, a, e in
                                  zip(mu, runs["delta"], runs["alpha"], runs["epsilon"])]
        runs["cost_bound"] = [float(bounds.cost_bound(m, d, a, e)) for m, d, a, e in
                              zip(mu, runs["delta"], runs["alpha"], runs["epsilon"])]
        return runs

    runs = run_parts(out_dir, config, sorted(configs["instance"].unique()), compute, progress=progress,
                     desc=name)
    return runs


def summarize(runs: pd.DataFrame, x: str) -> pd.DataFrame:
    """Mean and 95% confidence half-width (1.96 standard errors) per instance and x."""
    g = runs.groupby(["instance", x])
    out = g.agg(trials=("duration", "size"), duration_mean=("duration", "mean"), duration_sd=("duration", "std"),
                cost_mean=("cost", "mean"), cost_sd=("cost", "std"), correct_rate=("correct", "mean"),
                timeouts=("verdict", lambda v: int((v == "timeout").sum())),
                constraint_held=("constraint_held", "all"), duration_bound=("duration_bound", "first"),
                cost_bound=("cost_bound", "first")).reset_index()
    se = 1.96 / np.sqrt(out["trials"])
    out["duration_ci95"] = out["duration_sd"].fillna(0) * se
    out["cost_ci95"] = out["cost_sd"].fillna(0) * se
    return out


def plot(summary: pd.DataFrame, x: str, xlabel: str, title: str, path: Path, *, logx: bool) -> Path:
    """Two panels: duration (log scale, with the Theorem 6 bound dashed) and cost."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_d, ax_c) = plt.subplots(1, 2, figsize=(12, 4.6))
    for inst, df in summary.groupby("instance"):
        c = COLORS[inst]
        ax_d.errorbar(df[x], df["duration_mean"], yerr=df["duration_ci95"], color=c, marker="o", ms=3,
                      capsize=2, label=f"Prob. {inst}")
        ax_d.plot(df[x], df["duration_bound"], color=c, ls="--", lw=1)
        ax_c.errorbar(df[x], df["cost_mean"], yerr=df["cost_ci95"], color=c, marker="o", ms=3, capsize=2,
                      label=f"Prob. {inst}")
    ax_d.set_yscale("log")
    ax_d.set_ylabel("duration (steps)")
    ax_d.plot([], [], color="gray", ls="--", label="Theorem 6 bound")
    ax_c.axhline(0, color="gray", lw=0.8)
    ax_c.set_ylabel("cost of exploration (eq. 10)")
    cb = summary.groupby("instance")["cost_bound"].agg(["min", "max"])
    ax_c.set_title("Theorem 7 cost bound — " + ", ".join(
        f"Prob. {i}: {r['min']:.3g}" + ("" if r["min"] == r["max"] else f"–{r['max']:.3g}") for i, r in cb.iterrows()),
        fontsize=8)
    for ax in (ax_d, ax_c):
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    ax_d.legend(fontsize=8)
    fig.suptitle(title + "  (mean ± 95% CI; dashed: Theorem 6 bound)")
    fig.tight_layout()
    return save_figure(fig, path)


def finish(out_dir: Path, name: str, runs: pd.DataFrame, x: str, xlabel: str, title: str, logx: bool) -> list[Path]:
    summary = summarize(runs, x)
    csv = write_csv(summary, out_dir / f"{name}.csv")
    runs_csv = write_csv(runs, out_dir / f"{name}_runs.csv")
    png = plot(summary, x, xlabel, title, out_dir / f"{name}.png", logx=logx)
    return [csv, runs_csv, png]
