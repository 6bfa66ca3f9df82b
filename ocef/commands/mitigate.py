"""``ocef mitigate``: fair re-ranking of a recommender's candidates and its paired re-audit.

``ocef mitigate --candidates FILE --item-group COL [--user-group COL] --method METHOD [METHOD ...]
[--grid name=value[,name=value...]]... [--k K] [--relevance FILE] [--protected GROUP]
[--target catalogue|equal|merit] [--margin EPS] [--browsing geometric|dcg] [--patience P] [--samples S]
[--confidence C] [--out DIR] [--memory-limit SIZE] [--seed N] [--progress] [--json]``

FILE: ``user, item, score`` and the item-group column, the system's top-N per user (N >= K), a CSV
or Parquet file, folder or glob, streamed by DuckDB a chunk of users at a time. Each grid point is
one ``--grid`` (repeatable; default: each method's default grid); ``--relevance``: a held-out
split ``user, item, relevance``. With ``--out DIR`` the baseline and every re-ranked top-k log are
written as Parquet (``DIR/baseline.parquet``, ``DIR/METHOD/point-NN.parquet``: the format of
``ocef exposure``). :func:`ocef.mitigate.loop.mitigate` does the work.

JSON (``--json``): ``{"points": [{method, point, params, utility, utility_ci_low, utility_ci_high,
utility_diff, utility_diff_low, utility_diff_high, utility_p_adjusted, disparity, disparity_diff,
disparity_diff_low, disparity_diff_high, disparity_p_adjusted, certificate, certificate_p_within,
certificate_p_outside, certificate_reason, envy, log, on_front}], "front": [the on_front points, by disparity], "statistics": [{method, point, params, user_group,
statistic, item_group, arm, estimate, se, ci_low, ci_high, confidence, p_value, n_users, reason,
p_adjusted, significant}], "family", "settings", "envy"}``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.commands._common import add_progress

from ocef.commands._common import add_log_options, add_memory_limit

#: a light copy of ocef.mitigate.loop.METHODS (tested equal)
METHODS = ("fair", "detconstsort", "epsilon-greedy", "calibrated", "lp", "expohedron", "boost")


def register(sub) -> None:
    p = sub.add_parser(
        "mitigate",
        help="fair re-ranking of a recommender's candidates, re-audited against the baseline with paired intervals",
        description="Re-rank each user's candidates (user, item, score; the top-N of any recommender) with fair "
                    "re-rankers over a grid of settings, write the re-ranked top-k logs, and re-audit each setting "
                    "against the unmitigated top-k over the same users: exposure shares, disparity, AWRF, NDKL, "
                    "exposure/merit and utility (nDCG, precision, recall on held-out relevance), each with an "
                    "interval paired with the baseline, Holm-adjusted over the whole output; a TOST certificate of "
                    "the exposure target per setting and the utility-disparity front.",
    )
    add_log_options(p, "--candidates", "candidates user, item, score + item-group column", metavar="FILE",
                    user_group_note=" (statistics by user group; default: none)", side_tables=False)
    p.add_argument("--method", nargs="+", required=True, choices=METHODS, metavar="METHOD",
                   help=f"re-ranking method(s): {', '.join(METHODS)}")
    p.add_argument("--grid", action="append", default=None, metavar="name=value[,name=value...]",
                   help="one grid point (repeatable; one method only); default: each method's default grid")
    p.add_argument("--k", type=int, default=10, help="length of the re-ranked lists (default: 10)")
    p.add_argument("--relevance", type=Path, default=None, metavar="FILE",
                   help="held-out relevance user, item, relevance (a validation split: never the labels a "
                        "setting was tuned on); gives nDCG, precision, recall and the merit target")
    p.add_argument("--protected", default=None, metavar="GROUP",
                   help="the protected item group, for the methods that take one")
    p.add_argument("--target", choices=("catalogue", "equal", "merit"), default="catalogue",
                   help="target exposure shares (also of AWRF and NDKL), as ocef exposure's: catalogue (each group's "
                        "share of the candidates' items, the default), equal (1/G) or merit (held-out relevance; "
                        "needs --relevance)")
    p.add_argument("--margin", type=float, default=0.05,
                   help="certificate: equivalence margin on the exposure share (default: 0.05)")
    p.add_argument("--browsing", choices=("geometric", "dcg"), default="geometric",
                   help="browsing model of exposure (default: geometric)")
    p.add_argument("--patience", type=float, default=0.5, help="geometric browsing patience (default: 0.5)")
    p.add_argument("--samples", type=int, default=10,
                   help="rankings drawn per user from a stochastic method's lottery (default: 10)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level in (0.5, 1) of intervals, family-wise error and certificates (default: 0.95)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="write the baseline and re-ranked top-k logs (Parquet) into DIR")
    add_memory_limit(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the stochastic methods (default: 0)")
    add_progress(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)


def _value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_grid(specs) -> list[dict] | None:
    """``["p=0.3,alpha=0.1", ...]`` -> ``[{"p": 0.3, "alpha": 0.1}, ...]`` (numbers parsed, else text).

    Examples
    --------
    >>> parse_grid(["p=0.3,alpha=0.1", "amount=1"])
    [{'p': 0.3, 'alpha': 0.1}, {'amount': 1}]
    """
    from ocef.errors import ParameterError

    if not specs:
        return None
    out = []
    for spec in specs:
        point = {}
        for item in spec.split(","):
            name, eq, value = item.partition("=")
            if not eq or not name.strip() or not value.strip():
                raise ParameterError(f"--grid {spec!r}: each item must be name=value, e.g. --grid p=0.3,alpha=0.1")
            if name.strip() in point:
                raise ParameterError(f"--grid {spec!r}: {name.strip()!r} given twice")
            point[name.strip()] = _value(value.strip())
        out.append(point)
    return out


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import ConsoleTable, format_table, print_json
    from ocef.errors import ParameterError
    from ocef.mitigate.loop import mitigate

    grid = parse_grid(args.grid)
    if grid is not None and len(args.method) > 1:
        raise ParameterError("--grid applies to one --method; give one method, or no --grid for the default grids")
    result = mitigate(str(args.candidates), item_group=args.item_group, user_group=args.user_group,
                      method=args.method if len(args.method) > 1 else args.method[0], grid=grid, k=args.k,
                      relevance=str(args.relevance) if args.relevance else None, protected=args.protected,
                      out=str(args.out) if args.out else None, confidence=args.confidence, margin=args.margin,
                      target=args.target, browsing=args.browsing, patience=args.patience, samples=args.samples,
                      progress=args.progress, rng=args.seed)
    if args.json:
        print_json(result.to_dict())
        return 0
    s = result.settings
    marks = ConsoleTable()
    print(f"mitigate: {s['n_users']} users, k = {s['k']}, {len(result.points) - 1} grid point(s); utility "
          f"{s['utility']}@{s['k']}" + (" on held-out relevance" if s["relevance"] else " (model scores: no --relevance)")
          + f"; disparity = total variation of exposure shares from the {s['target']} target ({s['browsing']} browsing)")
    p = result.points

    def cell(v, reason=None):
        return "" if v is None or v != v else f"{v:.4g}"
    data = {"method": p["method"].tolist(), "params": p["params"].tolist(),
            "utility": [cell(v) for v in p["utility"]],
            "d_utility [paired CI]": [f"{cell(a)} [{cell(b)}, {cell(c)}]" if m != "baseline" else "-"
                                      for m, a, b, c in zip(p["method"], p["utility_diff"], p["utility_diff_low"],
                                                            p["utility_diff_high"])],
            "disparity": [cell(v) for v in p["disparity"]],
            "d_disparity [paired CI]": [f"{cell(a)} [{cell(b)}, {cell(c)}]" if m != "baseline" else "-"
                                        for m, a, b, c in zip(p["method"], p["disparity_diff"],
                                                              p["disparity_diff_low"], p["disparity_diff_high"])],
            "certificate": p["certificate"].tolist(), "front": ["*" if f else "" for f in p["on_front"]]}
    if p["envy"].notna().any():
        data["envy"] = p["envy"].tolist()
    print(format_table(data))
    f = result.front()
    print(f"\nfront (non-dominated: higher {s['utility']}, lower disparity): "
          + "; ".join(f"{m} {q}" if m != "baseline" else "baseline" for m, q in zip(f["method"], f["params"])))
    print(f"certificate: {s['certificate_test']}, margin {s['margin']:g}, delta {1 - s['confidence']:g}")
    print(f"family: {result.family}")
    st = result.statistics
    nulls = st[st["reason"].notna()]
    for r in sorted(set(nulls["reason"])) + sorted(set(p["certificate_reason"].dropna())):
        marks.mark(r)
    for line in marks.notes():
        print(line)
    return 0
