"""The expohedron's group Pareto curve: the measured numbers of ``group_pareto_curve``'s docstring.

On the 41 random instances of ``tests/ocef/mitigate/data/expohedron_group_reference.json`` (naver/expohedron
@30bf252 run by ``make_expohedron_group_reference.py``): the fair end against a linear program over doubly
stochastic matrices (HiGHS) with the groups' exposures fixed at the barycenter's, and against the reference's
``fairness_endpoint``; with two groups, every segment end and an inner point against the LP's best utility at
the same disparity; the 7 curves the reference finishes. Then the CPU time per user of
``expohedron_rerank(fairness="group")`` on ``ocef mitigate``'s default grid (alpha = 0, 0.5, 0.9), random scores
and items spread evenly over 2 ... 32 item groups, with 30 and 100 candidates (``--candidates``): the table of the
guide and of ``MAX_GROUPS``.

    python benchmarks/expohedron_group.py --users 5
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.optimize import linprog

from ocef.mitigate.expohedron import expohedron_rerank, group_pareto_curve

DATA = Path(__file__).resolve().parents[1] / "tests" / "ocef" / "mitigate" / "data" / "expohedron_group_reference.json"


def lp_utility(gamma, rho, groups, disparity=None) -> float:
    """max ρ·(P γ) over doubly stochastic P with the group exposures at the barycenter's (``disparity`` None)
    or, with two groups, group 0's within ``disparity`` of its target."""
    g = -np.sort(-np.asarray(gamma, dtype=float))
    n = g.size
    labels = np.unique(groups, return_inverse=True)[1].ravel()
    target = np.bincount(labels) * g.mean()
    a_eq = np.zeros((2 * n, n * n))
    for i in range(n):
        a_eq[i, i * n:(i + 1) * n] = 1.0
        a_eq[n + i, i::n] = 1.0
    exposure = np.zeros((target.size, n * n))
    for i in range(n):
        exposure[labels[i], i * n:(i + 1) * n] = g
    cost = -(np.asarray(rho, dtype=float)[:, None] * g[None, :]).ravel()
    if disparity is None:
        res = linprog(cost, A_eq=np.vstack((a_eq, exposure)), b_eq=np.concatenate((np.ones(2 * n), target)),
                      bounds=(0, 1), method="highs")
    else:
        res = linprog(cost, A_ub=np.vstack((exposure[:1], -exposure[:1])),
                      b_ub=[target[0] + disparity, disparity - target[0]], A_eq=a_eq, b_eq=np.ones(2 * n),
                      bounds=(0, 1), method="highs")
    return -res.fun


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidates", type=int, nargs="+", default=[30, 100])
    ap.add_argument("--groups", type=int, nargs="+", default=[2, 4, 8, 12, 16, 20, 32])
    ap.add_argument("--users", type=int, default=5)
    args = ap.parse_args(argv)
    cases = json.loads(DATA.read_text())["cases"]
    end_lp, end_ref, short, along, ref_curve = 0.0, 0.0, [], 0.0, 0.0
    for case in cases:
        gamma, rho, groups = (np.array(case[c]) for c in ("gamma", "relevance", "groups"))
        curve = group_pareto_curve(gamma, rho, groups)
        best = lp_utility(gamma, rho, groups)
        end_lp = max(end_lp, abs(curve[0] @ rho - best))
        ref = np.array(case["endpoint"])
        if abs(ref @ rho - best) > 1e-9:
            short.append(best - ref @ rho)
        else:
            end_ref = max(end_ref, np.max(np.abs(curve[0] - ref)))
        labels = np.unique(groups, return_inverse=True)[1]
        if labels.max() == 1:
            target = np.sum(labels == 0) * np.mean(gamma)
            for a, b in zip(curve[:-1], curve[1:]):
                for t in (0.0, 0.37, 1.0):
                    x = (1 - t) * a + t * b
                    along = max(along, abs(lp_utility(gamma, rho, groups, abs(x[labels == 0].sum() - target)) - x @ rho))
        if "curve" in case:
            ref_curve = max(ref_curve, np.max(np.abs(curve - np.array(case["curve"]))))
    print(f"{len(cases)} instances: fair end vs LP {end_lp:.1e}; reference fairness_endpoint short of the LP on "
          f"{len(short)} ({min(short):.1e} to {max(short):.1e}), elsewhere equal to ours within {end_ref:.1e}; "
          f"two groups, utility vs LP along the curve {along:.1e}; the reference's finished curves {ref_curve:.1e}")
    print("CPU s per user (grid alpha = 0, 0.5, 0.9; mean and max over users)")
    print("groups | " + " | ".join(f"{n} candidates" for n in args.candidates))
    for n_groups in args.groups:
        cells = []
        for n in args.candidates:
            rng = np.random.default_rng(n_groups)
            times = []
            for _ in range(args.users):
                scores = rng.random(n)
                groups = rng.permutation(np.arange(n) % n_groups)
                t = time.process_time()
                for alpha in (0.0, 0.5, 0.9):
                    expohedron_rerank(scores, groups, 10, alpha=alpha, fairness="group")
                times.append(time.process_time() - t)
            cells.append(f"{np.mean(times):.3f} (max {np.max(times):.3f})")
        print(f"{n_groups:6d} | " + " | ".join(cells), flush=True)

if __name__ == "__main__":
    main()
