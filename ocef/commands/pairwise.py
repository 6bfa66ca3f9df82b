"""``ocef pairwise``: pairwise fairness from randomized pairs (seed 003) with clustered intervals.

``ocef pairwise --pairs P.csv [--scores S.csv] [--subgroup G] [--resamples N] [--seed N] [--json]``
or ``ocef pairwise --dataset coat|obd [--model mf|popularity] [--data-dir DIR]``.
Pairs files (CSV or Parquet, read by DuckDB): ``query, j, jp, s_j, s_jp[, z][, score_j, score_jp]``;
scores files: ``item, score`` or ``query, item, score``.
JSON: ``{"cells": [{"kind", "group", "z", "n_pairs", "accuracy", "ci_low", "ci_high"}],
"summary": [{"kind", "accuracy_0", "accuracy_1", "ratio", "gap", ...intervals}], "groups",
"z_levels", "n_pairs", "n_queries", "confidence", "n_resamples", "cluster"}``; ``group`` is the
clicked item's group as written in the pairs file; ratio = accuracy_0 / accuracy_1.
"""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "pairwise", help="pairwise (overall / intra / inter-group) accuracies from randomized pairs",
        description="Estimate overall, intra- and inter-group pairwise accuracies per clicked group and "
                    "engagement level from randomized pairs, with bootstrap intervals clustered by query, and "
                    "the per-kind ratio and gap between the two groups (seed 003, Beutel et al., Sec. 3).")
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
    p.add_argument("--resamples", type=int, default=200, help="bootstrap resamples (default: 200; 0 = none)")
    p.add_argument("--confidence", type=float, default=0.95, help="interval confidence level (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap and the model (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import print_json
    from ocef.pairwise import pairwise_accuracy

    if args.resamples < 0:
        raise ValueError(f"--resamples must be >= 0, got {args.resamples}")
    if args.dataset is not None:
        if args.pairs is not None or args.scores is not None:
            raise ValueError("give either --dataset or --pairs/--scores, not both")
        from ocef.pairwise.datasets import DEFAULT_MODELS, dataset_pairs

        pairs, scores = dataset_pairs(args.dataset, args.model, args.data_dir, args.seed), None
        name = f"{args.dataset} ({args.model or DEFAULT_MODELS[args.dataset]})"
    else:
        if args.pairs is None:
            raise ValueError("give --pairs FILE (or --dataset coat|obd)")
        if args.model is not None:
            raise ValueError("--model applies to --dataset only; give --scores for a pairs file")
        pairs, scores, name = args.pairs, args.scores, str(args.pairs)
    result = pairwise_accuracy(pairs, scores=scores, subgroup=args.subgroup, cluster=args.cluster,
                               n_resamples=args.resamples, confidence=args.confidence, rng=args.seed)
    if args.json:
        print_json(result.to_dict())
        return 0
    g0, g1 = result.group_names
    print(f"pairwise accuracy on {name}: {result.n_pairs:,} pairs, {result.n_queries:,} {args.cluster} clusters, "
          f"{args.confidence:.0%} bootstrap intervals (B = {args.resamples})")
    cells = result.cells.copy()
    cells["group"] = cells["group"].astype(str)
    print(cells.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    cols = ["kind", "accuracy_0", "accuracy_1", "ratio", "ratio_ci_low", "ratio_ci_high", "gap", "n_levels"]
    print(f"summary (group 0 = {g0}, group 1 = {g1}; ratio = accuracy_0 / accuracy_1, averaged over the z "
          "levels both groups have):")
    print(result.summary()[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0
