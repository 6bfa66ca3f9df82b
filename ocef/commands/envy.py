"""``ocef envy``: exact envy of a recommender system, for individuals and groups (seed 001, Sec. 6).

Two sources:

* arrays from files: ``--rho FILE --policy-probs FILE [--groups FILE]`` (.npy or .csv, rows
  are users; 3-d .npy arrays are users x contexts x items, with ``--context-probs``);
* a named environment: ``--dataset movielens|synthetic`` whose simulated recommender's
  estimated scores are turned into ``--policy`` (softmax, argmax, uniform, parity, equity,
  ranking), with groups from ``--partition``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

MATCHING_CHOICES = ("transport", "average")
DATASETS = ("movielens", "synthetic")
DEFAULT_PARTITION = {"movielens": "age-occupation", "synthetic": "group"}


def register(sub) -> None:
    from policies.builders import POLICY_NAMES

    p = sub.add_parser(
        "envy",
        help="exact individual and group envy of a recommender system",
        description="Compute the exact envy measures of seed 001 (Sec. 6): average envy and proportion "
                    "of epsilon-envious users and groups, groups being compared through transported "
                    "(optimal transport, Def. 4.2) or average group policies. Either give arrays "
                    "(--rho, --policy-probs, --groups) or a named environment (--dataset).",
    )
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
    env.add_argument("--policy", choices=POLICY_NAMES, default="softmax", help="policy on the estimated scores (default: softmax)")
    env.add_argument("--factors", type=int, default=8, help="latent factors of the simulated recommender (default: 8)")
    env.add_argument("--beta", type=float, default=10.0, help="softmax inverse temperature (default: 10)")
    env.add_argument("--k", type=int, default=10, help="length of the ranking policy (default: 10)")
    env.add_argument("--partition", default=None,
                     help="user partition: gender, age, occupation, gender-age, gender-occupation, "
                          "age-occupation (movielens, default age-occupation) or group (synthetic)")
    env.add_argument("--train-fraction", type=float, default=0.2,
                     help="fraction of each user's entries observed by the recommender (default: 0.2)")
    env.add_argument("--n-users", type=int, default=None, help="users kept (movielens: most ratings) or generated (synthetic)")
    env.add_argument("--n-items", type=int, default=None, help="items kept (movielens: most ratings) or generated (synthetic)")
    p.add_argument("--matching", choices=MATCHING_CHOICES, default="transport",
                   help="group matching: transported (Def. 4.2) or average group policies (default: transport)")
    p.add_argument("--epsilon", type=float, default=0.05, help="envy tolerance for the proportion of envious (default: 0.05)")
    p.add_argument("--seed", type=int, default=0, help="seed of the environment and the simulated recommender (default: 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_run)


# ------------------------------------------------------------------ loading arrays

def _numeric_frame(path: Path):
    import pandas as pd

    frame = pd.read_csv(path, header=None)
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if numeric.iloc[1:].notna().all().all() and numeric.iloc[0].isna().any() and len(frame) > 1:
        numeric = numeric.iloc[1:].reset_index(drop=True)          # a header line
    return frame, numeric


def load_array(path: Path, option: str):
    """A numeric array from a .npy or .csv file (rows are users), naming ``option`` on errors."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{option}: file not found: {path.resolve()}")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            return np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"{option}: cannot read {path} as a numeric .npy array ({exc})") from None
    if suffix == ".csv":
        _, numeric = _numeric_frame(path)
        if numeric.isna().any().any():
            raise ValueError(f"{option}: {path} holds non-numeric or missing values")
        return numeric.to_numpy(dtype=float)
    raise ValueError(f"{option} must be a .npy or .csv file, got {path.name}")


def load_groups(path: Path, n_users: int):
    """``(labels, names)`` from a file: integer labels 0..G-1, or group names (factorized,
    sorted) in a one-column .csv. A .csv with ``n_users + 1`` rows starts with a header."""
    import numpy as np
    import pandas as pd

    path = Path(path)
    if path.suffix.lower() == ".csv" and path.is_file():
        frame = pd.read_csv(path, header=None, dtype=str, keep_default_na=False)
        if frame.shape[1] != 1:
            raise ValueError(f"--groups: {path} must have a single column (one label per user), got {frame.shape[1]}")
        column = frame.iloc[:, 0].str.strip()
        if len(column) == n_users + 1:
            column = column.iloc[1:]
        numeric = pd.to_numeric(column, errors="coerce")
        if numeric.notna().all():
            return numeric.to_numpy(), None
        if (column == "").any():
            raise ValueError(f"--groups: {path} has empty labels")
        codes, uniques = pd.factorize(column, sort=True)
        return codes, [str(u) for u in uniques]
    arr = np.asarray(load_array(path, "--groups"))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"--groups must hold one label per user (a single column), got shape {arr.shape}")
    return arr, None


# ------------------------------------------------------------------ named environments

def environment_inputs(args: argparse.Namespace):
    """(rho, policy, labels, group names, description) of a named environment."""
    import numpy as np

    from policies.builders import build_policy

    try:
        if args.dataset == "movielens":
            from environments.movielens_env import MovieLensEnvironment as env_class
        else:
            from environments.synthetic import SyntheticEnvironment as env_class
    except ImportError as exc:  # part of the environments package missing
        raise ValueError(f"--dataset {args.dataset} is unavailable in this installation ({exc}); "
                         f"give arrays with --rho/--policy-probs/--groups instead") from None
    if args.dataset == "movielens":
        env = env_class(args.data_dir, n_users=args.n_users, n_items=args.n_items)
    else:
        sizes = {k: v for k, v in (("n_users", args.n_users), ("n_items", args.n_items)) if v is not None}
        env = env_class(**sizes, seed=args.seed)
    partition = args.partition or DEFAULT_PARTITION[args.dataset]
    if partition not in env.partitions:
        raise ValueError(f"--partition must be one of {', '.join(env.partitions)} for {args.dataset}, got {partition!r}")
    labels, names = env.groups(partition)
    scores = env.estimated_scores(args.factors, args.train_fraction, args.seed)
    if args.policy == "equity":
        # equity of exposure needs non-negative relevances: estimates clipped to the [0, 1] rating scale
        scores = np.clip(scores, 0.0, 1.0)
    policy = build_policy(args.policy, scores, beta=args.beta, k=args.k, categories=env.item_categories)
    description = (f"{env.description}; {args.policy} policy on a {args.factors}-factor recommender "
                   f"({args.train_fraction:g} of entries observed); partition {partition}")
    return env.rho, policy, labels, names, description


# ------------------------------------------------------------------ command

def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from ocef._validation import check_in_interval
    from ocef.commands._common import print_json
    from ocef.envy import envy_report

    epsilon = check_in_interval("--epsilon", args.epsilon, 0.0, 1.0, low_open=False)
    file_opts = [o for o in ("rho", "policy_probs", "groups", "context_probs") if getattr(args, o) is not None]
    if args.dataset is not None and file_opts:
        raise ValueError("give either --dataset or arrays (--rho/--policy-probs/--groups), not both")
    context_probs = None
    if args.dataset is not None:
        rho, probs, labels, names, description = environment_inputs(args)
    else:
        if args.rho is None or args.policy_probs is None:
            raise ValueError("give --rho and --policy-probs (and optionally --groups), or --dataset")
        rho = load_array(args.rho, "--rho")
        probs = load_array(args.policy_probs, "--policy-probs")
        if rho.shape != probs.shape:
            raise ValueError(f"--rho and --policy-probs must have the same shape, got {rho.shape} and {probs.shape}")
        labels, names = (None, None) if args.groups is None else load_groups(args.groups, rho.shape[0])
        if args.context_probs is not None:
            context_probs = load_array(args.context_probs, "--context-probs")
            if context_probs.ndim == 2 and context_probs.shape[0] == 1:
                context_probs = context_probs[0]
        description = f"arrays from {args.rho} and {args.policy_probs}"
    summary = envy_report(rho, probs, labels, matching=args.matching, epsilon=epsilon,
                          context_probs=context_probs)
    payload = summary.as_dict()
    payload["source"] = description
    if names is not None:
        for row in payload["groups"]:
            row["name"] = names[row["group"]]
    if args.json:
        print_json(payload)
        return 0
    print(f"envy of {description}")
    print(f"  users: {payload['n_users']}, epsilon = {epsilon:g}")
    print(f"  individuals: average envy {summary.individual_average_envy:.6f}, "
          f"proportion envious {summary.individual_prop_envious:.4f}")
    if labels is None:
        print("  no groups given (--groups): group envy not computed")
        return 0
    print(f"  groups ({args.matching} matching, {payload['n_groups']} groups): average envy "
          f"{summary.group_average_envy:.6f}, proportion envious {summary.group_prop_envious:.4f}")
    table = summary.groups.copy()
    if names is not None:
        table.insert(1, "name", [names[g] for g in table["group"]])
        table["best_group"] = [names[g] for g in table["best_group"]]
    with np.printoptions(precision=6):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
    return 0
