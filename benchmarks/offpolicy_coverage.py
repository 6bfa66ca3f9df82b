"""Coverage of the off-policy intervals on synthetic bandit logs with exact truth (issue 30 step 3).

Cells: loggers {uniform, epsilon-greedy (eps=0.2, argmax target: weights up to 50), softmax} x
n in {10^3, 10^4, 10^5} x base reward rate {0.2, 0.01 (rare clicks)}; one environment per cell
(20 contexts x 10 actions), ``--reps`` logs per cell. Methods: Wald-t on the IPS, linearized SNIPS
and cross-fitted DR rows, the percentile bootstrap of IPS (200 resamples; n <= 10^4 only: at 10^5 it is Wald),
and VowpalWabbit/estimators' Cressie-Read, Gaussian, Clopper-Pearson and betting intervals.
Then the trust rule: coverage of the asymptotic intervals pooled over cells, by ess_clicks (ESS x
SNIPS value: the floors of ocef.offpolicy.diagnostics.TRUST_FLOORS were chosen from these runs), by effective clicks
(rows with reward > 0 and weight > 0), by the effective number of clicks (sum w r)^2 / sum (w r)^2
and by effective sample size.

Non-binary rewards (``--reward``): ``rating`` draws 1-5 stars rescaled to [0, 1], (stars − 1) / 4 ~
Binomial(4, ρ) / 4; ``beta`` a continuous reward ~ Beta(2ρ, 2(1 − ρ)); both have mean ρ(x, a), so the
truth is unchanged and the floors on ``ess_clicks`` (ESS × value, in the reward's units) can be
checked outside 0/1 rewards.

    python benchmarks/offpolicy_coverage.py [--quick] [--reps-scale 1.0] [--seed 0] [--csv PATH]
                                            [--reward binary|rating|beta]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ocef.offpolicy import simulate
from ocef.offpolicy.simulate import bandit_environment, interval_coverage

_BINARY_LOG = simulate.sample_bandit_log


def _graded(kind: str):
    """``sample_bandit_log`` with the 0/1 reward replaced by a graded one of the same mean ρ(x, a)."""
    def sample(environment, n, *, rng=None):
        gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
        log = _BINARY_LOG(environment, n, rng=gen)
        rho = np.clip(environment.rho[log.context, log.action], 1e-6, 1 - 1e-6)
        r = gen.binomial(4, rho) / 4.0 if kind == "rating" else gen.beta(2 * rho, 2 * (1 - rho))
        return log._replace(reward=r)
    return sample

CELLS = [(logger, target, n, base)
         for logger, target in (("uniform", "softmax"), ("epsilon-greedy", "argmax"), ("softmax", "softmax"))
         for base in (0.2, 0.01) for n in (1_000, 10_000, 100_000)]
REPS = {1_000: 500, 10_000: 200, 100_000: 60}
ASYMPTOTIC = ("ips/wald", "ips/bootstrap", "ips/gaussian", "snips/wald", "dr/wald")
CLICK_BINS = [0, 5, 10, 20, 30, 50, 100, np.inf]
CLICK_ESS_BINS = [0, 5, 10, 15, 20, 30, 40, 50, 75, 100, 200, np.inf]
ESS_BINS = [0, 50, 100, 200, 500, 1000, 5000, np.inf]


def _summary(frame: pd.DataFrame) -> pd.DataFrame:
    ok = frame[frame["reason"].isna()].astype({"covered": float})
    out = ok.groupby("method").agg(coverage=("covered", "mean"), runs=("covered", "size"),
                                   width=("width", "mean"))
    out["se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["runs"])
    out["null"] = frame.groupby("method")["reason"].apply(lambda s: int(s.notna().sum()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="n <= 10^4 and a tenth of the repetitions")
    parser.add_argument("--reps-scale", type=float, default=1.0, help="multiply the repetitions per cell")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", default=None, help="write every run here")
    parser.add_argument("--reward", default="binary", choices=("binary", "rating", "beta"),
                        help="0/1 clicks, 1-5 ratings rescaled to [0, 1], or a continuous Beta reward")
    parser.add_argument("--max-n", type=int, default=100_000, help="skip cells with more rows")
    args = parser.parse_args()
    if args.reward != "binary":
        simulate.sample_bandit_log = _graded(args.reward)
    scale = args.reps_scale * (0.1 if args.quick else 1.0)
    seeds = np.random.SeedSequence(args.seed).spawn(len(CELLS))
    frames, rows = [], []
    start = time.perf_counter()
    for (logger, target, n, base), seed in zip(CELLS, seeds):
        if (args.quick and n > 10_000) or n > args.max_n:
            continue
        env_seed, log_seed = seed.spawn(2)
        env = bandit_environment(logger=logger, target=target, base_rate=base, rng=env_seed)
        reps = max(20, int(REPS[n] * scale))
        frame = interval_coverage(env, n, n_reps=reps, bootstrap=n <= 10_000, n_resamples=200, rng=log_seed)
        frame.insert(0, "cell", f"{logger}/{target} n={n:g} rate={base}")
        frames.append(frame)
        s = _summary(frame)
        s.insert(0, "cell", f"{logger}/{target} n={n:g} rate={base}")
        s["V"] = env.value
        s["max_w"] = float((env.target / env.logging)[env.target > 0].max())
        s["eff_clicks"] = float(frame["effective_clicks"].median())
        rows.append(s.reset_index())
        print(f"[{time.perf_counter() - start:6.0f} s] {logger}/{target} n={n} rate={base}: {reps} logs; "
              + ", ".join(f"{m} {c:.3f}" for m, c in s["coverage"].items()), flush=True)
        if args.csv:
            frame.to_csv(args.csv, mode="a", header=len(frames) == 1, index=False)
    table = pd.concat(rows, ignore_index=True)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    print("\nCoverage of nominal 95% intervals (se = binomial standard error; width = mean width):")
    wide = table.pivot(index="cell", columns="method", values="coverage").round(3)
    print(wide.to_string())
    print("\nMean width:")
    print(table.pivot(index="cell", columns="method", values="width").round(4).to_string())
    print("\nCells: truth, largest weight, median effective clicks")
    print(table.groupby("cell")[["V", "max_w", "eff_clicks"]].first().round(4).to_string())
    every = pd.concat(frames, ignore_index=True)
    ok = every[every["reason"].isna() & every["method"].isin(ASYMPTOTIC)].copy()
    ok["covered"] = ok["covered"].astype(float)
    ok["click_bin"] = pd.cut(ok["effective_clicks"], CLICK_BINS, right=False)
    ok["ess_bin"] = pd.cut(ok["ess"], ESS_BINS, right=False)
    print("\nTrust rule: coverage of the asymptotic intervals by effective clicks (runs in brackets)")
    cov = ok.pivot_table(index="click_bin", columns="method", values="covered", aggfunc="mean", observed=True)
    cnt = ok.pivot_table(index="click_bin", columns="method", values="covered", aggfunc="size", observed=True)
    print((cov.round(3).astype(str) + " (" + cnt.astype("Int64").astype(str) + ")").to_string())
    print("\nby the effective number of clicks (sum w r)^2 / sum (w r)^2")
    ok["click_ess_bin"] = pd.cut(ok["click_ess"], CLICK_ESS_BINS, right=False)
    cov = ok.pivot_table(index="click_ess_bin", columns="method", values="covered", aggfunc="mean", observed=True)
    cnt = ok.pivot_table(index="click_ess_bin", columns="method", values="covered", aggfunc="size", observed=True)
    print((cov.round(3).astype(str) + " (" + cnt.astype("Int64").astype(str) + ")").to_string())
    print("\nby ess_clicks = ESS x SNIPS value, the trust rule's quantity (ocef.offpolicy.diagnostics.TRUST_FLOORS)")
    ok["ess_clicks_bin"] = pd.cut(ok["ess_clicks"], [0, 5, 10, 20, 30, 50, 100, np.inf], right=False)
    cov = ok.pivot_table(index="ess_clicks_bin", columns="method", values="covered", aggfunc="mean", observed=True)
    cnt = ok.pivot_table(index="ess_clicks_bin", columns="method", values="covered", aggfunc="size", observed=True)
    print((cov.round(3).astype(str) + " (" + cnt.astype("Int64").astype(str) + ")").to_string())
    print("\nby effective sample size")
    cov = ok.pivot_table(index="ess_bin", columns="method", values="covered", aggfunc="mean", observed=True)
    cnt = ok.pivot_table(index="ess_bin", columns="method", values="covered", aggfunc="size", observed=True)
    print((cov.round(3).astype(str) + " (" + cnt.astype("Int64").astype(str) + ")").to_string())
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
