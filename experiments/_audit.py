"""Shared code of the MovieLens audit experiments (Do et al. Sec. 6.2, App. D.2, App. E;
Fig. 2, 3, 11, 15, 16): the audited system, resumable sweeps and figures."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ocef.errors import DatasetNotFoundError
from ocef.experiments._io import fallback, note_dataset, run_parts, save_figure, write_csv
from ocef.experiments.claims import OCEF_ML_1M, Claim, NotCheckable, require, trend

#: Sec. 6.2 / App. D.2: argmax policy on a 50-factor Funk SVD trained on 20% of the entries.
FACTORS = 50
POLICY = "argmax"
PARTITIONS = ("gender", "age", "occupation", "gender-age", "gender-occupation", "age-occupation")
QUICK_PARTITIONS = ("gender", "age", "gender-age")
#: Step cap: groups still undecided then are reported as timeouts (share in the CSV).
MAX_STEPS = 200_000
QUICK_MAX_STEPS = 20_000


def budget(quick: bool) -> tuple[int, int]:
    """(trials per setting, step cap) of every audit experiment: 20 and MAX_STEPS, or 3 and
    QUICK_MAX_STEPS for a quick run."""
    return (3, QUICK_MAX_STEPS) if quick else (20, MAX_STEPS)


COLORS = dict(zip(PARTITIONS, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]))


def environment(data_dir: Path | None, quick: bool):
    """ML-1M when its files are found, else ML-100K; a quick run without MovieLens falls back
    to the synthetic environment (the figure says which)."""
    from ocef.environments.movielens_env import MovieLensEnvironment

    try:
        env = MovieLensEnvironment(data_dir)
    except DatasetNotFoundError:
        if not quick:
            raise
    else:
        note_dataset(env.description)
        return env
    return synthetic_fallback()


def synthetic_fallback():
    """The synthetic environment a quick run uses when no MovieLens files are found (here and in
    envy-misspecification), announced in one line and recorded as the run's data set."""
    from ocef.environments.synthetic import SyntheticEnvironment

    env = SyntheticEnvironment(n_users=300, n_items=200, rank=8, n_groups=10, rng=0)
    fallback("MovieLens (ml-1m/ or ml-100k/)", f"the synthetic environment ({env.description})")
    return env


def partitions(env, quick: bool) -> tuple[str, ...]:
    if "group" in env.partitions:                      # synthetic fallback
        return ("group",)
    return QUICK_PARTITIONS if quick else PARTITIONS


def audit_problem(env, partition: str, *, train_fraction: float = 0.2, seed: int = 0):
    from ocef.envy.audit import AuditProblem
    from ocef.policies.builders import build_policy

    labels, names = env.groups(partition)
    policy = build_policy(POLICY, env.estimated_scores(FACTORS, train_fraction, rng=seed))
    return AuditProblem(env.rho, policy, labels, group_names=names)


def sweep(out_dir: Path, name: str, env, parts, *, param: str, values, trials: int, seed: int,
          max_steps: int, progress: bool, train_fraction: float = 0.2, alpha: float = 0.05,
          delta: float = 0.05, epsilon: float = 0.05) -> pd.DataFrame:
    """Audit every partition for every value of ``param`` ("alpha" or "delta"), ``trials``
    times; one resumable part per partition. One row per (value, trial, group)."""
    from ocef.envy.audit import run_audit

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
    trials, cap = budget(quick)
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


def draw(summary: pd.DataFrame, x: str, xlabel: str, axes, *, logx: bool = True, logy: bool = True,
         reference: pd.DataFrame | None = None, reference_label: str = "") -> None:
    """Duration (and cost, when two axes are given) vs ``x``, one line per partition, mean ± 95% CI
    over trials. ``reference`` (same columns) is drawn on the same axes, dotted and unmarked."""
    from ocef.experiments import plotting

    ax_d = axes[0]
    for part, df in summary.groupby("partition", sort=False):
        label = f"{part} ({int(df['n_groups'].iloc[0])} groups"
        label += f"; {int(df['groups_averaged'].max())} ε-envious)" if envious_only(df) else ")"
        c = COLORS.get(part, "tab:gray")
        ax_d.errorbar(df[x], df["duration_mean"], yerr=df["duration_ci95"], marker="o", ms=3, color=c, label=label)
        timeouts = df[df["share_timeout"] > 0]
        if len(timeouts):
            ax_d.scatter(timeouts[x], timeouts["duration_mean"], marker="x", s=40, color=c, zorder=5)
        if len(axes) > 1:
            axes[1].errorbar(df[x], df["cost_mean"], yerr=df["cost_ci95"], marker="o", ms=3, color=c, label=label)
    if reference is not None and len(reference):
        for part, df in reference.groupby("partition", sort=False):
            c = COLORS.get(part, "tab:gray")
            ax_d.plot(df[x], df["duration_mean"], ls=":", lw=1.2, color=c)
            if len(axes) > 1:
                axes[1].plot(df[x], df["cost_mean"], ls=":", lw=1.2, color=c)
        ax_d.plot([], [], ls=":", color="gray", label=reference_label)
    ax_d.set_ylabel("duration (steps per user)")
    if logy:
        ax_d.set_yscale("log")
        plotting.plain_log_labels(ax_d, "y")
    if len(axes) > 1:
        plotting.cost_axis(axes[1], "cost of exploration per user (eq. 10)")
    for ax in axes:
        ax.set_xlabel(xlabel)
        if logx:
            ax.set_xscale("log")
            plotting.log_ticks(ax, summary[x])
    if summary["share_timeout"].gt(0).any():
        ax_d.scatter([], [], marker="x", s=40, color="gray", label="x: some groups hit the step cap (counted as the cap)")
    plotting.legend_below(ax_d, ncol=2)


def plot(summary: pd.DataFrame, x: str, xlabel: str, title: str, path: Path, *, cost: bool = True,
         logx: bool = True, logy: bool = True) -> Path:
    from ocef.experiments import plotting

    ncols = 2 if cost else 1
    fig, axes = plotting.subplots(1, ncols, figsize=(6.2 * ncols, 5.4), squeeze=False)
    draw(summary, x, xlabel, list(axes[0]), logx=logx, logy=logy)
    fig.suptitle(title, fontsize=10)
    return save_figure(fig, path)


# --------------------------------------------------------------------------- claims (Sec. 6.2, App. D.2)
def common_claims(figure: str) -> list[Claim]:
    """Constraint (7) and δ-correctness of the whole audit (Cor. 7.1), on every partition."""
    def correct(df: pd.DataFrame) -> tuple[bool, str]:
        # δ = 0.05 wherever it is not the swept parameter (SWEEPS)
        delta = df["delta"].fillna(0.05) if "delta" in df else pd.Series(0.05, index=df.index)
        worst = (1 - df["correct_rate"]).max()
        return bool((1 - df["correct_rate"] <= delta).all()), (
            f"lowest share of correct verdicts among groups that got one: {df['correct_rate'].min():.3f} "
            f"(error {worst:.3f} vs δ ≥ {delta.min():g})")

    return [
        Claim(figure, "The conservative constraint (7) holds at every step of every audit",
              lambda df: (bool(df["constraint_held"].all()),
                          f"{int(df['constraint_held'].sum())} of {len(df)} points held it throughout"),
              test="deterministic: checked at every step", if_false="contradicted",
              reason_if_false="an audit violated constraint (7)"),
        Claim(figure, "Verdicts are correct with probability ≥ 1 - δ (Cor. 7.1)", correct,
              test="error rate <= δ at every point (point comparison of shares)",
              reason_if_false="some point's share of wrong verdicts exceeds δ (no binomial test of the excess)",
              paper_data=OCEF_ML_1M),
    ]


def _interior_minimum(df: pd.DataFrame) -> tuple[bool, str]:
    sub = require(df, "partition", ("gender-occupation", "age-occupation"))
    notes, holds = [], True
    for part, d in sub.groupby("partition"):
        d = d.sort_values("alpha")
        i = int(np.argmin(d["duration_mean"].to_numpy()))
        holds = holds and 0 < i < len(d) - 1
        notes.append(f"{part}: minimum {d['duration_mean'].iloc[i]:,.0f} steps at α={d['alpha'].iloc[i]:g} "
                     f"(grid {d['alpha'].min():g}-{d['alpha'].max():g})")
    return holds, "; ".join(notes)


def _cost_signs(df: pd.DataFrame) -> tuple[bool, str]:
    env = df[df["partition"] == "age-occupation"]
    rest = df[df["partition"] != "age-occupation"]
    if env.empty:
        raise NotCheckable("no age-occupation partition")
    neg = bool((env["cost_mean"] < 0).all())
    pos = rest.groupby("partition")["cost_mean"].apply(lambda c: bool((c > 0).all()))
    return neg and bool(pos.all()), (
        f"age-occupation (envious groups) cost {env['cost_mean'].min():.3g}..{env['cost_mean'].max():.3g}; "
        "positive at every α: " + ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in pos.items()))


ALPHA_CLAIMS = [
    Claim("Fig. 2", "For gender-occupation and age-occupation, duration is minimal for a non-trivial α",
          _interior_minimum, test="the grid's argmin of the mean duration is interior",
          reason_if_false="the minimum sits at an end of the α grid: a wider grid would settle it",
          quick="3 values of α on 3 partitions without gender-occupation or age-occupation",
          paper_data=OCEF_ML_1M),
    Claim("Fig. 2", "The cost of exploration increases with α (partitions without envious groups; common slope "
                    "of cost on log α > 0)",
          lambda df: trend(df[df["partition"] != "age-occupation"], "alpha", "cost_mean", sign=+1,
                           by="partition", logx=True),
          test="95% t interval of the common slope (one intercept per partition)", paper_data=OCEF_ML_1M),
    Claim("Fig. 2", "For envious age-occupation groups the cost is negative; on all other partitions it is positive",
          _cost_signs, test="sign of each mean cost (point comparison)",
          reason_if_false="a mean cost has the other sign (no interval tested)", paper_data=OCEF_ML_1M),
]


def _orders_larger(df: pd.DataFrame) -> tuple[bool, str]:
    sub = require(df, "partition", ("gender-occupation",))
    fine = sub["duration_mean"].mean()
    coarse = require(df, "partition", ("gender",))["duration_mean"].mean()
    return bool(fine / coarse >= 10), (f"mean duration gender-occupation {fine:,.0f} vs gender {coarse:,.0f} "
                                       f"steps: ratio {fine / coarse:.1f}")


DELTA_CLAIMS = [
    Claim("Fig. 11", "The number of samples per user decreases as δ increases (common log-log slope < 0)",
          lambda df: trend(df, "delta", "duration_mean", sign=-1, by="partition", logx=True, logy=True),
          test="95% t interval of the common log-log slope (one intercept per partition)", paper_data=OCEF_ML_1M),
    Claim("Fig. 11", "gender-occupation (42 groups) needs orders of magnitude more samples than gender (2 groups)",
          _orders_larger, test="ratio of mean durations >= 10 (point comparison)",
          reason_if_false="the ratio of mean durations is below 10 (no interval tested)", paper_data=OCEF_ML_1M),
    Claim("Fig. 11", "The cost per user follows the same decreasing trend in δ (partitions without envious groups, "
                     "as in Fig. 2's cost claim: age-occupation's cost is negative; common slope of cost on log δ < 0)",
          lambda df: trend(df[df["partition"] != "age-occupation"], "delta", "cost_mean", sign=-1, by="partition",
                           logx=True),
          test="95% t interval of the common slope (one intercept per partition)", paper_data=OCEF_ML_1M),
]


def finish(out_dir: Path, name: str, runs: pd.DataFrame, x: str, xlabel: str, title: str, **plot_kw) -> list[Path]:
    summary = summarize(runs, x)
    return [write_csv(summary, out_dir / f"{name}.csv"), write_csv(runs, out_dir / f"{name}_groups.csv"),
            plot(summary, x, xlabel, title, out_dir / f"{name}.png", **plot_kw)]


def describe(env, quick: bool, trials: int, max_steps: int) -> str:
    return (f"{env.description}; {POLICY} policy, {FACTORS} factors; {trials} trials; "
            f"step cap {max_steps:,}{' (quick)' if quick else ''}")
