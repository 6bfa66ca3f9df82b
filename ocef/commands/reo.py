"""``ocef reo`` and ``ocef reo-ab``: REO estimates with intervals from default + random traffic logs.

``ocef reo --default D --random R --label COL --group COL [--confidence 0.95] [--json]``
(CSV or Parquet; ``--label`` may list several columns, Y = any of them), or
``ocef reo --dataset coat|obd [--data-dir DIR]``. JSON keys: ``groups`` (list of ``{group, P, Q,
U, delta_U, se, ci_low, ci_high}``), ``penalty``, ``penalty_se``, ``penalty_ci``, ``n_default``,
``n_random``, ``confidence``, ``method``, ``delta_method_reliable``, ``interval``,
``threshold_80`` (undefined numbers are JSON null); with ``--plan-epsilon EPS`` also ``plan``:
``{epsilon, n_default, n_random, half_width, p_act}`` (p_act with ``--requests`` and ``--n-show``).

``ocef reo-ab --control C --treatment T --random R ... --method delta|delta-shared|partition|
bootstrap``. JSON keys: ``groups`` (``{group, delta_U_control, delta_U_treatment, D, se, ci_low,
ci_high, p_value}``), ``D_reo``, ``D_reo_se``, ``D_reo_ci``, ``D_reo_p_value``,
``penalty_control``, ``penalty_treatment``, ``n_control``, ``n_treatment``, ``n_random``,
``method``, ``confidence``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

INTERVALS = ("delta", "standard", "percentile", "bca")


def _labels(text: str) -> str | list[str]:
    cols = [c.strip() for c in text.split(",") if c.strip()]
    if not cols:
        raise ValueError(f"--label must name at least one column, got {text!r}")
    return cols[0] if len(cols) == 1 else cols


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", default="Y",
                   help="0/1 label column; a comma-separated list means Y = any of them (default: Y)")
    p.add_argument("--group", default="S", help="item-group column S (default: S)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (default: 0.95)")
    p.add_argument("--seed", type=int, default=0, help="random seed for bootstrap/partition (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def register(sub) -> None:
    p = sub.add_parser(
        "reo", help="estimate REO utilities, relative utilities and the penalty with intervals",
        description="Estimate U_k = Q_k/P_k, delta_U_k and the REO penalty std(U)/mean(U) from a "
                    "default-traffic log and a random-traffic log, with delta-method (Algorithm 1) "
                    "or bootstrap intervals (seed 000).")
    src = p.add_argument_group("input (either both logs or a data set)")
    src.add_argument("--default", type=Path, help="default-traffic log (CSV or Parquet)")
    src.add_argument("--random", type=Path, help="random-traffic log (CSV or Parquet)")
    src.add_argument("--dataset", choices=("coat", "obd"), help="use a real data set's loader instead")
    src.add_argument("--data-dir", type=Path, default=None,
                     help="folder holding coat/ or obd/ (default: $OCEF_DATA_DIR or ../shared/data)")
    _common(p)
    p.add_argument("--interval", choices=INTERVALS, default="delta",
                   help="delta (Algorithm 1, default) or a bootstrap interval")
    p.add_argument("--resamples", type=int, default=100, help="bootstrap resamples (default: 100)")
    plan = p.add_argument_group("planning (delta-method variance at the current estimates)")
    plan.add_argument("--plan-epsilon", type=float, default=None, metavar="EPS",
                      help="report the random-traffic size giving a penalty interval of half-width EPS "
                           "with the current default log")
    plan.add_argument("--requests", type=int, default=None,
                      help="requests per period, to turn that size into p_act (with --n-show)")
    plan.add_argument("--n-show", type=int, default=None, help="items shown per activated request")
    p.set_defaults(func=_run_reo)

    q = sub.add_parser(
        "reo-ab", help="compare REO metrics of a treatment and a control arm (A/B test)",
        description="D_k = delta_U_k^T - delta_U_k^C and D_REO = penalty^T - penalty^C with intervals "
                    "and p-values; the arms share one random-traffic log (seed 000, Alg. 2-4).")
    q.add_argument("--control", type=Path, required=True, help="control default-traffic log")
    q.add_argument("--treatment", type=Path, required=True, help="treatment default-traffic log")
    q.add_argument("--random", type=Path, required=True, help="shared random-traffic log")
    _common(q)
    q.add_argument("--method", choices=("delta", "delta-shared", "partition", "bootstrap"), default="delta",
                   help="delta (Alg. 2), delta-shared (joint delta method), partition (Alg. 3, Welch), "
                        "bootstrap (Alg. 4)")
    q.add_argument("--folds", type=int, default=10, help="partition folds per arm (default: 10)")
    q.add_argument("--resamples", type=int, default=100, help="bootstrap resamples (default: 100)")
    q.add_argument("--interval", choices=INTERVALS[1:], default="standard",
                   help="bootstrap interval (default: standard)")
    q.set_defaults(func=_run_ab)


def _load(args):
    from ocef.environments import logs

    label = _labels(args.label)
    if args.dataset is not None:
        if args.default is not None or args.random is not None:
            raise ValueError("give either --dataset or --default/--random, not both")
        if args.label != "Y" or args.group != "S":
            raise ValueError("--dataset logs use the columns Y and S; drop --label/--group")
        default, random = logs.load_dataset(args.dataset, args.data_dir)
        return default, random, "Y", "S"
    if args.default is None or args.random is None:
        raise ValueError("give --default and --random log files (or --dataset)")
    need = ([label] if isinstance(label, str) else label) + [args.group]
    return logs.read_log(args.default, columns=need), logs.read_log(args.random, columns=need), label, args.group


def _run_reo(args: argparse.Namespace) -> int:
    from ocef import reo
    from ocef.commands._common import print_json

    default, random, label, group = _load(args)
    if args.interval == "delta":
        result = reo.estimate_reo(default, random, label=label, group=group, confidence=args.confidence)
    else:
        result, _ = reo.bootstrap_reo_ci(default, random, label=label, group=group, confidence=args.confidence,
                                         n_resamples=args.resamples, method=args.interval, rng=args.seed)
    threshold = reo.eighty_percent_rule_threshold(len(result.groups))
    payload = result.to_dict()
    payload["interval"] = args.interval
    payload["threshold_80"] = threshold
    if args.plan_epsilon is not None:
        payload["plan"] = _plan(args, result)
    if args.json:
        print_json(payload)
        return 0
    name = args.dataset or f"{args.default} + {args.random}"
    print(f"REO on {name}: |D_rec| = {result.n_default}, |D_rand| = {result.n_random}, "
          f"{args.confidence:.0%} {args.interval} intervals")
    table = _print_groups(result.groups)
    lo, hi = result.penalty_ci
    print(f"penalty (std/mean of U) = {result.penalty:.4g}  SE {result.penalty_se:.3g}  CI [{lo:.4g}, {hi:.4g}]  "
          f"(80% rule threshold for K={len(table)}: {threshold:.4g})")
    if "plan" in payload:
        plan = payload["plan"]
        line = (f"plan: |D_rand| = {plan['n_random']:,} random rows give a penalty half-width of "
                f"{plan['half_width']:.4g} <= {plan['epsilon']} with |D_rec| = {plan['n_default']:,}")
        if plan.get("p_act") is not None:
            line += f"; p_act = {plan['p_act']:.3g} for {args.requests:,} requests x {args.n_show} items"
        print(line)
    if args.interval == "delta" and not result.delta_method_reliable:
        print("note: the penalty interval reaches 0, where the delta method is unreliable; "
              "read the per-group intervals or use --interval bca")
    return 0


def _plan(args: argparse.Namespace, result) -> dict:
    """Random-traffic size (and p_act) for a target penalty half-width, from Algorithm 1's
    variance at the current P_k, Q_k (:func:`ocef.reo.delta_method_sample_size`)."""
    from ocef import reo

    g = result.groups
    plan = reo.delta_method_sample_size(g.P.to_numpy(), g.Q.to_numpy(), epsilon=args.plan_epsilon,
                                        confidence=args.confidence, n_default=result.n_default)
    plan["epsilon"] = args.plan_epsilon
    plan["p_act"] = None
    if (args.requests is None) != (args.n_show is None):
        raise ValueError("give both --requests and --n-show to compute p_act")
    if args.requests is not None:
        plan["p_act"] = reo.p_act_for(plan["n_random"], n_requests=args.requests, n_show=args.n_show)
    return plan


def _run_ab(args: argparse.Namespace) -> int:
    from ocef.environments import logs
    from ocef import reo
    from ocef.commands._common import print_json

    label = _labels(args.label)
    need = ([label] if isinstance(label, str) else label) + [args.group]
    control = logs.read_log(args.control, columns=need)
    treatment = logs.read_log(args.treatment, columns=need)
    random = logs.read_log(args.random, columns=need)
    result = reo.ab_test(control, treatment, random, method=args.method, label=label, group=args.group,
                         confidence=args.confidence, rng=args.seed, n_resamples=args.resamples,
                         bootstrap_interval=args.interval, n_folds=args.folds)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"REO A/B ({result.method}): |D_rec^C| = {result.n_control}, |D_rec^T| = {result.n_treatment}, "
          f"|D_rand| = {result.n_random}, {args.confidence:.0%} intervals")
    _print_groups(result.groups)
    lo, hi = result.D_reo_ci
    print(f"penalty control {result.penalty_control:.4g}, treatment {result.penalty_treatment:.4g}; "
          f"D_REO = {result.D_reo:.4g}  SE {result.D_reo_se:.3g}  CI [{lo:.4g}, {hi:.4g}]  p = {result.D_reo_p_value:.3g}")
    return 0


def _print_groups(groups):
    """Print the per-group table (group names as text, 4 significant digits); return it."""
    table = groups.copy()
    table["group"] = table["group"].astype(str)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return table
