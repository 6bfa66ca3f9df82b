"""Registry of experiments.

An experiment module defines ``NAME``, ``DESCRIPTION`` and
``run(out_dir, *, quick, seed, data_dir, progress) -> list[Path]`` which writes
``out_dir/NAME.csv`` and ``out_dir/NAME.png`` (``out_dir`` is ``OUT/NAME``) and
returns the paths it wrote; optionally ``CLAIMS`` (:class:`ocef.experiments.claims.Claim`,
checked on ``NAME.csv`` by :mod:`ocef.experiments.report`) and ``DATASET``.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from ocef.errors import ParameterError

from ocef.validation import seed_from_rng

# name -> module, in the order `ocef reproduce` runs them.
EXPERIMENTS: dict[str, str] = {
    "bandit-alpha": "ocef.experiments.bandit_alpha",
    "bandit-delta": "ocef.experiments.bandit_delta",
    "bandit-arms": "ocef.experiments.bandit_arms",
    "movielens-audit-alpha": "ocef.experiments.movielens_audit_alpha",
    "movielens-audit-group-size": "ocef.experiments.movielens_audit_group_size",
    "movielens-audit-delta": "ocef.experiments.movielens_audit_delta",
    "movielens-audit-sparsity": "ocef.experiments.movielens_audit_sparsity",
    "reo-synthetic-mse": "ocef.experiments.reo_synthetic_mse",
    "reo-sample-size": "ocef.experiments.reo_sample_size",
    "reo-monitoring": "ocef.experiments.reo_monitoring",
    "reo-ci-methods": "ocef.experiments.reo_ci_methods",
    "reo-ab-boost": "ocef.experiments.reo_ab_boost",
    "reo-random-traffic-value": "ocef.experiments.reo_random_traffic_value",
    "reo-unidentifiability": "ocef.experiments.reo_unidentifiability",
    "reo-real-data": "ocef.experiments.reo_real_data",
    "envy-misspecification": "ocef.experiments.envy_misspecification",
    "measurement-bias": "ocef.experiments.measurement_bias",
    "bias-metrics-movielens": "ocef.experiments.bias_metrics_movielens",
    "pairwise-lemmas": "ocef.experiments.pairwise_lemmas",
    "pairwise-regularization": "ocef.experiments.pairwise_regularization",
    "pairwise-coat": "ocef.experiments.pairwise_coat",
    "fairrec-accuracy": "ocef.experiments.fairrec_accuracy",
    "fairrec-attributes": "ocef.experiments.fairrec_attributes",
    "fairrec-budget": "ocef.experiments.fairrec_budget",
    "fairrec-hyper": "ocef.experiments.fairrec_hyper",
    "fairrec-vanilla": "ocef.experiments.fairrec_vanilla",
    "fairrec-efficiency": "ocef.experiments.fairrec_efficiency",
    "exposure-position": "ocef.experiments.exposure_position",
    "mitigate-real-data": "ocef.experiments.mitigate_real_data",
    "offpolicy-obd": "ocef.experiments.offpolicy_obd",
    "offpolicy-coat": "ocef.experiments.offpolicy_coat",
    "offpolicy-movielens": "ocef.experiments.offpolicy_movielens",
}

#: Measured run times in seconds, (quick, full), of ``ocef reproduce NAME [--quick]`` with a cold
#: cache on the project's 2-core machine shared with other jobs (None: not measured);
#: ``ocef reproduce --list`` prints them.
RUN_SECONDS: dict[str, tuple[float | None, float | None]] = {
    # quick: `ocef reproduce --quick --fresh` of 2026-11-28 (no cached part reused; 257 s in all, 4 min 21 s
    # wall with start-up and report), fitted models from the model cache, beside other engineers' jobs on
    # 2 cores; with an empty model cache (OCEF_CACHE_DIR): 30 min 56 s wall at load average 20-25.
    # full: `ocef reproduce` of 2026-11-25, cold cache, beside other runs and sessions (load 10-16 on
    # 2 cores: full times are several times what a dedicated machine takes); fairrec-accuracy/-attributes
    # full: after i19's permutation tests
    "bandit-alpha": (11.0, 16.0),
    "bandit-delta": (6.0, 9.0),
    "bandit-arms": (3.0, 153.0),
    "movielens-audit-alpha": (18.0, 872.0),
    "movielens-audit-group-size": (17.0, 99.0),
    "movielens-audit-delta": (3.0, 743.0),
    "movielens-audit-sparsity": (10.0, 2725.0),
    "reo-synthetic-mse": (1.0, 14.0),
    "reo-sample-size": (1.0, 8.0),
    "reo-monitoring": (2.0, 20.0),
    "reo-ci-methods": (2.0, 28.0),
    "reo-ab-boost": (2.0, 43.0),
    "reo-random-traffic-value": (5.0, 98.0),
    "reo-unidentifiability": (1.0, 4.0),
    "reo-real-data": (1.0, 6.0),
    "envy-misspecification": (45.0, 3557.0),
    "measurement-bias": (23.0, 729.0),
    "bias-metrics-movielens": (22.0, None),
    "pairwise-lemmas": (1.0, 5.0),
    "pairwise-regularization": (11.0, 171.0),
    "pairwise-coat": (4.0, 10.0),
    "fairrec-accuracy": (14.0, 332.0),
    "fairrec-attributes": (13.0, 42.0),
    "fairrec-budget": (27.0, 1892.0),
    "fairrec-hyper": (3.0, 148.0),
    "fairrec-vanilla": (4.0, 116.0),
    "fairrec-efficiency": (3.0, 80.0),
    "exposure-position": (3.0, None),
    # quick: 7 re-rankers (the expohedron on its group curve: 486 s measured 2026-11-28 in a fresh clone, load 1); full not measured with the LP/expohedron lotteries (581 s without them)
    "mitigate-real-data": (486.0, None),
    # i30, 2026-11-28, beside other sessions (wall clock several times the CPU time)
    "offpolicy-obd": (18.0, 33.0),
    "offpolicy-coat": (8.0, 9.0),
    "offpolicy-movielens": (72.0, 1640.0),
}


def total_seconds(kind: str) -> tuple[float, int]:
    """Sum of the measured run times of one kind and how many experiments it covers (the others
    were not measured).

    Parameters
    ----------
    kind : {"quick", "full"}
        Which run of :data:`RUN_SECONDS`.

    Returns
    -------
    (float, int)
        The sum in seconds and the number of experiments measured.

    Examples
    --------
    >>> total, n = total_seconds("quick")
    >>> n == len(EXPERIMENTS) and total > 0
    True
    """
    i = {"quick": 0, "full": 1}[kind]
    measured = [v[i] for v in RUN_SECONDS.values() if v[i] is not None]
    return float(sum(measured)), len(measured)


def names() -> list[str]:
    """The names of the experiments, in the order ``ocef reproduce`` runs them.

    Each reproduces one figure or table of the five papers (OCEF's bandit and MovieLens figures,
    REO, pairwise fairness, the bias metrics and FairRec's Tables 2-5 and Figs. 4-6).

    Returns
    -------
    list of str
        The keys of :data:`EXPERIMENTS` (e.g. ``"fairrec-attributes"``).

    Examples
    --------
    >>> names()[0], "fairrec-attributes" in names()
    ('bandit-alpha', True)
    """
    return list(EXPERIMENTS)


def module(name: str):
    """The module of experiment ``name``, imported on demand.

    An experiment module defines ``NAME``, ``DESCRIPTION``, ``run(out_dir, *, quick, ...)`` and
    optionally ``CLAIMS`` (checked on its CSV by :mod:`ocef.experiments.report`) and ``DATASET``
    (module docstring).

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    module
        The imported experiment module.

    Raises
    ------
    ocef.errors.ParameterError
        An unknown name, listing the known ones.

    Examples
    --------
    >>> mod = module("fairrec-attributes")
    >>> mod.__name__, mod.NAME
    ('ocef.experiments.fairrec_attributes', 'fairrec-attributes')
    >>> module("fig-99")
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: unknown experiment 'fig-99'; known: bandit-alpha, bandit-delta, ...
    """
    if name not in EXPERIMENTS:
        raise ParameterError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)}")
    return importlib.import_module(EXPERIMENTS[name])


def describe() -> list[tuple[str, str]]:
    """Every experiment's name and one-line description (what ``ocef reproduce --list`` prints).

    Imports every experiment module (about a second the first time, most of it scipy and
    pandas).

    Returns
    -------
    list of (str, str)
        ``(name, DESCRIPTION)`` in the order of :func:`names`; the description names the paper's
        figure or table it reproduces.

    Examples
    --------
    >>> dict(describe())["fairrec-attributes"]
    'Table 5 of Guo et al. 2023 (FairRec): exhaustive UF for gender, gender+age, gender+age+occupation, ...'
    """
    return [(name, module(name).DESCRIPTION) for name in EXPERIMENTS]


def run(name: str, *, out: Path | str = "results", quick: bool = False, rng=0,
        data_dir: Path | str | None = None, progress: bool = True) -> list[Path]:
    """Run experiment ``name``, writing into ``out/name/``; return the written paths.

    ``rng`` (default 0): an int seed, or a SeedSequence or Generator from which one int seed is drawn
    (:func:`ocef.validation.seed_from_rng`); the experiment keys all its randomness on that int
    (the module protocol's ``seed``, as ``ocef reproduce --seed``), so the same int reproduces a run.

    What ``ocef reproduce NAME`` calls. The experiment writes ``out/NAME/NAME.csv`` and
    ``out/NAME/NAME.png`` (and may keep finished parts there, so an interrupted run resumes);
    :mod:`ocef.experiments.report` checks its ``CLAIMS`` on the CSV. :data:`RUN_SECONDS` lists
    measured run times.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    out : str or Path, default "results"
        The output root; the experiment writes into ``out/name/`` (created).
    quick : bool, default False
        The reduced grid (fewer replicates and settings; seconds to a few minutes instead of up
        to an hour).
    rng : None, int, SeedSequence or Generator, default 0
        The randomness (above).
    data_dir : str or Path, optional
        The data root for experiments on real data (MovieLens, Coat, OBD); default
        ``$OCEF_DATA_DIR``, then ``../shared/data``.
    progress : bool, default True
        Print a progress bar on stderr.

    Returns
    -------
    list of Path
        The files written (the CSV and the figure).

    Raises
    ------
    ocef.errors.ParameterError
        An unknown name (before anything is written).
    ocef.errors.DatasetNotFoundError
        When the experiment's data set is absent (``ocef reproduce`` reports it as skipped).

    Examples
    --------
    >>> run("fig-99")
    Traceback (most recent call last):
    ...
    ocef.errors.ParameterError: unknown experiment 'fig-99'; known: bandit-alpha, ...

    A real run takes seconds even with ``quick=True`` (4 s for this one on a loaded 2-core
    machine), too long for a doctest:

    >>> import tempfile
    >>> paths = run("reo-unidentifiability", out=tempfile.mkdtemp(), quick=True, progress=False)  # doctest: +SKIP
    >>> [p.name for p in paths]                                                                     # doctest: +SKIP
    ['reo-unidentifiability.csv', 'reo-unidentifiability.png']
    """
    seed = seed_from_rng(rng)
    mod = module(name)
    out_dir = Path(out) / name
    out_dir.mkdir(parents=True, exist_ok=True)
    return mod.run(out_dir, quick=quick, seed=seed,
                   data_dir=None if data_dir is None else Path(data_dir), progress=progress)
