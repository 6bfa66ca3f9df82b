"""Shared sweep and figure code for the bandit experiments (Do et al. App. D.1, Fig. 8-10)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.environments.bandits import EXPECTED_VERDICT, paper_instance
from ocef.experiments._io import note_dataset, run_parts, save_figure, write_csv
from ocef.experiments.claims import Claim
from ocef.envy import bounds
from ocef.envy.runner import run_bandits

COLORS = {1: "tab:blue", 2: "tab:orange", 3: "tab:green", 4: "tab:red"}


def sweep(out_dir: Path, name: str, configs: pd.DataFrame, *, n_arms: int, trials: int, seed: int,
          progress: bool, max_steps: int = 10**6) -> pd.DataFrame:
    """Run every configuration ``trials`` times (one vectorized batch per instance,
    cached per instance so that an interrupted sweep resumes)."""
    means = {i: paper_instance(i, n_arms) for i in (1, 2, 3, 4)}
    note_dataset(f"simulated Bernoulli bandits, the 4 instances of App. D.1 (K_max={n_arms})")
    config = {"name": name, "configs": configs.to_dict("list"), "n_arms": n_arms, "trials": trials,
              "seed": seed, "max_steps": max_steps}

    def compute(instance):
        sub = configs[configs["instance"] == instance]
        runs = run_bandits(sub, means, trials=trials, rng=[seed, instance], max_steps=max_steps,
                           progress=progress).to_frame()
        runs["correct"] = runs["verdict"] == EXPECTED_VERDICT[instance]
        return _with_bounds(runs, means[instance])

    return run_parts(out_dir, config, sorted(configs["instance"].unique()), compute, progress=progress, desc=name)


def _with_bounds(runs: pd.DataFrame, mu: np.ndarray) -> pd.DataFrame:
    """``runs`` with the Theorem 6 duration bound and Theorem 7 cost bound of each run's
    configuration (bandit μ_{0:K}, δ, α, ε), computed once per configuration, not per trial."""
    keys = ["n_arms", "delta", "alpha", "epsilon"]
    conf = runs[keys].drop_duplicates()
    rows = list(conf.itertuples(index=False))
    conf = conf.assign(duration_bound=[float(bounds.duration_bound(mu[: k + 1], d, a, e)) for k, d, a, e in rows],
                       cost_bound=[float(bounds.cost_bound(mu[: k + 1], d, a, e)) for k, d, a, e in rows])
    return runs.merge(conf, on=keys, how="left", validate="many_to_one")


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
    """Two panels: duration (log scale, with the Theorem 6 bound dashed) and cost (linear, signed),
    mean ± 95% CI over the trials; one legend under the panels."""
    from ocef.experiments import plotting

    fig, (ax_d, ax_c) = plotting.subplots(1, 2, figsize=(12, 4.9))
    for inst, df in summary.groupby("instance"):
        c = COLORS[inst]
        ax_d.errorbar(df[x], df["duration_mean"], yerr=df["duration_ci95"], color=c, marker="o",
                      label=f"Prob. {inst}")
        ax_d.plot(df[x], df["duration_bound"], color=c, ls="--", lw=1)
        ax_c.errorbar(df[x], df["cost_mean"], yerr=df["cost_ci95"], color=c, marker="o", label=f"Prob. {inst}")
    ax_d.set_yscale("log")
    plotting.plain_log_labels(ax_d, "y")
    ax_d.set_ylabel("duration (steps)")
    ax_d.plot([], [], color="gray", ls="--", label="Theorem 6 bound")
    plotting.cost_axis(ax_c, "cost of exploration (eq. 10)")
    cb = summary.groupby("instance")["cost_bound"].agg(["min", "max"])
    ax_c.set_title("Theorem 7 cost bound — " + ", ".join(
        f"Prob. {i}: {r['min']:.3g}" + ("" if r["min"] == r["max"] else f"–{r['max']:.3g}") for i, r in cb.iterrows()),
        fontsize=8)
    for ax in (ax_d, ax_c):
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
            plotting.log_ticks(ax, summary[x])
        else:
            ax.set_xticks(sorted(summary[x].unique()))
    plotting.fig_legend_below(fig, ax_d, ncol=5)
    fig.suptitle(title + "  (mean ± 95% CI; dashed: Theorem 6 bound)")
    return save_figure(fig, path)


def common_claims(figure: str) -> list[Claim]:
    """Claims every bandit sweep checks: constraint (7), δ-correctness (Theorem 1), Theorem 6."""
    return [
        Claim(figure, "The conservative exploration constraint (7) holds at every step of every run",
              lambda df: (bool(df["constraint_held"].all()),
                          f"{int(df['constraint_held'].sum())} of {len(df)} configurations held it throughout"),
              test="deterministic: checked at every step", if_false="contradicted",
              reason_if_false="a run violated constraint (7)"),
        Claim(figure, "OCEF's verdict is correct with probability at least 1 - δ (Theorem 1)",
              _correct_rate,
              test="one-sided exact binomial test of each configuration's correct verdicts against 1 - δ, "
                   "Bonferroni over configurations, level 0.05",
              if_false="contradicted",
              reason_if_false="a configuration's share of correct verdicts is significantly below 1 - δ"),
        Claim(figure, "The mean duration stays below the Theorem 6 bound",
              lambda df: (bool((df["duration_mean"] <= df["duration_bound"]).all()),
                          f"largest duration / bound = {(df['duration_mean'] / df['duration_bound']).max():.3g}"),
              test="mean duration <= bound at every configuration (point comparison)",
              reason_if_false="a mean duration exceeds the Theorem 6 bound; its sampling error was not tested"),
    ]


def _correct_rate(df: pd.DataFrame) -> tuple[bool, str]:
    """Each configuration's count of correct verdicts is tested against a rate of 1 - δ
    (one-sided binomial, Bonferroni over the configurations)."""
    from scipy import stats

    delta = df["delta"] if "delta" in df else pd.Series(0.05, index=df.index)
    n = df["trials"].astype(int)
    correct = (df["correct_rate"] * n).round().astype(int)
    p = stats.binom.cdf(correct, n, 1 - delta)
    level = 0.05 / len(df)
    return bool((p >= level).all()), (f"{int((n - correct).sum())} wrong verdicts in {int(n.sum())} runs; "
                                      f"smallest binomial p-value against 1-δ: {p.min():.3g} (level {level:.2g})")


def finish(out_dir: Path, name: str, runs: pd.DataFrame, x: str, xlabel: str, title: str, logx: bool) -> list[Path]:
    summary = summarize(runs, x)
    csv = write_csv(summary, out_dir / f"{name}.csv")
    runs_csv = write_csv(runs, out_dir / f"{name}_runs.csv")
    png = plot(summary, x, xlabel, title, out_dir / f"{name}.png", logx=logx)
    return [csv, runs_csv, png]
