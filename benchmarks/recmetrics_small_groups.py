"""Coverage of recmetrics' intervals vs group size, and the family-wise error of "significant" (issue 28).

Identical groups (the null): every user's scores are ``b_i + N(0, 1)`` with item effects ``b_i ~ N(0, 1)``
(40 items, top-10), truth ``Bernoulli(sigmoid(b_i − 1))``; a reference group of 100 users and one
group of ``n`` users (n = 1 .. 50). Printed per interval family and ``n``: the coverage of the pair
rows (truth: MAD 0, ETV 0, EKL 0, ratios 1, known under identical groups) and of the small group's own
rows (truth: the value of a 200,000-user group), with its binomial SE. Then "any significant" in a
whole report under identical groups with 10 groups (``family="report"`` and ``"table"``).

Run: ``python benchmarks/recmetrics_small_groups.py [reps]`` (default 200).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from ocef.metrics.bias import AUTO_METHODS, recommender_bias

N_ITEMS, K = 40, 10
ITEMS = np.random.default_rng(12345).normal(size=N_ITEMS)


def draw(gen, n):
    s = ITEMS + gen.normal(size=(n, N_ITEMS))
    t = (gen.random((n, N_ITEMS)) < 1 / (1 + np.exp(-(ITEMS - 1)))).astype(float)
    return s, t


def truths(gen) -> dict:
    s, t = draw(gen, 200_000)
    r = recommender_bias(s, t, groups=np.r_[np.zeros(100_000), np.ones(100_000)].astype(int), k=K, n_resamples=0)
    g = r.table[(r.table.level == "group") & (r.table.group == "0")]
    return {m: v for m, v in zip(g.metric, g.value) if m != "avg_recommendation_popularity"}   # ARP: sample-dependent popularity


def coverage(reps: int, sizes=(1, 2, 3, 5, 8, 10, 15, 20, 30, 50), **kw) -> None:
    gen = np.random.default_rng(0)
    truth = truths(gen)
    null_pair = {"mad": 0.0, "exposure_total_variation": 0.0, "exposure_kl": 0.0}
    fams: dict = {}
    for n in sizes:
        hits: dict = {}
        for rep in range(reps):
            s, t = draw(gen, 100 + n)
            groups = np.r_[np.zeros(100, dtype=int), np.ones(n, dtype=int)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = recommender_bias(s, t, groups=groups, k=K, n_resamples=200, rng=rep, **kw)
            tab = r.table
            for row in tab[(tab.level == "pair") | ((tab.level == "group") & (tab.group == "1"))].itertuples():
                if row.level == "pair":
                    true = null_pair.get(row.metric, 1.0)
                else:
                    true = truth.get(row.metric)
                fam = f"{row.level}:{AUTO_METHODS[row.metric]}"
                if true is None or AUTO_METHODS[row.metric] == "none":
                    continue
                key = (fam, row.metric)
                h = hits.setdefault(key, [0, 0, 0])
                if np.isnan(row.ci_low):
                    h[2] += 1
                    continue
                h[0] += 1
                h[1] += row.ci_low <= true <= row.ci_high
        for key, (m, c, w) in hits.items():
            fams.setdefault(key, {})[n] = (c / m if m else float("nan"), m, w)
        print(f"n = {n}: " + "; ".join(f"{metric} {c / m:.3f}" for (fam, metric), (m, c, w) in sorted(hits.items()) if m),
              flush=True)
    print(f"{'family':20s} {'metric':26s} " + " ".join(f"{n:>11d}" for n in sizes))
    for (fam, metric), by in sorted(fams.items()):
        print(f"{fam:20s} {metric:26s} " + " ".join(
            f"{by[n][0]:6.3f}/{by[n][1]:<4d}" if n in by and by[n][1] else f"{'-':>11s}" for n in sizes), flush=True)


def any_significant(reps: int, n_groups: int = 10, size: int = 30, **kw) -> float:
    gen = np.random.default_rng(1)
    hits = 0
    for rep in range(reps):
        s, t = draw(gen, n_groups * size)
        groups = np.repeat(np.arange(n_groups), size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = recommender_bias(s, t, groups=groups, k=K, n_resamples=200, rng=rep, **kw)
        hits += bool(r.table.significant.fillna(False).any())
    rate = hits / reps
    print(f"any significant, {n_groups} identical groups of {size}, {kw}: {rate:.3f} (SE {np.sqrt(rate * (1 - rate) / reps):.3f})",
          flush=True)
    return rate


if __name__ == "__main__":
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    if what in ("all", "coverage"):
        import ocef.metrics.bias as bias

        floors = dict(bias.MIN_GROUP_USERS)
        bias.MIN_GROUP_USERS.clear()                 # measure without the floors they are set from
        coverage(reps, sizes=(1, 2, 3, 5, 8, 12, 20, 30))
        bias.MIN_GROUP_USERS.update(floors)
    if what in ("all", "family"):
        for kw in ({}, {"family": "table"}, {"family": "report"}):
            try:
                any_significant(reps, **kw)
            except TypeError:
                pass
