"""A recommender system to audit, from array files or from a named environment.

Rewards ``rho``, the policy's probabilities, group labels and a context distribution, built in one
of two ways shared by the Python API and the command line (``ocef envy``, ``ocef audit``):

- :func:`inputs_from_files`: arrays saved as ``.npy`` or ``.csv`` (rows are users), with either the
  policy's probabilities or a recommender's scores turned into a named policy;
- :func:`inputs_from_environment`: a named environment (MovieLens with its fitted ground truth, or
  the synthetic one) whose simulated recommender is fitted on part of the ground truth
  (:func:`environment_policy`) and whose users are partitioned by a named attribute.

Both return an :class:`AuditInputs`. Messages name each input as the caller spells it: the command
line passes ``names={"rho": "--rho", ...}``.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from ocef.errors import DataError, ParameterError

__all__ = ["AuditInputs", "load_array", "load_groups", "inputs_from_files", "environment_policy",
           "inputs_from_environment", "load_environment", "ENVIRONMENTS", "DEFAULT_PARTITION",
           "BiasInputs", "load_matrix", "bias_inputs_from_files", "bias_inputs_from_dataset", "COAT_PARTITIONS"]

#: Named environments of :func:`inputs_from_environment`.
ENVIRONMENTS = ("movielens", "synthetic")
#: The partition of users used when none is named.
DEFAULT_PARTITION = {"movielens": "age-occupation", "synthetic": "group"}


@dataclasses.dataclass(frozen=True)
class AuditInputs:
    """What an envy-freeness audit reads: rewards, policy, groups, contexts and a description.

    Attributes
    ----------
    rho : numpy.ndarray
        True expected rewards in [0, 1], users x items (or users x contexts x items).
    policy : numpy.ndarray or ocef.policies.ArrayPolicy
        Probabilities of the shape of ``rho``, or a policy object.
    labels : numpy.ndarray or None
        Group label of each user.
    names : list of str or None
        Group names in label order, when the labels came from names.
    context_probs : numpy.ndarray or None
        Context distribution q(x) (X values, or users x X); None: uniform.
    description : str
        Where the inputs came from, for reports.
    partition : str or None
        The named partition of a named environment's users.

    Examples
    --------
    >>> AuditInputs(np.full((2, 3), 0.5), np.full((2, 3), 1 / 3), np.array([0, 1]), None, None, "two users").rho.shape
    (2, 3)
    """

    rho: Any
    policy: Any
    labels: Any
    names: Any
    context_probs: Any
    description: str
    partition: str | None = None


def _name(names: dict | None, key: str) -> str:
    return (names or {}).get(key, key)


def _numeric_frame(path: Path):
    """The .csv at ``path`` as numbers (NaN where a cell is not one), without a header line."""
    import pandas as pd

    frame = pd.read_csv(path, header=None)
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if numeric.iloc[1:].notna().all().all() and numeric.iloc[0].isna().any() and len(frame) > 1:
        numeric = numeric.iloc[1:].reset_index(drop=True)          # a header line
    return numeric


def load_array(path, *, name: str = "array") -> np.ndarray:
    """A numeric array from a ``.npy`` or ``.csv`` file (rows are users; a ``.csv`` may have one header line).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    name : str
        How error messages name the input (the command line passes its option, e.g. ``--rho``).

    Returns
    -------
    numpy.ndarray
        ``float`` for a ``.csv``; the stored dtype for a ``.npy``.

    Raises
    ------
    FileNotFoundError
        No such file.

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("rho.csv").write_text("item0,item1\\n0.5,0.25\\n1,0\\n")
    >>> load_array("rho.csv", name="--rho").tolist()
    [[0.5, 0.25], [1.0, 0.0]]
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"{name}: {path} is a directory, not a file")
    if not path.is_file():
        raise FileNotFoundError(f"{name}: file not found: {path.resolve()}")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, EOFError) as exc:
            raise ParameterError(f"{name}: cannot read {path} as a numeric .npy array ({exc})") from None
        if np.iscomplexobj(arr):
            raise ParameterError(f"{name}: {path} holds complex numbers; give real numbers")
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise ParameterError(f"{name}: {path} must hold numbers, got dtype {arr.dtype}")
    elif suffix == ".csv":
        import pandas as pd

        try:
            numeric = _numeric_frame(path)
        except pd.errors.EmptyDataError:
            raise ParameterError(f"{name}: {path} is empty") from None
        if numeric.isna().any().any():
            raise ParameterError(f"{name}: {path} holds non-numeric or missing values")
        arr = numeric.to_numpy(dtype=float)
    else:
        raise ParameterError(f"{name} must be a .npy or .csv file, got {path.name}")
    if arr.size == 0:
        raise ParameterError(f"{name}: {path} is empty (shape {arr.shape})")
    return arr


def load_groups(path, *, n_users: int, name: str = "groups") -> tuple[np.ndarray, list[str] | None]:
    """Group labels of ``n_users`` users from a file: integers, or names in a one-column ``.csv``.

    Names are factorized in sorted order; a ``.csv`` with ``n_users + 1`` rows starts with a header.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv`` (one column) or ``.npy`` file.
    n_users : int
        To recognise a header line.
    name : str
        How error messages name the input.

    Returns
    -------
    labels : numpy.ndarray
    names : list of str or None
        The names of labels 0, 1, ... when the file holds names.

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("groups.csv").write_text("gender\\nM\\nF\\nF\\n")
    >>> load_groups("groups.csv", n_users=3)
    (array([1, 0, 0]), ['F', 'M'])
    """
    path = Path(path)
    if path.suffix.lower() == ".csv" and path.is_file():
        import pandas as pd        # names in a .csv; a .npy file needs numpy only

        try:
            frame = pd.read_csv(path, header=None, dtype=str, keep_default_na=False)
        except pd.errors.EmptyDataError:
            raise ParameterError(f"{name}: {path} is empty") from None
        if frame.shape[1] != 1:
            raise ParameterError(f"{name}: {path} must have a single column (one label per user), got {frame.shape[1]}")
        column = frame.iloc[:, 0].str.strip()
        if len(column) == n_users + 1:
            column = column.iloc[1:]
        numeric = pd.to_numeric(column, errors="coerce")
        if numeric.notna().all():
            return numeric.to_numpy(), None
        if (column == "").any():
            raise ParameterError(f"{name}: {path} has empty labels")
        codes, uniques = pd.factorize(column, sort=True)
        return codes, [str(u) for u in uniques]
    arr = np.asarray(load_array(path, name=name))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ParameterError(f"{name} must hold one label per user (a single column), got shape {arr.shape}")
    return arr, None


def inputs_from_files(rho, *, policy_probs=None, scores=None, groups=None, context_probs=None,
                      policy: str = "softmax", beta: float = 30.0, k: int = 10, require_groups: bool = False,
                      names: dict | None = None) -> AuditInputs:
    """The audit's inputs from array files: rewards, and the policy's probabilities or scores.

    Parameters
    ----------
    rho : str or os.PathLike
        True expected rewards in [0, 1] (``.npy`` or ``.csv``; users x items, or users x contexts x
        items in a ``.npy``).
    policy_probs : str or os.PathLike, optional
        The policy's probabilities, of the shape of ``rho``. Give this or ``scores``.
    scores : str or os.PathLike, optional
        A recommender's scores, turned into ``policy`` (:func:`ocef.policies.policy_from_scores`).
    groups : str or os.PathLike, optional
        :func:`load_groups`.
    context_probs : str or os.PathLike, optional
        Context distribution q(x): X values, or users x X (default: uniform).
    policy : {"softmax", "argmax", "ranking", "uniform"}
        Made from ``scores`` (parity and equity of exposure need item categories:
        :func:`inputs_from_environment`).
    beta : float
        Inverse temperature of ``softmax``.
    k : int
        Length of the ``ranking`` policy.
    require_groups : bool
        Raise when ``groups`` is missing.
    names : dict, optional
        How messages name each input (``{"rho": "--rho", ...}``).

    Returns
    -------
    AuditInputs

    Examples
    --------
    >>> np.save("rho.npy", np.array([[0.9, 0.1], [0.2, 0.8]]))
    >>> np.save("scores.npy", np.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> inputs_from_files("rho.npy", scores="scores.npy", policy="argmax").policy.probabilities().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    from ocef.validation import check_positive_int

    if policy_probs is not None and scores is not None:
        raise ParameterError(f"give either {_name(names, 'policy_probs')} or {_name(names, 'scores')} "
                             f"(turned into {_name(names, 'policy')}), not both")
    if policy_probs is None and scores is None or (require_groups and groups is None):
        need = [_name(names, "rho"), f"{_name(names, 'policy_probs')} (or {_name(names, 'scores')})"]
        if require_groups:
            need.append(_name(names, "groups"))
        raise ParameterError(f"give {', '.join(need[:-1])} and {need[-1]}")
    rho_arr = load_array(rho, name=_name(names, "rho"))
    if scores is not None:
        probs = _scores_policy(scores, rho_arr.shape, policy=policy, beta=beta,
                               k=check_positive_int(_name(names, "k"), k), names=names)
        source = f"{policy} policy on the scores of {scores}"
    else:
        probs, source = load_array(policy_probs, name=_name(names, "policy_probs")), str(policy_probs)
        if rho_arr.shape != probs.shape:
            raise ParameterError(f"{_name(names, 'rho')} and {_name(names, 'policy_probs')} must have the same "
                                 f"shape, got {rho_arr.shape} and {probs.shape}")
    labels, group_names = (None, None) if groups is None else \
        load_groups(groups, n_users=rho_arr.shape[0], name=_name(names, "groups"))
    q = None
    if context_probs is not None:
        q = load_array(context_probs, name=_name(names, "context_probs"))
        if q.ndim == 2 and q.shape[0] == 1:
            q = q[0]
    return AuditInputs(rho_arr, probs, labels, group_names, q, f"arrays from {rho} and {source}")


def _scores_policy(path, shape, *, policy, beta, k, names):
    """The named policy on the scores file, which must have the ``shape`` of ``rho``."""
    from ocef.policies.adapters import SCORE_POLICIES, policy_from_scores

    scores = load_array(path, name=_name(names, "scores"))
    if scores.shape != tuple(shape):
        raise ParameterError(f"{_name(names, 'scores')} must have the shape of {_name(names, 'rho')} "
                             f"{tuple(shape)}, got {scores.shape}")
    if policy not in SCORE_POLICIES:
        raise ParameterError(f"{_name(names, 'policy')} must be one of {', '.join(SCORE_POLICIES)} with "
                             f"{_name(names, 'scores')} (parity and equity need item categories: use "
                             f"{_name(names, 'dataset')} or {_name(names, 'policy_probs')}), got {policy!r}")
    try:
        return policy_from_scores(scores, policy, beta=beta, k=k)
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"{_name(names, 'scores')} {path}: {exc}") from None


def environment_policy(env, policy: str = "softmax", *, factors: int = 8, train_fraction: float = 0.2,
                       beta: float = 30.0, k: int = 10, rng=0):
    """The policy ``policy`` on the scores of a recommender fitted to part of ``env``'s ground truth.

    A matrix factorization with ``factors`` latent factors fitted on a ``train_fraction`` of each
    user's entries (``env.estimated_scores``, Do et al. 2022, Sec. 6.1). Equity of exposure needs
    non-negative relevances: its estimates (only its) are clipped to [0, 1] first.

    Parameters
    ----------
    env : ocef.environments.Environment
        A named environment (MovieLens, synthetic).
    policy : {"softmax", "argmax", "uniform", "parity", "equity", "ranking"}
        :func:`ocef.policies.build_policy`.
    factors : int
        Latent factors of the simulated recommender.
    train_fraction : float
        Fraction of each user's ground-truth entries the recommender observes (Do et al. 2022, Sec. 6.1).
    beta : float
        Inverse temperature of ``softmax``.
    k : int
        Length of the ``ranking`` policy.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        An int seed lets the fit be cached on disk.

    Returns
    -------
    ocef.policies.ArrayPolicy

    Examples
    --------
    >>> from ocef.environments.synthetic import SyntheticEnvironment
    >>> environment_policy(SyntheticEnvironment(n_users=6, n_items=8, rng=0), "argmax", factors=2, rng=0).probabilities().shape
    (6, 8)
    """
    from ocef.policies.builders import build_policy

    scores = env.estimated_scores(factors, train_fraction, rng=rng)
    if policy == "equity":
        scores = np.clip(scores, 0.0, 1.0)
    return build_policy(policy, scores, beta=beta, k=k, categories=env.item_categories)


def load_environment(dataset: str, *, data_dir=None, n_users=None, n_items=None, rng=0, names: dict | None = None):
    """The named environment ``dataset`` (its ground truth, item categories and user partitions).

    Parameters
    ----------
    dataset : {"movielens", "synthetic"}
        MovieLens (ML-1M when present in ``data_dir``, else ML-100K; the ground truth is a fitted
        completion of the ratings) or the synthetic low-rank environment.
    data_dir : str or os.PathLike, optional
        Folder of ``ml-1m/`` or ``ml-100k/``.
    n_users, n_items : int, optional
        Kept (MovieLens: those with most ratings) or generated (synthetic).
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Randomness of the synthetic environment.
    names : dict, optional
        How messages name each input.

    Returns
    -------
    ocef.environments.Environment

    Examples
    --------
    >>> load_environment("synthetic", n_users=8, n_items=5).rho.shape
    (8, 5)
    """
    if dataset not in ENVIRONMENTS:
        raise ParameterError(f"{_name(names, 'dataset')} must be one of {', '.join(ENVIRONMENTS)}, got {dataset!r}")
    try:
        if dataset == "movielens":
            from ocef.environments.movielens_env import MovieLensEnvironment as env_class
        else:
            from ocef.environments.synthetic import SyntheticEnvironment as env_class
    except ImportError as exc:  # part of the environments package missing
        raise ParameterError(f"{_name(names, 'dataset')} {dataset} is unavailable in this installation ({exc}); "
                             f"give arrays instead") from None
    if dataset == "movielens":
        return env_class(data_dir, n_users=n_users, n_items=n_items)
    sizes = {key: v for key, v in (("n_users", n_users), ("n_items", n_items)) if v is not None}
    return env_class(**sizes, rng=rng)


def inputs_from_environment(dataset: str, *, partition: str | None = None, data_dir=None, n_users=None,
                            n_items=None, policy: str = "softmax", factors: int = 8, train_fraction: float = 0.2,
                            beta: float = 30.0, k: int = 10, rng=0, names: dict | None = None,
                            env=None) -> AuditInputs:
    """The audit's inputs from a named environment, its simulated recommender and a partition.

    Parameters
    ----------
    dataset : {"movielens", "synthetic"}
        As in :func:`load_environment`.
    partition : str, optional
        One of ``env.partitions``; default :data:`DEFAULT_PARTITION` of the dataset.
    data_dir : str or os.PathLike, optional
        Default ``$OCEF_DATA_DIR`` or ``../shared/data``.
    n_users, n_items : int, optional
        Sizes (a subsample of MovieLens; the synthetic environment's dimensions).
    policy : str
        The policy on the recommender's scores (:func:`environment_policy`).
    factors, train_fraction, beta, k
        As in :func:`environment_policy`.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Of the synthetic environment and the fit (an int seed lets the fit be cached).
    names : dict, optional
        How messages name each input.
    env : ocef.environments.Environment, optional
        An environment already built (``dataset`` then only names it).

    Returns
    -------
    AuditInputs

    Examples
    --------
    >>> inputs = inputs_from_environment("synthetic", n_users=8, n_items=5, factors=2, rng=0)
    >>> inputs.rho.shape, sorted(set(inputs.labels.tolist()))
    ((8, 5), [0, 1, 2, 3])
    """
    if env is None:
        env = load_environment(dataset, data_dir=data_dir, n_users=n_users, n_items=n_items, rng=rng, names=names)
    recommender = environment_policy(env, policy, factors=factors, train_fraction=train_fraction, beta=beta,
                                     k=k, rng=rng)
    partition = partition or DEFAULT_PARTITION[dataset]
    if partition not in env.partitions:
        raise ParameterError(f"{_name(names, 'partition')} must be one of {', '.join(env.partitions)} for "
                             f"{dataset}, got {partition!r}")
    labels, group_names = env.groups(partition)
    description = (f"{env.description}; {policy} policy on a {factors}-factor recommender "
                   f"({train_fraction:g} of entries observed); partition {partition}")
    return AuditInputs(env.rho, recommender, labels, group_names, None, description, partition)


# ------------------------------------------------------------------ the bias metrics' inputs

#: User attributes of Coat that partition its users (``Coat.user_attribute``).
COAT_PARTITIONS = ("gender", "age", "location", "fashioninterest")


@dataclasses.dataclass(frozen=True)
class BiasInputs:
    """What the recommender bias metrics read: scores, truth, one group per user, a description.

    Attributes
    ----------
    scores : numpy.ndarray
        Users x items (NaN: not scored).
    truth : numpy.ndarray or None
        True relevance of the same shape (NaN: unknown), for the opportunity metrics.
    groups : numpy.ndarray
        One group label per user.
    description : str
        Where the inputs came from, for reports.

    Examples
    --------
    >>> BiasInputs(np.zeros((2, 3)), None, np.array(["a", "b"]), "two users").groups.tolist()
    ['a', 'b']
    """

    scores: Any
    truth: Any
    groups: Any
    description: str


def load_matrix(path, *, name: str = "matrix") -> np.ndarray:
    """A 2-d float matrix from ``.npy`` or ``.csv`` (rows are users), where a cell may be unscored.

    In a ``.csv`` an empty cell, ``nan``, ``NaN`` or ``NA`` is NaN; any other non-numeric cell is an
    error; a first line of names is a header.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    name : str
        How error messages name the input.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    DataError
        A non-numeric cell (its row and column are named).

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("scores.csv").write_text("i0,i1,i2\\n0.9,,0.1\\n0.2,0.8,NA\\n")
    >>> load_matrix("scores.csv").tolist()
    [[0.9, nan, 0.1], [0.2, 0.8, nan]]
    """
    path = Path(path)
    if path.suffix.lower() != ".csv":
        return np.asarray(load_array(path, name=name), dtype=float)
    if not path.is_file():
        raise FileNotFoundError(f"{name}: file not found: {path.resolve()}")
    import pandas as pd        # a .csv; a .npy file needs numpy only

    frame = pd.read_csv(path, header=None, dtype=str, keep_default_na=False)
    cells = frame.apply(lambda col: col.str.strip())
    missing = cells.isin(["", "nan", "NaN", "NA"])
    numeric = cells.apply(pd.to_numeric, errors="coerce")
    bad = numeric.isna() & ~missing
    if len(frame) > 1 and bad.iloc[0].all() and not bad.iloc[1:].any().any():
        numeric, bad = numeric.iloc[1:], bad.iloc[1:]              # a header line
    if bad.any().any():
        r, c = np.argwhere(bad.to_numpy())[0]
        raise DataError(f"{name}: {path} holds a non-numeric value {cells.iloc[r, c]!r} (row {r + 1}, column {c + 1})")
    return numeric.to_numpy(dtype=float)


def bias_inputs_from_files(scores, groups, *, truth=None, names: dict | None = None) -> BiasInputs:
    """The bias metrics' inputs from files: a score matrix, group labels and an optional truth.

    Parameters
    ----------
    scores : str or os.PathLike
        Users x items (:func:`load_matrix`).
    groups : str or os.PathLike
        :func:`load_groups`; names are kept as names.
    truth : str or os.PathLike, optional
        True relevance, users x items, for the opportunity metrics.
    names : dict, optional
        How messages name each input.

    Returns
    -------
    BiasInputs

    Examples
    --------
    >>> from pathlib import Path
    >>> _ = Path("s.csv").write_text("0.9,0.1\\n0.2,0.8\\n"), Path("g.csv").write_text("F\\nM\\n")
    >>> bias_inputs_from_files("s.csv", "g.csv").groups.tolist()
    ['F', 'M']
    """
    score_matrix = load_matrix(scores, name=_name(names, "scores"))
    truth_matrix = None if truth is None else load_matrix(truth, name=_name(names, "truth"))
    if score_matrix.ndim != 2:
        raise ParameterError(f"{_name(names, 'scores')} must be a 2-d matrix (users x items), "
                             f"got shape {score_matrix.shape}")
    labels, group_names = load_groups(groups, n_users=score_matrix.shape[0], name=_name(names, "groups"))
    if group_names is not None:
        labels = np.asarray(group_names, dtype=object)[labels]
    return BiasInputs(score_matrix, truth_matrix, labels, f"scores from {scores}")


def bias_inputs_from_dataset(dataset: str, *, partition: str = "gender", data_dir=None, factors: int = 8,
                             train_fraction: float | None = None, n_users=None, n_items=None, rng=0,
                             names: dict | None = None) -> BiasInputs:
    """The bias metrics' inputs from a real data set and a fitted recommender.

    - ``movielens``: a ``factors``-factor recommender fitted on ``train_fraction`` of each user's
      entries of the MovieLens ground truth (Do et al. 2022, Sec. 6.1); truth: the ground truth.
    - ``coat``: a ``factors``-factor Funk SVD fitted on Coat's self-selected ratings, mapped to
      [0, 1]; truth: the ratings of the randomly assigned items (``test.ascii``), NaN elsewhere.

    Parameters
    ----------
    dataset : {"movielens", "coat"}
        The data set (looked for in ``data_dir``; see :mod:`ocef.datasets`).
    partition : str
        The user attribute whose values are the groups (MovieLens: ``env.partitions``; Coat:
        :data:`COAT_PARTITIONS`).
    data_dir : str or os.PathLike, optional
        Default ``$OCEF_DATA_DIR`` or ``../shared/data``.
    factors : int
        Latent factors of the recommender.
    train_fraction : float, optional
        MovieLens only (default 0.2).
    n_users, n_items : int, optional
        MovieLens only: those with most ratings are kept.
    rng : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Randomness of the fit.
    names : dict, optional
        How messages name each input.

    Returns
    -------
    BiasInputs

    Raises
    ------
    ocef.errors.DatasetNotFoundError
        The data set is not in ``data_dir``.

    Examples
    --------
    >>> bias_inputs_from_dataset("coat", data_dir="no-such-folder")
    Traceback (most recent call last):
    ...
    ocef.errors.DatasetNotFoundError: ...
    """
    if dataset == "movielens":
        from ocef.environments.movielens_env import MovieLensEnvironment

        train_fraction = 0.2 if train_fraction is None else train_fraction
        env = MovieLensEnvironment(data_dir, n_users=n_users, n_items=n_items)
        if partition not in env.partitions:
            raise ParameterError(f"{_name(names, 'partition')} must be one of {', '.join(env.partitions)} for "
                                 f"movielens, got {partition!r}")
        labels, group_names = env.groups(partition)
        scores = env.estimated_scores(factors, train_fraction, rng=rng)
        description = (f"{env.description}; {factors}-factor recommender ({train_fraction:g} of entries "
                       f"observed), truth = ground truth rho; groups: {partition}")
        return BiasInputs(scores, env.rho, np.asarray(group_names, dtype=object)[labels], description)
    if dataset != "coat":
        raise ParameterError(f"{_name(names, 'dataset')} must be 'movielens' or 'coat', got {dataset!r}")
    from ocef.datasets import Coat
    from ocef.environments.movielens_env import stars_to_unit

    for key, value in (("n_users", n_users), ("n_items", n_items), ("train_fraction", train_fraction)):
        if value is not None:                  # never silently ignored
            raise ParameterError(f"{_name(names, key)} applies to movielens only, not to coat")
    if partition not in COAT_PARTITIONS:
        raise ParameterError(f"{_name(names, 'partition')} must be one of {', '.join(COAT_PARTITIONS)} for coat, "
                             f"got {partition!r}")
    coat = Coat(data_dir)
    scores = stars_to_unit(coat.funk_svd(factors=factors, rng=rng).scores())
    truth = np.where(coat.test > 0, stars_to_unit(coat.test), np.nan)
    description = (f"Coat, {coat.n_users} users x {coat.n_items} items; {factors}-factor Funk SVD on the "
                   f"self-selected ratings, truth = ratings of random items (test.ascii); groups: {partition}")
    return BiasInputs(scores, truth, coat.user_attribute(partition), description)
