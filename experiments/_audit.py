"""Shared code of the MovieLens audit experiments (Do et al. Sec. 6.2, App. D.2, App. E;
Fig. 2, 3, 11, 15, 16): the audited system, resumable sweeps and figures."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.experiments._io import run_parts, save_figure, write_csv

#: Sec. 6.2 / App. D.2: argmax policy on a 50-factor Funk SVD trained on 20% of the entries.
FACTORS = 50
POLICY = "argmax"
PARTITIONS = ("gender", "age", "occupation", "gender-age", "gender-occupation", "age-occupation")
QUICK_PARTITIONS = ("gender", "age", "gender-age")
#: Step cap: groups still undecided then are reported as timeouts (share in the CSV).
MAX_STEPS = 200_000
QUICK_MAX_STEPS = 20_000
COLORS = dict(zip(PARTITIONS, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]))


def environment(data_dir: Path | None, quick: bool):
    """ML-1M when its files are found, else ML-100K; a quick run without MovieLens falls back
    to the synthetic environment (the figure says which)."""
    from ocef.environments.movielens_env import MovieLensEnvironment

    try:
        return MovieLensEnvironment(data_dir)
    except FileNotFoundError:
        if not quick:
            raise
    from ocef.environments.synthetic import SyntheticEnvironment

    return SyntheticEnvironment(n_users=300, n_items=200, rank=8, n_groups=10, rng=0)


def partitions(env, quick: bool) -> tuple[str, ...]:
    if "group" in env.partitions:                      # synthetic fallback
        return ("group",)
    return QUICK_PARTITIONS if quick else PARTITIONS


def audit_problem(env, partition: str, *, train_fraction: float = 0.2, seed: int = 0):
    from ocef.audit import AuditProblem
    from ocef.policies.builders import build_policy

    labels, names = env.groups(partition)
    policy = build_policy(POLICY, env.estimated_scores(FACTORS, train_fraction, seed))
    return AuditProblem(env.rho, policy, labels, group_names=names)


def sweep(out_dir: Path, name: str, env, parts, *, param: str, values, trials: int, seed: int,
          max_steps: int, progress: bool, train_fraction: float = 0.2, alpha: float = 0.05,
          delta: float = 0.05, epsilon: float = 0.05) -> pd.DataFrame:
    """Audit every partition for every value of ``param`` ("alpha" or "delta"), ``trials``
    times; one resumable part per partition. One row per (value, trial, group)."""
    from ocef.audit import run_audit

    config = {"name": name, "env": env.description, "param": param, "values": list(map(float, values)),
              "trials": trials, "seed": seed, "max_steps": max_steps, "train_fraction": train_fraction,
              "alpha": alpha, "delta": delta, "epsilon": epsilon, "factors": FACTORS, "policy": POLICY}

    def compute(partition):
        problem = audit_problem(env, partition, train_fraction=train_fraction, seed=seed)
        kw = dict(alpha=alpha, delta=delta, epsilon=epsilon)
        kw[param] = list(values)
        rep = run_audit(problem, trials=trials, rng=[seed, PARTITIONS.index(partition) if partition in PARTITIONS
                                                         else 99], max_steps=max_steps, progress=progress, **kw)
        rows = rep.groups
        rows.insert(0, "partition", partition)
        rows.insert(1, "n_groups", problem.n_groups)
        return rows

    return run_parts(out_dir, config, list(parts), compute, progress=progress, desc=name)


#: The two parameter sweeps (Fig. 2 / 15 and Fig. 11 / 16): grid (full, quick), axis label, fixed values.
SWEEPS = {
    "alpha": (np.geomspace(0.01, 0.5, 8), np.geomspace(0.05, 0.5, 3), "conservative exploration α", "δ=ε=0.05"),
    "delta": (np.array([0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5]), np.array([0.01, 0.1, 0.5]),
              "confidence δ", "α=ε=0.05"),
}


def param_sweep(out_dir: Path, env, param: str, *, quick: bool, seed: int, progress: bool,
                train_fraction: float = 0.2, name: str) -> tuple[pd.DataFrame, str]:
    """The runs of the α or δ figure (one row per value, trial and group) and its title."""
    full, short, _, fixed = SWEEPS[param]
    values = np.round(short if quick else full, 4)
    trials, cap = (3, QUICK_MAX_STEPS) if quick else (20, MAX_STEPS)
    runs = sweep(out_dir, name, env, partitions(env, quick), param=param, values=values, trials=trials, seed=seed,
                 max_steps=cap, progress=progress, train_fraction=train_fraction)
    symbol = {"alpha": "α", "delta": "δ"}[param]
    title = (f"OCEF full audit vs {symbol} — {describe(env, quick, trials, cap)}; {fixed}, training fraction "
             f"{train_fraction:g}\n(age-occupation: mean over ε-envious groups, Δ > ε; others: all groups)")
    return runs, title


def param_figure(out_dir: Path, name: str, param: str, *, quick: bool, seed: int, data_dir, progress: bool) -> list[Path]:
    """Run and write the α or δ figure (Fig. 2 or 11)."""
    env = environment(data_dir, quick)
    runs, title = param_sweep(out_dir, env, param, quick=quick, seed=seed, progress=progress, name=name)
    return finish(out_dir, name, runs, param, SWEEPS[param][2], title)


def summarize(runs: pd.DataFrame, x: str) -> pd.DataFrame:
    """Per partition and x: mean duration and cost (all groups, except age-occupation:
    ε-envious groups only, Δ^i > ε, as in Fig. 2), 95% CI over trials, shares of verdicts."""
    rows = []
    for (part, value), df in runs.groupby(["partition", x]):
        envious_only = part == "age-occupation"
        sel = df[df["true_envy"] > df["epsilon"]] if envious_only else df
        if sel.empty:
            continue
        per_trial = sel.groupby("trial")[["duration", "cost"]].mean()
        n = len(per_trial)
        rows.append({
            "partition": part, x: value, "n_groups": int(df["n_groups"].iloc[0]),
            "averaged_over": "envious groups (true envy > epsilon)" if envious_only else "all groups",
            "groups_averaged": int(sel["group"].nunique()), "trials": n,
            "duration_mean": per_trial["duration"].mean(),
            "duration_ci95": 1.96 * per_trial["duration"].std(ddof=1) / np.sqrt(n) if n > 1 else 0.0,
            "cost_mean": per_trial["cost"].mean(),
            "cost_ci95": 1.96 * per_trial["cost"].std(ddof=1) / np.sqrt(n) if n > 1 else 0.0,
            "share_envy": (sel["verdict"] == "envy").mean(), "share_no_envy": (sel["verdict"] == "no_envy").mean(),
            "share_timeout": (sel["verdict"] == "timeout").mean(),
            "correct_rate": sel["correct"].mean(), "constraint_held": bool(sel["constraint_held"].all()),
            "envious_groups": int(df.loc[df["true_envy"] > df["epsilon"], "group"].nunique()),
        })
    return pd.DataFrame(rows)


def envious_only(df: pd.DataFrame) -> bool:
    return df["averaged_over"].iloc[0].startswith("envious")


def draw(summary: pd.DataFrame, x: str, xlabel: str, axes, *, logx: bool = True, logy: bool = True) -> None:
    """Duration (and cost, when two axes are given) vs ``x``, one line per partition."""
    ax_d = axes[0]
    for part, df in summary.groupby("partition", sort=False):
        label = f"{part} ({int(df['n_groups'].iloc[0])} groups"
        label += f"; {int(df['groups_averaged'].max())} ε-envious)" if envious_only(df) else ")"
        c = COLORS.get(part, "tab:gray")
        ax_d.errorbar(df[x], df["duration_mean"], yerr=df["duration_ci95"], marker="o", ms=3, capsize=2, color=c, label=label)
        timeouts = df[df["share_timeout"] > 0]
        if len(timeouts):
            ax_d.scatter(timeouts[x], timeouts["duration_mean"], marker="x", s=40, color=c, zorder=5)
        if len(axes) > 1:
            axes[1].errorbar(df[x], df["cost_mean"], yerr=df["cost_ci95"], marker="o", ms=3, capsize=2, color=c,
                             label=label)
    ax_d.set_ylabel("duration (steps per user)")
    if logy:
        ax_d.set_yscale("log")
    if len(axes) > 1:
        axes[1].axhline(0, color="gray", lw=0.8)
        axes[1].set_ylabel("cost of exploration per user (eq. 10)")
        axes[1].set_yscale("symlog", linthresh=1.0)
    for ax in axes:
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    ax_d.legend(fontsize=7)
    if summary["share_timeout"].gt(0).any():
        ax_d.text(0.01, 0.01, "x: some groups hit the step cap (timeout); their duration counts as the cap",
                  transform=ax_d.transAxes, fontsize=7, va="bottom")


def plot(summary: pd.DataFrame, x: str, xlabel: str, title: str, path: Path, *, cost: bool = True,
         logx: bool = True, logy: bool = True) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ncols = 2 if cost else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.2 * ncols, 4.6), squeeze=False)
    draw(summary, x, xlabel, list(axes[0]), logx=logx, logy=logy)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def finish(out_dir: Path, name: str, runs: pd.DataFrame, x: str, xlabel: str, title: str, **plot_kw) -> list[Path]:
    summary = summarize(runs, x)
    return [write_csv(summary, out_dir / f"{name}.csv"), write_csv(runs, out_dir / f"{name}_groups.csv"),
            plot(summary, x, xlabel, title, out_dir / f"{name}.png", **plot_kw)]


def describe(env, quick: bool, trials: int, max_steps: int) -> str:
    return (f"{env.description}; {POLICY} policy, {FACTORS} factors; {trials} trials; "
            f"step cap {max_steps:,}{' (quick)' if quick else ''}")
