"""Input options shared by ``ocef envy``, ``ocef audit`` and ``ocef simulate-service``: a
recommender system given as arrays from files (``--rho`` with ``--policy-probs``, or with
``--scores`` turned into ``--policy``; ``--groups``) or as a named environment
(``--dataset movielens|synthetic`` + policy, latent factors, partition)."""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.errors import ParameterError

DATASETS = ("movielens", "synthetic")         # ocef.environments.inputs.ENVIRONMENTS (not imported at --help)
#: a light copy of ocef.policies.builders.POLICY_NAMES (tested equal): ``--help`` imports no numpy
POLICY_NAMES = ("softmax", "argmax", "uniform", "parity", "equity", "ranking")


def add_input_arguments(p: argparse.ArgumentParser, *, default_policy: str = "softmax",
                        default_factors: int = 8) -> None:
    """The file and named-environment options (see the module docstring)."""
    files = p.add_argument_group("arrays from files (.npy or .csv; rows are users)")
    files.add_argument("--rho", type=Path, metavar="FILE", help="expected rewards in [0, 1], users x items (or users x contexts x items, .npy)")
    files.add_argument("--policy-probs", type=Path, metavar="FILE", help="policy probabilities, same shape as --rho, rows summing to 1")
    files.add_argument("--scores", type=Path, metavar="FILE",
                       help="a recommender's scores, same shape as --rho, turned into --policy (softmax with --beta, "
                            "argmax, ranking with --k, uniform); instead of --policy-probs")
    files.add_argument("--groups", type=Path, metavar="FILE", help="group label of each user (integers 0..G-1, or names in a .csv)")
    files.add_argument("--context-probs", type=Path, metavar="FILE",
                       help="context distribution q(x): X values, or users x X (default: uniform)")
    env = p.add_argument_group("named environment")
    env.add_argument("--dataset", choices=DATASETS, help="environment whose ground truth and recommender are used")
    env.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                     help="folder of ml-1m/ or ml-100k/ (default: $OCEF_DATA_DIR or ../shared/data; ML-1M is used when present)")
    env.add_argument("--policy", choices=POLICY_NAMES, default=default_policy,
                     help=f"policy on the estimated scores or on --scores (default: {default_policy})")
    env.add_argument("--factors", type=int, default=default_factors,
                     help=f"latent factors of the simulated recommender (default: {default_factors})")
    env.add_argument("--beta", type=float, default=30.0,
                     help="softmax inverse temperature (default: 30, as the envy-misspecification experiment)")
    env.add_argument("--k", dest="k", type=int, default=10,
                     help="length of the ranking policy, DCG position weights (default: 10)")
    env.add_argument("--partition", default=None,
                     help="user partition: gender, age, occupation, gender-age, gender-occupation, "
                          "age-occupation (movielens, default age-occupation) or group (synthetic)")
    env.add_argument("--train-fraction", type=float, default=0.2,
                     help="fraction of each user's entries observed by the recommender (default: 0.2)")
    env.add_argument("--n-users", type=int, default=None, help="users kept (movielens: most ratings) or generated (synthetic)")
    env.add_argument("--n-items", type=int, default=None, help="items kept (movielens: most ratings) or generated (synthetic)")


def add_audit_arguments(p: argparse.ArgumentParser) -> None:
    """α, δ, ε of a full OCEF audit (``ocef audit``, ``ocef audit-live``)."""
    p.add_argument("--alpha", type=float, default=0.05, help="conservative exploration α in (0, 1] (default 0.05)")
    p.add_argument("--delta", type=float, default=0.05, help="joint confidence δ in (0, 1) (default 0.05)")
    p.add_argument("--epsilon", type=float, default=0.05, help="envy tolerance ε in (0, 1] (default 0.05)")


def check_audit_arguments(args: argparse.Namespace) -> None:
    """Clear errors for α ∉ (0, 1], δ ∉ (0, 1), ε ∉ (0, 1] and ``--max-steps`` < 1."""
    from ocef.validation import check_alpha, check_delta, check_epsilon, check_positive_int

    check_alpha(args.alpha)
    check_delta(args.delta)
    check_epsilon(args.epsilon)
    check_positive_int("--max-steps", args.max_steps)


def add_matching_argument(p: argparse.ArgumentParser) -> None:
    """The group matching (``ocef envy``, ``ocef audit``, ``ocef simulate-service``); the choices are
    :data:`ocef.envy.matching.MATCHINGS`, written out so that ``--help`` does not import the solver."""
    p.add_argument("--matching", choices=("transport", "average"), default="transport",
                   help="group matching: transported (Def. 4.2) or average group policies (default: transport)")


# ------------------------------------------------------------------ one library call

#: How library messages name each input: as this command line spells it.
OPTION_NAMES = {"rho": "--rho", "policy_probs": "--policy-probs", "scores": "--scores", "groups": "--groups",
                "context_probs": "--context-probs", "policy": "--policy", "k": "--k", "dataset": "--dataset",
                "partition": "--partition"}


def check_one_source(args: argparse.Namespace) -> None:
    """``ParameterError`` when both ``--dataset`` and array files are given."""
    file_opts = [o for o in ("rho", "policy_probs", "scores", "groups", "context_probs") if getattr(args, o) is not None]
    if args.dataset is not None and file_opts:
        raise ParameterError("give either --dataset or arrays (--rho/--policy-probs/--scores/--groups), not both")


def environment_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`ocef.environments.inputs.inputs_from_environment`."""
    return dict(data_dir=args.data_dir, n_users=args.n_users, n_items=args.n_items, policy=args.policy,
                factors=args.factors, train_fraction=args.train_fraction, beta=args.beta, k=args.k,
                rng=args.seed, names=OPTION_NAMES)


def load_inputs(args: argparse.Namespace, *, require_groups: bool = False):
    """The :class:`ocef.environments.inputs.AuditInputs` of the parsed options (one library call)."""
    from ocef.environments.inputs import inputs_from_environment, inputs_from_files

    check_one_source(args)
    if args.dataset is not None:
        return inputs_from_environment(args.dataset, partition=args.partition, **environment_options(args))
    both = args.policy_probs is not None and args.scores is not None
    if not both and (args.rho is None or (args.policy_probs is None and args.scores is None)
                     or (require_groups and args.groups is None)):
        need = "--rho, --policy-probs (or --scores) and --groups" if require_groups else \
            "--rho and --policy-probs or --scores (and optionally --groups)"
        raise ParameterError(f"give {need}, or --dataset")
    return inputs_from_files(args.rho, policy_probs=args.policy_probs, scores=args.scores, groups=args.groups,
                             context_probs=args.context_probs, policy=args.policy, beta=args.beta, k=args.k,
                             require_groups=require_groups, names=OPTION_NAMES)
