"""``ocef bandit``: audit a Bernoulli bandit many times with OCEF."""
from __future__ import annotations

import argparse

from ocef.commands._common import add_progress, parse_float_list, print_json
from ocef.envy.engines import ENGINE_HELP, ENGINES


def register(sub) -> None:
    p = sub.add_parser(
        "bandit",
        help="run OCEF on a Bernoulli bandit (arm 0 = baseline) and summarize verdicts, duration and cost",
        description="Run TRIALS independent OCEF audits (Do et al. 2022, Alg. 1) on Bernoulli arms with the given "
                    "means; arm 0 is the baseline. Prints verdict counts, mean duration and mean cost "
                    "(eq. 10), and whether the conservative constraint (7) held at every step.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--means", help="comma-separated arm means, baseline first, e.g. 0.6,0.3,0.3")
    src.add_argument("--instance", type=int, choices=[1, 2, 3, 4],
                     help="one of the four instances of the paper's App. D.1")
    p.add_argument("--n-arms", type=int, default=None,
                   help="K for --instance (default 9; 100 for Fig. 10); with --means, K is the number of means - 1")
    p.add_argument("--alpha", type=float, default=0.05, help="conservative exploration α in (0, 1] (default 0.05)")
    p.add_argument("--delta", type=float, default=0.05, help="confidence δ in (0, 1) (default 0.05)")
    p.add_argument("--epsilon", type=float, default=0.05, help="envy tolerance ε in (0, 1] (default 0.05)")
    p.add_argument("--group-size", type=int, default=1, help="users averaged per pull, |g| (default 1)")
    p.add_argument("--trials", type=int, default=100, help="independent runs (default 100)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--max-steps", type=int, default=10**6, help="step cap; runs reaching it are 'timeout'")
    p.add_argument("--engine", choices=ENGINES, default="auto", help=ENGINE_HELP)
    add_progress(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from ocef.environments.bandits import BernoulliBandit, paper_instance
    from ocef.envy import bounds
    from ocef.envy.runner import run_bandits

    if args.means is not None and args.n_arms is not None:
        from ocef.errors import ParameterError

        raise ParameterError(f"--n-arms applies to --instance only; with --means the arms are the means given "
                             f"({len(parse_float_list(args.means, '--means')) - 1} arms + baseline): drop --n-arms")
    if args.instance:
        means = paper_instance(args.instance, 9 if args.n_arms is None else args.n_arms)
    else:
        means = np.array(parse_float_list(args.means, "--means"))
    BernoulliBandit(means, args.group_size)            # validates the means and group size
    cfg = [{"instance": "bandit", "alpha": args.alpha, "delta": args.delta, "epsilon": args.epsilon,
            "group_size": args.group_size}]
    result = run_bandits(cfg, {"bandit": means}, trials=args.trials, rng=args.seed, max_steps=args.max_steps,
                         engine=args.engine, progress=args.progress)
    runs = result.columns                     # the runs as columns: no pandas for a summary
    verdicts = np.asarray(runs["verdict"])
    payload = {
        "verdicts": {v: int(np.count_nonzero(verdicts == v)) for v in ("envy", "no_envy", "timeout")},
        "duration_mean": float(np.mean(runs["duration"])),
        "cost_mean": float(np.mean(runs["cost"])),
        "constraint_held": bool(np.all(runs["constraint_held"])),
        "engine": result.engine,
        "duration_bound": float(bounds.duration_bound(means, args.delta, args.alpha, args.epsilon, args.group_size)),
        "runs": [{"verdict": str(v), "duration": int(d), "cost": float(c)}
                 for v, d, c in zip(verdicts, runs["duration"], runs["cost"])],
    }
    if args.json:
        print_json(payload)
        return 0
    truth = "envy" if means[1:].max() > means[0] else ("no_envy" if means[1:].max() <= means[0] + args.epsilon else "either")
    print(f"OCEF on {len(means) - 1} arms + baseline, alpha={args.alpha} delta={args.delta} "
          f"epsilon={args.epsilon}, {args.trials} trials ({result.engine} engine)")
    print(f"  verdicts:        {payload['verdicts']}   (correct answer: {truth})")
    print(f"  duration mean:   {payload['duration_mean']:.1f} steps  "
          f"(Theorem 6 bound {payload['duration_bound']:.3g})")
    print(f"  cost mean:       {payload['cost_mean']:.2f}  (eq. 10: reward lost to exploration; < 0: gained)")
    print(f"  constraint (7) held at every step of every run: {payload['constraint_held']}")
    return 0
