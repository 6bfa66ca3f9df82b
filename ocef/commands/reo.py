"""``ocef reo`` and ``ocef reo-ab``: REO estimates with intervals from default + random traffic logs.

``ocef reo --default D --random R --label COL --group COL [--confidence 0.95] [--json]``
(CSV, Parquet, a directory or glob of Parquet partitions; ``--label`` may list several columns,
Y = any of them), or ``ocef reo --dataset coat|obd [--data-dir DIR]``. The logs are reduced to
per-group counts first: ``--backend duckdb`` (the default for files; reads only the label and
group columns), ``pandas`` or ``spark`` (``--spark-master URL``, default ``local[*]``).

JSON keys: ``groups`` (list of ``{group, P, Q, U, delta_U, se, ci_low, ci_high}``), ``penalty``,
``penalty_se``, ``penalty_ci``, ``n_default``, ``n_random``, ``confidence``, ``method``,
``delta_method_reliable``, ``notes``, ``interval``, ``backend``, ``threshold_80`` (undefined
numbers are JSON null); with ``--plan-epsilon EPS`` also ``plan``: ``{epsilon, n_default,
n_random, half_width, p_act, ...}`` (p_act with ``--requests`` and ``--k``, the list length). With ``--by
day``: ``{by, groups, confidence, method, threshold, days: [{day, n_default, n_random,
penalty, penalty_se, ci_low, ci_high, delta_method_reliable, ..., note, groups}], backend,
interval}``. ``--fail-above T`` exits with status 3 when the penalty (of any day with
``--by``) is significantly above T: the lower end of its interval is above T.

``ocef reo-ab --control C --treatment T --random R ... --interval delta-shared|delta|partition|
standard|percentile|bca [--backend ...]``. JSON keys: ``groups`` (``{group, delta_U_control, delta_U_treatment,
D, se, ci_low, ci_high, p_value}``), ``D_reo``, ``D_reo_se``, ``D_reo_ci``, ``D_reo_p_value``,
``penalty_control``, ``penalty_treatment``, ``n_control``, ``n_treatment``, ``n_random``,
``method``, ``confidence``, ``backend``.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.commands._common import add_memory_limit, add_progress
from ocef.errors import ParameterError

INTERVALS = ("delta-full", "delta", "standard", "percentile", "bca")
#: ``ocef reo-ab --interval`` (a light copy of :data:`ocef.reo.AB_INTERVALS`, tested equal)
AB_INTERVALS = ("delta", "delta-shared", "partition", "standard", "percentile", "bca")
BACKENDS = ("auto", "duckdb", "pandas", "spark")
#: exit status of ``--fail-above`` when the penalty is significantly above the threshold
EXIT_ABOVE = 3


def _labels(text: str) -> str | list[str]:
    cols = [c.strip() for c in text.split(",") if c.strip()]
    if not cols:
        raise ParameterError(f"--label must name at least one column, got {text!r}")
    return cols[0] if len(cols) == 1 else cols


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", default="Y",
                   help="0/1 label column; a comma-separated list means Y = any of them (default: Y)")
    p.add_argument("--group", default="S", help="item-group column S (default: S)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed for bootstrap/partition (default: 0)")
    p.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="where the per-group counts are computed: duckdb (embedded; what auto picks for "
                        "files, reading only the needed columns), pandas (what auto picks for --dataset) "
                        "or spark (pip install -e '.[spark]' in a checkout, Java 17)")
    p.add_argument("--spark-master", default="local[*]", metavar="URL",
                   help="Spark master for --backend spark (default: local[*]; e.g. spark://host:7077, yarn)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    add_memory_limit(p)


def register(sub) -> None:
    p = sub.add_parser(
        "reo", help="estimate REO utilities, relative utilities and the penalty with intervals",
        description="Estimate U_k = Q_k/P_k, delta_U_k and the REO penalty std(U)/mean(U) from a "
                    "default-traffic log and a random-traffic log, with delta-method or bootstrap "
                    "intervals (Dong et al. 2024), from per-group counts computed by DuckDB, pandas or Spark.")
    src = p.add_argument_group("input (either both logs or a data set)")
    src.add_argument("--default", type=Path,
                     help="default-traffic log (CSV, Parquet, or a directory/glob of Parquet files)")
    src.add_argument("--random", type=Path,
                     help="random-traffic log (CSV, Parquet, or a directory/glob of Parquet files)")
    src.add_argument("--dataset", choices=("coat", "obd"), help="use a real data set's loader instead")
    src.add_argument("--data-dir", type=Path, default=None,
                     help="folder holding coat/ or obd/ (default: $OCEF_DATA_DIR or ../shared/data)")
    _common(p)
    p.add_argument("--interval", choices=INTERVALS, default="delta-full",
                   help="delta-full (delta method with the full multinomial covariance, default), delta "
                        "(Algorithm 1 as printed, diagonal Gamma) or a bootstrap interval")
    p.add_argument("--n-resamples", "--resamples", dest="resamples", type=int, default=100, help="bootstrap resamples (default: 100)")
    mon = p.add_argument_group("monitoring")
    mon.add_argument("--by", default=None, metavar="COLUMN",
                     help="one estimate per value of this column, e.g. --by day (Fig. 6 of Dong et al. 2024)")
    mon.add_argument("--fail-above", type=float, default=None, metavar="T",
                     help=f"exit with status {EXIT_ABOVE} when the penalty (of any --by value) is significantly "
                          "above T: the lower end of its interval exceeds T (e.g. 0.111, the 80%% rule for K=2)")
    plan = p.add_argument_group("planning (delta-method variance at the current estimates)")
    plan.add_argument("--plan-epsilon", type=float, default=None, metavar="EPS",
                      help="report the random-traffic size giving a penalty interval of half-width EPS "
                           "with the current default log")
    plan.add_argument("--requests", type=int, default=None,
                      help="requests per period, to turn that size into p_act (with --plan-epsilon and --k)")
    plan.add_argument("--k", type=int, default=None,
                      help="list length: items shown per activated request (with --plan-epsilon and --requests)")
    p.set_defaults(func=_run_reo)

    q = sub.add_parser(
        "reo-ab", help="compare REO metrics of a treatment and a control arm (A/B test)",
        description="D_k = delta_U_k^T - delta_U_k^C and D_REO = penalty^T - penalty^C with intervals "
                    "and p-values; the arms share one random-traffic log (Dong et al. 2024, Alg. 2-4).")
    q.add_argument("--control", type=Path, required=True, help="control default-traffic log (file, directory or glob)")
    q.add_argument("--treatment", type=Path, required=True, help="treatment default-traffic log")
    q.add_argument("--random", type=Path, required=True, help="shared random-traffic log")
    _common(q)
    q.add_argument("--interval", choices=AB_INTERVALS, default="delta-shared",
                   help="delta-shared (default: joint delta method with full covariances, for the random log "
                        "both arms share), delta (Alg. 2 as printed: treats the arms as independent and "
                        "under-covers, 87%% instead of 95%% in a measured regime), partition (Alg. 3, Welch), "
                        "or a bootstrap interval of Alg. 4: standard, percentile, bca")
    q.add_argument("--folds", type=int, default=10, help="partition folds per arm (default: 10)")
    q.add_argument("--n-resamples", "--resamples", dest="resamples", type=int, default=100, help="bootstrap resamples (default: 100)")
    q.set_defaults(func=_run_ab)


def _backend(args):
    """``(backend, spark session or None)``; the session only for ``--backend spark``."""
    if args.spark_master != "local[*]" and args.backend != "spark":
        raise ParameterError(f"--spark-master {args.spark_master} needs --backend spark")
    if args.backend == "spark":
        from ocef.backends import spark_session

        return "spark", spark_session(args.spark_master)
    return args.backend, None


def _load(args):
    """``(default, random, label, group)``: file paths (reduced to counts by the engine) or the
    DataFrames of a bundled data set."""
    label = _labels(args.label)
    if not args.group.strip():
        raise ParameterError("--group must name the item-group column, got an empty name")
    if args.dataset is not None:
        if args.default is not None or args.random is not None:
            raise ParameterError("give either --dataset or --default/--random, not both")
        if args.label != "Y" or args.group != "S":
            raise ParameterError("--dataset logs use the columns Y and S; drop --label/--group")
        from ocef.datasets import load_logs

        default, random = load_logs(args.dataset, args.data_dir)
        return default, random, "Y", "S"
    if args.default is None or args.random is None:
        raise ParameterError("give --default and --random log files (or --dataset)")
    return args.default, args.random, label, args.group


def _check_options(args) -> None:
    if args.plan_epsilon is None and (args.requests is not None or args.k is not None):
        raise ParameterError("--requests and --k turn a --plan-epsilon plan into p_act; give --plan-epsilon")
    if args.by is not None and args.plan_epsilon is not None:
        raise ParameterError("--plan-epsilon plans from one estimate; drop --by")
    if args.by is not None and args.interval not in ("delta-full", "delta"):
        raise ParameterError(f"--by gives delta-method intervals (delta-full or delta), got --interval {args.interval}")
    if args.fail_above is not None and not args.fail_above >= 0:
        raise ParameterError(f"--fail-above must be a number >= 0, got {args.fail_above}")


def _run_reo(args: argparse.Namespace) -> int:
    _check_options(args)
    default, random, label, group = _load(args)
    backend, spark = _backend(args)
    from ocef import reo
    from ocef.commands._common import print_json

    kw = dict(label=label, group=group, confidence=args.confidence, backend=backend, spark=spark)
    if args.by is not None:
        return _run_by(args, default, random, kw)
    result = reo.estimate_reo(default, random, interval=args.interval, n_resamples=args.resamples, rng=args.seed,
                              progress=args.progress, **kw)
    threshold = reo.eighty_percent_rule_threshold(len(result.columns["group"]))
    above = args.fail_above is not None and result.penalty_ci[0] > args.fail_above
    payload = result.to_dict()
    payload.update(interval=args.interval, backend=backend, threshold_80=threshold)
    if args.fail_above is not None:
        payload.update(fail_above=args.fail_above, significantly_above=bool(above))
    if args.plan_epsilon is not None:
        payload["plan"] = _plan(args, result)
    if args.json:
        print_json(payload)
        return EXIT_ABOVE if above else 0
    name = args.dataset or f"{args.default} + {args.random}"
    print(f"REO on {name}: |D_rec| = {result.n_default}, |D_rand| = {result.n_random}, "
          f"{args.confidence:.0%} {result.method} intervals"
          + (f" (asked: {args.interval}; switched, see the note)" if result.method != args.interval else ""))
    _print_groups(result.columns)
    lo, hi = result.penalty_ci
    print(f"penalty (std/mean of U) = {result.penalty:.4g}  SE {result.penalty_se:.3g}  CI [{lo:.4g}, {hi:.4g}]  "
          f"(80% rule threshold for K={len(result.columns['group'])}: {threshold:.4g})")
    if "plan" in payload:
        plan = payload["plan"]
        line = (f"plan: |D_rand| = {plan['n_random']:,} random rows give a penalty half-width of "
                f"{plan['half_width']:.4g} <= {plan['epsilon']} with |D_rec| = {plan['n_default']:,}")
        if plan.get("p_act") is not None:
            line += f"; p_act = {plan['p_act']:.3g} for {args.requests:,} requests x {args.k} items"
        print(line)
    for note in result.notes:
        print(f"note: {note}")
    if args.interval in ("delta-full", "delta") and not result.delta_method_reliable and not result.notes:
        print("note: the penalty interval reaches 0, where the delta method is unreliable; "
              "read the per-group intervals or use --interval bca")
    if above:
        print(f"ALERT: the penalty is significantly above {args.fail_above} (lower bound {lo:.4g})")
    return EXIT_ABOVE if above else 0


def _run_by(args, default, random, kw) -> int:
    from ocef import reo
    from ocef.commands._common import print_json

    daily = reo.estimate_reo_by(default, random, by=args.by, interval=args.interval,
                                threshold=args.fail_above, **kw)
    above = args.fail_above is not None and daily.any_above
    if args.json:
        payload = daily.to_dict()
        payload.update(interval=args.interval, backend=kw["backend"])
        print_json(payload)
        return EXIT_ABOVE if above else 0
    print(f"REO per {args.by} ({len(daily.table)} values), groups {list(daily.group_names)}, "
          f"{args.confidence:.0%} {args.interval} intervals")
    table = daily.table.copy()
    table[args.by] = table[args.by].astype(str)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if above:
        days = daily.table.loc[daily.table["significantly_above"], args.by].tolist()
        print(f"ALERT: the penalty is significantly above {args.fail_above} on {args.by} {days}")
    return EXIT_ABOVE if above else 0


def _plan(args: argparse.Namespace, result) -> dict:
    """Random-traffic size (and p_act) for a target penalty half-width, from the delta-method
    variance at the current P_k, Q_k (:func:`ocef.reo.delta_method_sample_size`; the interval
    of the estimate, delta-full for bootstrap intervals)."""
    from ocef import reo

    if (args.requests is None) != (args.k is None):
        raise ParameterError("give both --requests and --k to compute p_act")
    g = result.columns
    interval = args.interval if args.interval in ("delta-full", "delta") else "delta-full"
    plan = reo.delta_method_sample_size(g["P"], g["Q"], epsilon=args.plan_epsilon,
                                        confidence=args.confidence, n_default=result.n_default,
                                        interval=interval).to_dict()
    plan["p_act"] = None
    if args.requests is not None:
        plan["p_act"] = reo.p_act_for(plan["n_random"], n_requests=args.requests, k=args.k)
    return plan


def _run_ab(args: argparse.Namespace) -> int:
    from ocef import reo
    from ocef.commands._common import print_json

    label = _labels(args.label)
    interval = args.interval
    backend, spark = _backend(args)
    result = reo.ab_test(args.control, args.treatment, args.random, interval=interval, label=label,
                         group=args.group, confidence=args.confidence, rng=args.seed, n_resamples=args.resamples,
                         n_folds=args.folds, backend=backend, spark=spark, progress=args.progress)
    if args.json:
        print_json({**result.to_dict(), "backend": backend})
        return 0
    print(f"REO A/B ({result.method}): |D_rec^C| = {result.n_control}, |D_rec^T| = {result.n_treatment}, "
          f"|D_rand| = {result.n_random}, {args.confidence:.0%} intervals")
    _print_groups({c: result.groups[c].tolist() for c in result.groups.columns})
    lo, hi = result.D_reo_ci
    print(f"penalty control {result.penalty_control:.4g}, treatment {result.penalty_treatment:.4g}; "
          f"D_REO = {result.D_reo:.4g}  SE {result.D_reo_se:.3g}  CI [{lo:.4g}, {hi:.4g}]  p = {result.D_reo_p_value:.3g}")
    for note in result.notes:
        print(f"note: {note}")
    return 0


def _print_groups(columns) -> None:
    """Print the per-group table (a dict of columns; 4 significant digits)."""
    from ocef.commands._common import format_table

    print(format_table(columns))
