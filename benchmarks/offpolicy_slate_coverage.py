"""Coverage of the slate estimators' Wald intervals and the trust floors on ``ess_clicks`` (issue 28).

Synthetic slate logs with exact truth: 10 contexts, L slots each with its own 5 candidate items (so
a slate never repeats an item), a logger and a target that fill the slots independently (the
pseudo-inverse estimator's assumption) and an additive click model, slot reward ~ Bernoulli(ρ(x, l, a))
with ρ = base × 2 Beta(2, 2) / (l + 1) (capped at 1): every estimator is unbiased here (IIPS, RIPS,
SIPS, PI, Cascade-DR), so a miss is the interval's fault. Truth V = E_x Σ_l Σ_a π_e(a | x, l) ρ(x, l, a).
Cells: logger {uniform, softmax} (target: a sharper softmax of other scores), L in {3, 5},
base click rate {0.2, 0.02}, n_slates in {300, 1000, 5000}. Estimators: ``ocef.offpolicy.slate``'s
IIPS, RIPS, SIPS, their self-normalized forms (SNIIPS, SNRIPS per position, SNSIPS), pseudo-inverse
and Cascade-DR (q̂: the cross-fitted shrunk mean of the slot's reward per (context, slot, item),
``ocef.offpolicy.reward_model``); interval: Wald t on the per-slate rows (``intervals.wald_interval``),
slates the units. The trust rule's quantity as in ``ocef.offpolicy.audit.slate_audit``: ``ess_clicks``
of the per-slate weight mean_l w_{s,l} (of the estimator's propensity kind) with the slate's summed reward.

Printed: coverage per cell and estimator, then coverage by ``ess_clicks`` bin and the smallest floor in
{0, 5, 10, 20, 30, 50, 100, 200, 400} above which every bin covers >= 0.95 − 2 SE (bins of >= 30 logs)
— the floors of ``ocef.offpolicy.diagnostics.TRUST_FLOORS`` for the slate estimators.

    nice -n 10 python benchmarks/offpolicy_slate_coverage.py [--reps-scale 1.0] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ocef.offpolicy import intervals as iv
from ocef.offpolicy import slate
from ocef.offpolicy.diagnostics import weight_diagnostics
from ocef.offpolicy.reward_model import cross_fit_reward_model

C, K = 10, 5
REPS = {300: 300, 1000: 150, 5000: 50}
FLOORS = [0, 5, 10, 20, 30, 50, 100, 200, 400]
BINS = [0, 5, 10, 20, 30, 50, 100, 200, 400, np.inf]
ESTIMATORS = ("iips", "rips", "sips", "sniips", "snrips", "snsips", "pseudo-inverse", "cascade-dr")
KIND = {"iips": "marg", "sniips": "marg", "pseudo-inverse": "marg", "rips": "prefix", "snrips": "prefix",
        "cascade-dr": "prefix", "sips": "slate", "snsips": "slate"}


def _softmax(s, temp):
    e = np.exp((s - s.max(axis=-1, keepdims=True)) / temp)
    return e / e.sum(axis=-1, keepdims=True)


def environment(logger: str, L: int, base: float, gen):
    rho = np.minimum(1.0, base * 2 * gen.beta(2, 2, size=(C, L, K)) / (np.arange(L)[None, :, None] + 1))
    score = rho / base
    pb = (np.full((C, L, K), 1.0 / K) if logger == "uniform"
          else _softmax(score + gen.normal(0, 0.5, size=score.shape), 1.0))
    pe = _softmax(score + gen.normal(0, 0.5, size=score.shape), 0.5)
    return rho, pb, pe, float((pe * rho).sum(axis=(1, 2)).mean())


def sample(rho, pb, pe, n, gen):
    L = rho.shape[1]
    x = gen.integers(0, C, n)
    cum = np.cumsum(pb[x], axis=2)                                     # (n, L, K)
    a = np.minimum((cum < gen.random((n, L))[:, :, None]).sum(axis=2), K - 1)
    xi, li = x[:, None], np.arange(L)[None, :]
    r = (gen.random((n, L)) < rho[xi, li, a]).astype(float)
    return x, a, r, pb[xi, li, a], pe[xi, li, a]


def one_log(rho, pb, pe, V, n, gen) -> list[dict]:
    L = rho.shape[1]
    x, a, r, qb, qe = sample(rho, pb, pe, n, gen)
    sid, pos = np.repeat(np.arange(n), L), np.tile(np.arange(L), n)
    probs = {"marg": (qb, qe), "prefix": (np.cumprod(qb, axis=1), np.cumprod(qe, axis=1)),
             "slate": (np.repeat(qb.prod(axis=1, keepdims=True), L, 1), np.repeat(qe.prod(axis=1, keepdims=True), L, 1))}
    flat = {k: (b.ravel(), e.ravel()) for k, (b, e) in probs.items()}
    rr, r_s = r.ravel(), r.sum(axis=1)
    key = ((x[:, None] * L + np.arange(L)[None, :]) * K + a).ravel()
    model = cross_fit_reward_model(rr, key, C * L * K, rng=gen)
    q_hat = model.tables.reshape(-1, C, L, K)[model.fold, np.repeat(x, L), pos]          # (n L, K)
    tad = pe[np.repeat(x, L), pos]
    terms = {"iips": slate.iips_terms(sid, pos, rr, *flat["marg"]),
             "rips": slate.rips_terms(sid, pos, rr, *flat["prefix"]),
             "sips": slate.sips_terms(sid, pos, rr, *flat["slate"]),
             "sniips": slate.self_normalized_slate_terms(sid, pos, rr, *flat["marg"]),
             "snrips": slate.self_normalized_slate_terms(sid, pos, rr, *flat["prefix"]),
             "snsips": slate.self_normalized_slate_terms(sid, pos, rr, *flat["slate"], per_position=False),
             "pseudo-inverse": slate.pseudo_inverse_terms(r_s, qb, qe),
             "cascade-dr": slate.cascade_dr_terms(sid, pos, a.ravel() , rr, *flat["prefix"], q_hat, tad)}
    out = []
    for name, t in terms.items():
        b, e = probs[KIND[name]]
        d = weight_diagnostics((e / b).mean(axis=1), r_s)
        w = iv.wald_interval(t)
        out.append({"estimator": name, "estimate": w.estimate, "covered": float(w.ci_low <= V <= w.ci_high),
                    "width": w.ci_high - w.ci_low, "ess": d.ess, "ess_clicks": d.ess_clicks})
    return out


def floor_of(frame: pd.DataFrame) -> tuple[float, str]:
    """Smallest floor above which every ``ess_clicks`` bin of >= 30 logs covers >= 0.95 − 2 SE."""
    for f in FLOORS:
        above = frame[frame["ess_clicks"] >= f]
        bins = above.groupby(pd.cut(above["ess_clicks"], BINS, right=False), observed=True)["covered"].agg(["mean", "size"])
        bins = bins[bins["size"] >= 30]
        se = np.sqrt(0.95 * 0.05 / bins["size"])
        if (bins["mean"] >= 0.95 - 2 * se).all():
            pooled = above["covered"].mean()
            return f, f"pooled above {f}: {pooled:.3f} ({len(above)} logs)"
    return float("inf"), "no floor reached"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps-scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", default=None, help="append every run here, cell by cell")
    parser.add_argument("--from-csv", default=None, help="only print the tables of a saved run")
    args = parser.parse_args()
    cells = [(lg, L, base, n) for lg in ("uniform", "softmax") for L in (3, 5) for base in (0.2, 0.02)
             for n in (300, 1000, 5000)]
    seeds = np.random.SeedSequence(args.seed).spawn(len(cells))
    rows, start = [], time.perf_counter()
    if args.from_csv:
        cells, rows = [], pd.read_csv(args.from_csv).to_dict("records")
    for (lg, L, base, n), seed in zip(cells, seeds):
        gen = np.random.default_rng(seed)
        rho, pb, pe, V = environment(lg, L, base, gen)
        reps = max(20, int(REPS[n] * args.reps_scale))
        for rep in range(reps):
            for rec in one_log(rho, pb, pe, V, n, gen):
                rows.append({"cell": f"{lg} L={L} rate={base} n={n}", **rec})
        cell = pd.DataFrame([r for r in rows if r["cell"] == f"{lg} L={L} rate={base} n={n}"])
        if args.csv:
            cell.to_csv(args.csv, mode="a", header=len(rows) == len(cell), index=False)
        print(f"[{time.perf_counter() - start:5.0f} s] {lg} L={L} rate={base} n={n} ({reps} logs): " +
              ", ".join(f"{k} {v:.3f}" for k, v in cell.groupby("estimator")["covered"].mean().items()), flush=True)
    frame = pd.DataFrame(rows)
    pd.set_option("display.width", 220)
    print("\nCoverage of nominal 95% Wald intervals per cell:")
    print(frame.pivot_table(index="cell", columns="estimator", values="covered", aggfunc="mean").round(3).to_string())
    print("\nBy ess_clicks (coverage, logs in brackets):")
    frame["bin"] = pd.cut(frame["ess_clicks"], BINS, right=False)
    cov = frame.pivot_table(index="bin", columns="estimator", values="covered", aggfunc="mean", observed=True)
    cnt = frame.pivot_table(index="bin", columns="estimator", values="covered", aggfunc="size", observed=True)
    print((cov.round(3).astype(str) + " (" + cnt.astype("Int64").astype(str) + ")").to_string())
    print("\nFloors (every ess_clicks bin above covers >= 0.95 - 2 SE):")
    for name in ESTIMATORS:
        f, note = floor_of(frame[frame["estimator"] == name])
        print(f"  {name:15s} {f:g}   {note}")
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
