"""``ocef fairrec``: multi-attribute fairness testing of a recommender (Guo et al. 2023, FairRec).

``ocef fairrec --dataset movielens [--data-dir DIR] --model logmf|fm`` trains the model on the
leave-last-out split and tests it through black-box queries; ``ocef fairrec --user-metrics M.csv``
tests a table with one row per user, one column per attribute (integer codes) and one per metric.
JSON keys: ``uf``, ``uf_lower`` (lower confidence bound of the population UF, valid whatever the
search looked at), ``p_value``, ``significant``, ``confidence``, ``test``, ``n_resamples``, ``reason``,
``advantaged`` / ``disadvantaged`` (``{group: {attribute: code}, labels: {attribute: label},
n_users, value, ci_low, ci_high}``; ``n_users`` counts users with a defined metric, the interval is
simultaneous over the valid groups), ``n_evaluations``, ``n_users_queried``, ``n_queries``, ``cost``, ``n_invalid_visits``, ``n_groups`` (valid
groups), ``n_cells``, ``min_users``, ``seconds``, ``top_advantaged``, ``top_disadvantaged``,
``method``, ``metric``, ``params``, ``inference_users_queried``, ``inference_queries``,
``inference_seconds``, ``labels`` (code -> label per attribute).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ocef.errors import DataError, ParameterError, ResourceLimitError
from ocef.fairrec import AUC_MODES, EPSILON_BASES, METHODS, TESTS
from ocef.commands._common import add_progress


def _auto_or(kind):
    """argparse type: the word ``auto`` or a number of ``kind`` (checked later, naming the option)."""
    def parse(text: str):
        if text == "auto":
            return "auto"
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected 'auto' or {'an integer' if kind is int else 'a number'}, "
                                             f"got {text!r}") from None
    parse.__name__ = f"auto or {kind.__name__}"
    return parse


def register(sub) -> None:
    p = sub.add_parser(
        "fairrec", help="find the most unfair combination of user attributes (FairRec, DPSO search)",
        description="Search the multi-attribute user groups (e.g. gender x age x occupation) for the "
                    "largest gap of a recommendation metric between two groups, UF of eq. (1), with "
                    "FairRec's double-ended discrete PSO (Alg. 1-3) or a baseline (Guo et al. 2023).")
    src = p.add_argument_group("input (a data set and a model, or a table of per-user metrics)")
    src.add_argument("--dataset", choices=("movielens",), default=None,
                     help="train a model on this data set's leave-last-out split and test it")
    src.add_argument("--data-dir", type=Path, default=None,
                     help="folder holding ml-100k/ or ml-1m/ (default: $OCEF_DATA_DIR or ../shared/data)")
    src.add_argument("--model", default=None,
                     help="recommender to test: logmf or fm (numpy), wdl, deepfm or dcn (torch, extra deep) "
                          "(default: logmf)")
    src.add_argument("--user-metrics", type=Path, default=None, metavar="M.csv",
                     help="CSV with one row per user: attribute columns (integer codes) and metric columns")
    p.add_argument("--attributes", default="gender,age,occupation",
                   help="comma-separated sensitive attributes (default: gender,age,occupation)")
    p.add_argument("--metric", default="mrr",
                   help="auc, mrr, ndcg, urd or urp (with --user-metrics: any metric column; default: mrr)")
    p.add_argument("--method", choices=METHODS, default="dpso",
                   help="dpso (FairRec), exhaustive (Themis), testsgd or vanilla PSO (default: dpso)")
    p.add_argument("--min-users", type=int, default=5, help="smallest valid group size (default: 5)")
    p.add_argument("--epsilon", type=_auto_or(float), default=None,
                   help="particles per swarm / number of cells (or valid groups, --epsilon-base), or 'auto': "
                        "Sec. 4.2's rule, 0.1 up to 1,000 groups down to 0.005 from 53,058 (default: 0.1 with at least "
                        "min(valid groups, 24) particles per swarm, so that a small grid is searched through)")
    p.add_argument("--epsilon-base", choices=EPSILON_BASES, default="cells",
                   help="what epsilon is a share of: all cells (product of the attributes' ranges, the paper's "
                        "group counts) or the valid groups (default: cells)")
    p.add_argument("--iters", type=_auto_or(int), default=10,
                   help="DPSO iterations n_it, or 'auto': 10 up to 1,000 groups, 20 from 53,058 (default: 10)")
    p.add_argument("--theta", type=float, default=0.01,
                   help="testsgd: keep groups with at least theta * N users (default: 0.01)")
    p.add_argument("--max-evaluations", type=int, default=None,
                   help="stop after this many distinct group evaluations (default: no budget)")
    p.add_argument("--max-cost", type=float, default=None,
                   help="stop before the cost (users queried + --group-cost per query) would exceed this "
                        "(default: no budget)")
    p.add_argument("--group-cost", type=float, default=1.0,
                   help="fixed cost of one black-box query, in users (default: 1)")
    p.add_argument("--k", type=int, default=None,
                   help="length of the recommendation list, with --dataset (default: 5)")
    p.add_argument("--auc", choices=AUC_MODES, default=None,
                   help="group AUC: the mean of its users' AUCs (Def. 2.2) or the AUC of its pooled candidates "
                        "(the authors' code; no interval or permutation test) (default: mean)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level of uf_lower and of the simultaneous group intervals; significant means "
                        "p <= 1 - confidence (default: 0.95)")
    p.add_argument("--test", choices=("auto",) + TESTS, default="auto",
                   help="p-value: permutation (re-runs the search on permuted users, exact), bound (from the "
                        "simultaneous intervals, no extra query) or auto: permutation when its extra queries cost "
                        "at most twice the search's, else bound (default: auto)")
    p.add_argument("--n-resamples", "--resamples", dest="n_resamples", type=int, default=199,
                   help="permutations of the permutation test (default: 199)")
    p.add_argument("--bounds", default=None, metavar="LOW,HIGH",
                   help="with --user-metrics: range of one user's metric value, needed for intervals when the "
                        "metric is not auc/mrr/ndcg/urd/hit (in [0, 1])")
    p.add_argument("--top-n", type=int, default=5, help="groups listed at each end (default: 5)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the search (default: 0)")
    p.add_argument("--split-seed", type=int, default=None,
                   help="random seed of the split's negatives and of the model's training (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    p.set_defaults(func=_run)


def _oracle(args: argparse.Namespace, attributes: list[str]):
    from ocef.fairrec.unfairness import METRICS
    from ocef.fairrec.search import GroupOracle

    if args.user_metrics is not None:
        if args.dataset is not None:
            raise ParameterError("give either --dataset or --user-metrics, not both")
        # issue 23: --model was ignored with --user-metrics (the table's metrics come from another model)
        ignored = [opt for opt, value in (("--model", args.model), ("--data-dir", args.data_dir),
                                          ("--split-seed", args.split_seed), ("--k", args.k), ("--auc", args.auc))
                   if value is not None]
        if ignored:
            raise ParameterError(f"{', '.join(ignored)} appl{'y' if len(ignored) > 1 else 'ies'} to --dataset only: "
                                 f"--user-metrics {args.user_metrics} already holds the metric values")
        import pandas as pd

        if not args.user_metrics.is_file():
            raise FileNotFoundError(f"--user-metrics file not found: {args.user_metrics}")
        _check_header(args.user_metrics)
        try:
            table = pd.read_csv(args.user_metrics)
        except pd.errors.EmptyDataError:                  # issue 23: was "No columns to parse from file"
            raise DataError(f"--user-metrics file {args.user_metrics} is empty") from None
        bounds = "auto"
        if args.bounds is not None:
            from ocef.commands._common import parse_float_list

            bounds = parse_float_list(args.bounds, "--bounds")
            if len(bounds) != 2 or not bounds[0] < bounds[1]:
                raise ParameterError(f"--bounds must be LOW,HIGH with LOW < HIGH, got {args.bounds!r}")
        return GroupOracle.from_user_metrics(table, attributes, args.metric, args.min_users, bounds=bounds,
                                             labels=_labels_of(table, attributes))
    if args.dataset is None:
        raise ParameterError("give --dataset movielens or --user-metrics M.csv")
    if args.metric not in METRICS:
        raise ParameterError(f"--metric must be one of {list(METRICS)}, got {args.metric!r}")
    from ocef.fairrec.pipeline import fit_movielens

    seed = 0 if args.split_seed is None else args.split_seed
    fitted = fit_movielens(args.model or "logmf", args.data_dir, split_seed=seed, model_seed=seed,
                           progress=args.progress)
    return fitted.oracle(args.metric, attributes, min_users=args.min_users, k=5 if args.k is None else args.k,
                         auc=args.auc or "mean", lazy=True)


def _check_header(path: Path) -> None:
    """Issue 23: pandas renames a repeated column (``mrr``, ``mrr.1``) and the first one was used; a
    header naming a column more than once is refused, naming it."""
    import csv

    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        header = next(csv.reader(fh), [])
    names = [h.strip() for h in header]
    repeated = sorted({h for h in names if h and names.count(h) > 1})
    if repeated:
        raise DataError(f"--user-metrics {path}: column(s) {repeated} appear more than once in the header; "
                        f"give each attribute and metric one column")


def _labels_of(table, attributes) -> dict | None:
    """Labels from ``ATTR_label`` columns of a user-metrics table (one label per code), if present."""
    out = {}
    for a in attributes:
        col = f"{a}_label"
        if col in table.columns:
            pairs = table[[a, col]].drop_duplicates()
            if pairs[a].duplicated().any():
                raise DataError(f"column {col!r} gives more than one label to a code of {a!r}")
            out[a] = dict(zip(pairs[a].astype(int), pairs[col].astype(str)))
    return out or None


def _run(args: argparse.Namespace) -> int:
    from ocef.fairrec.search import MAX_ITERATIONS, search
    from ocef.validation import check_in_interval, check_positive_int

    if args.epsilon not in ("auto", None):
        check_in_interval("--epsilon", args.epsilon, 0.0, 1.0)      # checked before the model is trained
    if args.iters != "auto":
        check_positive_int("--iters", args.iters)
    if args.max_cost is not None:
        check_in_interval("--max-cost", args.max_cost, 0.0, float("inf"), high_open=True)
    check_in_interval("--group-cost", args.group_cost, 0.0, float("inf"), low_open=False, high_open=True)
    # What the oracle and the search would refuse, refused before a model is trained (a deep one: minutes).
    check_positive_int("min_users", args.min_users)
    if args.k is not None:
        check_positive_int("--k", args.k)
    if args.iters != "auto" and args.iters > MAX_ITERATIONS:   # before a model is trained
        raise ResourceLimitError(f"--iters must be at most {MAX_ITERATIONS} (documented limit), got {args.iters}")
    check_positive_int("top_n", args.top_n)
    check_in_interval("theta", args.theta, 0.0, 1.0, low_open=False)
    if args.max_evaluations is not None:
        check_positive_int("max_evaluations", args.max_evaluations)
    check_in_interval("--confidence", args.confidence, 0.0, 1.0, high_open=True)
    check_positive_int("--n-resamples", args.n_resamples)
    attributes = [a.strip() for a in args.attributes.split(",") if a.strip()]
    if not attributes:
        raise ParameterError(f"--attributes must name at least one column, got {args.attributes!r}")
    oracle = _oracle(args, attributes)
    res = search(oracle, args.method, epsilon=args.epsilon, n_iter=args.iters, theta=args.theta,
                 top_n=args.top_n, max_evaluations=args.max_evaluations, max_cost=args.max_cost,
                 group_cost=args.group_cost, epsilon_base=args.epsilon_base, confidence=args.confidence,
                 test=args.test, n_resamples=args.n_resamples, rng=args.seed, progress=args.progress)
    if args.json:
        from ocef.commands._common import print_json

        print_json(res.to_dict())
        return 0

    def fmt(g) -> str:
        if g is None:
            return "-"
        ci = (f" [{g.ci_low:.4f}, {g.ci_high:.4f}]" if g.ci_low == g.ci_low else "")
        return f"{g.name()} ({g.n_users} users): {g.value:.4f}{ci}"

    level = f"{res.confidence:.0%}"
    lower = f"{res.uf_lower:.4f}" if res.uf_lower == res.uf_lower else "none"
    p = f"{res.p_value:.3g}" if res.p_value == res.p_value else "none"
    print(f"UF_{res.metric} = {res.uf:.4f}  ({res.method}, min_users={res.min_users} users with a defined metric)")
    print(f"{level} lower bound of the population UF: {lower};  p = {p}"
          + (f" (studentized max-t {res.test} test, {res.n_resamples} permutations and bootstrap resamples)"
             if res.test == "permutation" else
             f" ({res.test} test)" if res.test else ""))
    print(res.verdict())
    print(f"advantaged:    {fmt(res.advantaged)}")
    print(f"disadvantaged: {fmt(res.disadvantaged)}")
    if res.advantaged is not None and res.advantaged.ci_low == res.advantaged.ci_low:
        print(f"  (intervals: {level} simultaneous over the {res.n_groups} valid groups)")
    print(f"evaluated {res.n_evaluations} of {res.n_groups} valid groups ({res.n_cells} cells), "
          f"{res.n_users_queried} users queried (cost {res.cost:g}), {res.seconds:.2f} s; "
          f"inference queried {res.inference_users_queried} more users, {res.inference_seconds:.2f} s")
    if res.params["n_particles"] is not None:
        print(f"search settings: epsilon {res.params['epsilon']:.4g} of the {res.params['epsilon_base']} "
              f"({res.params['epsilon_rule']}), {res.params['n_particles']} particles per swarm "
              f"({res.params['n_particles_rule']}), {res.params['n_iter']} iterations")
    if res.params.get("bound_method"):
        extra = (f"; max-t statistic {res.params['maxt_statistic']:.3g}, critical value "
                 f"{res.params['maxt_critical']:.3g}, p permutation {res.params['p_permutation']:.3g}, "
                 f"p bootstrap {res.params['p_bootstrap']:.3g}" if res.params.get("maxt_critical") is not None else "")
        print(f"inference: test {res.test or 'none'} (asked: {res.params['test_requested']}), bound "
              f"{res.params['bound_method']}{extra}")
    if res.reason:
        print(f"note: {res.reason}")
    return 0
