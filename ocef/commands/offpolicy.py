"""``ocef offpolicy``: per-group fairness of a target policy estimated from a log with logged propensities.

``ocef offpolicy --log LOG --target TARGET [--item-group COL] [--user-group COL] [--item-groups FILE]
[--user-groups FILE] [--estimator NAME ...] [--interval NAME] [--backend auto|duckdb|pandas]
[--confidence C] [--seed S] [--memory-limit SIZE] [--json]``

LOG: CSV or Parquet file, folder or glob, one row per logged action ``user, item, reward,
propensity`` [, ``position``, group columns] (docs/formats/offpolicy-logs.md). TARGET: the target's
action probabilities ``[user,] item [, position], probability [, reward_hat]`` or a deterministic
top-k log ``user, item, rank`` [, ``reward``]. Files are read by DuckDB (``--backend``: how the log
is read: DuckDB, or pandas for a CSV file).

JSON (``--json``): ``{"overall": [{n_rows, n_users, target_form, estimators, interval, confidence, family,
exposure_note, ess, max_weight, support, clicks}], "groups": [{estimand, estimator, side, user_group,
item_group, estimate, ci_low, ci_high, confidence, n_rows, ess, max_weight, support, clicks, reason,
note}], "pairs": [{estimand, estimator, side, user_group, group, reference, estimate, ci_low, ci_high,
confidence, p_value, p_adjusted, significant, verdict, reason}], "confidence", "notes"}``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ocef.commands._common import add_log_options, add_memory_limit, add_progress

#: light copies (tested equal to ocef.offpolicy.UTILITY_ESTIMATORS and AUDIT_INTERVALS)
ESTIMATORS = ("ips", "snips", "dm", "dr", "sndr", "switch-dr", "dros")
INTERVALS = ("wald", "bootstrap", "cressie-read", "gaussian", "clopper-pearson", "betting")
READERS = ("auto", "duckdb", "pandas")


def register(sub) -> None:
    p = sub.add_parser(
        "offpolicy",
        help="per-group fairness of a target policy from a log with logged propensities (off-policy)",
        description="Exposure of item groups under a target policy (plug-in), its utility per user and item "
                    "group (IPS, SNIPS, DM, DR, Switch-DR, DRos), and merit-aware item fairness (REO with "
                    "importance-weighted merit), with intervals, diagnostics (effective sample size, largest "
                    "weight, support, clicks) and Holm-adjusted comparisons, from a log of the current policy.",
    )
    add_log_options(p, "--log", "log with user, item, reward, propensity", item_group_required=False,
                    side_formats="")
    p.add_argument("--target", type=Path, required=True, metavar="TARGET",
                   help="target policy: action probabilities (user, item, probability) or a top-k log "
                        "(user, item, rank)")
    p.add_argument("--estimator", nargs="+", choices=ESTIMATORS, default=["ips", "snips", "dr"], metavar="NAME",
                   help=f"utility estimators: {', '.join(ESTIMATORS)} (default: ips snips dr)")
    p.add_argument("--interval", choices=INTERVALS, default="wald",
                   help="interval of the utility cells (default: wald)")
    p.add_argument("--backend", choices=READERS, default="auto",
                   help="how files are read: duckdb (what auto picks) or pandas (a CSV file)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="folds of the cross-fitted reward model (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_memory_limit(p)
    add_progress(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import format_table, print_json
    from ocef.offpolicy import offpolicy_audit

    def read(path):
        if path is None or args.backend != "pandas":
            return None if path is None else str(path)
        import pandas as pd

        return pd.read_csv(path)

    result = offpolicy_audit(read(args.log), read(args.target), user_group=args.user_group,
                             item_group=args.item_group, user_groups=read(args.user_groups),
                             item_groups=read(args.item_groups), estimators=args.estimator, interval=args.interval,
                             confidence=args.confidence, rng=args.seed, progress=args.progress)
    if args.json:
        print_json(result.to_dict())
        return 0
    o = {c: v[0] for c, v in result.columns["overall"].items()}
    print(f"off-policy audit of a target ({o['target_form']}) from {o['n_rows']} logged rows, {o['n_users']} users; "
          f"effective sample size {o['ess']:.1f}, largest weight {o['max_weight']:.4g}, support {o['support']:.3f}, "
          f"{o['clicks']} clicks")
    print(f"exposure: {o['exposure_note']}")
    g = result.columns["groups"]
    cols = ["estimand", "estimator", "user_group", "item_group", "estimate", "ci_low", "ci_high", "ess", "clicks",
            "reason"]
    print(format_table({c: _cells(g[c]) for c in cols}))
    pairs = result.columns["pairs"]
    if len(pairs["estimand"]):
        print(f"comparisons (family: {o['family']}):")
        pc = ["estimand", "estimator", "user_group", "group", "reference", "estimate", "ci_low", "ci_high",
              "p_adjusted", "verdict"]
        print(format_table({c: _cells(pairs[c]) for c in pc}))
    for note in result.notes:
        print(f"note: {note}")
    return 0


def _cells(values) -> list:
    """A column's cells for :func:`format_table`, a missing value (None) shown as ``nan``."""
    return [float("nan") if v is None else v for v in values]
