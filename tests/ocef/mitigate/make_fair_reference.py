"""Regenerates ``data/fair_reference.json``: fairsearchcore's m-tables, adjusted α and fail
probabilities on a grid of (k, p, α), computed by the vendored reference
(``_reference_fairsearchcore.py``). The reference takes minutes per table at k = 400 (pandas row
appends and a Python recursion), so the grid is computed once here and ``test_fair.py`` compares
with it; small k are also compared live.

    python tests/ocef/mitigate/make_fair_reference.py [out.json [k ...]]

Rows already in ``out.json`` are kept and skipped; given ``k`` values, only those rows are computed.
"""
import json
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _reference_fairsearchcore as R  # noqa: E402

P = [0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98]
A = [0.01, 0.05, 0.1, 0.15]
GRID = [(k, p, a) for k in (10, 25, 50, 100) for p in P for a in A]
GRID += [(200, p, a) for p in (0.02, 0.3, 0.5, 0.7, 0.98) for a in (0.01, 0.1, 0.15)]
GRID += [(400, p, a) for p, a in ((0.5, 0.1), (0.98, 0.15), (0.02, 0.01), (0.3, 0.05), (0.7, 0.01))]
#: unadjusted m-tables and their fail probabilities only (one reference evaluation each, ~30 s at k=400)
UNADJUSTED = [(k, p, a) for k in (300, 400) for p, a in ((0.02, 0.01), (0.3, 0.15), (0.5, 0.1), (0.98, 0.05))]


def unadjusted(out):
    """``python make_fair_reference.py --unadjusted out.json``: the rows of :data:`UNADJUSTED`."""
    warnings.simplefilter("ignore")
    rows = []
    for k, p, a in UNADJUSTED:
        f = R.Fair(k, p, a)
        m = f.create_unadjusted_mtable()
        rows.append({"k": k, "p": p, "alpha": a, "mtable": m, "fail_probability": float(f.compute_fail_probability(m))})
        Path(out).write_text(json.dumps({"source": "fairsearchcore 1.0.4 @a92a3d6 (vendored)", "unadjusted": rows}))
        print(k, p, a, flush=True)


def main(out=HERE / "data" / "fair_reference.json", *ks):
    warnings.simplefilter("ignore")
    out = Path(out)
    rows = json.loads(out.read_text())["rows"] if out.exists() else []
    done = {(r["k"], r["p"], r["alpha"]) for r in rows}
    for k, p, a in GRID:
        if (k, p, a) in done or (ks and str(k) not in ks):
            continue
        t = time.time()
        f = R.Fair(k, p, a)
        unadj = f.create_unadjusted_mtable()
        pair = R.RecursiveNumericFailProbabilityCalculator(k, p, a).adjust_alpha()
        adj = [int(v) for v in pair.mtable.m.tolist()]
        rows.append({"k": k, "p": p, "alpha": a, "mtable": unadj, "fail_probability": float(f.compute_fail_probability(unadj)),
                     "adjusted_alpha": float(pair.alpha), "adjusted_mtable": adj,
                     "adjusted_fail_probability": float(pair.fail_prob)})
        Path(out).write_text(json.dumps({"source": "fairsearchcore 1.0.4 @a92a3d6 (vendored)", "rows": rows}))
        print(k, p, a, f"{time.time() - t:.1f}s", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--unadjusted"]:
        unadjusted(*sys.argv[2:])
    else:
        main(*sys.argv[1:])
