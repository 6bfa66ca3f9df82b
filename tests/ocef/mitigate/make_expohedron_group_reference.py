"""Regenerates ``data/expohedron_group_reference.json``: naver/expohedron @30bf2522fb5bff60bd14de52920c52f579fb490a
(``pareto.fairness_endpoint`` with a ``grouping`` matrix, and ``pareto.pareto_curve_pbm`` with it) run on random
instances. The reference is CC BY-NC-SA 4.0: imported from a checkout, only inputs and outputs are stored
(``np.float`` set to ``float`` first, the spec's numpy >= 1.24 patch). ``pareto_curve_pbm`` restarts each
step from the fairness end and does not terminate on most instances: each call gets 3 s (SIGALRM) and
a timeout is recorded as ``curve_error``.

    python tests/ocef/mitigate/make_expohedron_group_reference.py PATH/TO/expohedron [out.json]
"""
import json
import signal
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _timeout(*_):
    raise TimeoutError


def main(root, out=HERE / "data" / "expohedron_group_reference.json"):
    np.float = float
    sys.path.insert(0, str(Path(root)))
    import pareto as P                               # first: pareto.py star-imports expohedron.py (a cycle)
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _timeout)
    rng = np.random.default_rng(2022)
    cases = [{"gamma": [4.0, 3.0, 2.0, 1.0], "relevance": [0.5, 0.6, 0.8, 0.9], "groups": [1, 0, 1, 0]}]
    for _ in range(40):
        n = int(rng.integers(3, 11))
        G = int(rng.integers(2, min(4, n) + 1))
        groups = rng.permutation(np.r_[np.arange(G), rng.integers(0, G, n - G)])
        rho = np.round(rng.random(n), int(rng.integers(2, 6)))
        cases.append({"gamma": (1 / np.log2(np.arange(2, n + 2))).tolist(), "relevance": rho.tolist(),
                      "groups": groups.tolist()})
    for case in cases:
        gamma, rho, groups = (np.array(case[c]) for c in ("gamma", "relevance", "groups"))
        grouping = (groups[None, :] == np.arange(groups.max() + 1)[:, None]).astype(float)
        case["endpoint"] = np.asarray(P.fairness_endpoint(gamma, rho, grouping)).tolist()
        signal.alarm(3)
        try:
            case["curve"] = [np.asarray(c).tolist() for c in P.pareto_curve_pbm(gamma, rho, "demographic",
                                                                                 grouping=grouping)]
        except TimeoutError:
            case["curve_error"] = "no termination in 3 s"
        finally:
            signal.alarm(0)
    Path(out).write_text(json.dumps({"source": "naver/expohedron @30bf252 (run, not vendored)", "cases": cases}))
    print(len(cases), "cases;", sum("curve_error" in c for c in cases), "curves without termination")


if __name__ == "__main__":
    main(*sys.argv[1:])
