"""``ocef simulate-service``: a simulated recommender served over HTTP on 127.0.0.1 (Do et al. 2022, App. F)."""
from __future__ import annotations

import argparse

from ocef.commands._inputs import add_input_arguments, add_matching_argument
from ocef.errors import ParameterError


def register(sub) -> None:
    p = sub.add_parser(
        "simulate-service",
        help="serve a simulated recommender over HTTP on 127.0.0.1, for ocef audit-live",
        description="Serve a simulated recommender system on 127.0.0.1: the recommendations of its policy "
                    "and rewards drawn from the environment's ground truth. POST /pull runs PULL-ARM of "
                    "Alg. 2 for a (group, arm, step), with draws keyed by the seed, the group and the step "
                    "(a retried request gets the same reward); GET /info, /groups, /truth, /recommend and "
                    "POST /feedback complete it. Runs until interrupted (Ctrl-C).",
    )
    add_input_arguments(p, default_policy="argmax", default_factors=50)
    add_matching_argument(p)
    p.add_argument("--port", type=int, default=8765, help="TCP port on 127.0.0.1; 0 picks a free one (default 8765)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the environment, the simulated recommender and every reward draw (default 0)")
    p.add_argument("--fail-every", type=int, default=None, metavar="N",
                   help="fault injection: answer every N-th /pull with HTTP 503 (tests of client retries)")
    p.add_argument("--verbose", action="store_true", help="log every request on stderr")
    p.set_defaults(func=_run)


def build_service(args: argparse.Namespace):
    """The :class:`ocef.envy.service.SimulatedService` described by the parsed options."""
    from ocef.envy.audit import AuditProblem
    from ocef.commands._inputs import OPTION_NAMES, check_one_source, environment_options, load_inputs
    from ocef.environments.inputs import inputs_from_environment, load_environment
    from ocef.policies.base import as_probabilities
    from ocef.envy.service import SimulatedService

    check_one_source(args)
    if args.dataset is not None:
        options = environment_options(args)
        env = load_environment(args.dataset, data_dir=args.data_dir, n_users=args.n_users, n_items=args.n_items,
                               rng=args.seed, names=OPTION_NAMES)
        inputs = inputs_from_environment(args.dataset, partition=args.partition, env=env, **options)
        partitions = [inputs.partition] + [p for p in env.partitions if p != inputs.partition]

        def problem_for(partition):
            labels, names = env.groups(partition)
            return AuditProblem(env.rho, inputs.policy, labels, matching=args.matching, group_names=names)
    else:
        inputs = load_inputs(args, require_groups=True)
        partitions = ["groups"]

        def problem_for(partition):
            return AuditProblem(inputs.rho, inputs.policy, inputs.labels, matching=args.matching,
                                context_probs=inputs.context_probs, group_names=inputs.names)

    rho, policy, description = inputs.rho, inputs.policy, inputs.description
    if args.dataset is not None:    # the service serves every partition: its description names none
        description = description.removesuffix(f"; partition {inputs.partition}")

    service = SimulatedService(problem_for, partitions, rng=args.seed, description=description, rho=rho,
                               probs=as_probabilities(policy), fail_every=args.fail_every)
    service.problem(partitions[0])          # fail now, not at the first request, on a bad partition
    return service


def _run(args: argparse.Namespace) -> int:
    import sys

    from ocef.envy.service import make_server
    from ocef.validation import check_positive_int

    if not 0 <= args.port <= 65535:
        raise ParameterError(f"--port must be in [0, 65535], got {args.port}")
    if args.fail_every is not None:
        check_positive_int("--fail-every", args.fail_every, minimum=2)
    service = build_service(args)
    try:
        server = make_server(service, args.port, quiet=not args.verbose)
    except OSError as exc:
        raise ParameterError(f"--port {args.port}: cannot listen on 127.0.0.1 ({exc.strerror or exc})") from None
    host, port = server.server_address[:2]
    print(f"serving {service.description} on http://{host}:{port} (seed {service.seed}, partitions "
          f"{', '.join(service.partitions)})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130
    finally:
        server.server_close()
    return 0
