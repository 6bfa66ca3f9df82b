"""Input options shared by ``ocef envy``, ``ocef audit`` and ``ocef simulate-service``: a
recommender system given as arrays from files (``--rho`` with ``--policy-probs``, or with
``--scores`` turned into ``--policy``; ``--groups``) or as a named environment
(``--dataset movielens|synthetic`` + policy, latent factors, partition)."""
from __future__ import annotations

import argparse
from pathlib import Path
from ocef.errors import ParameterError

DATASETS = ("movielens", "synthetic")
DEFAULT_PARTITION = {"movielens": "age-occupation", "synthetic": "group"}


def add_input_arguments(p: argparse.ArgumentParser, *, default_policy: str = "softmax",
                        default_factors: int = 8) -> None:
    """The file and named-environment options (see the module docstring)."""
    from ocef.policies.builders import POLICY_NAMES

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
    env.add_argument("--top-k", dest="k", type=int, default=argparse.SUPPRESS,
                     help=argparse.SUPPRESS)          # former name of --k, kept working
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


# ------------------------------------------------------------------ loading arrays

def _numeric_frame(path: Path):
    """The .csv at ``path`` as numbers (NaN where a cell is not one), without a header line."""
    import pandas as pd

    frame = pd.read_csv(path, header=None)
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if numeric.iloc[1:].notna().all().all() and numeric.iloc[0].isna().any() and len(frame) > 1:
        numeric = numeric.iloc[1:].reset_index(drop=True)          # a header line
    return numeric


def load_array(path: Path, option: str):
    """A numeric array from a .npy or .csv file (rows are users), naming ``option`` on errors."""
    import numpy as np

    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"{option}: {path} is a directory, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"{option}: file not found: {path.resolve()}")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, EOFError) as exc:
            raise ParameterError(f"{option}: cannot read {path} as a numeric .npy array ({exc})") from None
        if np.iscomplexobj(arr):
            raise ParameterError(f"{option}: {path} holds complex numbers; give real numbers")
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise ParameterError(f"{option}: {path} must hold numbers, got dtype {arr.dtype}")
    elif suffix == ".csv":
        import pandas as pd

        try:
            numeric = _numeric_frame(path)
        except pd.errors.EmptyDataError:
            raise ParameterError(f"{option}: {path} is empty") from None
        if numeric.isna().any().any():
            raise ParameterError(f"{option}: {path} holds non-numeric or missing values")
        arr = numeric.to_numpy(dtype=float)
    else:
        raise ParameterError(f"{option} must be a .npy or .csv file, got {path.name}")
    if arr.size == 0:
        raise ParameterError(f"{option}: {path} is empty (shape {arr.shape})")
    return arr


def load_groups(path: Path, n_users: int):
    """``(labels, names)`` from a file: integer labels 0..G-1, or group names (factorized,
    sorted) in a one-column .csv. A .csv with ``n_users + 1`` rows starts with a header."""
    import numpy as np
    import pandas as pd

    path = Path(path)
    if path.suffix.lower() == ".csv" and path.is_file():
        try:
            frame = pd.read_csv(path, header=None, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            raise ParameterError(f"--groups: {path} is empty") from None
        if frame.shape[1] != 1:
            raise ParameterError(f"--groups: {path} must have a single column (one label per user), got {frame.shape[1]}")
        column = frame.iloc[:, 0].str.strip()
        if len(column) == n_users + 1:
            column = column.iloc[1:]
        numeric = pd.to_numeric(column, errors="coerce")
        if numeric.notna().all():
            return numeric.to_numpy(), None
        if (column == "").any():
            raise ParameterError(f"--groups: {path} has empty labels")
        codes, uniques = pd.factorize(column, sort=True)
        return codes, [str(u) for u in uniques]
    arr = np.asarray(load_array(path, "--groups"))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ParameterError(f"--groups must hold one label per user (a single column), got shape {arr.shape}")
    return arr, None


# ------------------------------------------------------------------ named environments

def load_environment(args: argparse.Namespace):
    """``(env, policy, description)`` of a named environment (the partition is not applied)."""
    import numpy as np

    from ocef.policies.builders import build_policy

    try:
        if args.dataset == "movielens":
            from ocef.environments.movielens_env import MovieLensEnvironment as env_class
        else:
            from ocef.environments.synthetic import SyntheticEnvironment as env_class
    except ImportError as exc:  # part of the environments package missing
        raise ParameterError(f"--dataset {args.dataset} is unavailable in this installation ({exc}); "
                         f"give arrays with --rho/--policy-probs/--groups instead") from None
    if args.dataset == "movielens":
        env = env_class(args.data_dir, n_users=args.n_users, n_items=args.n_items)
    else:
        sizes = {k: v for k, v in (("n_users", args.n_users), ("n_items", args.n_items)) if v is not None}
        env = env_class(**sizes, rng=args.seed)
    scores = env.estimated_scores(args.factors, args.train_fraction, rng=args.seed)
    if args.policy == "equity":
        # equity of exposure needs non-negative relevances: estimates clipped to the [0, 1] rating scale
        scores = np.clip(scores, 0.0, 1.0)
    policy = build_policy(args.policy, scores, beta=args.beta, k=args.k, categories=env.item_categories)
    description = (f"{env.description}; {args.policy} policy on a {args.factors}-factor recommender "
                   f"({args.train_fraction:g} of entries observed)")
    return env, policy, description


def environment_partition(env, args: argparse.Namespace, partition: str | None = None):
    """``(labels, names, partition)`` of ``partition`` (default: --partition, else the dataset's default)."""
    partition = partition or args.partition or DEFAULT_PARTITION[args.dataset]
    if partition not in env.partitions:
        raise ParameterError(f"--partition must be one of {', '.join(env.partitions)} for {args.dataset}, got {partition!r}")
    labels, names = env.groups(partition)
    return labels, names, partition


def environment_inputs(args: argparse.Namespace):
    """(rho, policy, labels, group names, description) of a named environment."""
    env, policy, description = load_environment(args)
    labels, names, partition = environment_partition(env, args)
    return env.rho, policy, labels, names, f"{description}; partition {partition}"


def check_one_source(args: argparse.Namespace) -> None:
    """``ValueError`` when both ``--dataset`` and array files are given."""
    file_opts = [o for o in ("rho", "policy_probs", "scores", "groups", "context_probs") if getattr(args, o) is not None]
    if args.dataset is not None and file_opts:
        raise ParameterError("give either --dataset or arrays (--rho/--policy-probs/--scores/--groups), not both")


def load_inputs(args: argparse.Namespace, *, require_groups: bool = False):
    """``(rho, policy, labels, names, context_probs, description)`` from the parsed options."""
    check_one_source(args)
    if args.dataset is not None:
        rho, policy, labels, names, description = environment_inputs(args)
        return rho, policy, labels, names, None, description
    if args.policy_probs is not None and args.scores is not None:
        raise ParameterError("give either --policy-probs or --scores (turned into --policy), not both")
    if args.rho is None or (args.policy_probs is None and args.scores is None) \
            or (require_groups and args.groups is None):
        need = "--rho, --policy-probs (or --scores) and --groups" if require_groups else \
            "--rho and --policy-probs or --scores (and optionally --groups)"
        raise ParameterError(f"give {need}, or --dataset")
    rho = load_array(args.rho, "--rho")
    if args.scores is not None:
        probs, source = scores_policy(args, rho.shape), f"{args.policy} policy on the scores of {args.scores}"
    else:
        probs, source = load_array(args.policy_probs, "--policy-probs"), str(args.policy_probs)
        if rho.shape != probs.shape:
            raise ParameterError(f"--rho and --policy-probs must have the same shape, got {rho.shape} and {probs.shape}")
    labels, names = (None, None) if args.groups is None else load_groups(args.groups, rho.shape[0])
    context_probs = None
    if args.context_probs is not None:
        context_probs = load_array(args.context_probs, "--context-probs")
        if context_probs.ndim == 2 and context_probs.shape[0] == 1:
            context_probs = context_probs[0]
    return rho, probs, labels, names, context_probs, f"arrays from {args.rho} and {source}"


def scores_policy(args: argparse.Namespace, shape):
    """The ``--policy`` (softmax with ``--beta``, argmax, ranking with ``--k``, uniform) on
    the ``--scores`` file, which must have the ``shape`` of ``--rho``."""
    from ocef.policies.adapters import SCORE_POLICIES, policy_from_scores

    scores = load_array(args.scores, "--scores")
    if scores.shape != tuple(shape):
        raise ParameterError(f"--scores must have the shape of --rho {tuple(shape)}, got {scores.shape}")
    if args.policy not in SCORE_POLICIES:
        raise ParameterError(f"--policy must be one of {', '.join(SCORE_POLICIES)} with --scores "
                         f"(parity and equity need item categories: use --dataset or --policy-probs), got {args.policy!r}")
    try:
        return policy_from_scores(scores, args.policy, beta=args.beta, k=args.k)
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"--scores {args.scores}: {exc}") from None
