"""Coverage of the exposure audit's intervals vs group size, and its family-wise error (issue 28).

Measures, by simulation from a large synthetic population of users (lists of 3-10 items, three item
groups of popularity 0.6 / 0.3 / 0.1, geometric browsing with patience 0.5):

1. ``shares``: the share, share − catalogue target and log ratio intervals of
   :func:`ocef.exposure.shares.share_intervals` vs the number of users of the group;
2. ``merit``: share − merit share (target ``"merit"``) in a dense regime (30% of shown items
   relevant) and a sparse one (2%: about 85% of users without a relevant item), binned by users and
   by the number of users with a relevant item of the group;
3. ``means``: precision (Student t) and nDCG (Student t) of a group mean, hit rate (Wilson);
4. ``pairs``: Welch's difference of precision between a small group and a 300-user reference, and
   the z difference of exposure shares between the same groups;
5. ``family``: "significant anywhere" in :func:`ocef.exposure.exposure_fairness`'s whole output
   (groups, pairs, list metrics, AWRF/NDKL pairs) under identical user and item groups, with ``family="report"`` and
   ``family="table"``, at 60 and 300 users.

Run ``python benchmarks/exposure_small_groups.py [--reps 2000] [--part shares merit means pairs family]``;
the tables printed are those of docs/guide/exposure.md ("Small groups" and "One family").
"""
from __future__ import annotations

import argparse

import numpy as np

P_GROUP = np.array([0.6, 0.3, 0.1])
PATIENCE = 0.5


def population(n, rng, p_rel=0.3):
    """Per-user exposure X (n, 3), merit M (n, 3), precision, nDCG, hit of a synthetic population."""
    L = rng.integers(3, 11, size=n)
    kmax = 10
    pos = np.arange(kmax)
    shown = pos[None, :] < L[:, None]
    grp = rng.choice(3, size=(n, kmax), p=P_GROUP)
    w = PATIENCE ** pos[None, :] * shown
    rel = (rng.random((n, kmax)) < p_rel * np.array([1.0, 1.5, 2.0])[grp]) & shown
    X = np.stack([(w * (grp == g)).sum(1) for g in range(3)], 1)
    M = np.stack([(rel * (grp == g)).sum(1) for g in range(3)], 1).astype(float)
    hits = rel.sum(1)
    prec = hits / L
    disc = 1.0 / np.log2(pos + 2.0)
    dcg = (rel * disc[None, :]).sum(1)
    idcg = np.array([disc[:h].sum() for h in hits])
    ndcg = np.where(hits > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    return X, M, prec, ndcg, (hits > 0).astype(float)


def truth(p_rel, rng):
    X, M, prec, ndcg, hit = population(400_000, rng, p_rel)
    share = X.sum(0) / X.sum()
    merit = M.sum(0) / M.sum()
    return {"share": share, "merit": merit, "precision": prec.mean(), "ndcg": ndcg.mean(), "hit": hit.mean()}


def _share_cov(X, M, tr, target, z):
    from ocef.exposure.shares import share_intervals

    V = np.hstack([X, M]) if target == "merit" else X
    res = share_intervals(len(X), V.sum(0), V.T @ V, target=target, n_groups=3, item_counts=[6, 3, 1])
    out = []
    for g, r in enumerate(res):
        true_s = tr["share"][g]
        true_t = tr["merit"][g] if target == "merit" else [0.6, 0.3, 0.1][g]
        cs = abs(r["share"] - true_s) <= z * r["share_se"] and r["share_se"] > 0
        cd = abs(r["difference"] - (true_s - true_t)) <= z * r["difference_se"] and r["difference_se"] > 0
        ok = np.isfinite(r["log_ratio_se"]) and r["share"] > 0 and r["ratio"] > 0
        cr = ok and abs(np.log(r["ratio"]) - np.log(true_s / true_t)) <= z * r["log_ratio_se"]
        out.append((cs, cd, cr))
    return out


def part_shares(reps, rng, sizes=(3, 5, 8, 10, 15, 20, 30, 40, 60)):
    tr = truth(0.3, rng)
    z = 1.959964
    print("## shares: coverage of share / difference (catalogue) / ratio, 95%, by users (rare group g3 = 10%)")
    print("| users | share g1 | share g3 | difference g1 | difference g3 | ratio g1 | ratio g3 |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        acc = np.zeros((3, 3))
        for _ in range(reps):
            X, M, *_ = population(n, rng)
            acc += np.array(_share_cov(X, M, tr, "catalogue", z), dtype=float)
        c = acc / reps
        print(f"| {n} | {c[0, 0]:.3f} | {c[2, 0]:.3f} | {c[0, 1]:.3f} | {c[2, 1]:.3f} | {c[0, 2]:.3f} | {c[2, 2]:.3f} |")


def part_merit(reps, rng, sizes=(5, 10, 15, 20, 30, 40, 60, 100, 150)):
    z = 1.959964
    for p_rel, name in ((0.3, "dense (30% of shown items relevant)"), (0.02, "sparse (2%; most users none)")):
        tr = truth(p_rel, rng)
        print(f"## merit difference, {name}: coverage by users, and by users with a relevant item of the group")
        print("| users | g1 | g3 |")
        print("|---|---|---|")
        bins = {}
        for n in sizes:
            acc = np.zeros(3)
            for _ in range(reps):
                X, M, *_ = population(n, rng, p_rel)
                cov = _share_cov(X, M, tr, "merit", z)
                acc += [c[1] for c in cov]
                for g in range(3):
                    m = int((M[:, g] > 0).sum())
                    b = min(m, 40) // 5 * 5
                    hit, tot = bins.get(b, (0, 0))
                    bins[b] = (hit + cov[g][1], tot + 1)
            print(f"| {n} | {acc[0] / reps:.3f} | {acc[2] / reps:.3f} |")
        print("| users with a relevant item of the group | coverage (all groups, all sizes) | replicates |")
        print("|---|---|---|")
        for b in sorted(bins):
            h, t = bins[b]
            label = f"{b}-{b + 4}" if b < 40 else "40+"
            print(f"| {label} | {h / t:.3f} | {t} |")


def part_means(reps, rng, sizes=(3, 5, 8, 10, 15, 20, 30, 40, 60)):
    from ocef.exposure.frame import mean_interval

    for p_rel, name in ((0.3, "dense"), (0.02, "sparse")):
        tr = truth(p_rel, rng)
        print(f"## group means, {name}: precision (t), nDCG (t), hit rate (Wilson)")
        print("| users | precision | nDCG | hit rate |")
        print("|---|---|---|---|")
        for n in sizes:
            acc = np.zeros(3)
            for _ in range(reps):
                _, _, prec, ndcg, hit = population(n, rng, p_rel)
                for j, (v, key, b) in enumerate(((prec, "precision", False), (ndcg, "ndcg", False),
                                                 (hit, "hit", True))):
                    r = mean_interval(n, v.sum(), v @ v, binary=b)
                    acc[j] += r["ci_low"] <= tr[key] <= r["ci_high"]
            c = acc / reps
            print(f"| {n} | {c[0]:.3f} | {c[1]:.3f} | {c[2]:.3f} |")


def part_pairs(reps, rng, sizes=(3, 5, 8, 10, 15, 20, 30, 40)):
    from ocef.exposure.frame import compare_means, moments

    z = 1.959964
    for p_rel, name in ((0.3, "dense"), (0.02, "sparse")):
        print(f"## pairs, {name}: small group vs a 300-user reference (same population: the truth is 0)")
        print("| users | precision difference (Welch) | share difference g1 (z) | share difference g3 (z) |")
        print("|---|---|---|---|")
        for n in sizes:
            acc = np.zeros(3)
            for _ in range(reps):
                Xa, _, pa, *_ = population(n, rng, p_rel)
                Xb, _, pb, *_ = population(300, rng, p_rel)
                c = compare_means(moments(pa), moments(pb))
                acc[0] += c["difference_low"] <= 0 <= c["difference_high"]
                from ocef.exposure.shares import share_intervals
                ra = share_intervals(n, Xa.sum(0), Xa.T @ Xa)
                rb = share_intervals(300, Xb.sum(0), Xb.T @ Xb)
                for j, g in ((1, 0), (2, 2)):
                    se = np.hypot(ra[g]["share_se"], rb[g]["share_se"])
                    acc[j] += abs(ra[g]["share"] - rb[g]["share"]) <= z * se and se > 0
            c = acc / reps
            print(f"| {n} | {c[0]:.3f} | {c[1]:.3f} | {c[2]:.3f} |")


def part_rule(reps, rng, sizes=(10, 15, 20, 30, 60, 100, 150)):
    """Coverage of the rows the floors let through (and the share of rows printed), as shipped."""
    from ocef.exposure.frame import floor_reason, mean_interval
    from ocef.exposure.shares import _share_rows, share_intervals

    for p_rel, name in ((0.3, "dense"), (0.02, "sparse")):
        tr = truth(p_rel, rng)
        print(f"## the rule as shipped, {name}: coverage of the printed intervals (printed fraction)")
        print("| users | share g3 (catalogue) | difference g3 (catalogue) | difference g1 (merit) | "
              "difference g3 (merit) | precision |")
        print("|---|---|---|---|---|---|")
        for n in sizes:
            acc = np.zeros((5, 2))
            for _ in range(reps):
                X, M, prec, *_ = population(n, rng, p_rel)
                rc = share_intervals(n, X.sum(0), X.T @ X, target="catalogue", item_counts=[6, 3, 1])
                V = np.hstack([X, M])
                rm = share_intervals(n, V.sum(0), V.T @ V, target="merit", n_groups=3)
                rows_c = _share_rows("u", "g3", n, rc[2], 0.95, "catalogue")
                truth_c = tr["share"][2]
                cells = [(rows_c[0], truth_c), (rows_c[1], truth_c - 0.1)]
                for g in (0, 2):
                    rows_m = _share_rows("u", g, n, rm[g], 0.95, "merit")
                    cells.append((rows_m[1], tr["share"][g] - tr["merit"][g]))
                for j, (row, t) in enumerate(cells):
                    if row["reason"] is None:
                        acc[j] += [row["ci_low"] <= t <= row["ci_high"], 1]
                if floor_reason(n, prec.sum(), prec @ prec, minimum=0.0) is None:
                    r = mean_interval(n, prec.sum(), prec @ prec)
                    acc[4] += [r["ci_low"] <= tr["precision"] <= r["ci_high"], 1]
            cells = " | ".join(f"{a / b:.3f} ({b / reps:.2f})" if b else "— (0)" for a, b in acc)
            print(f"| {n} | {cells} |")


def null_log(n, rng, n_groups=3):
    """A log of ``n`` users where every item group and every user group is alike (the null of every test
    with ``target="equal"``): each position's item group is uniform over 3, relevance is independent."""
    import pandas as pd

    L = rng.integers(3, 11, size=n)
    users = np.repeat(np.arange(n), L)
    rank = np.concatenate([np.arange(1, k + 1) for k in L])
    item = np.concatenate([rng.choice(60, size=k, replace=False) for k in L])
    rel = (rng.random(len(users)) < 0.3).astype(int)
    ug = rng.integers(0, n_groups, size=n)[users]
    return pd.DataFrame({"user": users, "item": item, "rank": rank, "relevance": rel,
                         "genre": np.array(["a", "b", "c"])[rng.integers(0, 3, size=len(users))],
                         "ug": ug.astype(str)})


def part_family(reps, rng, sizes=(60, 300)):
    import warnings

    from ocef.exposure import exposure_fairness

    print("## 'significant' anywhere in one output, user groups independent of the data (3 user groups, "
          "3 item groups alike, target equal: the truth of every test is its null)")
    print("| users | family | significant anywhere | SE |")
    print("|---|---|---|---|")
    for n in sizes:
        hits = {"report": 0, "table": 0}
        for _ in range(reps):
            log = null_log(n, rng)
            for fam in hits:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = exposure_fairness(log, item_group="genre", user_group="ug", target="equal",
                                          ranking_metrics=["awrf", "ndkl"], family=fam)
                frames = [r.groups, r.pairs, r.users.pairs, r.ranking.pairs]
                any_sig = any(bool((f["significant"] == True).any()) for f in frames)  # noqa: E712
                hits[fam] += any_sig
        for fam, h in hits.items():
            p = h / reps
            print(f"| {n} | {fam} | {p:.3f} | {np.sqrt(p * (1 - p) / reps):.3f} |")


PARTS = {"rule": part_rule, "shares": part_shares, "merit": part_merit, "means": part_means, "pairs": part_pairs,
         "family": part_family}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--part", nargs="+", choices=list(PARTS), default=list(PARTS))
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    for part in args.part:
        PARTS[part](args.reps if part != "family" else max(args.reps // 5, 50), rng)
        print()


if __name__ == "__main__":
    main()
