"""``ocef audit-live``: the full OCEF audit of a running recommender over HTTP, resumable (Do et al. 2022, Cor. 7.1)."""
from __future__ import annotations

import argparse

from ocef.commands._inputs import add_audit_arguments, check_audit_arguments
from ocef.commands._common import add_progress


def register(sub) -> None:
    p = sub.add_parser(
        "audit-live",
        help="audit a running recommender service (ocef simulate-service) over HTTP, resumable",
        description="Run the full OCEF audit (one OCEF per group, K = G-1 arms, delta/G, Cor. 7.1) against "
                    "a recommender service: every step POSTs the PULL-ARM requests (Alg. 2) of the undecided "
                    "groups to URL/pull. Transient HTTP errors are retried with exponential backoff. With "
                    "--checkpoint FILE the audit is saved atomically every --every steps and resumes from FILE "
                    "after a crash, following exactly the trajectory of an uninterrupted run.",
    )
    p.add_argument("--url", required=True, help="base URL of the service, e.g. http://127.0.0.1:8765")
    p.add_argument("--partition", default=None, help="user partition to audit (default: the service's default)")
    add_audit_arguments(p)
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the auditors' draws (default: the service's seed, so that the audit equals "
                        "ocef audit --engine ask-tell with that seed)")
    p.add_argument("--max-steps", type=int, default=10**6, help="step cap; undecided groups are 'timeout'")
    p.add_argument("--checkpoint", type=str, default=None, metavar="FILE",
                   help="JSON checkpoint, written atomically; resumed from if it exists")
    p.add_argument("--every", type=int, default=1000, help="checkpoint every N steps (default 1000)")
    p.add_argument("--retries", type=int, default=8, help="retries of a failing request (default 8)")
    p.add_argument("--backoff", type=float, default=0.05,
                   help="first retry wait in seconds, doubled at each retry, at most 5 s (default 0.05)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for one answer (default 30)")
    p.add_argument("--out", type=str, default=None, help="also write the per-group table as CSV here")
    add_progress(p)
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (version, seed, checkpoint steps, wall time, groups)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ocef.commands._common import check_output_file

    args.out = check_output_file(args.out)              # before any work, with its real path
    args.checkpoint = check_output_file(args.checkpoint, "--checkpoint")
    import sys

    import textwrap

    from ocef.commands._common import COST_NOTE, console_width, print_json
    from ocef.envy.live import audit_live
    from ocef.envy.service import ServiceClient, ServiceError
    from ocef.errors import DataError
    from ocef.validation import check_in_interval, check_positive_int

    check_audit_arguments(args)
    check_positive_int("--every", args.every)
    check_positive_int("--retries", args.retries, minimum=0)
    check_in_interval("--backoff", args.backoff, 0.0, 60.0, low_open=False)
    check_in_interval("--timeout", args.timeout, 0.0, 3600.0)
    client = ServiceClient(args.url, timeout=args.timeout, retries=args.retries, backoff=args.backoff)
    try:
        info = client.info()
        seed = info["seed"] if args.seed is None else args.seed
        fingerprint = client.fingerprint()      # every pull carries it: a restarted service is refused
        groups = client.groups(args.partition)
        try:
            truth = client.truth(args.partition)["arm_means"]
        except DataError as exc:        # a real service has no ground truth (404): no cost column
            if getattr(exc, "status", None) != 404:
                raise
            truth = None
        result = audit_live(client.puller(args.partition, fingerprint), groups["n_groups"], groups["sizes"],
                            fingerprint=fingerprint, alpha=args.alpha,
                            delta=args.delta, epsilon=args.epsilon, rng=seed, max_steps=args.max_steps,
                            checkpoint=args.checkpoint, every=args.every, group_names=groups.get("names"),
                            true_means=truth, progress=args.progress)
    except ServiceError as exc:
        where = f"; rerun with --checkpoint {args.checkpoint} to resume" if args.checkpoint else ""
        print(f"ocef audit-live: error: {exc}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        where = f"; rerun the same command to resume from {args.checkpoint}" if args.checkpoint else ""
        print(f"ocef audit-live: interrupted{where}", file=sys.stderr)
        return 130
    finally:
        client.close()
    if args.out is not None:
        result.to_csv(args.out)
    if args.json:
        payload = result.to_dict()
        payload.update(source=args.url, service=info.get("description", ""), partition=args.partition,
                       retries=client.n_retries)
        print_json(payload)
        return 0
    print(f"OCEF live audit of {args.url} ({info.get('description', '')})")
    print(f"  {groups['n_groups']} groups, alpha={args.alpha} delta={args.delta} (delta/G per group) "
          f"epsilon={args.epsilon}, seed {seed}")
    resumed = f", resumed at step {result.resumed_from}" if result.resumed_from is not None else ""
    print(f"  {result.steps} steps in {result.wall_time:.1f} s{resumed}; {client.n_retries} retried requests; "
          f"{len(result.checkpoint_steps)} checkpoints")
    print(result.groups.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if "cost" in result.groups.columns:
        print(textwrap.fill(COST_NOTE, console_width(), initial_indent="  ", subsequent_indent="    "))
    return 0
