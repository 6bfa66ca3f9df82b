"""``ocef recmetrics``: holisticai's recommender bias metrics for any number of groups, with intervals.

Inputs: ``--scores S --groups G [--truth T]`` (.npy or .csv, rows are users; NaN or an empty
cell = not scored), or ``--dataset movielens|coat``:

* ``movielens``: the scores of the simulated recommender of the MovieLens environment
  (``--factors``, ``--train-fraction``, Do et al. 2022 Sec. 6.1), truth = the ground truth ρ, groups
  from ``--partition`` (gender, age, occupation, ...; default gender);
* ``coat``: Funk SVD (``--factors``) fitted on Coat's self-selected ratings ``train.ascii``,
  scores and truth (the ratings of 16 random items per user, ``test.ascii``; other cells NaN)
  mapped from stars to [0, 1] by (r − 1)/4; groups from the user features (``--partition``
  gender, age, location or fashioninterest; default gender).

JSON (``--json``): ``{"overall": {aggregate_diversity, gini_index, exposure_entropy,
avg_recommendation_popularity}, "groups": [{group, n_users, mean_score, ...}], "pairs":
[{group_a, group_b, mad, exposure_total_variation, exposure_kl, avg_precision_ratio,
avg_recall_ratio, avg_f1_ratio, rmse_ratio, mae_ratio}], reference, k, thresh, ...}`` (the ratios
only with a truth matrix); every metric is an object ``{value, estimate, ci_low, ci_high, interval,
reason, n_defined}`` and for pairs also ``p_value, p_adjusted, significant`` (Holm over the groups,
per metric). ``value`` is holisticai's sample statistic (holisticai's), ``estimate`` the population
estimate the interval is around; ±inf and undefined values are both ``null`` and ``reason`` says
which ("infinite: ..." / "undefined: ...").
With two groups and ``--group-a NAME`` the single pair is (NAME, the other group), holisticai's
orientation.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.errors import ParameterError
from ocef.metrics import FAMILIES, FAMILY_TEXT, RESAMPLE_CHUNK
from ocef.commands._common import add_progress

DATASETS = ("movielens", "coat")
COAT_PARTITIONS = ("gender", "age", "location", "fashioninterest")   # ocef.environments.inputs (not imported at --help)
OPTION_NAMES = {"scores": "--scores", "truth": "--truth", "groups": "--groups", "partition": "--partition",
                "dataset": "--dataset", "n_users": "--n-users", "n_items": "--n-items",
                "train_fraction": "--train-fraction"}


def register(sub) -> None:
    p = sub.add_parser(
        "recmetrics",
        help="recommender bias metrics (MAD, ETV, EKL, precision/recall/F1 ratios, Gini, ...) by group",
        description="holisticai's outcome, opportunity and item-exposure metrics of a recommender for any "
                    "number of groups: item metrics of the system, one row per group and one row per "
                    "(group, reference) pair, with bootstrap intervals over users (--n-resamples). On two "
                    "groups the numbers are holisticai 1.0.14's.",
    )
    files = p.add_argument_group("matrices from files (.npy or .csv; rows are users)")
    files.add_argument("--scores", type=Path, metavar="FILE", help="scores, users x items (NaN/empty = not scored)")
    files.add_argument("--groups", type=Path, metavar="FILE", help="group label of each user (numbers or names)")
    files.add_argument("--truth", type=Path, metavar="FILE",
                       help="true relevance, same shape as --scores (enables the precision/recall/F1/RMSE/MAE ratios)")
    env = p.add_argument_group("named data set")
    env.add_argument("--dataset", choices=DATASETS, help="use a data set instead of files (see the module help)")
    env.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                     help="folder holding ml-100k/ (or ml-1m/) and coat/ (default: $OCEF_DATA_DIR or ../shared/data)")
    env.add_argument("--partition", default="gender",
                     help="user attribute defining the groups (movielens: gender, age, occupation, gender-age, ...; "
                          f"coat: {', '.join(COAT_PARTITIONS)}; default: gender)")
    env.add_argument("--factors", type=int, default=8, help="latent factors of the recommender (default: 8)")
    env.add_argument("--train-fraction", type=float, default=None,
                     help="movielens: fraction of each user's entries observed by the recommender (default: 0.2)")
    env.add_argument("--n-users", type=int, default=None, help="movielens: users kept (most ratings)")
    env.add_argument("--n-items", type=int, default=None, help="movielens: items kept (most ratings)")
    sel = p.add_argument_group("groups compared and recommendations read from the scores")
    sel.add_argument("--group-a", default=None, metavar="NAME",
                     help="with exactly two groups: report the pair (NAME, other group), holisticai's group_a")
    sel.add_argument("--reference", default=None, metavar="NAME",
                     help="group every other group is compared with (default: the largest)")
    how = sel.add_mutually_exclusive_group()
    how.add_argument("--k", "--top", dest="k", type=int, default=None, metavar="K",
                     help="recommend the K highest scores of each user (list length; --top is an alias)")
    how.add_argument("--thresh", type=float, default=None, metavar="X",
                     help="recommend every score >= X (default when --top is not given: 0.5)")
    sel.add_argument("--normalize", action="store_true", help="min-max normalise the scores (and truth) first")
    sel.add_argument("--gini-convention", choices=("holisticai", "formula"), default="holisticai",
                     help="Gini index divided by n - 1 (holisticai, default) or by n (holisticai's formula)")
    p.add_argument("--n-resamples", "--resamples", dest="resamples", type=int, default=200,
                   help="bootstrap resamples of users (default: 200; 0: sample values only, no intervals; "
                        f"above {RESAMPLE_CHUNK} a progress bar with the time left is shown, and a run whose "
                        "replicates would exceed the memory limit is refused before it starts)")
    p.add_argument("--family", choices=FAMILIES, default="report",
                   help="what one Holm family of 'significant' labels is: every pair of every metric in the "
                        "report (default; any false 'significant' anywhere has probability <= 1 - confidence) "
                        "or each metric's table on its own")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default: 0.95)")
    p.add_argument("--interval", choices=("auto", "percentile", "basic"), default="auto",
                   help="auto (default): per metric the interval measured to cover (t, t on log scale for ratios, "
                        "the triangle interval of ETV, the smoothed bias-corrected EKL); percentile or basic: that "
                        "bootstrap interval for every metric (for comparison)")
    p.add_argument("--simultaneous", action="store_true",
                   help="pair intervals that hold jointly over the groups (Bonferroni per metric)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and of the data set's recommender (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    p.set_defaults(func=_run)


# ------------------------------------------------------------------ inputs

# ------------------------------------------------------------------ command

def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from ocef.commands._common import print_json
    from ocef.environments.inputs import bias_inputs_from_dataset, bias_inputs_from_files
    from ocef.metrics import recommender_bias
    from ocef.validation import check_positive_int

    check_positive_int("--factors", args.factors)
    files = [o for o in ("scores", "groups", "truth") if getattr(args, o) is not None]
    if args.dataset is not None and files:
        raise ParameterError("give either --dataset or files (--scores/--groups/--truth), not both")
    if args.dataset != "movielens":                 # never silently ignored
        for option, value in (("--n-users", args.n_users), ("--n-items", args.n_items),
                              ("--train-fraction", args.train_fraction)):
            if value is not None:
                raise ParameterError(f"{option} applies to --dataset movielens only")
    if args.dataset is not None:
        inputs = bias_inputs_from_dataset(
            args.dataset, partition=args.partition, data_dir=args.data_dir, factors=args.factors,
            train_fraction=args.train_fraction, n_users=args.n_users,
            n_items=args.n_items, rng=args.seed, names=OPTION_NAMES)
    elif args.scores is None or args.groups is None:
        raise ParameterError("give --scores and --groups (and optionally --truth), or --dataset")
    else:
        inputs = bias_inputs_from_files(args.scores, args.groups, truth=args.truth, names=OPTION_NAMES)
    scores, truth, labels, description = inputs.scores, inputs.truth, inputs.groups, inputs.description
    reference = args.reference
    if args.group_a is not None:
        names = sorted({str(v) for v in np.asarray(labels).tolist()})
        if len(names) != 2:
            raise ParameterError(f"--group-a needs exactly two groups, got {len(names)}; use --reference to compare "
                             f"every group with one")
        if str(args.group_a) not in names:
            raise ParameterError(f"--group-a {args.group_a!r} is not a group; groups: {', '.join(names)}")
        other = names[1 - names.index(str(args.group_a))]
        if reference is not None and str(reference) != other:
            raise ParameterError(f"--reference {reference!r} must be the other group {other!r} when --group-a is given")
        reference = other
    if args.resamples < 0:
        raise ParameterError(f"--n-resamples must be an integer >= 0, got {args.resamples}")
    result = recommender_bias(scores, truth, groups=labels, reference=reference, k=args.k,
                              thresh=0.5 if args.thresh is None else args.thresh, normalize=args.normalize,
                              n_resamples=args.resamples, rng=args.seed, confidence=args.confidence,
                              interval=args.interval, simultaneous=args.simultaneous,
                              gini_convention=args.gini_convention, family=args.family, progress=args.progress)
    if args.json:
        print_json({**result.to_dict(), "source": description})
        return 0
    for line in console_report(result, description, scores.shape):
        print(line)
    return 0


def fmt(value) -> str:
    """One number for the console: 4 significant digits, ``inf``/``-inf``, ``-`` for undefined."""
    import math

    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.4g}"


def verdict(significant) -> str:
    """``yes``/``no`` from a nullable boolean, ``-`` when there is no test (None, NaN or ``pandas.NA``)."""
    import numpy as np

    if not isinstance(significant, (bool, int, float, np.bool_, np.number)) or significant != significant:
        return "-"
    return "yes" if bool(significant) else "no"


def coincide_note(rows) -> str | None:
    """The sentence explaining why precision, recall and F1 print the same numbers, when they do
    (``rows``: the group rows of the table, :meth:`ocef.metrics.RecommenderBiasResult.rows`)."""
    import numpy as np

    part: dict = {}
    for r in rows:
        part.setdefault(r["metric"], {})[r["group"]] = r["value"]
    if not {"avg_precision", "avg_recall", "avg_f1"} <= set(part):
        return None
    groups = sorted(part["avg_precision"])          # the pivot's order: groups sorted
    p, r, f = (np.array([part[c].get(g, np.nan) for g in groups], dtype=float)
               for c in ("avg_precision", "avg_recall", "avg_f1"))
    if np.allclose(p, r, rtol=0, atol=1e-12, equal_nan=True) and np.allclose(p, f, rtol=0, atol=1e-12, equal_nan=True):
        return ("precision, recall and F1 coincide (and so do their ratios): every user is shown as many items as "
                "are relevant to them (a fixed list length k reads both the scores and the truth), so "
                "TP/shown = TP/relevant = F1")
    return None


def console_report(result, description: str, shape) -> list[str]:
    """The console text of :func:`ocef.metrics.recommender_bias`: one table per level and metric,
    as wide as the terminal (80 columns when piped), numbers with 4 significant digits; reasons as
    numbered notes."""
    import textwrap
    from types import SimpleNamespace

    from ocef.commands._common import ConsoleTable, console_width

    how = f"top {result.k}" if result.k is not None else f"scores >= {result.thresh:g}"
    lines = textwrap.wrap(f"recommender bias metrics of {description}", console_width(), subsequent_indent="  ")
    head = (f"{shape[0]} users x {shape[1]} items; recommended: {how}{', normalised' if result.normalize else ''}; "
            f"reference group {result.reference!r}")
    if result.n_resamples:
        head += (f"; {100 * result.confidence:g}% intervals ({result.interval}; {result.n_resamples} bootstrap "
                 f"resamples{'; simultaneous over the groups' if result.simultaneous else ''}); p-values "
                 f"{FAMILY_TEXT[result.family]}")
    lines += textwrap.wrap(head, console_width(), initial_indent="  ", subsequent_indent="  ")
    lines += textwrap.wrap("value = holisticai's sample statistic; estimate = of the population quantity; the "
                           "interval is around the estimate", console_width(), initial_indent="  ", subsequent_indent="  ")
    note = coincide_note(result.rows("group"))
    if note:
        lines += textwrap.wrap("note: " + note, console_width(), initial_indent="  ", subsequent_indent="  ")

    console = ConsoleTable()
    mark, table = console.mark, console.rows

    for level, title in (("overall", "overall (all users)"), ("group", "groups"),
                         ("pair", f"pairs: each group relative to the reference {result.reference!r}")):
        part = [SimpleNamespace(**{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()})
                for r in result.rows(level)]
        lines += ["", title]
        if level == "overall":
            rows = [(r.metric, fmt(r.value), fmt(r.estimate), f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]" + mark(r.reason))
                    for r in part]
            lines += table(rows, ["metric", "value", "estimate", "interval"], [32, 11, 11, 32])
            continue
        by_metric: dict = {}
        for r in part:
            by_metric.setdefault(r.metric, []).append(r)
        for metric, sub in by_metric.items():
            lines.append(f" {metric}")
            if level == "group":
                rows = [(r.group, r.n_users, fmt(r.value), fmt(r.estimate),
                         f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]" + mark(r.reason)) for r in sub]
                lines += table(rows, ["group", "users", "value", "estimate", "interval"], [24, 7, 11, 11, 30])
            else:
                rows = [(r.group, r.n_users, fmt(r.value), fmt(r.estimate), f"[{fmt(r.ci_low)}, {fmt(r.ci_high)}]",
                         fmt(r.p_adjusted), verdict(r.significant) + mark(r.reason)) for r in sub]
                lines += table(rows, ["group", "users", "value", "estimate", "interval", "p (Holm)", "signif."],
                               [22, 7, 10, 10, 24, 10, 12])
    lines += console.notes()
    return lines
