"""``ocef audit``: full-system OCEF audit of a recommender (Do et al. 2022, Sec. 5, Cor. 7.1)."""
from __future__ import annotations

import argparse

from ocef.commands._inputs import (add_audit_arguments, add_input_arguments, add_matching_argument,
                                   check_audit_arguments, load_inputs)
from ocef.envy.engines import ENGINE_HELP, ENGINES
from ocef.commands._common import add_progress


def register(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="certify (group) envy-freeness of a recommender with OCEF, every group at once",
        description="Audit every group of users against all other groups through transported policies "
                    "(Def. 4.2): one OCEF per group with K = G-1 arms and confidence delta/G (Cor. 7.1), "
                    "rewards drawn by PULL-ARM (Alg. 2) from the ground truth. Prints per-group verdicts "
                    "(envy, no_envy, or timeout at --max-steps), durations and costs (eq. 10), and the "
                    "exact envy of each group for comparison.",
    )
    add_input_arguments(p, default_policy="argmax", default_factors=50)
    add_matching_argument(p)
    add_audit_arguments(p)
    p.add_argument("--group-size", type=float, default=None,
                   help="grow groups to this average size by duplicating random users (Sec. 6.2)")
    p.add_argument("--trials", type=int, default=1, help="independent audits (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--max-steps", type=int, default=10**6, help="step cap; undecided groups are 'timeout'")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help=ENGINE_HELP + "; numba/numpy draw group rewards from their exact law (fast PULL-ARM), "
                        "ask-tell runs the literal PULL-ARM of Alg. 2")
    p.add_argument("--out", type=str, default=None, help="also write the per-group table as CSV here")
    add_progress(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import check_output_file

    args.out = check_output_file(args.out)              # before any work, with its real path
    from ocef.validation import check_in_interval, check_positive_int
    from ocef.envy.audit import AuditProblem, run_audit
    import textwrap

    from ocef.commands._common import COST_NOTE, console_width, print_json

    check_audit_arguments(args)
    check_positive_int("--trials", args.trials)
    if args.group_size is not None:
        check_in_interval("--group-size", args.group_size, 0.0, float("inf"), high_open=True)
    inputs = load_inputs(args, require_groups=True)
    description = inputs.description
    problem = AuditProblem(inputs.rho, inputs.policy, inputs.labels, matching=args.matching,
                           context_probs=inputs.context_probs, group_names=inputs.names)
    if args.group_size is not None:
        problem = problem.duplicated(args.group_size, rng=args.seed)
    report = run_audit(problem, alpha=args.alpha, delta=args.delta, epsilon=args.epsilon, trials=args.trials,
                       rng=args.seed, max_steps=args.max_steps, engine=args.engine,
                       progress=args.progress)
    if args.out is not None:
        report.to_csv(args.out)
    if args.json:
        payload = report.to_dict()
        payload["source"] = description
        print_json(payload)
        return 0
    s = report.summary().iloc[0]
    print(f"OCEF audit of {description}")
    print(f"  {problem.n_groups} groups, {int(problem.multiplicity.sum())} users, {args.matching} matching, "
          f"alpha={args.alpha} delta={args.delta} (delta/G per group) epsilon={args.epsilon}, {args.trials} trial(s)")
    print(f"  verdicts: envy {s['share_envy']:.1%}, no_envy {s['share_no_envy']:.1%}, timeout {s['share_timeout']:.1%};"
          f" correct {'n/a' if s['correct_rate'] != s['correct_rate'] else format(s['correct_rate'], '.1%')}; constraint (7) held: {bool(s['constraint_held'])}")
    print(f"  mean duration {s['duration_mean']:.1f} steps, mean cost per user {s['cost_mean']:.2f} (reward units, "
          "see below)")
    if s["reason"]:
        print(f"  note: {s['reason']}")
    table = report.groups[["trial", "group", "name", "size", "verdict", "duration", "cost", "true_envy"]]
    if args.trials == 1:
        table = table.drop(columns="trial")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(textwrap.fill(COST_NOTE, console_width(), initial_indent="  ", subsequent_indent="    "))
    return 0
