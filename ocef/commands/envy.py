"""``ocef envy``: exact envy of a recommender system, for individuals and groups (Do et al. 2022, Sec. 6).

Two sources:

* arrays from files: ``--rho FILE --policy-probs FILE [--groups FILE]`` (.npy or .csv, rows
  are users; 3-d .npy arrays are users x contexts x items, with ``--context-probs``);
* a named environment: ``--dataset movielens|synthetic`` whose simulated recommender's
  estimated scores are turned into ``--policy`` (softmax, argmax, uniform, parity, equity,
  ranking), with groups from ``--partition``.
"""
from __future__ import annotations

import argparse

from ocef.commands._inputs import add_input_arguments, add_matching_argument, load_inputs
from ocef.commands._common import add_progress


def register(sub) -> None:
    p = sub.add_parser(
        "envy",
        help="exact individual and group envy of a recommender system",
        description="Compute the exact envy measures of Do et al. 2022 (Sec. 6): average envy and proportion "
                    "of epsilon-envious users and groups, groups being compared through transported "
                    "(optimal transport, Def. 4.2) or average group policies. Either give arrays "
                    "(--rho, --policy-probs, --groups) or a named environment (--dataset).",
    )
    add_input_arguments(p, default_policy="softmax", default_factors=8)
    add_matching_argument(p)
    p.add_argument("--epsilon", type=float, default=0.05, help="envy tolerance for the proportion of envious (default: 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the environment and the simulated recommender (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_progress(p)
    p.set_defaults(func=_run)


# ------------------------------------------------------------------ command

def _run(args: argparse.Namespace) -> int:
    from ocef.validation import check_in_interval
    from ocef.commands._common import print_json
    from ocef.envy.exact import envy_report

    epsilon = check_in_interval("--epsilon", args.epsilon, 0.0, 1.0, low_open=False)
    inputs = load_inputs(args)
    summary = envy_report(inputs.rho, inputs.policy, inputs.labels, matching=args.matching, epsilon=epsilon,
                          context_probs=inputs.context_probs, group_names=inputs.names, progress=args.progress)
    payload = summary.to_dict()
    payload["source"] = description = inputs.description
    if args.json:
        print_json(payload)
        return 0
    print(f"envy of {description}")
    print(f"  users: {payload['n_users']}, epsilon = {epsilon:g}")
    print(f"  individuals: average envy {summary.individual_average_envy:.6f}, "
          f"proportion envious {summary.individual_prop_envious:.4f}")
    if inputs.labels is None:
        print("  no groups given (--groups): group envy not computed")
        return 0
    print(f"  groups ({args.matching} matching, {payload['n_groups']} groups): average envy "
          f"{summary.group_average_envy:.6f}, proportion envious {summary.group_prop_envious:.4f}")
    print(summary.to_frame().to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    return 0
