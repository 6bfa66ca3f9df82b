"""Input options shared by ``ocef envy`` and ``ocef audit``: a recommender system given as
arrays from files (``--rho --policy-probs --groups``) or as a named environment
(``--dataset movielens|synthetic`` + policy, latent factors, partition)."""
from __future__ import annotations

import argparse
from pathlib import Path

DATASETS = ("movielens", "synthetic")


def add_input_arguments(p: argparse.ArgumentParser, *, default_policy: str = "softmax",
                        default_factors: int = 8) -> None:
    from policies.builders import POLICY_NAMES

    files = p.add_argument_group("arrays from files (.npy or .csv; rows are users)")
    files.add_argument("--rho", type=Path, help="expected rewards in [0, 1], users x items (or users x contexts x items, .npy)")
    files.add_argument("--policy-probs", type=Path, help="policy probabilities, same shape as --rho, rows summing to 1")
    files.add_argument("--groups", type=Path, help="group label of each user (integers 0..G-1, or names in a .csv)")
    files.add_argument("--context-probs", type=Path,
                       help="context distribution q(x): X values, or users x X (default: uniform)")
    env = p.add_argument_group("named environment")
    env.add_argument("--dataset", choices=DATASETS, help="environment whose ground truth and recommender are used")
    env.add_argument("--data-dir", type=Path, default=None,
                     help="folder of ml-1m/ or ml-100k/ (default: $OCEF_DATA_DIR or ../shared/data; ML-1M is used when present)")
    env.add_argument("--policy", choices=POLICY_NAMES, default=default_policy,
                     help=f"policy on the estimated scores (default: {default_policy})")
    env.add_argument("--factors", type=int, default=default_factors,
                     help=f"latent factors of the simulated recommender (default: {default_factors})")
    env.add_argument("--beta", type=float, default=10.0, help="softmax inverse temperature (default: 10)")
    env.add_argument("--k", type=int, default=10, help="length of the ranking policy (default: 10)")
    env.add_argument("--partition", default=None,
                     help="user partition: gender, age, occupation, gender-age, gender-occupation, "
                          "age-occupation (movielens, default age-occupation) or group (synthetic)")
    env.add_argument("--train-fraction", type=float, default=0.2,
                     help="fraction of each user's entries observed by the recommender (default: 0.2)")
    env.add_argument("--n-users", type=int, default=None, help="users kept (movielens: most ratings) or generated (synthetic)")
    env.add_argument("--n-items", type=int, default=None, help="items kept (movielens: most ratings) or generated (synthetic)")


def load_inputs(args: argparse.Namespace, *, require_groups: bool = False):
    """``(rho, policy, labels, names, context_probs, description)`` from the parsed options."""
    from ocef.commands.envy import environment_inputs, load_array, load_groups

    file_opts = [o for o in ("rho", "policy_probs", "groups", "context_probs") if getattr(args, o) is not None]
    if args.dataset is not None and file_opts:
        raise ValueError("give either --dataset or arrays (--rho/--policy-probs/--groups), not both")
    if args.dataset is not None:
        rho, policy, labels, names, description = environment_inputs(args)
        return rho, policy, labels, names, None, description
    if args.rho is None or args.policy_probs is None or (require_groups and args.groups is None):
        need = "--rho, --policy-probs and --groups" if require_groups else "--rho and --policy-probs"
        raise ValueError(f"give {need}, or --dataset")
    rho = load_array(args.rho, "--rho")
    probs = load_array(args.policy_probs, "--policy-probs")
    if rho.shape != probs.shape:
        raise ValueError(f"--rho and --policy-probs must have the same shape, got {rho.shape} and {probs.shape}")
    labels, names = (None, None) if args.groups is None else load_groups(args.groups, rho.shape[0])
    context_probs = None
    if args.context_probs is not None:
        context_probs = load_array(args.context_probs, "--context-probs")
        if context_probs.ndim == 2 and context_probs.shape[0] == 1:
            context_probs = context_probs[0]
    return rho, probs, labels, names, context_probs, f"arrays from {args.rho} and {args.policy_probs}"
