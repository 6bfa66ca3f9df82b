"""``ocef exposure``: position-aware exposure fairness of a top-k log, with intervals.

``ocef exposure --rankings LOG --item-group COL [--user-group COL] [--browsing geometric|dcg|cascade]
[--patience P] [--stop U] [--target catalogue|equal|merit] [--k K] [--backend auto|duckdb|pandas|spark]
[--confidence C] [--ranking-metrics awrf ndkl ee_disparity ee_relevance ee_difference]
[--ndkl-target GROUP=P ...] [--judgments FILE] [--json]``

LOG: a CSV or Parquet file, a folder or a glob of Parquet files, one row per (user, ranked item):
``user, item, rank`` [, ``relevance``, ``sample``, ``n_relevant``] (docs/formats/rankings.md);
``--item-groups FILE`` / ``--user-groups FILE`` read the groups from side tables (CSV or Parquet,
columns ``item, COL`` / ``user, COL``). The log is reduced to sufficient statistics by the
backend (DuckDB for files); only a few numbers reach Python.

JSON (``--json``): ``{"overall": [{n_users, n_rows, n_item_groups, n_user_groups, k, browsing,
patience, target, target_meaning, total_variation, total_variation_reason}], "groups": [{user_group, item_group, n_users, statistic
(share|difference|ratio), target, estimate, ci_low, ci_high, confidence, p_value, p_adjusted,
significant, reason}], "pairs": [{user_group, reference, item_group, statistic, estimate, ci_low,
ci_high, p_value, reason, p_adjusted, significant}], "users": {"overall", "groups", "pairs"} or null,
browsing, patience, target, confidence}``; with ``--ranking-metrics`` also ``"ranking": {"overall",
"groups", "pairs", "moments", "metrics", "reference", "target_source", ...}`` (per-user AWRF, NDKL,
expected exposure: means over users with Hall's intervals, user groups compared with Welch's test,
Holm-adjusted; :func:`ocef.exposure.ranking_fairness`). The ranking metrics are a
second pass over the log, so they are computed only when asked for. One library call:
:func:`ocef.exposure.exposure_fairness`, whose declarations check every value.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ocef.commands._common import add_log_options, add_memory_limit, add_progress
from ocef.commands.reo import BACKENDS  # a light copy, tested equal to ocef.backends.BACKENDS

#: light copies of ocef.exposure.user_metrics.RANKING_METRICS and ocef.exposure.shares.TARGETS (tested
#: equal): the parser is built without importing numpy
RANKING_METRICS = ("awrf", "ndkl", "ee_disparity", "ee_relevance", "ee_difference")
TARGETS = ("catalogue", "equal", "merit")


def register(sub) -> None:
    p = sub.add_parser(
        "exposure",
        help="position-aware exposure fairness of a top-k log (item and user groups) with intervals",
        description="Exposure shares of item groups under a browsing model, their disparity to a "
                    "catalogue-proportional (default), equal or merit-proportional target, and per-user metrics (precision, recall, nDCG, hit rate) by "
                    "user group, with intervals clustered by user and Holm-adjusted tests. Reads a top-k log "
                    "(user, item, rank [, relevance, sample, n_relevant]) of any size with DuckDB, pandas or Spark.",
    )
    add_log_options(p, "--rankings", "top-k log", user_group_note=" (consumer side; default: none)")
    p.add_argument("--browsing", choices=("geometric", "dcg", "cascade"), default="geometric",
                   help="browsing model: geometric (RBP, p^(k-1)), dcg (1/log2(k+1)) or cascade (gERR) "
                        "(default: geometric)")
    p.add_argument("--patience", type=float, default=0.5,
                   help="probability of looking at the next position, geometric and cascade (default: 0.5)")
    p.add_argument("--stop", type=float, default=0.5,
                   help="cascade: probability of stopping after a relevant item (default: 0.5)")
    p.add_argument("--target", choices=TARGETS, default="catalogue",
                   help="target exposure shares: catalogue (each group's share of the items, of --item-groups "
                        "or else of the log: equal exposure per item), equal (1/G per group whatever its size) "
                        "or merit (share of relevance; needs relevance) (default: catalogue)")
    p.add_argument("--k", type=int, default=None, help="list length for precision (default: the largest rank)")
    p.add_argument("--reference", default=None, metavar="GROUP",
                   help="reference user group (default: the largest)")
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="counting backend: auto (DuckDB for files), duckdb, pandas or spark (default: auto)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level of the intervals, in (0, 1) and at most 0.999999999 (default: 0.95)")
    p.add_argument("--ranking-metrics", nargs="+", choices=RANKING_METRICS, default=None, metavar="METRIC",
                   help="per-user ranking metrics, means over users with intervals by user group: "
                        f"{', '.join(RANKING_METRICS)} (a second pass over the log; default: none)")
    p.add_argument("--ndkl-target", nargs="+", default=None, metavar="GROUP=P",
                   help="NDKL's desired distribution, e.g. the population's: pop=0.3 niche=0.7 (with "
                        "--ranking-metrics ndkl; default: each ranking's own group distribution)")
    p.add_argument("--judgments", type=Path, default=None, metavar="FILE",
                   help="relevance judgments user, item, relevance of every judged item (CSV or Parquet): "
                        "the target of expected exposure (default: the log's relevance of the items shown)")
    p.add_argument("--family", choices=("report", "table"), default="report",
                   help="Holm family of every 'significant': report (all the tests of the output together, the "
                        "default) or table (each table alone)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    add_memory_limit(p)
    # the library's name of an option spelled differently, for the error line (ocef.cli.error_line)
    p.set_defaults(func=_run, option_names={"ndkl_desired": "--ndkl-target"})


def _side(path):
    if path is None:
        return None
    import pandas as pd

    from ocef.exposure.logs import read_log

    return read_log(str(path)) if isinstance(path, Path) else pd.DataFrame(path)


def _distribution(pairs):
    """``["a=0.3", "b=0.7"]`` -> ``{"a": 0.3, "b": 0.7}`` (the values are checked by the library)."""
    if pairs is None:
        return None
    from ocef.errors import ParameterError

    out = {}
    for pair in pairs:
        group, sep, value = pair.rpartition("=")
        try:
            out[group] = float(value)
        except ValueError:
            sep = ""
        if not sep or not group:
            raise ParameterError(f"--ndkl-target takes GROUP=PROPORTION pairs, got {pair!r}")
        if "=" in group:            # "pop=0.3 niche=0.7" quoted as one argument
            raise ParameterError(f"--ndkl-target takes one GROUP=PROPORTION pair per argument, got {pair!r}: "
                                 "leave the pairs unquoted (--ndkl-target pop=0.3 niche=0.7)")
    return out


def _run(args: argparse.Namespace) -> int:
    import textwrap

    from ocef.commands._common import ConsoleTable, console_width, format_table, print_json

    marks = ConsoleTable()
    #: console headers of long columns (the JSON keeps the glossary's names)
    short = {"p_adjusted": "p_adj", "significant": "sig"}

    def table(frame, cols):
        """``cols`` of ``frame`` (a DataFrame or a dict of columns); a row whose value or interval is
        null points to its reason; ``significant`` is shown as ``*`` (yes), blank (no) or ``-`` (no test)."""
        data = {}
        for c in cols:
            values = [v.item() if hasattr(v, "item") else v for v in list(frame[c])]   # numpy scalars: Python's
            if c == "significant":
                values = ["*" if v is True else "" if v is False else "-" for v in values]
            data[short.get(c, c)] = values
        if "reason" in frame and any(isinstance(r, str) and bool(r) for r in frame["reason"]):
            data["why"] = [marks.mark(r).strip() for r in frame["reason"]]
        return format_table(data)

    def say(text):
        """A line of prose, wrapped to the console's width."""
        print("\n".join(textwrap.wrap(text, console_width(), subsequent_indent="  ")))
    from ocef.exposure import exposure_fairness

    result = exposure_fairness(str(args.rankings), item_group=args.item_group, user_group=args.user_group,
                               item_groups=_side(args.item_groups), user_groups=_side(args.user_groups),
                               browsing=args.browsing, patience=args.patience, stop=args.stop, target=args.target,
                               k=args.k, reference=args.reference, confidence=args.confidence, backend=args.backend,
                               ranking_metrics=args.ranking_metrics, judgments=_side(args.judgments),
                               ndkl_desired=_distribution(args.ndkl_target), family=args.family,
                               progress=args.progress)
    if args.json:
        print_json(result.to_dict())
        return 0
    o = {name: values[0] for name, values in result.columns["overall"].items()}
    say(f"exposure of {o['n_item_groups']} item groups over {o['n_users']} users ({o['n_rows']} rows, k = {o['k']}), "
        f"browsing {result.browsing}" + (f" p = {result.patience:g}" if result.browsing != "dcg" else "")
        + f", target {result.target}; total variation from the target: {o['total_variation']:.4g} "
        "(no interval: a plug-in summary; the group differences below carry the intervals and tests)")
    say(f"target {result.target}: {o['target_meaning']}")
    say(f"significance family: {o['family']} (p_adj = Holm-adjusted p-value; sig * = p_adj <= "
        f"{1 - result.confidence:.4g}, - = no test); shares, targets and differences are fractions of the "
        "attention (0-1), ratios are share / target")
    if o["notes"]:
        for n in o["notes"].split("; "):
            say(f"note: {n}")
    g = result.columns["groups"]
    cols = ["user_group", "item_group", "statistic", "target", "estimate", "ci_low", "ci_high", "p_adjusted",
            "significant"]
    print(table(g, cols))
    if len(result.columns["pairs"]["estimate"]):
        print("\nuser groups vs the reference (difference of exposure shares):")
        pc = ["user_group", "reference", "item_group", "estimate", "ci_low", "ci_high", "p_adjusted", "significant"]
        print(table(result.columns["pairs"], pc))
    if result.users is not None:
        print("\nper-user metrics by user group:")
        ug = result.users.columns["groups"]
        print(table(ug, ["user_group", "metric", "n_users", "estimate", "ci_low", "ci_high"]))
        if len(result.users.columns["pairs"]["estimate"]):
            up = result.users.columns["pairs"]
            print(table(up, ["user_group", "reference", "metric", "statistic", "estimate", "ci_low", "ci_high",
                             "p_adjusted", "significant"]))
    r = result.ranking
    if r is not None:
        print()
        say(f"per-user ranking metrics (mean over users, Hall's interval; attention {r.attention}; "
            f"expected-exposure target from {r.target_source}):")
        frame = r.overall.assign(user_group="(all)")
        if len(r.groups):
            import pandas as pd

            frame = pd.concat([frame, r.groups], ignore_index=True)
        print(table(frame, ["user_group", "metric", "n_users", "estimate", "ci_low", "ci_high"]))
        notes = sorted({n for n in r.overall["note"].dropna()})
        for n in notes:
            say(f"note: {n}")
        if len(r.pairs):
            print(table(r.pairs, ["user_group", "reference", "metric", "statistic", "estimate", "ci_low",
                                  "ci_high", "p_adjusted", "significant"]))
    for line in marks.notes():
        print(line)
    return 0
