"""``ocef pairwise``: pairwise fairness from randomized pairs (Beutel et al. 2019) with clustered intervals.

``ocef pairwise --pairs P.csv [--scores S.csv] [--subgroup G] [--n-resamples N] [--seed N] [--json]``
or ``ocef pairwise --dataset coat|obd [--model mf|popularity] [--data-dir DIR]``.
Pairs files (CSV or Parquet, read by DuckDB): ``query, j, jp, s_j, s_jp[, z][, score_j, score_jp]``;
scores files: ``item, score`` or ``query, item, score``.
JSON: ``{"cells": [{"kind", "group", "z", "n_pairs", "n_clusters", "accuracy", "ci_low", "ci_high",
"reason"}], "summary": [{"kind", "accuracy_0", "accuracy_1", "ratio", "gap", ...intervals, "p_value",
"p_adjusted", "significant", "n_levels", "z_levels", "z_levels_dropped", "reason"}], "groups",
"z_levels", "n_pairs", "n_queries", "confidence", "interval", "n_resamples", "cluster"}``; ``group``
is the clicked item's group as written in the pairs file; ratio = accuracy_0 / accuracy_1; a null
interval has a ``reason``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.commands._common import add_memory_limit, add_progress
from ocef.errors import ParameterError


def register(sub) -> None:
    p = sub.add_parser(
        "pairwise", help="pairwise (overall / intra / inter-group) accuracies from randomized pairs",
        description="Estimate overall, intra- and inter-group pairwise accuracies per clicked group and "
                    "engagement level from randomized pairs, with bootstrap intervals clustered by query, and "
                    "the per-kind ratio and gap between the two groups (Beutel et al. 2019, Sec. 3).")
    src = p.add_argument_group("input (a pairs file or a data set)")
    src.add_argument("--pairs", type=Path, help="pairs file (CSV or Parquet): query, j, jp, s_j, s_jp[, z]"
                                                "[, score_j, score_jp]")
    src.add_argument("--scores", type=Path, help="scores file: item, score (or query, item, score); "
                                                 "required when the pairs file has no score columns")
    src.add_argument("--dataset", choices=("coat", "obd"),
                     help="build pairs from a real data set (Coat random ratings, OBD random impressions)")
    src.add_argument("--model", choices=("mf", "popularity"), default=None,
                     help="model scored on --dataset pairs: mf (trained on Coat's train.ascii; default for coat) "
                          "or popularity (click/like rate in the default log; default for obd)")
    src.add_argument("--data-dir", type=Path, default=None,
                     help="folder holding coat/ or obd/ (default: $OCEF_DATA_DIR or ../shared/data)")
    p.add_argument("--subgroup", default=None,
                   help="group value compared with the rest (group 1; required when s_j/s_jp hold > 2 values)")
    p.add_argument("--cluster", default="query", help="bootstrap cluster column (default: query)")
    p.add_argument("--interval", choices=("cluster-wilson", "percentile"), default="cluster-wilson",
                   help="cluster-wilson (default): cluster-robust Wilson intervals, measured to cover in small cells; "
                        "percentile: the clustered bootstrap")
    p.add_argument("--n-resamples", "--resamples", dest="resamples", type=int, default=200,
                   help="bootstrap resamples with --interval percentile (default: 200)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence level (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap and the model (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    add_memory_limit(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import print_json
    from ocef.pairwise import pairwise_accuracy

    if args.resamples < 0:
        raise ParameterError(f"--n-resamples must be >= 0, got {args.resamples}")
    if args.dataset is not None:
        if args.pairs is not None or args.scores is not None:
            raise ParameterError("give either --dataset or --pairs/--scores, not both")
        from ocef.pairwise.datasets import DEFAULT_MODELS, dataset_pairs

        pairs, scores = dataset_pairs(args.dataset, args.model, data_dir=args.data_dir, rng=args.seed), None
        name = f"{args.dataset} ({args.model or DEFAULT_MODELS[args.dataset]})"
    else:
        if args.pairs is None:
            raise ParameterError("give --pairs FILE (or --dataset coat|obd)")
        if args.model is not None:
            raise ParameterError("--model applies to --dataset only; give --scores for a pairs file")
        pairs, scores, name = args.pairs, args.scores, str(args.pairs)
    result = pairwise_accuracy(pairs, scores=scores, subgroup=args.subgroup, cluster=args.cluster,
                               interval=args.interval, n_resamples=args.resamples, confidence=args.confidence,
                               rng=args.seed, progress=args.progress)
    if args.json:
        print_json(result.to_dict())
        return 0
    for line in console_report(result, name, args.cluster):
        print(line)
    return 0


def console_report(result, name: str, cluster: str) -> list[str]:
    """Console text of :func:`ocef.pairwise.pairwise_accuracy`: cells, per-kind accuracies and
    per-kind comparisons as tables at most 100 columns wide (4 significant digits), reasons as notes."""
    import textwrap

    from ocef.commands._common import ConsoleTable
    from ocef.commands.recmetrics import fmt, verdict

    console = ConsoleTable()
    mark, table = console.mark, console.rows

    g0, g1 = result.group_names
    method = ("cluster-robust Wilson" if result.interval == "cluster-wilson"
              else f"percentile bootstrap (B = {result.n_resamples})")
    lines = textwrap.wrap(f"pairwise accuracy on {name}: {result.n_pairs:,} pairs, {result.n_queries:,} {cluster} "
                          f"clusters, {result.confidence:.0%} {method} intervals", 100, subsequent_indent="  ")
    lines += ["", "cells: accuracy of the clicked item's group at engagement z"]
    rows = [(r.kind, str(r.group)[:14], str(r.z)[:8], r.n_pairs, r.n_clusters, fmt(r.accuracy),
             f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]" + mark(r.reason)) for r in result.cells.itertuples(index=False)]
    lines += table(rows, ["kind", "group", "z", "pairs", "clusters", "accuracy", "interval"],
                   [9, 15, 9, 9, 10, 10, 26])
    summary = result.summary()
    lines += [""] + textwrap.wrap(f"per kind: each group's accuracy averaged over the z levels listed (group 0 = {g0}, "
                                  f"group 1 = {g1})", 100, subsequent_indent="  ")
    rows = []
    for r in summary.itertuples(index=False):
        for g, gname in enumerate((g0, g1)):
            rows.append((r.kind, str(gname)[:14], fmt(getattr(r, f"accuracy_{g}")),
                         f"[{fmt(getattr(r, f'accuracy_{g}_ci_low'))}, {fmt(getattr(r, f'accuracy_{g}_ci_high'))}]",
                         (r.z_levels or "-")[:16] + mark(r.reason)))
    lines += table(rows, ["kind", "group", "accuracy", "interval", "z levels"], [9, 15, 10, 22, 24])
    lines += ["", "comparisons: gap = accuracy_0 - accuracy_1, ratio = accuracy_0 / accuracy_1;",
              "  p-value of gap = 0, Holm-adjusted over the three kinds"]
    rows = [(r.kind, fmt(r.gap), f"[{fmt(r.gap_ci_low)}, {fmt(r.gap_ci_high)}]", fmt(r.ratio),
             f"[{fmt(r.ratio_ci_low)}, {fmt(r.ratio_ci_high)}]", fmt(r.p_adjusted), verdict(r.significant))
            for r in summary.itertuples(index=False)]
    lines += table(rows, ["kind", "gap", "interval", "ratio", "interval", "p (Holm)", "signif."],
                   [9, 9, 22, 9, 20, 10, 9])
    lines += console.notes()
    return lines
