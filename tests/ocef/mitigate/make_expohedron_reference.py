"""Regenerates ``data/expohedron_reference.json``: naver/expohedron @30bf2522fb5bff60bd14de52920c52f579fb490a
(``pareto.pareto_curve_pbm_individual`` and ``expohedron.caratheodory_decomposition_pbm_gls``) run on random
instances. The reference is CC BY-NC-SA 4.0, so its code is not copied here: this script imports it
from a checkout and stores only inputs and outputs. The one patch the spec names is applied in
memory: ``np.float`` (removed in numpy 1.24) is set to ``float`` before the import.

    python tests/ocef/mitigate/make_expohedron_reference.py PATH/TO/expohedron [out.json]
"""
import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main(root, out=HERE / "data" / "expohedron_reference.json"):
    np.float = float                                 # the spec's numpy >= 1.24 patch
    sys.path.insert(0, str(Path(root)))
    import pareto as P                               # first: pareto.py star-imports expohedron.py, which
    import expohedron as E                           # imports pareto back (a cycle the other order breaks)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(2022)
    cases = []
    specs = [(np.array([.9, .8, .5, .3, .1]), f) for f in ("demographic", "meritocratic")]
    for _ in range(60):
        n = int(rng.integers(2, 13))
        rho = np.round(rng.random(n), int(rng.integers(2, 6)))
        if rng.random() < 0.3:
            rho = rng.random(n) ** 3                   # skewed: the meritocratic target is outside
        specs.append((rho, str(rng.choice(["demographic", "meritocratic"]))))
    for rho, fairness in specs:
        n = rho.size
        gamma = 1 / np.log2(np.arange(1, n + 1) + 1)
        case = {"relevance": rho.tolist(), "gamma": gamma.tolist(), "fairness": fairness}
        try:
            curve = P.pareto_curve_pbm_individual(gamma, rho, fairness)
            case["curve"] = [np.asarray(c).tolist() for c in curve]
        except Exception as exc:                      # noqa: BLE001 (record the reference's failure)
            case["curve_error"] = type(exc).__name__
            curve = []
        points = [np.asarray(c) for c in curve]
        points += [(curve[i] + curve[i + 1]) / 2 for i in range(len(curve) - 1)]
        w = rng.dirichlet(np.ones(3))
        points.append(sum(wi * gamma[rng.permutation(n)] for wi in w))
        decs = []
        for x in points:
            try:
                c, v = E.caratheodory_decomposition_pbm_gls(gamma, np.asarray(x, dtype=float))
                c, v = np.atleast_1d(c), v.reshape(n, -1)
                keep = c != 0
                decs.append({"point": np.asarray(x).tolist(), "coefficients": c[keep].tolist(),
                             "vertices": v[:, keep].tolist()})
            except Exception as exc:                  # noqa: BLE001
                decs.append({"point": np.asarray(x).tolist(), "error": type(exc).__name__})
        case["decompositions"] = decs
        cases.append(case)
    Path(out).write_text(json.dumps({"source": "naver/expohedron @30bf252 (run, not vendored)", "cases": cases}))
    print(len(cases), "cases;", sum("curve_error" in c for c in cases), "curve errors;",
          sum("error" in d for c in cases for d in c["decompositions"]), "decomposition errors")


if __name__ == "__main__":
    main(*sys.argv[1:])
